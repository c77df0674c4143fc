package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestCChainAliasesLocalOnly: in local mode the C-Chain answers under its
// mainnet and fuji ids (issue 17); in proxy mode a failing upstream never
// falls back to the devnet for them, even with every network mapped.
func TestCChainAliasesLocalOnly(t *testing.T) {
	get := func(t *testing.T, url string) (*http.Response, []byte) {
		t.Helper()
		resp, err := http.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, b
	}
	t.Run("local mode", func(t *testing.T) {
		pub, _, _ := startEdge(t, map[string]string{})
		resp, b := get(t, pub+"/v1/chains/43114/blocks?pageSize=1")
		var blocks struct {
			Blocks []struct {
				ChainID string `json:"chainId"`
			} `json:"blocks"`
		}
		if err := json.Unmarshal(b, &blocks); resp.StatusCode != http.StatusOK || err != nil || len(blocks.Blocks) != 1 || blocks.Blocks[0].ChainID != "43114" {
			t.Fatalf("GET blocks of 43114: %d %s; want one block of chain 43114", resp.StatusCode, b)
		}
		if resp, b := get(t, pub+"/v2/chains/43113/metrics/txCount?pageSize=1"); resp.StatusCode != http.StatusOK {
			t.Fatalf("GET metrics of 43113: %d %s; want 200", resp.StatusCode, b)
		}
	})
	t.Run("proxy mode falls back only for real sources", func(t *testing.T) {
		failing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, `{"message":"down"}`, http.StatusBadGateway)
		}))
		defer failing.Close()
		// Metrics stay local, so the dev chain runs; the Data API is
		// proxied to a failing upstream with every network mapped.
		pub, _, _ := startEdge(t, map[string]string{
			"AVAEDGE_DATA_UPSTREAM":  failing.URL,
			"AVAEDGE_NODE_UPSTREAM":  failing.URL,
			"AVAEDGE_LOCAL_NETWORKS": "mainnet,fuji,testnet",
		})
		for _, path := range []string{"/v1/chains/43114/blocks?pageSize=1", "/v1/chains/43113/blocks?pageSize=1", "/v1/chains/43112/blocks?pageSize=1"} {
			resp, b := get(t, pub+path)
			if src := resp.Header.Get("X-Avaedge-Source"); src == "local" || resp.StatusCode == http.StatusOK {
				t.Fatalf("GET %s: %d from %q: %s; want the upstream's failure, not devnet data", path, resp.StatusCode, src, b)
			}
		}
		if resp, b := get(t, pub+"/v2/chains/43114/metrics/txCount?pageSize=1"); resp.StatusCode != http.StatusOK {
			t.Fatalf("GET metrics of 43114 (local mode): %d %s; want 200", resp.StatusCode, b)
		}
	})
}
