package proxy

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/avaedge/avaedge/cache"
	"github.com/avaedge/avaedge/catalog"
	"github.com/avaedge/avaedge/limits"
)

// refuseAll refuses every request with 401, as an unknown key is.
type refuseAll struct{}

func (refuseAll) Admit(context.Context, *http.Request, limits.Charge) limits.Decision {
	return limits.Decision{Status: http.StatusUnauthorized, Message: "Invalid API key"}
}

// TestMemoOnlyAfterAdmission: refused requests never fill the remembered-call
// table, and the table stops growing at its byte bound.
func TestMemoOnlyAfterAdmission(t *testing.T) {
	origin := newFlakyOrigin(t)
	up := upstreamFor(t, catalog.Data, origin.srv.URL)
	srv, err := New(Options{Upstreams: map[catalog.Service]*Upstream{catalog.Data: up},
		Cache: &mapCache{m: map[string]*cache.Entry{}}, Limiter: refuseAll{}})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 50 {
		if w := get(srv, "/v1/networks/fuji/subnets?pageSize="+string(rune('1'+i%9))); w.Code != 401 {
			t.Fatalf("refused request answered %d", w.Code)
		}
	}
	if n := srv.memo.n.Load(); n != 0 {
		t.Fatalf("%d refused requests were remembered", n)
	}
	if c := origin.calls.Load(); c != 0 {
		t.Fatalf("refused requests reached the upstream %d times", c)
	}

	srv, err = New(Options{Upstreams: map[catalog.Service]*Upstream{catalog.Data: up},
		Cache: &mapCache{m: map[string]*cache.Entry{}}})
	if err != nil {
		t.Fatal(err)
	}
	srv.memo.maxBytes = 4096
	long := strings.Repeat("a", 900)
	for i := range 20 {
		get(srv, "/v1/networks/fuji/subnets?pageSize=5&x"+string(rune('a'+i))+"="+long)
	}
	if b := srv.memo.bytes.Load(); b > 4096 || srv.memo.n.Load() == 0 {
		t.Fatalf("memo holds %d bytes in %d entries; want some, at most 4096 bytes", b, srv.memo.n.Load())
	}
}

// TestSharedFetchIsClientNeutral: the upstream call that fills the cache
// carries none of the first client's conditional, range or cache headers,
// so coalesced clients never receive its 304 or 206.
func TestSharedFetchIsClientNeutral(t *testing.T) {
	var mu sync.Mutex
	var seen http.Header
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = r.Header.Clone()
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"subnets":[]}`))
	}))
	t.Cleanup(origin.Close)
	up := upstreamFor(t, catalog.Data, origin.URL)
	srv, err := New(Options{Upstreams: map[catalog.Service]*Upstream{catalog.Data: up}, Cache: &mapCache{m: map[string]*cache.Entry{}}})
	if err != nil {
		t.Fatal(err)
	}
	r := httptest.NewRequest("GET", "/v1/networks/fuji/subnets", nil)
	for _, h := range []string{"If-None-Match", "If-Modified-Since", "Range", "If-Range", "Cache-Control"} {
		r.Header.Set(h, "x")
	}
	r.Header.Set("Accept-Encoding", "gzip")
	w := httptest.NewRecorder()
	srv.ServeHTTP(w, r)
	if w.Code != 200 {
		t.Fatalf("status %d", w.Code)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, h := range []string{"If-None-Match", "If-Modified-Since", "Range", "If-Range", "Cache-Control", "Accept-Encoding"} {
		if v := seen.Get(h); v != "" {
			t.Errorf("shared fetch sent %s: %q", h, v)
		}
	}
}

// TestRPCWritesNotRetried: a JSON-RPC write (avm.issueTx) is sent once even
// when the upstream fails; a read is retried within the budget.
func TestRPCWritesNotRetried(t *testing.T) {
	var calls atomic.Int64
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		http.Error(w, "down", http.StatusBadGateway)
	}))
	t.Cleanup(origin.Close)
	up := upstreamFor(t, catalog.Node, origin.URL)
	up.RetryBudget = 1
	srv, err := New(Options{Upstreams: map[catalog.Service]*Upstream{catalog.Node: up}})
	if err != nil {
		t.Fatal(err)
	}
	post := func(body string) {
		r := httptest.NewRequest("POST", "/ext/bc/X", strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		srv.ServeHTTP(httptest.NewRecorder(), r)
	}
	post(`{"jsonrpc":"2.0","id":1,"method":"avm.issueTx","params":{"tx":"0x00"}}`)
	if c := calls.Swap(0); c != 1 {
		t.Fatalf("avm.issueTx sent %d times; want 1", c)
	}
	post(`{"jsonrpc":"2.0","id":1,"method":"avm.getHeight","params":{}}`)
	if c := calls.Swap(0); c != 2 {
		t.Fatalf("avm.getHeight sent %d times; want 2 (one retry)", c)
	}
}

// TestRPCThroughThePipeline: a node call is cached like a REST answer (its
// id rewritten per answer); a batch, which the node does not support, gets
// the node's -32700 at the edge.
func TestRPCThroughThePipeline(t *testing.T) {
	var calls atomic.Int64
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"jsonrpc":"2.0","result":{"networkID":"5"},"id":7}`))
	}))
	t.Cleanup(origin.Close)
	up := upstreamFor(t, catalog.Node, origin.URL)
	srv, err := New(Options{Upstreams: map[catalog.Service]*Upstream{catalog.Node: up}, Cache: &mapCache{m: map[string]*cache.Entry{}}})
	if err != nil {
		t.Fatal(err)
	}
	send := func(body string) *httptest.ResponseRecorder {
		r := httptest.NewRequest("POST", "/ext/info", strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		w := httptest.NewRecorder()
		srv.ServeHTTP(w, r)
		return w
	}
	if w := send(`{"jsonrpc":"2.0","id":7,"method":"info.getNetworkID"}`); w.Header().Get("X-Cache-Status") != "MISS" {
		t.Fatalf("first call: %v %s", w.Header(), w.Body)
	}
	w := send(`{"jsonrpc":"2.0","id":"x","method":"info.getNetworkID"}`)
	if got, want := w.Body.String(), `{"jsonrpc":"2.0","result":{"networkID":"5"},"id":"x"}`+"\n"; got != want || w.Header().Get("X-Cache-Status") != "HIT" {
		t.Fatalf("cached call = %s (%s); want %s (HIT)", got, w.Header().Get("X-Cache-Status"), want)
	}
	w = send(`[{"jsonrpc":"2.0","id":1,"method":"info.getNetworkID"}]`)
	if !strings.Contains(w.Body.String(), `"code":-32700`) || !strings.Contains(w.Body.String(), "json2.serverRequest") {
		t.Fatalf("batch = %s; want the node's -32700", w.Body)
	}
	if c := calls.Load(); c != 1 {
		t.Fatalf("upstream called %d times; want 1", c)
	}
}

// TestOversizedAnswerStreamedUncached: an answer larger than a cache fill
// keeps reaches the client whole and is never stored.
func TestOversizedAnswerStreamedUncached(t *testing.T) {
	big := `{"subnets":[` + strings.Repeat(`"x",`, 1000) + `"x"]}`
	var calls atomic.Int64
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(big))
	}))
	t.Cleanup(origin.Close)
	up := upstreamFor(t, catalog.Data, origin.URL)
	mc := &mapCache{m: map[string]*cache.Entry{}}
	srv, err := New(Options{Upstreams: map[catalog.Service]*Upstream{catalog.Data: up}, Cache: mc})
	if err != nil {
		t.Fatal(err)
	}
	srv.maxUpstreamBody = 1024
	for range 2 {
		w := get(srv, "/v1/networks/fuji/subnets")
		if w.Code != 200 || w.Body.String() != big {
			t.Fatalf("got %d, %d bytes; want 200 and the whole %d bytes", w.Code, w.Body.Len(), len(big))
		}
	}
	if len(mc.m) != 0 {
		t.Fatal("an oversized answer was stored")
	}
}

// TestPassthroughNeverTripsBreaker: failing calls of paths the catalogue
// does not name (an operator's published route) do not open the breaker
// for catalogued routes.
func TestPassthroughNeverTripsBreaker(t *testing.T) {
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/v1/networks/fuji/subnets") {
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`{"subnets":[]}`))
			return
		}
		http.Error(w, "boom", http.StatusInternalServerError)
	}))
	t.Cleanup(origin.Close)
	up := upstreamFor(t, catalog.Data, origin.URL)
	up.RetryBudget = 0
	up.Breaker = NewBreaker("data", BreakerOptions{
		MinRequests: 100, FailureRatio: 0.5, ConsecutiveFailures: 3,
		Interval: time.Minute, OpenFor: time.Minute, HalfOpenProbes: 1,
	}, nil)
	srv, err := New(Options{Upstreams: map[catalog.Service]*Upstream{catalog.Data: up}, Limiter: keyLimiter{},
		Publish: []Publish{{Method: "GET", Path: "/v1/webhooks", Keys: []string{"acme"}}}})
	if err != nil {
		t.Fatal(err)
	}
	for range 10 {
		r := httptest.NewRequest("GET", "/v1/webhooks", nil)
		r.Header.Set("X-Glacier-Api-Key", "acme")
		w := httptest.NewRecorder()
		srv.ServeHTTP(w, r)
		if w.Code != http.StatusInternalServerError || w.Header().Get("X-Avaedge-Source") != "upstream" {
			t.Fatalf("published route = %d from %q; want the upstream's 500", w.Code, w.Header().Get("X-Avaedge-Source"))
		}
	}
	if w := get(srv, "/v1/networks/fuji/subnets"); w.Code != 200 || w.Header().Get("X-Avaedge-Source") != "upstream" {
		t.Fatalf("catalogued route after failing passthrough calls: %d %v", w.Code, w.Header())
	}
}

// keyLimiter admits everyone and names the key the client sends.
type keyLimiter struct{}

func (keyLimiter) Admit(_ context.Context, r *http.Request, _ limits.Charge) limits.Decision {
	id := r.Header.Get("X-Glacier-Api-Key")
	if id == "" {
		id = "anonymous"
	}
	return limits.Decision{KeyID: id}
}

// TestOnlyPublishedPathsForwarded: account-scoped routes, other node APIs
// and path variants never reach an upstream; a route the operator publishes
// reaches it for its keys only.
func TestOnlyPublishedPathsForwarded(t *testing.T) {
	te := newTestEdge(t, Options{Limiter: keyLimiter{}, Publish: []Publish{{Method: "DELETE", Path: "/v1/webhooks/{id}", Keys: []string{"acme"}, Cost: 5}}})
	for _, c := range []struct{ method, path, key string }{
		{"GET", "/v1/webhooks", ""},
		{"DELETE", "/v1/webhooks/abc", ""},
		{"DELETE", "/v1/webhooks/abc", "other"},
		{"GET", "/v1/webhooks:getSharedSecret", "acme"},
		{"POST", "/v1/apiLogs", ""},
		{"DELETE", "/v1/apiUsageMetrics", ""},
		{"POST", "/v1/chains/43114/nfts/collections/0xa/tokens/1:reindex", ""},
		{"POST", "/ext/admin", ""},
		{"POST", "/ext/keystore", ""},
		{"POST", "/ext/metrics", ""},
		{"GET", "/v1/chains/43114/blocks/?pageSize=10", ""},
		{"GET", "/V1/CHAINS/43114/blocks", ""},
	} {
		r := httptest.NewRequest(c.method, c.path, strings.NewReader(`{}`))
		r.Header.Set("Content-Type", "application/json")
		if c.key != "" {
			r.Header.Set("X-Glacier-Api-Key", c.key)
		}
		w := httptest.NewRecorder()
		te.srv.ServeHTTP(w, r)
		calls := te.data.count.Load() + te.metrics.count.Load() + te.node.count.Load()
		if w.Code != 404 || calls != 0 || w.Header().Get("X-Avaedge-Source") != "edge" {
			t.Fatalf("%s %s (key %q) = %d from %q, upstream calls %d; want 404 at the edge", c.method, c.path, c.key, w.Code, w.Header().Get("X-Avaedge-Source"), calls)
		}
		if !strings.Contains(w.Body.String(), "Cannot "+c.method) && !strings.Contains(w.Body.String(), "404 page not found") {
			t.Fatalf("%s %s: unclear error %s", c.method, c.path, w.Body)
		}
	}
	r := httptest.NewRequest("DELETE", "/v1/webhooks/abc", nil)
	r.Header.Set("X-Glacier-Api-Key", "acme")
	w := httptest.NewRecorder()
	te.srv.ServeHTTP(w, r)
	if w.Code != 200 || te.data.count.Load() != 1 {
		t.Fatalf("the operator's published route for its key: %d, %d upstream calls", w.Code, te.data.count.Load())
	}
}

// TestEVMBodies: an EVM batch over the limit and a body that is not JSON are
// answered at the edge; a batch is charged per call.
func TestEVMBodies(t *testing.T) {
	te := newTestEdge(t, Options{})
	post := func(body string) *httptest.ResponseRecorder {
		r := httptest.NewRequest("POST", "/ext/bc/C/rpc", strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		w := httptest.NewRecorder()
		te.srv.ServeHTTP(w, r)
		return w
	}
	call := `{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}`
	big := "[" + strings.Repeat(call+",", maxBatch) + call + "]"
	if w := post(big); w.Code != http.StatusRequestEntityTooLarge || te.node.count.Load() != 0 {
		t.Fatalf("batch of %d: %d, %d upstream calls", maxBatch+1, w.Code, te.node.count.Load())
	}
	if w := post(`[` + call + `,`); w.Code != 200 || !strings.Contains(w.Body.String(), "-32700") || te.node.count.Load() != 0 {
		t.Fatalf("invalid JSON: %d %s, %d upstream calls", w.Code, w.Body, te.node.count.Load())
	}
	if w := post("[" + call + "," + call + "]"); w.Code != 200 || te.node.count.Load() != 1 {
		t.Fatalf("valid batch: %d, %d upstream calls", w.Code, te.node.count.Load())
	}
}

// readSpy records whether a body was read.
type readSpy struct{ read atomic.Bool }

func (b *readSpy) Read(p []byte) (int, error) {
	b.read.Store(true)
	return 0, io.EOF
}

// TestRefusedBeforeBodyRead: an unknown key is refused before its body is
// read, on JSON-RPC endpoints and REST POST routes alike.
func TestRefusedBeforeBodyRead(t *testing.T) {
	lim := testLimiter(t, "plans: {p: {cu_per_minute: 1000}}\nkeys: [{id: acme, key: k1, plan: p}]\n")
	te := newTestEdge(t, Options{Limiter: lim})
	for _, path := range []string{"/ext/info", "/ext/bc/X", "/ext/bc/C/rpc", "/v1/signatureAggregator/fuji/aggregateSignatures"} {
		spy := &readSpy{}
		r := httptest.NewRequest("POST", path, spy)
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("X-Glacier-Api-Key", "unknown")
		w := httptest.NewRecorder()
		te.srv.ServeHTTP(w, r)
		if w.Code != http.StatusUnauthorized || spy.read.Load() {
			t.Errorf("POST %s with an unknown key: %d, body read %v; want 401 before reading", path, w.Code, spy.read.Load())
		}
	}
}
