package metricsapi

import (
	"net/http"
	"net/url"
	"reflect"
	"testing"
	"time"

	"github.com/avaedge/avaedge/local/vocab/cchain"
)

// TestCChainAliases checks issue 17's local-mode consistency: with
// Options.CChain, the C-Chain's ids on mainnet, fuji and the local network
// answer the local C-Chain's metrics, and getChain names the id asked for;
// without it (proxy mode) they answer 404.
func TestCChainAliases(t *testing.T) {
	local := testChains[0] // 43112, as local mode lists the dev chain
	blocks := genChain(local.EVMChainID, 300, time.Date(2026, 1, 28, 21, 13, 0, 0, time.UTC), 1)
	engine := func(aliases *cchain.Aliases) *Engine {
		e, err := New(Options{Chains: []Chain{local}, Now: func() time.Time { return clock }, CChain: aliases})
		if err != nil {
			t.Fatal(err)
		}
		apply(t, e, blocks)
		return e
	}
	plain := engine(nil)
	aliased := engine(&cchain.Aliases{Target: local.EVMChainID, BlockchainID: local.BlockchainID})
	q := func() url.Values { return url.Values{"timeInterval": {"hour"}, "pageSize": {"7"}} } // walk sets pageToken
	want := walk(t, plain, "43112", "txCount", q())
	if len(want) == 0 {
		t.Fatal("the local chain has no points")
	}
	for _, tc := range []struct {
		name, requested string
		want            chainJSON
	}{
		{"mainnet evm id", "43114", chainJSON{43114, local.ChainName, cchain.Mainnet.BlockchainID, local.SubnetID, "mainnet"}},
		{"mainnet blockchain id", cchain.Mainnet.BlockchainID, chainJSON{43114, local.ChainName, cchain.Mainnet.BlockchainID, local.SubnetID, "mainnet"}},
		{"fuji evm id", "43113", chainJSON{43113, local.ChainName, cchain.Fuji.BlockchainID, local.SubnetID, "testnet"}},
		{"fuji blockchain id", cchain.Fuji.BlockchainID, chainJSON{43113, local.ChainName, cchain.Fuji.BlockchainID, local.SubnetID, "testnet"}},
		{"local blockchain id", cchain.Local.BlockchainID, chainJSON{43112, local.ChainName, cchain.Local.BlockchainID, local.SubnetID, "testnet"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if rec := do(plain, "getEvmChainMetrics", "/v2/x", "chainId", tc.requested, "metric", "txCount"); rec.Code != http.StatusNotFound {
				t.Fatalf("without aliases: status %d; want 404", rec.Code)
			}
			if got := walk(t, aliased, tc.requested, "txCount", q()); !reflect.DeepEqual(got, want) {
				t.Fatalf("got %d points %v...; want the local chain's %d", len(got), got[:min(3, len(got))], len(want))
			}
			if rec := do(aliased, "getAvgTps", "/v1/avg_tps/x", "chainId", tc.requested); rec.Code != http.StatusOK {
				t.Fatalf("avg_tps: status %d: %s", rec.Code, rec.Body)
			}
			rec := do(aliased, "getChain", "/v2/chains/x", "chainId", tc.requested)
			if rec.Code != http.StatusOK {
				t.Fatalf("getChain: status %d: %s", rec.Code, rec.Body)
			}
			var got chainJSON
			decode(t, rec.Body.Bytes(), &got)
			if got != tc.want {
				t.Fatalf("getChain: %+v; want %+v", got, tc.want)
			}
		})
	}
	t.Run("other chains stay unknown", func(t *testing.T) {
		for _, id := range []string{"43111", "99999", "c-chain"} {
			if rec := do(aliased, "getEvmChainMetrics", "/v2/x", "chainId", id, "metric", "txCount"); rec.Code != http.StatusNotFound {
				t.Fatalf("%s: status %d; want 404", id, rec.Code)
			}
		}
	})
}
