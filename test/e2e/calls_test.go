package e2e

import (
	"encoding/hex"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// call is one request to a route.
type call struct {
	Method string
	Path   string // with the query
	Body   []byte
	// RPCError, when set, is part of the JSON-RPC error message a valid
	// call gets from every world of the suite (a write the local world has
	// no implementation of), instead of a result.
	RPCError string
	// Status, when set, is the status a valid call gets from every world
	// of the suite instead of the route's success status: the spec's 404
	// for an id that names nothing there.
	Status int
}

// nodeParams are valid parameters for each info.* and avm.* method, given
// ewoq's X address, an X-Chain block and transaction. Methods absent here
// take no parameters.
func nodeParams(xAddr, blockID, txID string) map[string]string {
	return map[string]string{
		"info.getBlockchainID":    `{"alias":"X"}`,
		"info.isBootstrapped":     `{"chain":"X"}`,
		"info.peers":              `{}`,
		"info.uptime":             `{}`,
		"avm.getAllBalances":      fmt.Sprintf(`{"address":%q}`, xAddr),
		"avm.getAssetDescription": `{"assetID":"AVAX"}`,
		"avm.getBalance":          fmt.Sprintf(`{"address":%q,"assetID":"AVAX"}`, xAddr),
		"avm.getBlock":            fmt.Sprintf(`{"blockID":%q,"encoding":"hex"}`, blockID),
		"avm.getBlockByHeight":    `{"height":"1","encoding":"hex"}`,
		"avm.getTx":               fmt.Sprintf(`{"txID":%q,"encoding":"json"}`, txID),
		"avm.getTxStatus":         fmt.Sprintf(`{"txID":%q}`, txID),
		"avm.getUTXOs":            fmt.Sprintf(`{"addresses":[%q],"limit":5,"encoding":"hex"}`, xAddr),
		"avm.issueTx":             `{"tx":"0x00","encoding":"hex"}`, // no transaction: refused
		// The EVM methods priced apart, on the C-Chain (the dev chain).
		"eth_call":             fmt.Sprintf(`[{"to":%q,"data":"0x"},"latest"]`, ewoqEVM),
		"eth_estimateGas":      fmt.Sprintf(`[{"from":%q,"to":%q,"value":"0x1"}]`, ewoqEVM, ewoqEVM),
		"eth_createAccessList": fmt.Sprintf(`[{"from":%q,"to":%q},"latest"]`, ewoqEVM, ewoqEVM),
		"eth_getLogs":          `[{"fromBlock":"latest"}]`,
		"eth_simulateV1":       fmt.Sprintf(`[{"blockStateCalls":[{"calls":[{"from":%q,"to":%q,"value":"0x1"}]}]},"latest"]`, ewoqEVM, ewoqEVM),
	}
}

// callsFor returns valid requests for a catalogued route in w. It fails the
// test for a route it does not know, so a new route cannot go untested.
func callsFor(t testing.TB, r route, w *world) []call {
	t.Helper()
	if cs := primaryCalls(r.Name, w); cs != nil {
		return cs
	}
	if cs := evmCalls(r.Name, w); cs != nil {
		return cs
	}
	if cs := metricsCalls(r.Name, w); cs != nil {
		return cs
	}
	if r.Endpoint == "platform" || r.Endpoint == "avax" {
		return pchainCalls(r, w)
	}
	if r.Endpoint != "" {
		params := nodeParams(w.XAddrLocal, w.XBlockID, w.XTxID)
		switch r.Name {
		case "evm.rpc":
			return []call{{Method: "POST", Path: r.Path, Body: rpcBody(7, "eth_blockNumber", "[]")},
				{Method: "POST", Path: r.Path, Body: rpcBody(8, "eth_chainId", "[]")}}
		case "avm.issueTx":
			// A write: the suite's worlds are the local one (directly or
			// behind the recording upstream), which issues nothing.
			return []call{{Method: "POST", Path: r.Path, Body: rpcBody(7, r.Name, params[r.Name]),
				RPCError: "avm.issueTx: the devnet takes no transactions"}}
		}
		return []call{{Method: "POST", Path: r.Path, Body: rpcBody(7, r.Name, params[r.Name])}}
	}
	t.Fatalf("catalogued route %s (%s %s) has no request in the e2e suite: add one to callsFor", r.Name, r.Method, r.Path)
	return nil
}

// pchainCalls are the requests of the P-Chain's and the C-Chain's atomic
// methods: the local world answers the reads its index serves (issue 37)
// from its P-Chain and its staker set, and says of the writes that it
// takes no transactions, of the supply that only a followed node records
// it, and of any read it does not answer that only a node does.
func pchainCalls(r route, w *world) []call {
	pAddr := "P-" + strings.TrimPrefix(w.XAddrLocal, "X-")
	cAddr := "C-" + strings.TrimPrefix(w.XAddrLocal, "X-")
	built := map[string]string{
		"platform.getHeight":             `{}`,
		"platform.getTimestamp":          `{}`,
		"platform.getStakingAssetID":     `{}`,
		"platform.getTxStatus":           fmt.Sprintf(`{"txID":%q}`, w.L1ConvTx),
		"platform.getTx":                 fmt.Sprintf(`{"txID":%q,"encoding":"json"}`, w.L1ConvTx),
		"platform.getBalance":            fmt.Sprintf(`{"addresses":[%q]}`, pAddr),
		"platform.getUTXOs":              fmt.Sprintf(`{"addresses":[%q],"limit":10}`, pAddr),
		"platform.getCurrentValidators":  `{}`,
		"platform.getTotalStake":         `{"subnetID":"11111111111111111111111111111111LpoYY"}`,
		"platform.getSubnets":            `{}`,
		"platform.getSubnet":             fmt.Sprintf(`{"subnetID":%q}`, w.L1),
		"platform.getBlockchains":        `{}`,
		"platform.validates":             `{"subnetID":"11111111111111111111111111111111LpoYY"}`,
		"platform.validatedBy":           `{"blockchainID":"11111111111111111111111111111111LpoYY"}`,
		"platform.getBlockByHeight":      `{"height":"1","encoding":"json"}`,
		"platform.getBlock":              fmt.Sprintf(`{"blockID":%q,"encoding":"json"}`, w.PBlock),
		"platform.getBlockchainStatus":   `{"blockchainID":"X"}`,
		"platform.getFeeConfig":          `{}`,
		"platform.getValidatorFeeConfig": `{}`,
		"platform.getFeeState":           `{}`,
		"platform.getValidatorFeeState":  `{}`,
		"platform.getProposedHeight":     `{}`,
		"platform.getMinStake":           `{}`,
		"platform.getStake":              fmt.Sprintf(`{"addresses":[%q]}`, pAddr),
		"platform.getValidatorsAt":       `{"height":"proposed"}`,
		"platform.getAllValidatorsAt":    `{"height":"proposed"}`,
		"platform.sampleValidators":      `{"size":"1"}`,
		"platform.getRewardUTXOs":        fmt.Sprintf(`{"txID":%q}`, w.L1ConvTx),
		"platform.getL1Validator":        fmt.Sprintf(`{"validationID":%q}`, w.ValidationID),
		"avax.getUTXOs":                  fmt.Sprintf(`{"addresses":[%q],"sourceChain":"X"}`, cAddr),
		"avax.getAtomicTxStatus":         fmt.Sprintf(`{"txID":%q}`, w.L1ConvTx),
	}
	c := call{Method: "POST", Path: r.Path}
	if p, ok := built[r.Name]; ok {
		c.Body = rpcBody(7, r.Name, p)
		return []call{c}
	}
	c.Body = rpcBody(7, r.Name, `{}`)
	switch r.Name {
	case "platform.issueTx", "avax.issueTx":
		c.RPCError = "the devnet takes no transactions"
	case "platform.getCurrentSupply":
		c.RPCError = "no supply the node answered"
	case "avax.getAtomicTx":
		c.Body = rpcBody(7, r.Name, fmt.Sprintf(`{"txID":%q}`, w.L1ConvTx))
		c.RPCError = "could not find tx " + w.L1ConvTx
	default:
		c.RPCError = r.Name + " is answered by the node only"
	}
	return []call{c}
}

func get(p string) call { return call{Method: "GET", Path: p} }

// primaryCalls are the requests of the primary-network routes, the ICM
// routes and the signature aggregator; nil for another route.
func primaryCalls(name string, w *world) []call {
	n, esc := w.Network, url.QueryEscape
	nets := "/v1/networks/" + n
	post := func(p, body string) call { return call{Method: "POST", Path: p, Body: []byte(body)} }
	switch name {
	case "aggregateSignatures":
		return []call{post("/v1/signatureAggregator/"+n+"/aggregateSignatures", fmt.Sprintf(`{"message":"%s"}`, hex.EncodeToString(w.Warp)))}
	case "getAggregatedSignatures":
		return []call{get("/v1/signatureAggregator/" + n + "/aggregateSignatures/" + w.L1ConvTx)}
	case "listSubnets":
		return []call{get(nets + "/subnets?pageSize=5")}
	case "getSubnetById":
		return []call{get(nets + "/subnets/" + w.L1)}
	case "listLatestPrimaryNetworkBlocks":
		return []call{get(nets + "/blockchains/p-chain/blocks?pageSize=3"), get(nets + "/blockchains/x-chain/blocks")}
	case "getBlockById":
		return []call{get(nets + "/blockchains/p-chain/blocks/" + w.PBlock)}
	case "listLatestPrimaryNetworkTransactions":
		return []call{get(nets + "/blockchains/p-chain/transactions?addresses=" + esc(w.PAddr) + "&txTypes=ImportTx&txTypes=ExportTx"),
			get(nets + "/blockchains/x-chain/transactions?pageSize=5&txTypes=CreateAssetTx,ImportTx")}
	case "getTxByHash":
		return []call{get(nets + "/blockchains/p-chain/transactions/" + w.L1ConvTx), get(nets + "/blockchains/x-chain/transactions/" + w.XTxID)}
	case "listActivePrimaryNetworkStakingTransactions":
		return []call{get(nets + "/blockchains/p-chain/transactions:listStaking?addresses=" + esc(w.PAddr))}
	case "listL1Validators":
		return []call{get(nets + "/l1Validators"), get(nets + "/l1Validators?subnetId=" + w.L1)}
	case "getUtxosByAddresses":
		return []call{get(nets + "/blockchains/p-chain/utxos?addresses=" + esc(w.PAddr)),
			get(nets + "/blockchains/x-chain/utxos?includeSpent=true&sortBy=amount&addresses=" + esc(w.XAddr))}
	case "getUtxosByAddressesV2":
		return []call{post(nets+"/blockchains/p-chain/utxos?pageSize=20", fmt.Sprintf(`{"addresses":%q}`, w.PAddr))}
	case "getLastActivityTimestampByAddresses":
		return []call{get(nets + "/blockchains/x-chain/lastActivityTimestampByAddresses?addresses=" + esc(w.XAddr))}
	case "getLastActivityTimestampByAddressesV2":
		return []call{post(nets+"/blockchains/p-chain/lastActivityTimestampByAddresses", fmt.Sprintf(`{"addresses":%q}`, w.PAddr))}
	case "getBalancesByAddresses":
		return []call{get(nets + "/blockchains/p-chain/balances?addresses=" + esc(w.PAddr)),
			get(nets + "/blockchains/x-chain/balances?addresses=" + esc(w.XAddr))}
	case "listPendingPrimaryNetworkRewards":
		return []call{get(nets + "/rewards:listPending?nodeIds=" + w.NodeID)}
	case "listHistoricalPrimaryNetworkRewards":
		return []call{get(nets + "/rewards?addresses=" + esc(w.PAddr))}
	case "getSingleValidatorDetails":
		return []call{get(nets + "/validators/" + w.NodeID)}
	case "listValidators":
		return []call{get(nets + "/validators?pageSize=3&validationStatus=active&sortBy=delegationFee&sortOrder=asc")}
	case "listDelegators":
		return []call{get(nets + "/delegators?pageSize=5")}
	case "getVertexByHeight":
		return []call{get(nets + "/blockchains/x-chain/vertices:listByHeight?vertexHeight=1")}
	case "listLatestXChainVertices":
		return []call{get(nets + "/blockchains/x-chain/vertices?pageSize=3")}
	case "getVertexByHash":
		c := get(nets + "/blockchains/x-chain/vertices/" + w.Vertex)
		if w.Vertex == noVertex {
			c.Status = http.StatusNotFound
		}
		return []call{c}
	case "getAssetDetails":
		return []call{get(nets + "/blockchains/x-chain/assets/" + w.AssetID)}
	case "listAssetTransactions":
		return []call{get(nets + "/blockchains/x-chain/assets/" + w.AssetID + "/transactions?txTypes=BaseTx&txTypes=ImportTx")}
	case "listPrimaryNetworkBlocksByNodeId":
		return []call{get(nets + "/blockchains/p-chain/nodes/" + w.NodeID + "/blocks")}
	case "getChainIdsForAddresses":
		return []call{get(nets + "/addresses:listChainIds?addresses=" + esc(w.PAddr))}
	case "getNetworkDetails":
		return []call{get(nets)}
	case "listBlockchains":
		return []call{get(nets + "/blockchains")}
	case "getBlockchainById":
		return []call{get(nets + "/blockchains/" + w.BlockchainID)}
	case "getAvaxSupply":
		return []call{get("/v1/avax/supply")}
	case "getIcmMessage":
		return []call{get("/v1/icm/messages/" + w.IcmMessage)}
	case "getTeleporterMessage":
		return []call{get("/v1/teleporter/messages/" + w.IcmMessage)}
	case "listIcmMessages":
		return []call{get("/v1/icm/messages"), get("/v1/icm/messages?from=" + ewoqEVM)}
	case "listTeleporterMessages":
		return []call{get("/v1/teleporter/messages")}
	case "listIcmMessagesByAddress":
		return []call{get("/v1/icm/addresses/" + ewoqEVM + "/messages")}
	case "listTeleporterMessagesByAddress":
		return []call{get("/v1/teleporter/addresses/" + ewoqEVM + "/messages")}
	case "data-health-check":
		return []call{get("/v1/health-check")}
	case "live-check":
		return []call{get("/v1/live-check")}
	}
	return nil
}

// evmCalls are the requests of the EVM routes on w's chain; nil for
// another route.
func evmCalls(name string, w *world) []call {
	chain := "/v1/chains/" + w.ChainID
	ewoq := chain + "/addresses/" + ewoqEVM
	switch name {
	case "getDeploymentTransaction":
		return []call{get(chain + "/contracts/" + w.NFT + "/transactions:getDeployment")}
	case "listContractDeployments":
		return []call{get(chain + "/contracts/" + ewoqEVM + "/deployments")}
	case "getContractMetadata":
		return []call{get(chain + "/addresses/" + w.NFT)}
	case "listErc1155Transactions":
		return []call{get(ewoq + "/transactions:listErc1155")}
	case "listNativeTransactions":
		return []call{get(ewoq + "/transactions:listNative")}
	case "listErc20Transactions":
		return []call{get(ewoq + "/transactions:listErc20")}
	case "listErc721Transactions":
		return []call{get(ewoq + "/transactions:listErc721")}
	case "listInternalTransactions":
		return []call{get(ewoq + "/transactions:listInternals")}
	case "listTransactions":
		return []call{get(ewoq + "/transactions?sortOrder=asc")}
	case "listTransactionsV2":
		return []call{get("/v2/chains/" + w.ChainID + "/addresses/" + ewoqEVM + "/transactions")}
	case "listTransfers":
		return []call{get(chain + "/tokens/" + w.NFT + "/transfers")}
	case "listErc1155Balances":
		return []call{get(ewoq + "/balances:listErc1155")}
	case "listErc721Balances":
		return []call{get(ewoq + "/balances:listErc721")}
	case "listCollectibleBalances":
		return []call{get(ewoq + "/balances:listCollectibles")}
	case "listErc20Balances":
		return []call{get(ewoq + "/balances:listErc20")}
	case "getNativeBalance":
		return []call{get(ewoq + "/balances:getNative")}
	case "getLatestBlocks":
		return []call{get(chain + "/blocks?pageSize=3")}
	case "getBlock":
		return []call{get(chain + "/blocks/" + w.BlockHash)}
	case "getTransactionsForBlock":
		return []call{get(chain + "/blocks/" + w.BlockHash + "/transactions")}
	case "getTransaction":
		return []call{get(chain + "/transactions/" + w.TxHash)}
	case "listLatestTransactions":
		// The C-Chain's id on the network swept answers as the local chain.
		return []call{get(chain + "/transactions?status=success"), get("/v1/chains/" + cChainIDs[w.Network] + "/transactions?status=failed")}
	case "getTokenDetails":
		return []call{get(chain + "/nfts/collections/" + w.NFT + "/tokens/" + w.TokenID)}
	case "listTokens":
		return []call{get(chain + "/nfts/collections/" + w.NFT + "/tokens")}
	case "supportedChains":
		return []call{get("/v1/chains")}
	case "getChainInfo":
		return []call{get(chain)}
	case "listAddressChains":
		return []call{get("/v1/address/" + ewoqEVM + "/chains")}
	case "getAddressChains":
		return []call{get("/v1/chains/address/" + ewoqEVM)}
	case "listLatestTransactionsAllChains":
		return []call{get("/v1/transactions"), get("/v1/transactions?status=success")}
	case "listAllLatestTransactions":
		return []call{get("/v1/chains/allTransactions")}
	case "listLatestBlocksAllChains":
		return []call{get("/v1/blocks")}
	case "listAllLatestBlocks":
		return []call{get("/v1/chains/allBlocks")}
	}
	return nil
}

// metricsCalls are the requests of the Metrics API's routes; nil for
// another route.
func metricsCalls(name string, w *world) []call {
	c := w.ChainID
	switch name {
	case "getEvmChainMetrics":
		return []call{get("/v2/chains/" + c + "/metrics/txCount?timeInterval=day&pageSize=5"),
			get("/v2/chains/" + c + "/metrics/cumulativeContracts?timeInterval=day&pageSize=5"),
			get("/v2/chains/" + c + "/metrics/activeAddresses?timeInterval=hour&pageSize=5")}
	case "getEvmChainRollingWindowMetrics":
		return []call{get("/v2/chains/" + c + "/rollingWindowMetrics/txCount")}
	case "listChains":
		return []call{get("/v2/chains")}
	case "getChain":
		return []call{get("/v2/chains/" + c)}
	case "getAvgTps":
		return []call{get("/v1/avg_tps/" + c)}
	case "getICMTimeseries":
		return []call{get("/v2/icm/timeseries?timeInterval=day&pageSize=5")}
	case "getICMSummary":
		return []call{get("/v2/icm/summary?groupBy=destBlockchainId")}
	case "getStakingMetrics":
		return []call{get("/v2/networks/" + w.Network + "/metrics/validatorCount?pageSize=5")}
	case "getTotalL1ValidatorMetrics":
		return []call{get("/v2/validators/metrics/totalValidatorFeesDaily")}
	case "getMetricsByValidationId":
		return []call{get("/v2/validation/" + w.ValidationID + "/metrics/validationFeesDaily")}
	case "getMetricsByNodeId":
		return []call{get("/v2/validator/" + w.L1NodeID + "/metrics/perNodeDailyFeesPaid")}
	case "getMetricsBySubnetId":
		return []call{get("/v2/subnet/" + w.L1 + "/metrics/perSubnetDailyFeesPaid")}
	case "getAddressesByBtcbBridged":
		return []call{get("/v2/chains/43114/btcb/bridged:getAddresses?threshold=1")}
	case "getValidatorsByDateRange":
		return []call{get("/v2/subnets/" + w.L1 + "/validators:getAddresses")}
	case "getTeleporterMetricsByChain":
		return []call{get("/v2/chains/" + c + "/teleporterMetrics/teleporterTotalTxnCount")}
	case "getNftHoldersByContractAddress":
		return []call{get("/v2/chains/" + c + "/contracts/" + w.NFT + "/nfts:listHolders")}
	case "getAddressesByBalanceOverTime":
		return []call{get("/v2/chains/" + c + "/contracts/" + w.NFT + "/balances?threshold=1")}
	case "metrics-health-check":
		return []call{get("/v2/health-check")}
	case "metrics-live-check":
		return []call{get("/v2/live-check")}
	}
	return nil
}
