package catalog

// published are the real services' read routes that the catalogue does not
// list but the edge forwards (GET only, never cached), with their published
// CU costs (the Data and Metrics APIs' "Rate Limits" pages; docs/facts.md,
// section 1; 0 means the edge's default passthrough cost). Everything
// account-scoped is left out on purpose: webhooks, API keys, usage metrics
// and logs, export operations belong to the operator's account, and the
// operator's key must never serve them to a client; so are writes (reindex,
// exports, composite queries).
var published = []struct {
	path string
	cost int64
}{
	{"/v1/health-check", 20},
	{"/v1/address/{address}/chains", 20},
	{"/v1/transactions", 20},
	{"/v1/blocks", 20},
	{"/v1/chains/{chainId}/nfts/collections/{address}/tokens", 20},
	{"/v1/networks/{network}/blockchains/{blockchainId}/transactions:listStaking", 100},
	{"/v1/networks/{network}/rewards", 100},
	{"/v1/networks/{network}/blockchains/{blockchainId}/balances", 100},
	{"/v1/networks/{network}/blockchains/{blockchainId}/vertices", 20},
	{"/v1/networks/{network}/blockchains/{blockchainId}/vertices/{vertexHash}", 20},
	{"/v1/networks/{network}/blockchains/{blockchainId}/assets/{assetId}", 100},
	{"/v1/networks/{network}/blockchains/{blockchainId}/assets/{assetId}/transactions", 100},
	{"/v1/networks/{network}", 100},
	{"/v1/networks/{network}/blockchains", 20},
	{"/v1/teleporter/messages/{messageId}", 20},
	{"/v1/teleporter/messages", 20},
	{"/v1/teleporter/addresses/{address}/messages", 20},
	{"/v1/icm/messages/{messageId}", 20},
	{"/v1/icm/messages", 20},
	{"/v1/icm/addresses/{address}/messages", 20},
	{"/v1/chains/{chainId}/addresses/{address}/balances:listErc20", 20},
	{"/v1/chains/{chainId}/addresses/{address}/balances:listCollectibles", 20},
	{"/v1/chains/{chainId}/blocks/{blockId}", 10},
	{"/v1/chains/{chainId}/contracts/{address}/deployments", 20},
	{"/v1/chains/{chainId}/addresses/{address}", 20},
	{"/v1/chains/address/{address}", 1},
	{"/v1/chains/allTransactions", 1},
	{"/v1/chains/allBlocks", 1},
	{"/v1/chains/{chainId}/addresses/{address}/transactions", 20},
	{"/v2/chains/{chainId}/addresses/{address}/transactions", 0},
	{"/v2/health-check", 1},
	{"/v2/live-check", 0},
	{"/v2/chains/{chainId}/teleporterMetrics/{metric}", 100},
	{"/v2/chains/{chainId}/rollingWindowMetrics/{metric}", 100},
	{"/v2/networks/{network}/metrics/{metric}", 100},
	{"/v2/icm/timeseries", 0},
	{"/v2/icm/summary", 0},
	{"/v2/validators/metrics/{metric}", 0},
	{"/v2/validation/{l1ValidationId}/metrics/{metric}", 0},
	{"/v2/validator/{nodeId}/metrics/{metric}", 0},
	{"/v2/subnet/{subnetId}/metrics/{metric}", 0},
	{"/v2/chains/{chainId}/contracts/{address}/nfts:listHolders", 500},
	{"/v2/chains/{chainId}/contracts/{address}/balances", 1000},
	{"/v2/chains/43114/btcb/bridged:getAddresses", 500},
	{"/v2/subnets/{subnetId}/validators:getAddresses", 500},
}

// PublishedMatch is a request matched to a published route.
type PublishedMatch struct {
	// Pattern is the published route's path pattern.
	Pattern string
	PathMatch
	// Cost is the route's price in CU.
	Cost int64
}

// Published reports whether the edge forwards a request the catalogue does
// not list (a GET of one of the real services' other published read routes)
// and what it costs: the published cost, or def when none is published.
// escapedPath is the request's escaped path (url.URL.EscapedPath). A literal
// segment beats a wildcard, so /v1/chains/allBlocks is not
// /v1/chains/{chainId}. The caller refuses a match with Problems and sends
// its Path.
func Published(method, escapedPath string, def int64) (PublishedMatch, bool) {
	if method != "GET" && method != "HEAD" {
		return PublishedMatch{}, false
	}
	best := PublishedMatch{PathMatch: PathMatch{Literals: -1}}
	for _, pc := range published {
		if m, ok := MatchPath(pc.path, escapedPath); ok && m.Literals > best.Literals {
			best = PublishedMatch{Pattern: pc.path, PathMatch: m, Cost: pc.cost}
		}
	}
	if best.Literals < 0 {
		return PublishedMatch{}, false
	}
	if best.Cost == 0 {
		best.Cost = def
	}
	return best, true
}
