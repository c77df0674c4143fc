package main

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
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
	cfg.Defaults()
	if err := cfg.Validate(); err != nil {
		b.Fatal(err)
	}
	up, _ := proxy.NewUpstream(catalog.Data, upstreamOf(cfg.Upstreams.Data), "", nil)
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

// BenchmarkCacheHitWired is the hit path of the edge as the binary wires it
// in its default configuration (build and the public server's handler:
// body-rate guard, proxy, cache, limits in process, the access log on,
// written to a file).
func BenchmarkCacheHitWired(b *testing.B) { benchmarkCacheHitWired(b, "") }

// BenchmarkCacheHitWiredNoLog is BenchmarkCacheHitWired with the access
// log off, as deploy/bench/compare.sh runs the edge.
func BenchmarkCacheHitWiredNoLog(b *testing.B) {
	benchmarkCacheHitWired(b, "disable_access_log: true\nlog_level: warn\n")
}

func benchmarkCacheHitWired(b *testing.B, extra string) {
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write(make([]byte, 4096))
	}))
	defer origin.Close()
	dir := b.TempDir()
	keys := filepath.Join(dir, "keys.yaml")
	os.WriteFile(keys, []byte("plans: {bench: {cu_per_minute: 1000000000000, cu_per_day: 1000000000000000}}\nanonymous: bench\n"), 0o600)
	conf := filepath.Join(dir, "edge.yaml")
	os.WriteFile(conf, []byte(extra+"local: {disable_dev_chain: true}\nroutes:\n  getLatestBlocks: {cache: immutable}\n"), 0o600)
	env := map[string]string{"AVAEDGE_DATA_UPSTREAM": origin.URL, "AVAEDGE_KEYS_FILE": keys}
	cfg, err := config.Load(conf, func(k string) string { return env[k] })
	if err != nil {
		b.Fatal(err)
	}
	f, err := os.Create(filepath.Join(dir, "access.log"))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	log := slog.New(slog.NewJSONHandler(f, nil))
	a, err := build(context.Background(), cfg, log, f)
	if err != nil {
		b.Fatal(err)
	}
	defer a.Close()
	h := newServers(cfg, a).public.Handler
	r := httptest.NewRequest("GET", "/v1/chains/43114/blocks?pageSize=10", nil)
	r.RemoteAddr = "127.0.0.1:40000"
	w := &nopWriter{h: http.Header{}}
	h.ServeHTTP(w, r)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		w.h = make(http.Header, 8)
		h.ServeHTTP(w, r)
	}
	b.StopTimer()
	if w.h.Get("X-Cache-Status") != "HIT" {
		b.Fatal("not a hit")
	}
	// Lines the log dropped were not written: say how many.
	rec := httptest.NewRecorder()
	a.Admin.ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	for _, l := range strings.Split(rec.Body.String(), "\n") {
		if v, ok := strings.CutPrefix(l, "avaedge_access_log_dropped_total "); ok {
			n, _ := strconv.ParseFloat(v, 64)
			b.ReportMetric(n/float64(b.N), "dropped/op")
		}
	}
}
