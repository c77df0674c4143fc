package evmdata

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// fuzzedRoutes are the listing routes FuzzListingQueries drives; {a} is
// the fuzzed path value (an address, a block id).
var fuzzedRoutes = []string{
	"/v1/chains/43112/addresses/{a}/transactions",
	"/v2/chains/43112/addresses/{a}/transactions",
	"/v1/chains/43113/addresses/{a}/transactions:listNative",
	"/v1/chains/43112/addresses/{a}/transactions:listErc20",
	"/v1/chains/43112/addresses/{a}/transactions:listInternals",
	"/v1/chains/43112/addresses/{a}/balances:listCollectibles",
	"/v1/chains/43114/contracts/{a}/deployments",
	"/v1/chains/43112/addresses/{a}",
	"/v1/chains/43112/nfts/collections/{a}/tokens",
	"/v1/chains/43112/blocks/{a}/transactions",
	"/v1/chains/43112/transactions",
	"/v1/address/{a}/chains",
	"/v1/transactions",
	"/v1/blocks",
	"/v1/chains",
}

// FuzzListingQueries sends the listing routes arbitrary path and query
// values (block bounds, orders, filters, page sizes and tokens) over the
// seeded chain: every answer is 200, 400 or 404 in the Data API's error
// format, never a 500 or a panic.
func FuzzListingQueries(f *testing.F) {
	ewoq := "0x8db97C7cEcE249c2b98bDC0226Cc4C2A57BF52FC"
	for i, seed := range [][6]string{
		{ewoq, "3", "5", "asc", "2", ""},
		{ewoq, "1e3", "-1", "desc", "100", "00000000-0000-0000-0000-000000000000"},
		{ewoq, "9007199254740993", "0", "", "1", ""},
		{ewoq, "", "", "failed", "7", "ffffffff-ffff-ffff-ffff-ffffffffffff"},
		{"0x5aa01B3b5877255cE50cc55e8986a7a5fe29C70e", "", "", "true", "3", ""},
		{"3", "", "", "", "0", ""},
		{"0x12", "", "", "mainnet", "500", ""},
	} {
		f.Add(uint8(i), seed[0], seed[1], seed[2], seed[3], seed[4], seed[5])
	}
	w := newWorld(f)
	f.Fuzz(func(t *testing.T, route uint8, a, start, end, order, size, token string) {
		path := strings.ReplaceAll(fuzzedRoutes[int(route)%len(fuzzedRoutes)], "{a}", url.PathEscape(a))
		q := url.Values{}
		for k, v := range map[string]string{"startBlock": start, "endBlock": end, "sortOrder": order, "pageSize": size, "pageToken": token,
			"status": order, "network": order, "filterSpamTokens": order, "contractAddress": token} {
			if v != "" {
				q.Set(k, v)
			}
		}
		rec := httptest.NewRecorder()
		w.srv.Config.Handler.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path+"?"+q.Encode(), nil))
		switch rec.Code {
		case http.StatusOK, http.StatusBadRequest, http.StatusNotFound:
		default:
			t.Fatalf("GET %s?%s = %d: %s", path, q.Encode(), rec.Code, rec.Body)
		}
	})
}
