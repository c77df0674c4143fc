package main

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/avaedge/avaedge/cache"
	"github.com/avaedge/avaedge/catalog"
	"github.com/avaedge/avaedge/config"
	"github.com/avaedge/avaedge/limits"
	"github.com/avaedge/avaedge/proxy"
	"github.com/avaedge/avaedge/usage"
)

// nopWriter is a ResponseWriter that keeps nothing, so the benchmark
// measures the edge and not the recorder.
type nopWriter struct{ h http.Header }

func (w *nopWriter) Header() http.Header         { return w.h }
func (w *nopWriter) Write(b []byte) (int, error) { return len(b), nil }
func (w *nopWriter) WriteHeader(int)             {}

// BenchmarkCacheHit is the in-process hit path of the wired edge, with the
// real cache, the in-process limiter and the usage meter behind the proxy.
func BenchmarkCacheHit(b *testing.B) { benchmarkCacheHit(b, false) }

// BenchmarkCacheHitParallel is BenchmarkCacheHit from every core at once,
// as a loaded server runs it: shared counters and locks show here.
func BenchmarkCacheHitParallel(b *testing.B) { benchmarkCacheHit(b, true) }

func benchmarkCacheHit(b *testing.B, parallel bool) {
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write(make([]byte, 4096))
	}))
	defer origin.Close()
	var cfg config.Config
	cfg.Upstreams.Data.URL = origin.URL
	cfg.DisableAccessLog = true
	if err := cfg.Validate(); err != nil {
		b.Fatal(err)
	}
	up, _ := proxy.NewUpstream(catalog.Data, cfg.Upstreams.Data, "", nil)
	c, _ := cache.New(cache.Options{})
	defer c.Close()
	kf, err := limits.ParseKeysFile([]byte("plans: {bench: {cu_per_minute: 1000000000000}}\nanonymous: bench\n"))
	if err != nil {
		b.Fatal(err)
	}
	lim, _ := limits.New(limits.Options{Keys: kf})
	defer lim.Close()
	meter, err := usage.New(usage.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer meter.Close()
	srv, err := proxy.New(proxy.Options{Upstreams: map[catalog.Service]*proxy.Upstream{catalog.Data: up}, Cache: c, Limiter: lim, Usage: meter})
	if err != nil {
		b.Fatal(err)
	}
	r := httptest.NewRequest("GET", "/v1/chains/43114/blocks?pageSize=10", nil)
	w := &nopWriter{h: http.Header{}}
	srv.ServeHTTP(w, r)
	b.ReportAllocs()
	b.ResetTimer()
	if !parallel {
		for i := 0; i < b.N; i++ {
			w.h = make(http.Header, 8)
			srv.ServeHTTP(w, r)
		}
		if w.h.Get("X-Cache-Status") != "HIT" {
			b.Fatal("not a hit")
		}
		return
	}
	b.RunParallel(func(pb *testing.PB) {
		r := r.Clone(r.Context())
		w := &nopWriter{}
		for pb.Next() {
			w.h = make(http.Header, 8)
			srv.ServeHTTP(w, r)
		}
		if w.h != nil && w.h.Get("X-Cache-Status") != "HIT" {
			b.Error("not a hit")
		}
	})
}
