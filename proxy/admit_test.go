package proxy

import (
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/avaedge/avaedge/cache"
	"github.com/avaedge/avaedge/catalog"
)

// TestAdmissionFirst: every endpoint admits (and refuses) a request before
// its query or body is parsed, and charges what it refuses for a bad
// parameter or body: a REST route its price, a JSON-RPC endpoint its
// minimum (1 CU) plus the rest of its calls' price once parsed; a plan that
// allows no route of an endpoint gets 403 for any body.
func TestAdmissionFirst(t *testing.T) {
	lim := testLimiter(t, "plans:\n  p: {cu_per_day: 100000}\n  one: {rps: 1, burst: 1}\n  data: {routes: [listLatestBlocks]}\n"+
		"keys:\n  - {id: a, key: a-key, plan: p}\n  - {id: o, key: o-key, plan: one}\n  - {id: d, key: d-key, plan: data}\n")
	te := newTestEdge(t, Options{Limiter: lim})
	do := func(method, target, key, body string) *httptest.ResponseRecorder {
		r := httptest.NewRequest(method, target, strings.NewReader(body))
		if body != "" {
			r.Header.Set("Content-Type", "application/json")
		}
		r.Header.Set("x-glacier-api-key", key)
		w := httptest.NewRecorder()
		te.srv.ServeHTTP(w, r)
		return w
	}
	left := func(w *httptest.ResponseRecorder) int64 {
		//lint:ignore SA1008 the edge sets the names lower-case, as the Data API sends them
		v := w.Header()["ratelimit-remaining"]
		if len(v) != 1 {
			t.Fatalf("no ratelimit-remaining: %v", w.Header())
		}
		n, _ := strconv.ParseInt(v[0], 10, 64)
		return n
	}
	huge := "[" + strings.Repeat("1,", 499_998) + "1]"
	prev := left(do("GET", "/v1/chains", "a-key", ""))
	for _, tc := range []struct {
		name, method, target, body string
		status                     int
		cu                         int64
	}{
		{"REST bad parameter", "GET", "/v1/chains/43114/blocks?pageSize=1000", "", 400, 10},
		{"EVM not JSON", "POST", "/ext/bc/C/rpc", "{", 200, 1},
		{"EVM empty batch", "POST", "/ext/bc/C/rpc", "[]", 200, 1},
		{"EVM batch over the limit", "POST", "/ext/bc/C/rpc", huge, 413, 1},
		{"EVM refused method", "POST", "/ext/bc/C/rpc", `{"jsonrpc":"2.0","id":1,"method":"admin_peers"}`, 200, 1},
		{"EVM batch", "POST", "/ext/bc/C/rpc", `[{"jsonrpc":"2.0","id":1,"method":"eth_getLogs","params":[{}]},{"jsonrpc":"2.0","id":2,"method":"eth_chainId"}]`, 200, 51},
		{"node parse error", "POST", "/ext/info", "garbage", 200, 1},
		{"node call priced above the minimum", "POST", "/ext/info", `{"jsonrpc":"2.0","id":1,"method":"info.peers"}`, 200, 10},
		{"node GET", "GET", "/ext/info", "", 405, 1},
		{"unknown path", "GET", "/v1/nothing/here", "", 404, 1},
	} {
		w := do(tc.method, tc.target, "a-key", tc.body)
		now := left(w)
		if w.Code != tc.status || prev-now != tc.cu {
			t.Errorf("%s: %d, charged %d CU (%s); want %d, %d CU", tc.name, w.Code, prev-now, w.Body.String()[:min(w.Body.Len(), 200)], tc.status, tc.cu)
		}
		prev = now
	}

	// A client over its rate gets 429 before anything is parsed.
	do("GET", "/v1/chains", "o-key", "")
	for _, tc := range []struct{ method, target, body string }{
		{"POST", "/ext/bc/C/rpc", huge},
		{"POST", "/ext/info", "garbage"},
		{"GET", "/v1/chains/43114/blocks?pageSize=1000", ""},
		{"GET", "/v1/nothing/here", ""},
	} {
		if w := do(tc.method, tc.target, "o-key", tc.body); w.Code != http.StatusTooManyRequests {
			t.Errorf("over its rate: %s %s = %d %s; want 429", tc.method, tc.target, w.Code, w.Body)
		}
	}
	// A plan without the node's routes: 403 whatever the body.
	for _, body := range []string{"garbage", `{"jsonrpc":"2.0","id":1,"method":"info.getNetworkID"}`} {
		if w := do("POST", "/ext/info", "d-key", body); w.Code != http.StatusForbidden || !strings.Contains(w.Body.String(), "does not include this endpoint") {
			t.Errorf("plan without the endpoint, body %s = %d %s; want 403", body, w.Code, w.Body)
		}
	}
	if n := te.node.count.Load(); n != 2 {
		t.Errorf("the node upstream got %d calls; want 2 (the EVM batch and info.peers)", n)
	}
}

// TestNodeCallReencoded: a node call is forwarded re-encoded from what was
// decoded, so a member a case-sensitive upstream would read instead of the
// one the edge keyed ("Method" beside "method") never reaches it, and the
// cache key and the forwarded call are one value.
func TestNodeCallReencoded(t *testing.T) {
	te := newTestEdge(t, Options{Cache: &mapCache{m: map[string]*cache.Entry{}}})
	te.node.answer = func(w http.ResponseWriter, r *http.Request, body []byte) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"jsonrpc":"2.0","id":1,"result":` + quote(string(body)) + `}`))
	}
	post := func(body string) string {
		r := httptest.NewRequest("POST", "/ext/info?x=1", strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		w := httptest.NewRecorder()
		te.srv.ServeHTTP(w, r)
		return w.Body.String()
	}
	post(`{"jsonrpc":"2.0","method":"info.getNodeVersion","Method":"info.getVMs","id":1,"params":{"b":1, "a":2}}`)
	got := te.node.last()
	if want := `{"jsonrpc":"2.0","id":1,"method":"info.getVMs","params":{"a":2,"b":1}}`; string(got.Body) != want || got.RawQuery != "" {
		t.Fatalf("the upstream got %s?%s; want %s, no query", got.Body, got.RawQuery, want)
	}
	// The same call asked plainly is the cached one; info.getNodeVersion is not.
	if b := post(`{"jsonrpc":"2.0","method":"info.getVMs","id":2,"params":{"a":2,"b":1}}`); te.node.count.Load() != 1 || !strings.Contains(b, `info.getVMs`) {
		t.Errorf("info.getVMs after it: %d upstream calls, %s; want a hit", te.node.count.Load(), b)
	}
	if b := post(`{"jsonrpc":"2.0","method":"info.getNodeVersion","id":3,"params":{"a":2,"b":1}}`); te.node.count.Load() != 2 || !strings.Contains(b, `info.getNodeVersion`) {
		t.Errorf("info.getNodeVersion: %d upstream calls, %s; want its own call", te.node.count.Load(), b)
	}
}

// TestHeadIsGet: a HEAD is its GET without a body: the same cache entry and
// fill (sent upstream as a GET with the edge's headers only), and no body.
func TestHeadIsGet(t *testing.T) {
	te := newTestEdge(t, Options{Cache: &mapCache{m: map[string]*cache.Entry{}}})
	send := func(method string) *httptest.ResponseRecorder {
		r := httptest.NewRequest(method, "/v1/chains/43114/blocks/7", nil)
		r.Header.Set("Authorization", "Bearer client")
		r.Header.Set("Cookie", "c=1")
		r.Header.Set("Transfer-Encoding", "chunked")
		w := httptest.NewRecorder()
		te.srv.ServeHTTP(w, r)
		return w
	}
	head := send("HEAD")
	got := te.data.last()
	if got.Method != "GET" || got.Header.Get("Authorization") != "" || got.Header.Get("Cookie") != "" || head.Code != 200 || head.Body.Len() != 0 ||
		head.Header().Get("X-Cache-Status") != "MISS" {
		t.Fatalf("HEAD = %d %q %s; upstream saw %s %v", head.Code, head.Body, head.Header().Get("X-Cache-Status"), got.Method, got.Header)
	}
	if get := send("GET"); get.Header().Get("X-Cache-Status") != "HIT" || get.Body.Len() == 0 || te.data.count.Load() != 1 {
		t.Fatalf("GET after HEAD = %s %q, %d upstream calls; want a HIT", get.Header().Get("X-Cache-Status"), get.Body, te.data.count.Load())
	}
	if again := send("HEAD"); again.Header().Get("X-Cache-Status") != "HIT" || again.Body.Len() != 0 || again.Header().Get("Content-Length") == "" {
		t.Fatalf("HEAD again = %s %q %v; want a HIT without a body", again.Header().Get("X-Cache-Status"), again.Body, again.Header())
	}
}

// TestCacheDirectivesByPlan: a client's Cache-Control: no-cache or Pragma:
// no-cache skips the cache's read only when its plan says cache_bypass.
func TestCacheDirectivesByPlan(t *testing.T) {
	lim := testLimiter(t, "plans:\n  p: {cu_per_minute: 100000}\n  bypass: {cu_per_minute: 100000, cache_bypass: true}\n"+
		"keys:\n  - {id: a, key: a-key, plan: p}\n  - {id: b, key: b-key, plan: bypass}\nanonymous: p\n")
	c, _ := cache.New(cache.Options{})
	t.Cleanup(func() { c.Close() })
	te := newTestEdge(t, Options{Limiter: lim, Cache: c})
	send := func(key, name, value string) string {
		r := httptest.NewRequest("GET", "/v1/chains/43114/blocks/7", nil)
		if key != "" {
			r.Header.Set("x-glacier-api-key", key)
		}
		r.Header.Set(name, value)
		w := httptest.NewRecorder()
		te.srv.ServeHTTP(w, r)
		return w.Header().Get("X-Cache-Status")
	}
	send("a-key", "Accept", "*/*") // the fill
	for _, c := range []struct{ key, name, value, want string }{
		{"a-key", "Cache-Control", "no-cache", "HIT"},
		{"", "Pragma", "no-cache", "HIT"},
		{"a-key", "Cache-Control", "max-age=0, no-store", "HIT"},
		{"b-key", "Cache-Control", "no-cache", "BYPASS"},
		{"b-key", "Pragma", "no-cache", "BYPASS"},
		{"b-key", "Accept", "*/*", "HIT"},
	} {
		if got := send(c.key, c.name, c.value); got != c.want {
			t.Errorf("key %q with %s: %s = %s; want %s", c.key, c.name, c.value, got, c.want)
		}
	}
	if n := te.data.count.Load(); n != 3 {
		t.Errorf("%d upstream calls; want 3 (the fill and two bypasses)", n)
	}
}

// TestEndpointMinimum: a JSON-RPC endpoint is admitted, before its body is
// read, for the price of its cheapest route, by the routes a plan must
// allow one of.
func TestEndpointMinimum(t *testing.T) {
	routes := catalog.Catalogue()
	for i := range routes {
		if routes[i].Endpoint == "evm" {
			routes[i].Cost += 600
		}
	}
	srv, err := New(Options{Routes: routes, Publish: []Publish{{Method: "POST", Path: "/ext/bc/X", RPCMethods: []string{"avm.x"}, Keys: []string{"k"}}}})
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]int64{"evm": 601, "info": 1, "avm": 1} {
		if got := srv.endpoints[name].minimum; got != want {
			t.Errorf("%s: minimum %d; want %d", name, got, want)
		}
	}
	if r := srv.endpoints["evm"].routes; !slices.Equal(r, []string{catalog.EVMRoute}) {
		t.Errorf("evm routes %v", r)
	}
	if r := srv.endpoints["avm"].routes; !slices.Contains(r, "avm.getTx") || !slices.Contains(r, "passthrough") || slices.Contains(srv.endpoints["info"].routes, "passthrough") {
		t.Errorf("avm routes %v, info routes %v; want avm's methods and passthrough (published), info's without", r, srv.endpoints["info"].routes)
	}
}

// TestHeadPublished: a HEAD of a path the operator publishes for GET is
// that GET without a body, sent upstream as a GET.
func TestHeadPublished(t *testing.T) {
	te := newTestEdge(t, Options{Publish: []Publish{{Method: "GET", Path: "/v1/webhooks", Keys: []string{""}}}})
	w := httptest.NewRecorder()
	te.srv.ServeHTTP(w, httptest.NewRequest("HEAD", "/v1/webhooks", nil))
	if got := te.data.last(); w.Code != 200 || w.Body.Len() != 0 || got.Method != "GET" || got.Path != "/v1/webhooks" {
		t.Fatalf("HEAD of a published GET = %d %q; the upstream saw %s %s", w.Code, w.Body, got.Method, got.Path)
	}
}
