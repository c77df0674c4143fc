package catalog

import "net/http"

// dataEVM returns the Data API's EVM routes (glacier.json's "EVM" and "NFTs"
// tags): chains, blocks, transactions, balances, contracts and NFTs.
func dataEVM() []Route {
	get := http.MethodGet
	// A list of an address's transactions of one kind.
	txList := func(name, verb string) Route {
		return rest(Data, name, get, "/v1/chains/{chainId}/addresses/{address}/transactions:"+verb, 20, short,
			chainID, address, startBlock, endBlock, pageToken, pageSize(100, "10"))
	}
	return []Route{
		rest(Data, "listAddressChains", get, "/v1/address/{address}/chains", 20, medium, address),
		rest(Data, "listLatestTransactionsAllChains", get, "/v1/transactions", 20, short,
			pageToken, pageSize(100, "10"), netQuery, enumP("status", TxStatuses)),
		rest(Data, "listLatestBlocksAllChains", get, "/v1/blocks", 20, short,
			pageToken, pageSize(100, "10"), netQuery),
		rest(Data, "listTokens", get, "/v1/chains/{chainId}/nfts/collections/{address}/tokens", 20, medium,
			chainID, address, pageToken, pageSize(100, "10")),
		rest(Data, "getTokenDetails", get, "/v1/chains/{chainId}/nfts/collections/{address}/tokens/{tokenId}", 20, medium,
			chainID, address, pathP("tokenId")),
		rest(Data, "getNativeBalance", get, "/v1/chains/{chainId}/addresses/{address}/balances:getNative", 20, short,
			chainID, address, queryP("blockNumber"), currency),
		rest(Data, "listErc20Balances", get, "/v1/chains/{chainId}/addresses/{address}/balances:listErc20", 20, short,
			chainID, address, queryP("blockNumber"), pageToken, pageSize(500, "10"),
			Param{Name: "filterSpamTokens", Kind: Boolean, Default: "true"}, Param{Name: "contractAddresses", Format: List}, currency),
		rest(Data, "listErc721Balances", get, "/v1/chains/{chainId}/addresses/{address}/balances:listErc721", 20, short,
			chainID, address, pageToken, pageSize(500, "10"), queryP("contractAddress")),
		rest(Data, "listErc1155Balances", get, "/v1/chains/{chainId}/addresses/{address}/balances:listErc1155", 20, short,
			chainID, address, queryP("blockNumber"), pageToken, pageSize(500, "10"), queryP("contractAddress")),
		rest(Data, "listCollectibleBalances", get, "/v1/chains/{chainId}/addresses/{address}/balances:listCollectibles", 20, short,
			chainID, address, pageToken, pageSize(500, "10"), queryP("contractAddress")),
		rest(Data, "getLatestBlocks", get, "/v1/chains/{chainId}/blocks", 10, short,
			chainID, pageToken, pageSize(100, "10")),
		rest(Data, "getBlock", get, "/v1/chains/{chainId}/blocks/{blockId}", 10, immutable, chainID, pathP("blockId")),
		rest(Data, "getDeploymentTransaction", get, "/v1/chains/{chainId}/contracts/{address}/transactions:getDeployment", 20, immutable,
			chainID, address, currency),
		rest(Data, "listContractDeployments", get, "/v1/chains/{chainId}/contracts/{address}/deployments", 20, short,
			chainID, address, pageToken, pageSize(100, "10")),
		rest(Data, "getContractMetadata", get, "/v1/chains/{chainId}/addresses/{address}", 20, medium, chainID, address),
		rest(Data, "supportedChains", get, "/v1/chains", 1, medium,
			netQuery, enumP("feature", []string{"nftIndexing", "webhooks", "teleporter"})),
		rest(Data, "getChainInfo", get, "/v1/chains/{chainId}", 1, medium, chainID),
		rest(Data, "listTransfers", get, "/v1/chains/{chainId}/tokens/{address}/transfers", 20, short,
			chainID, address, startBlock, endBlock, pageToken, pageSize(100, "10")),
		rest(Data, "listTransactions", get, "/v1/chains/{chainId}/addresses/{address}/transactions", 20, short,
			chainID, address, pageToken, pageSize(100, "10"), startBlock, endBlock, sortOrder),
		rest(Data, "listTransactionsV2", get, "/v2/chains/{chainId}/addresses/{address}/transactions", 20, short,
			chainID, address, pageToken, pageSize(100, "10"), startBlock, endBlock, boolP("filterSpamTokens"), sortOrder),
		txList("listNativeTransactions", "listNative"),
		txList("listErc20Transactions", "listErc20"),
		txList("listErc721Transactions", "listErc721"),
		txList("listErc1155Transactions", "listErc1155"),
		txList("listInternalTransactions", "listInternals"),
		rest(Data, "getTransaction", get, "/v1/chains/{chainId}/transactions/{txHash}", 20, immutable, chainID, pathP("txHash")),
		// A block's transactions: the one page size of the spec that
		// defaults to 0 and may be 0.
		rest(Data, "getTransactionsForBlock", get, "/v1/chains/{chainId}/blocks/{blockId}/transactions", 20, immutable,
			chainID, pathP("blockId"), pageToken,
			Param{Name: "pageSize", Kind: Integer, Min: 0, HasMin: true, Max: 100, HasMax: true, Default: "0"}),
		rest(Data, "listLatestTransactions", get, "/v1/chains/{chainId}/transactions", 20, short,
			chainID, pageToken, pageSize(100, "10"), enumP("status", TxStatuses)),
	}
}
