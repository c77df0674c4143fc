package proxy

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/avaedge/avaedge/cache"
	"github.com/avaedge/avaedge/limits"
)

// discardWriter is a ResponseWriter that keeps nothing, so the routing
// benchmarks measure the edge and not a recorder.
type discardWriter struct{ h http.Header }

func (w *discardWriter) Header() http.Header         { return w.h }
func (w *discardWriter) Write(b []byte) (int, error) { return len(b), nil }
func (w *discardWriter) WriteHeader(int)             {}

// BenchmarkNew builds a Server over the whole catalogue: the mux's
// registration of every route, done once at start and on every reload.
func BenchmarkNew(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := New(Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRoute is a request the memo of prepared calls does not hold (local mode: no
// upstream, nothing remembered): the mux's match, validation and the prepared call,
// answered by a local world that writes a constant. Each case is a route
// deep in the catalogue, a route near its start, and a path no route names
// (the edge's 404).
func BenchmarkRoute(b *testing.B) {
	srv, err := New(Options{Local: &fakeLocal{}})
	if err != nil {
		b.Fatal(err)
	}
	for _, tc := range []struct{ name, target string }{
		{"metrics", "/v2/chains/43114/metrics/txCount?timeInterval=day&pageSize=10"},
		{"subnets", "/v1/networks/fuji/subnets?pageSize=10"},
		{"unknown", "/v1/nothing/here"},
	} {
		b.Run(tc.name, func(b *testing.B) {
			r := httptest.NewRequest("GET", tc.target, nil)
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				srv.ServeHTTP(&discardWriter{h: make(http.Header, 8)}, r)
			}
		})
	}
}

// BenchmarkNodeCall is a keyed node call answered from the in-process cache
// tier: admitted for the endpoint's minimum before its body is read, then
// charged the rest of its price once decoded (info.peers: 1 + 9 CU), and
// re-encoded with canonical params for its key.
func BenchmarkNodeCall(b *testing.B) {
	kf, err := limits.ParseKeysFile([]byte("plans:\n  p: {cu_per_day: 1000000000000}\nkeys:\n  - {id: k, key: k-key, plan: p}\n"))
	if err != nil {
		b.Fatal(err)
	}
	lim, err := limits.New(limits.Options{Keys: kf})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { lim.Close() })
	c, _ := cache.New(cache.Options{})
	b.Cleanup(func() { c.Close() })
	te := newTestEdge(b, Options{Limiter: lim, Cache: c})
	body := `{"jsonrpc":"2.0","id":1,"method":"info.peers","params":{"nodeIDs":["NodeID-111111111111111111116DBWJs"]}}`
	do := func() *httptest.ResponseRecorder {
		r := httptest.NewRequest("POST", "/ext/info", strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("X-Glacier-Api-Key", "k-key")
		w := httptest.NewRecorder()
		te.srv.ServeHTTP(w, r)
		return w
	}
	te.node.answer = func(w http.ResponseWriter, r *http.Request, _ []byte) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"jsonrpc":"2.0","id":1,"result":{"numPeers":"0","peers":[]}}`))
	}
	do()
	if w := do(); w.Header().Get("X-Cache-Status") != "HIT" {
		b.Fatalf("not a hit: %d %v", w.Code, w.Header())
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		do()
	}
}

// BenchmarkBatchOverLimit is the 499,999-element EVM batch of issue 35
// (finding 1) from a client within its limits: admitted, read, and refused
// (413) by the scan that stops at the 101st element.
func BenchmarkBatchOverLimit(b *testing.B) {
	srv, err := New(Options{Local: &fakeLocal{}})
	if err != nil {
		b.Fatal(err)
	}
	body := "[" + strings.Repeat("1,", 499_998) + "1]"
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	for range b.N {
		r := httptest.NewRequest("POST", "/ext/bc/C/rpc", strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		w := &discardWriter{h: make(http.Header, 8)}
		srv.ServeHTTP(w, r)
	}
}
