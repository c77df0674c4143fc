package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/avaedge/avaedge/cache"
	"github.com/avaedge/avaedge/catalog"
	"github.com/avaedge/avaedge/config"
	"github.com/avaedge/avaedge/proxy"
)

// TestMethodCaseAtEdge checks that a method whose name after the dot starts
// with an upper-case letter gets the node's own error at the edge, and never
// the cached answer of the lower-case method: avalanchego v1.14.2
// (utils/json/codec.go) refuses such a name with -32000 "method must start
// with a non-uppercase letter", HTTP 200.
func TestMethodCaseAtEdge(t *testing.T) {
	var calls atomic.Int64
	node := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		b, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		if strings.Contains(string(b), `"info.getNetworkID"`) {
			io.WriteString(w, `{"jsonrpc":"2.0","result":{"networkID":"5"},"id":1}`+"\n")
			return
		}
		io.WriteString(w, `{"jsonrpc":"2.0","error":{"code":-32000,"message":"method must start with a non-uppercase letter","data":null},"id":1}`+"\n")
	}))
	t.Cleanup(node.Close)
	var cfg config.Config
	cfg.Upstreams.Node.URL = node.URL
	cfg.Defaults()
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	up, err := proxy.NewUpstream(catalog.Node, upstreamOf(cfg.Upstreams.Node), "", nil)
	if err != nil {
		t.Fatal(err)
	}
	c, err := cache.New(cache.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	srv, err := proxy.New(proxy.Options{Upstreams: map[catalog.Service]*proxy.Upstream{catalog.Node: up},
		Cache: c})
	if err != nil {
		t.Fatal(err)
	}
	call := func(body string) *httptest.ResponseRecorder {
		r := httptest.NewRequest(http.MethodPost, "/ext/info", strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		w := httptest.NewRecorder()
		srv.ServeHTTP(w, r)
		return w
	}
	if w := call(`{"jsonrpc":"2.0","method":"info.getNetworkID","id":1}`); w.Code != 200 || !strings.Contains(w.Body.String(), `"networkID":"5"`) {
		t.Fatalf("getNetworkID: %d %s", w.Code, w.Body)
	}
	const want = `{"jsonrpc":"2.0","error":{"code":-32000,"message":"method must start with a non-uppercase letter","data":null},"id":1}` + "\n"
	for i := range 2 {
		w := call(`{"jsonrpc":"2.0","method":"info.GetNetworkID","id":1}`)
		if w.Code != 200 || w.Body.String() != want {
			t.Fatalf("GetNetworkID #%d: got %d %s; want 200 %s", i, w.Code, w.Body, want)
		}
		if cs := w.Header().Get("X-Cache-Status"); cs == "HIT" || cs == "STALE" {
			t.Fatalf("GetNetworkID #%d answered from the cache (%s)", i, cs)
		}
	}
}
