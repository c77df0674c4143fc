// Package catalog is avaedge's route catalogue: every route the edge knows
// (every public read of the Data API's and the Metrics API's OpenAPI files,
// the legacy reads released SDKs still call, and the node's JSON-RPC
// methods), each with its parameters and their validation rules, its price
// in compute units, its cache class and its canonical cache-key query; and
// the node's endpoint paths. Catalogue is the one entry point; the tables
// are split by area (data_primary.go, data_evm.go, data_icm.go, metrics.go,
// health.go, legacy.go).
//
// The catalogue is the one place a parameter rule is written: the edge
// validates a request with Route.Validate and the local world receives the
// Values it returns, defaults filled, without validating again. Messages
// are those of the real services (NestJS class-validator wording, e.g.
// "pageSize must not be greater than 100").
//
// # Costs
//
// REST costs are the services' published ones: the Data API's and the
// Metrics API's "Rate Limits" pages (weights Free 1, Small 10, Medium 20,
// Large 50, XL 100, XXL 200 CU for the Data API; Free 1, Small 20, Medium
// 100, Large 500, XL 1000, XXL 3000 for the Metrics API):
//
//	Data API
//	/v1/health-check                                            20
//	/v1/address/{address}/chains                                20
//	/v1/transactions, /v1/blocks                                20
//	/v1/chains/{chainId}/nfts/collections/{address}/tokens[/{tokenId}]  20
//	/v1/networks/{network}/blockchains/{blockchainId}/transactions/{txHash}  20
//	.../transactions, .../transactions:listStaking              100
//	/v1/networks/{network}/rewards:listPending, /rewards        100
//	.../utxos, .../balances, .../blocks/{blockId}               100
//	.../nodes/{nodeId}/blocks, .../blocks                       20
//	.../vertices, .../vertices/{vertexHash}, .../vertices:listByHeight  20
//	.../assets/{assetId}, .../assets/{assetId}/transactions     100
//	/v1/networks/{network}/addresses:listChainIds               100
//	/v1/networks/{network}                                      100
//	/v1/networks/{network}/blockchains                          20
//	/v1/networks/{network}/subnets[/{subnetId}]                 20
//	/v1/networks/{network}/validators[/{nodeId}], /delegators, /l1Validators  20
//	/v1/teleporter/messages[/{messageId}], /v1/teleporter/addresses/{address}/messages  20
//	/v1/icm/messages[/{messageId}], /v1/icm/addresses/{address}/messages  20
//	/v1/signatureAggregator/{network}/aggregateSignatures[/{txHash}]  20
//	/v1/chains/{chainId}/addresses/{address}/balances:*         20
//	/v1/chains/{chainId}/blocks, /blocks/{blockId}              10
//	/v1/chains/{chainId}/contracts/{address}/transactions:getDeployment, /deployments  20
//	/v1/chains/{chainId}/addresses/{address}                    20
//	/v1/chains, /v1/chains/{chainId}                            1
//	/v1/chains/address/{address}, /allTransactions, /allBlocks  1
//	/v1/chains/{chainId}/tokens/{address}/transfers             20
//	/v1/chains/{chainId}/addresses/{address}/transactions[:*]   20
//	/v1/chains/{chainId}/transactions[/{txHash}], /blocks/{blockId}/transactions  20
//	Metrics API
//	/v2/health-check, /v2/chains, /v2/chains/{chainId}          1
//	/v2/chains/{chainId}/metrics/{metric}                       100
//	/v2/chains/{chainId}/teleporterMetrics/{metric}             100
//	/v2/chains/{chainId}/rollingWindowMetrics/{metric}          100
//	/v2/networks/{network}/metrics/{metric}                     100
//	/v2/chains/{chainId}/contracts/{address}/nfts:listHolders   500
//	/v2/chains/{chainId}/contracts/{address}/balances           1000
//	/v2/chains/43114/btcb/bridged:getAddresses                  500
//	/v2/subnets/{subnetId}/validators:getAddresses              500
//
// Routes the pages do not price take their closest priced sibling's cost:
// /v1/live-check 20 and /v2/live-check 1 (their services' health checks);
// the v2 POSTs of utxos and lastActivityTimestampByAddresses, and the GET
// of the latter, 100 (utxos, balances); getBlockchainById 20 (the
// blockchains list); /v1/avax/supply 20 (Medium, the Data API's common
// weight); listTransactionsV2 20 (its v1); the ICM series and summary and
// the four L1 validator fee series 100 (the other metric series);
// /v1/avg_tps/{chainId} 100 (a metric series). The pages are copied in
// testdata/, and TestPublishedCosts checks every route against them.
package catalog
