package hostile

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestOnlyPublishedReachesUpstream (finding 1 and 5): account-scoped routes,
// other /ext/ paths and path variants of catalogued routes are refused at
// the edge and never reach the operator's upstream, nor do the usage routes,
// which the edge answers itself (issue 29); unknown query parameters reach
// neither the upstream nor the cache key.
func TestOnlyPublishedReachesUpstream(t *testing.T) {
	up := NewUpstream(t, nil)
	e := StartEdge(t, EdgeOptions{Env: proxyEnv(up)})
	before := up.Calls() // the node's network id, learned at start
	for _, c := range []struct{ method, path string }{
		{"GET", "/v1/webhooks"},
		{"DELETE", "/v1/webhooks/abc"},
		{"GET", "/v1/webhooks:getSharedSecret"},
		{"POST", "/v1/apiLogs"},
		{"DELETE", "/v1/apiUsageMetrics"},
		{"POST", "/ext/admin"},
		{"POST", "/ext/keystore"},
		{"POST", "/ext/metrics"},
		{"GET", "/v1/chains/43114/blocks/?pageSize=10"},
		{"GET", "/V1/CHAINS/43114/blocks"},
	} {
		req, _ := http.NewRequest(c.method, e.URL+c.path, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"admin.lockProfile"}`))
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound || resp.Header.Get("X-Avaedge-Source") != "edge" {
			t.Errorf("%s %s = %d from %q: %s; want 404 at the edge", c.method, c.path, resp.StatusCode, resp.Header.Get("X-Avaedge-Source"), body)
		}
	}
	// The usage routes are the edge's own: an anonymous client, a key
	// nobody issued (metered by its hash, so it has usage) and hostile
	// parameters are answered at the edge.
	for _, c := range []struct {
		path, key string
		status    int
	}{
		{"/v1/apiUsageMetrics", "", http.StatusUnauthorized},
		{"/v1/apiLogs?pageToken=..%2F..%2Fetc", "some-client-key", http.StatusBadRequest},
		{"/v1/apiLogs?pageSize=100000", "some-client-key", http.StatusBadRequest},
		{"/v1/apiUsageMetrics?timeInterval=minute&startTimestamp=0&endTimestamp=99999999999", "some-client-key", http.StatusOK},
		{"/v1/rpcUsageMetrics?apiKeyId=k0", "some-client-key", http.StatusOK},
		{"/v1/primaryNetworkRpcUsageMetrics", "some-client-key", http.StatusBadRequest},
	} {
		req, _ := http.NewRequest("GET", e.URL+c.path, nil)
		if c.key != "" {
			req.Header.Set("x-glacier-api-key", c.key)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != c.status || resp.Header.Get("X-Avaedge-Source") != "edge" {
			t.Errorf("GET %s = %d from %q: %s; want %d at the edge", c.path, resp.StatusCode, resp.Header.Get("X-Avaedge-Source"), body, c.status)
		}
	}
	if n := up.Calls() - before; n != 0 {
		t.Fatalf("the upstream was called %d times; want 0", n)
	}
	// Unknown parameters: one upstream call, then hits, whatever is added.
	for _, q := range []string{"pageSize=10", "pageSize=10&x=1", "pageSize=10&y=2&z=3"} {
		resp, err := http.Get(e.URL + "/v1/chains/43114/blocks?" + q)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("GET blocks?%s = %d", q, resp.StatusCode)
		}
	}
	if n := up.CallsTo("GET /v1/chains/43114/blocks"); n != 1 {
		t.Fatalf("the upstream saw %d calls for three queries that differ only in unknown parameters; want 1", n)
	}
}

// TestLongIDs (finding 2): an id, node id or address of 200,000 characters is
// answered with an error within 50 ms of server time, in local mode.
func TestLongIDs(t *testing.T) {
	e := StartEdge(t, EdgeOptions{})
	long := strings.Repeat("1", 200_000)
	for _, c := range []struct{ path, body string }{
		{"/ext/bc/X", `{"jsonrpc":"2.0","id":1,"method":"avm.getTx","params":{"txID":"` + long + `"}}`},
		{"/ext/bc/X", `{"jsonrpc":"2.0","id":1,"method":"avm.getBalance","params":{"address":"X-local1` + long + `","assetID":"AVAX"}}`},
		{"/ext/info", `{"jsonrpc":"2.0","id":1,"method":"info.uptime","params":{"subnetID":"` + long + `"}}`},
	} {
		best := time.Hour
		var status int
		var body []byte
		for range 3 { // the best of three: the machine is shared
			start := time.Now()
			resp, err := http.Post(e.URL+c.path, "application/json", strings.NewReader(c.body))
			if err != nil {
				t.Fatal(err)
			}
			body, _ = io.ReadAll(resp.Body)
			resp.Body.Close()
			status = resp.StatusCode
			best = min(best, time.Since(start))
		}
		if !strings.Contains(string(body), `"error"`) {
			t.Errorf("%s: %d %.200s; want a JSON-RPC error", c.path, status, body)
		}
		if best > 50*time.Millisecond {
			t.Errorf("%s: a 200,000-character id took %v; want under 50ms", c.path, best)
		}
	}
	resp, err := http.Get(e.URL + "/v1/networks/fuji/validators/NodeID-" + strings.Repeat("A", 60_000))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode < 400 || resp.StatusCode >= 500 {
		t.Errorf("a 60,000-character node id in a path = %d; want a 4xx", resp.StatusCode)
	}
}

// TestDevChainDebugRefused (finding 4): the dev chain's debug namespace is off.
func TestDevChainDebugRefused(t *testing.T) {
	e := StartEdge(t, EdgeOptions{})
	resp, err := http.Post(e.URL+"/ext/bc/C/rpc", "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"debug_setHead","params":["0x1"]}`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(body), `"code":-32601`) {
		t.Fatalf("debug_setHead = %d %s; want -32601", resp.StatusCode, body)
	}
}
