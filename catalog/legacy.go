package catalog

import "net/http"

// SDKs that call routes neither OpenAPI file lists any more.
const (
	sdkAll      = "@avalabs/glacier-sdk 3.0.2, @avalanche-sdk/chainkit 0.3.13, @avalabs/avacloud-sdk 0.13.0"
	sdkAvaCloud = "@avalabs/avacloud-sdk 0.13.0 (dropped by its successor @avalanche-sdk/chainkit 0.3.13)"
)

// legacyRoutes returns the reads that neither glacier.json nor popsicle.json
// lists, that the real services still serve (their "Rate Limits" pages
// price them) and that a released SDK calls: each names the SDKs in Legacy.
// Those the SDKs mark deprecated name the route that replaced them in
// Successor, with the same parameters.
func legacyRoutes() []Route {
	get := http.MethodGet
	return []Route{
		// The Teleporter routes, renamed ICM. Their answers are the ICM
		// routes' with one field renamed: a message's teleporterContractAddress
		// is the ICM message's icmContractAddress.
		legacy(rest(Data, "getTeleporterMessage", get, "/v1/teleporter/messages/{messageId}", 20, short,
			pathP("messageId")), sdkAll, "getIcmMessage"),
		legacy(rest(Data, "listTeleporterMessages", get, "/v1/teleporter/messages", 20, short,
			icmListParams()...), sdkAll, "listIcmMessages"),
		legacy(rest(Data, "listTeleporterMessagesByAddress", get, "/v1/teleporter/addresses/{address}/messages", 20, short,
			pageToken, pageSize(100, "10"), address, netQuery), sdkAll, "listIcmMessagesByAddress"),
		// The all-chains lists before their move out of /v1/chains; their
		// answers are their successors'.
		legacy(rest(Data, "listAllLatestBlocks", get, "/v1/chains/allBlocks", 1, short,
			pageToken, pageSize(100, "10"), netQuery), sdkAll, "listLatestBlocksAllChains"),
		legacy(rest(Data, "listAllLatestTransactions", get, "/v1/chains/allTransactions", 1, short,
			pageToken, pageSize(100, "10"), netQuery, enumP("status", TxStatuses)), sdkAll, "listLatestTransactionsAllChains"),
		legacy(rest(Data, "getAddressChains", get, "/v1/chains/address/{address}", 1, medium,
			address), sdkAll, "listAddressChains"),
		// The Metrics API's routes popsicle.json no longer lists; no route
		// replaced them.
		legacy(rest(Metrics, "getTeleporterMetricsByChain", get, "/v2/chains/{chainId}/teleporterMetrics/{metric}", 100, metrics,
			chainID, pathP("metric", "teleporterSourceTxnCount", "teleporterDestinationTxnCount", "teleporterTotalTxnCount")), sdkAvaCloud, ""),
		legacy(rest(Metrics, "getNftHoldersByContractAddress", get, "/v2/chains/{chainId}/contracts/{address}/nfts:listHolders", 500, metrics,
			chainID, address, pageToken, pageSize(5000, "1000")), sdkAvaCloud, ""),
		legacy(rest(Metrics, "getAddressesByBalanceOverTime", get, "/v2/chains/{chainId}/contracts/{address}/balances", 1000, metrics,
			chainID, address, Param{Name: "threshold", Required: true}, startTime, endTime, pageToken, pageSize(5000, "1000")), sdkAvaCloud, ""),
		// The Metrics API's first route: no SDK calls it, but its usage
		// guide's examples and avaedge's Metrics API seed do. Priced like
		// a metric series.
		legacy(rest(Metrics, "getAvgTps", get, "/v1/avg_tps/{chainId}", 100, metrics, chainID, pageToken),
			"no SDK: the Metrics API's usage guide (curl examples) and avaedge's Metrics API seed", ""),
	}
}

func legacy(r Route, sdks, successor string) Route {
	r.Legacy, r.Successor = sdks, successor
	return r
}
