package catalog

import "strings"

// passthroughCosts are the published CU costs of the real services' routes
// that the catalogue does not list (data-api-rate-limits.mdx and
// metrics-api-rate-limits.mdx), so forwarded routes are charged what the
// real service charges.
var passthroughCosts = []struct {
	method, path string
	cost         int64
}{
	{"GET", "/v1/health-check", 20},
	{"GET", "/v1/address/{address}/chains", 20},
	{"GET", "/v1/transactions", 20},
	{"GET", "/v1/blocks", 20},
	{"POST", "/v1/chains/{chainId}/nfts/collections/{address}/tokens/{tokenId}:reindex", 10},
	{"GET", "/v1/chains/{chainId}/nfts/collections/{address}/tokens", 20},
	{"GET", "/v1/operations/{operationId}", 10},
	{"POST", "/v1/operations/transactions:export", 20},
	{"GET", "/v1/networks/{network}/blockchains/{blockchainId}/transactions/{txHash}", 20},
	{"GET", "/v1/networks/{network}/blockchains/{blockchainId}/transactions", 100},
	{"GET", "/v1/networks/{network}/blockchains/{blockchainId}/transactions:listStaking", 100},
	{"GET", "/v1/networks/{network}/rewards", 100},
	{"GET", "/v1/networks/{network}/blockchains/{blockchainId}/balances", 100},
	{"GET", "/v1/networks/{network}/blockchains/{blockchainId}/blocks/{blockId}", 100},
	{"GET", "/v1/networks/{network}/blockchains/{blockchainId}/blocks", 20},
	{"GET", "/v1/networks/{network}/blockchains/{blockchainId}/vertices", 20},
	{"GET", "/v1/networks/{network}/blockchains/{blockchainId}/vertices/{vertexHash}", 20},
	{"GET", "/v1/networks/{network}/blockchains/{blockchainId}/assets/{assetId}", 100},
	{"GET", "/v1/networks/{network}/blockchains/{blockchainId}/assets/{assetId}/transactions", 100},
	{"GET", "/v1/networks/{network}", 100},
	{"GET", "/v1/networks/{network}/blockchains", 20},
	{"GET", "/v1/networks/{network}/subnets/{subnetId}", 20},
	{"GET", "/v1/networks/{network}/l1Validators", 20},
	{"GET", "/v1/teleporter/messages/{messageId}", 20},
	{"GET", "/v1/teleporter/messages", 20},
	{"GET", "/v1/teleporter/addresses/{address}/messages", 20},
	{"GET", "/v1/icm/messages/{messageId}", 20},
	{"GET", "/v1/icm/messages", 20},
	{"GET", "/v1/icm/addresses/{address}/messages", 20},
	{"GET", "/v1/apiUsageMetrics", 200},
	{"GET", "/v1/apiLogs", 200},
	{"GET", "/v1/subnetRpcUsageMetrics", 200},
	{"GET", "/v1/rpcUsageMetrics", 200},
	{"GET", "/v1/primaryNetworkRpcUsageMetrics", 200},
	{"GET", "/v1/chains/{chainId}/addresses/{address}/balances:listErc20", 20},
	{"GET", "/v1/chains/{chainId}/addresses/{address}/balances:listCollectibles", 20},
	{"GET", "/v1/chains/{chainId}/blocks/{blockId}", 10},
	{"GET", "/v1/chains/{chainId}/contracts/{address}/deployments", 20},
	{"GET", "/v1/chains/{chainId}/addresses/{address}", 20},
	{"GET", "/v1/chains/address/{address}", 1},
	{"GET", "/v1/chains/allTransactions", 1},
	{"GET", "/v1/chains/allBlocks", 1},
	{"GET", "/v1/chains/{chainId}/addresses/{address}/transactions", 20},
	{"GET", "/v2/health-check", 1},
	{"GET", "/v2/chains/{chainId}/teleporterMetrics/{metric}", 100},
	{"GET", "/v2/chains/{chainId}/rollingWindowMetrics/{metric}", 100},
	{"GET", "/v2/networks/{network}/metrics/{metric}", 100},
	{"GET", "/v2/chains/{chainId}/contracts/{address}/nfts:listHolders", 500},
	{"GET", "/v2/chains/{chainId}/contracts/{address}/balances", 1000},
	{"GET", "/v2/chains/43114/btcb/bridged:getAddresses", 500},
	{"GET", "/v2/subnets/{subnetId}/validators:getAddresses", 500},
	{"POST", "/v2/lookingGlass/compositeQuery", 3000},
}

// PassthroughCost returns the published CU cost of a route the catalogue does
// not list, or def when the real services publish none. A literal segment
// beats a wildcard, so /v1/chains/allBlocks is not /v1/chains/{chainId}.
func PassthroughCost(method, path string, def int64) int64 {
	segs := strings.Split(strings.Trim(path, "/"), "/")
	best, bestLiterals := def, -1
	for _, pc := range passthroughCosts {
		if pc.method != method {
			continue
		}
		ps := strings.Split(strings.Trim(pc.path, "/"), "/")
		if len(ps) != len(segs) {
			continue
		}
		literals, ok := 0, true
		for i, p := range ps {
			switch {
			case strings.HasPrefix(p, "{") && strings.HasSuffix(p, "}"):
			case p == segs[i]:
				literals++
			default:
				// A wildcard segment with a ":verb" suffix, e.g. {address}:x.
				if j := strings.Index(p, "}:"); strings.HasPrefix(p, "{") && j > 0 && strings.HasSuffix(segs[i], p[j+1:]) {
					literals++
					continue
				}
				ok = false
			}
			if !ok {
				break
			}
		}
		if ok && literals > bestLiterals {
			best, bestLiterals = pc.cost, literals
		}
	}
	return best
}
