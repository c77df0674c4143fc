package evmdata

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/avaedge/avaedge/catalog"
	"github.com/avaedge/avaedge/local/source/devnet/evm"
	"github.com/avaedge/avaedge/local/vocab/cchain"
)

// TestCChainAliases checks issue 17's local-mode consistency: with
// Options.CChain, the C-Chain's ids on mainnet, fuji and the local network
// answer from the dev chain under the id the client asked for; without it
// (proxy mode) they answer 404.
func TestCChainAliases(t *testing.T) {
	w := newWorld(t)
	serve := func(opts Options) *httptest.Server {
		srv := httptest.NewServer(catalog.NewMux(catalog.Catalogue(), Handlers(opts)))
		t.Cleanup(srv.Close)
		return srv
	}
	base := Options{Index: w.ix, Chains: []ChainInfo{LocalChain(w.chain.ChainID(), "http://127.0.0.1:8080/ext/bc/C/rpc")}, Now: func() time.Time { return fixedNow }}
	aliased := base
	aliased.CChain = &cchain.Aliases{Target: w.chain.ChainID(), BlockchainID: cchain.Local.BlockchainID}
	plain, local := serve(base), serve(aliased)
	get := func(t *testing.T, srv *httptest.Server, path string, wantStatus int) map[string]any {
		t.Helper()
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != wantStatus {
			t.Fatalf("GET %s: status %d; want %d: %s", path, resp.StatusCode, wantStatus, body)
		}
		var out map[string]any
		if err := json.Unmarshal(body, &out); err != nil {
			t.Fatalf("GET %s: %v: %s", path, err, body)
		}
		return out
	}
	ewoq := evm.DevAccounts()[0].Address.Hex()
	own := get(t, plain, "/v1/chains/43112/blocks?pageSize=3", http.StatusOK)
	for _, tc := range []struct {
		name, requested, wantChainID, wantPlatform string
		wantTestnet                                bool
	}{
		{"mainnet evm id", "43114", "43114", cchain.Mainnet.BlockchainID, false},
		{"mainnet blockchain id", cchain.Mainnet.BlockchainID, "43114", cchain.Mainnet.BlockchainID, false},
		{"fuji evm id", "43113", "43113", cchain.Fuji.BlockchainID, true},
		{"fuji blockchain id", cchain.Fuji.BlockchainID, "43113", cchain.Fuji.BlockchainID, true},
		{"local blockchain id", cchain.Local.BlockchainID, "43112", cchain.Local.BlockchainID, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.requested != cchain.Local.BlockchainID {
				// The dev chain's own blockchain id is its own, with or
				// without aliases; every other id is an alias.
				get(t, plain, "/v1/chains/"+tc.requested+"/blocks", http.StatusNotFound)
			}
			blocks := get(t, local, "/v1/chains/"+tc.requested+"/blocks?pageSize=3", http.StatusOK)
			validate(t, "ListEvmBlocksResponse", blocks)
			got, want := list(blocks, "blocks"), list(own, "blocks")
			if len(got) != len(want) || len(got) == 0 {
				t.Fatalf("got %d blocks; want the dev chain's %d", len(got), len(want))
			}
			for i := range got {
				g, wb := got[i].(map[string]any), want[i].(map[string]any)
				if g["blockHash"] != wb["blockHash"] || g["chainId"] != tc.wantChainID {
					t.Fatalf("block %d: hash %v chainId %v; want %v, %q", i, g["blockHash"], g["chainId"], wb["blockHash"], tc.wantChainID)
				}
			}
			info := get(t, local, "/v1/chains/"+tc.requested, http.StatusOK)
			validate(t, "GetChainResponse", info)
			if info["chainId"] != tc.wantChainID || info["platformChainId"] != tc.wantPlatform || info["isTestnet"] != tc.wantTestnet {
				t.Fatalf("chain info: chainId %v platformChainId %v isTestnet %v; want %s, %s, %v",
					info["chainId"], info["platformChainId"], info["isTestnet"], tc.wantChainID, tc.wantPlatform, tc.wantTestnet)
			}
			bal := get(t, local, "/v1/chains/"+tc.requested+"/addresses/"+ewoq+"/balances:getNative", http.StatusOK)
			nb, _ := bal["nativeTokenBalance"].(map[string]any)
			if nb["chainId"] != tc.wantChainID || nb["balance"] == "0" {
				t.Fatalf("native balance: %v; want chainId %s and ewoq's balance", nb, tc.wantChainID)
			}
		})
	}
	t.Run("other chains stay unknown", func(t *testing.T) {
		for _, id := range []string{"43111", "043114", strings.ToUpper(cchain.Mainnet.BlockchainID), "c-chain"} {
			get(t, local, "/v1/chains/"+id+"/blocks", http.StatusNotFound)
		}
	})
}

// TestHugeTokenID sends a 200,000-digit token id: it must be refused as a
// bad request without parsing it. Reading the token id refuses it by its
// length, allocating nothing: parsing it into a big.Int would allocate its
// 83 KB.
func TestHugeTokenID(t *testing.T) {
	w := newWorld(t)
	huge := strings.Repeat("9", 200_000)
	w.get(t, "/v1/chains/43112/nfts/collections/"+w.chain.Seed().NFT.Hex()+"/tokens/"+huge, http.StatusBadRequest)
	if allocs := testing.AllocsPerRun(10, func() {
		if _, ok := tokenID(huge); ok {
			t.Fatal("a 200,000-digit token id was read")
		}
	}); allocs != 0 {
		t.Fatalf("refusing a 200,000-digit token id allocated %v times; want 0 (not parsed)", allocs)
	}
}
