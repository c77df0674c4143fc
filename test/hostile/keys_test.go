package hostile

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/avaedge/avaedge/internal/redistest"
)

// TestUnissuedKeysBound (issue 28, finding 3): without a keys file any key
// is accepted and metered on its own, but one address rotating fresh keys
// gets at most 5 of them in use (the documented bound: 5x one key's plan):
// 100 requests of a 100 CU route, each with a fresh random key, get 5
// answers and 95 refusals in the service's format (429 with retry-after;
// JSON-RPC -32005 on node endpoints), while the keys in use keep working.
// In process, and through Redis across two replicas.
func TestUnissuedKeysBound(t *testing.T) {
	for _, mode := range []string{"in process", "redis"} {
		t.Run(mode, func(t *testing.T) {
			up := NewUpstream(t, nil)
			env := proxyEnv(up)
			edges := []*Edge{}
			if mode == "redis" {
				rs := redistest.Start(t)
				rs.RequireReal()
				env["AVAEDGE_REDIS"] = rs.URL()
				edges = append(edges, StartEdge(t, EdgeOptions{Env: env}), StartEdge(t, EdgeOptions{Env: env}))
			} else {
				edges = append(edges, StartEdge(t, EdgeOptions{Env: env}))
			}
			nonce := mode[:2]
			get := func(e *Edge, key string, i int) (*http.Response, string) {
				t.Helper()
				return getWithKey(t, fmt.Sprintf("%s/v1/networks/fuji/blockchains/p-chain/utxos?addresses=fuji1x%d", e.URL, i), key)
			}
			var ok []string
			for i := range 100 {
				key := fmt.Sprintf("random-%s-%d-%x", nonce, i, i*7919)
				resp, body := get(edges[i%len(edges)], key, i)
				switch resp.StatusCode {
				case 200:
					ok = append(ok, key)
				case 429:
					var e struct {
						Message    string `json:"message"`
						StatusCode int    `json:"statusCode"`
						Error      string `json:"error"`
					}
					if json.Unmarshal([]byte(body), &e) != nil || e.StatusCode != 429 || e.Error != "Too Many Requests" || resp.Header.Get("retry-after") == "" ||
						resp.Header.Get("ratelimit-policy") != "5;w=3600" {
						t.Fatalf("refusal %d: %d %v %s", i, resp.StatusCode, resp.Header, body)
					}
				default:
					t.Fatalf("key %d: %d %s", i, resp.StatusCode, body)
				}
			}
			if len(ok) != 5 {
				t.Fatalf("100 fresh keys from one address: %d answered; want the documented bound, 5", len(ok))
			}
			for j, key := range ok { // keys in use keep working, on any replica
				if resp, body := get(edges[(j+1)%len(edges)], key, 1000+j); resp.StatusCode != 200 {
					t.Errorf("key in use %d: %d %s", j, resp.StatusCode, body)
				}
			}
			// A node endpoint refuses a fresh key in JSON-RPC form, before
			// its body is read: the call's id is not known, so it is null
			// (JSON-RPC 2.0, section 5).
			req, _ := http.NewRequest(http.MethodPost, edges[0].URL+"/ext/info", strings.NewReader(`{"jsonrpc":"2.0","id":4,"method":"info.getNetworkID"}`))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("x-glacier-api-key", "random-node-"+nonce)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 429 || !strings.Contains(string(b), `"code":-32005`) || !strings.Contains(string(b), `"id":null`) {
				t.Errorf("fresh key on /ext/info: %d %s; want 429 with a JSON-RPC -32005 error", resp.StatusCode, b)
			}
		})
	}
}
