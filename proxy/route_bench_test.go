package proxy

import (
	"net/http"
	"net/http/httptest"
	"testing"
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
