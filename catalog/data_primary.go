package catalog

import "net/http"

// dataPrimary returns the Data API's primary-network routes (glacier.json's
// "Primary Network" tags and the AVAX supply), in the spec's order. It is
// longer than 80 lines because it is one table, a line or two a route, read
// against the spec: split, the table would be read in pieces.
func dataPrimary() []Route {
	get, post := http.MethodGet, http.MethodPost
	primaryChain := pathP("blockchainId", PrimaryBlockchainID...)
	xChain := pathP("blockchainId", XBlockchainID...)
	// bodyAddresses is the address list of the v2 POST routes: the body's
	// one field, bounded by avaedge (the spec gives no bound; 1024 is the
	// v2 routes' largest page and avalanchego's own getUTXOs limit).
	bodyAddresses := Param{Name: "addresses", In: Body, Required: true, Format: AddressList, MaxItems: 1024}
	utxoFilters := []Param{queryP("assetId"), Param{Name: "minUtxoAmount", Kind: Number, Min: 0, HasMin: true},
		boolP("includeSpent"), enumP("sortBy", []string{"timestamp", "amount"}), sortOrder}
	return []Route{
		rest(Data, "getTxByHash", get, "/v1/networks/{network}/blockchains/{blockchainId}/transactions/{txHash}", 20, immutable,
			network, primaryChain, pathP("txHash")),
		rest(Data, "listLatestPrimaryNetworkTransactions", get, "/v1/networks/{network}/blockchains/{blockchainId}/transactions", 100, short,
			network, primaryChain, addrList, queryP("l1ValidationId"), txTypes, startTime, endTime,
			pageToken, pageSize(100, "10"), sortOrder),
		rest(Data, "listActivePrimaryNetworkStakingTransactions", get, "/v1/networks/{network}/blockchains/{blockchainId}/transactions:listStaking", 100, medium,
			network, pathP("blockchainId", PBlockchainID...), addrList, txTypes, startTime, endTime,
			pageToken, pageSize(100, "10"), sortOrder),
		withCheck(rest(Data, "listPendingPrimaryNetworkRewards", get, "/v1/networks/{network}/rewards:listPending", 100, medium,
			network, addrList, nodeIDs, pageToken, pageSize(100, "10"), sortOrder), atLeastOne("addresses", "nodeIds")),
		rest(Data, "listHistoricalPrimaryNetworkRewards", get, "/v1/networks/{network}/rewards", 100, medium,
			network, addrList, pageToken, pageSize(100, "10"), nodeIDs, sortOrder, currency),
		rest(Data, "getUtxosByAddresses", get, "/v1/networks/{network}/blockchains/{blockchainId}/utxos", 100, medium,
			append([]Param{network, primaryChain, addrList, pageToken, pageSize(100, "10")}, utxoFilters...)...),
		rest(Data, "getUtxosByAddressesV2", post, "/v1/networks/{network}/blockchains/{blockchainId}/utxos", 100, never,
			append([]Param{network, primaryChain, bodyAddresses, pageToken, pageSize(1024, "10")}, utxoFilters...)...),
		rest(Data, "getLastActivityTimestampByAddresses", get, "/v1/networks/{network}/blockchains/{blockchainId}/lastActivityTimestampByAddresses", 100, short,
			network, primaryChain, addrList),
		rest(Data, "getLastActivityTimestampByAddressesV2", post, "/v1/networks/{network}/blockchains/{blockchainId}/lastActivityTimestampByAddresses", 100, never,
			network, primaryChain, bodyAddresses),
		rest(Data, "getBalancesByAddresses", get, "/v1/networks/{network}/blockchains/{blockchainId}/balances", 100, short,
			network, primaryChain, Param{Name: "blockTimestamp", Kind: Integer, Format: UnixTime}, addrList),
		rest(Data, "getBlockById", get, "/v1/networks/{network}/blockchains/{blockchainId}/blocks/{blockId}", 100, immutable,
			network, primaryChain, pathP("blockId")),
		rest(Data, "listPrimaryNetworkBlocksByNodeId", get, "/v1/networks/{network}/blockchains/{blockchainId}/nodes/{nodeId}/blocks", 20, medium,
			network, primaryChain, pathP("nodeId"), startTime, endTime, pageToken, pageSize(100, "10")),
		rest(Data, "listLatestPrimaryNetworkBlocks", get, "/v1/networks/{network}/blockchains/{blockchainId}/blocks", 20, short,
			network, primaryChain, startTime, endTime, pageToken, pageSize(100, "10")),
		rest(Data, "listLatestXChainVertices", get, "/v1/networks/{network}/blockchains/{blockchainId}/vertices", 20, short,
			network, xChain, pageToken, pageSize(100, "10")),
		rest(Data, "getVertexByHash", get, "/v1/networks/{network}/blockchains/{blockchainId}/vertices/{vertexHash}", 20, immutable,
			network, xChain, pathP("vertexHash")),
		rest(Data, "getVertexByHeight", get, "/v1/networks/{network}/blockchains/{blockchainId}/vertices:listByHeight", 20, immutable,
			network, xChain, Param{Name: "vertexHeight", Kind: Integer, Required: true, Min: 0, HasMin: true},
			pageToken, pageSize(100, "10"), sortOrder),
		rest(Data, "getAssetDetails", get, "/v1/networks/{network}/blockchains/{blockchainId}/assets/{assetId}", 100, immutable,
			network, xChain, pathP("assetId")),
		rest(Data, "listAssetTransactions", get, "/v1/networks/{network}/blockchains/{blockchainId}/assets/{assetId}/transactions", 100, short,
			network, xChain, pathP("assetId"), txTypes, startTime, endTime, pageToken, pageSize(100, "10")),
		rest(Data, "getChainIdsForAddresses", get, "/v1/networks/{network}/addresses:listChainIds", 100, medium,
			network, Param{Name: "addresses", Required: true, Format: AddressList}),
		rest(Data, "getNetworkDetails", get, "/v1/networks/{network}", 100, medium, network),
		rest(Data, "listBlockchains", get, "/v1/networks/{network}/blockchains", 20, medium,
			network, pageToken, pageSize(10000, "100"), sortOrder),
		rest(Data, "getBlockchainById", get, "/v1/networks/{network}/blockchains/{blockchainId}", 20, immutable,
			network, pathP("blockchainId")),
		rest(Data, "listSubnets", get, "/v1/networks/{network}/subnets", 20, medium,
			network, pageToken, pageSize(10000, "100"), sortOrder),
		rest(Data, "getSubnetById", get, "/v1/networks/{network}/subnets/{subnetId}", 20, medium,
			network, pathP("subnetId")),
		rest(Data, "listValidators", get, "/v1/networks/{network}/validators", 20, medium,
			network, pageToken, pageSize(100, "10"), nodeIDs,
			enumP("sortBy", []string{"blockIndex", "delegationCapacity", "timeRemaining", "delegationFee", "uptimePerformance"}),
			sortOrder, enumP("validationStatus", ValidationStatuses),
			queryP("minDelegationCapacity"), queryP("maxDelegationCapacity"),
			numP("minTimeRemaining", 0, 2147483647), numP("maxTimeRemaining", 0, 2147483647),
			numP("minFeePercentage", 2, 100), numP("maxFeePercentage", 2, 100),
			numP("minUptimePerformance", 0, 100), numP("maxUptimePerformance", 0, 100),
			queryP("subnetId")),
		rest(Data, "getSingleValidatorDetails", get, "/v1/networks/{network}/validators/{nodeId}", 20, medium,
			network, pathP("nodeId"), pageToken, pageSize(100, "10"), enumP("validationStatus", ValidationStatuses), sortOrder),
		rest(Data, "listDelegators", get, "/v1/networks/{network}/delegators", 20, medium,
			network, pageToken, pageSize(100, "10"), Param{Name: "rewardAddresses", Format: AddressList}, sortOrder,
			enumP("delegationStatus", DelegationStatuses), nodeIDs),
		rest(Data, "listL1Validators", get, "/v1/networks/{network}/l1Validators", 20, medium,
			network, pageToken, pageSize(100, "10"), queryP("l1ValidationId"), boolP("includeInactiveL1Validators"),
			queryP("nodeId"), queryP("subnetId")),
		rest(Data, "getAvaxSupply", get, "/v1/avax/supply", 20, medium),
	}
}
