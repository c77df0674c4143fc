package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/avaedge/avaedge/cache"
	"github.com/avaedge/avaedge/catalog"
	"github.com/avaedge/avaedge/config"
	"github.com/avaedge/avaedge/internal/redistest"
	"github.com/avaedge/avaedge/proxy"
)

// testClock is shared by the edge and its cache.
type testClock struct {
	mu sync.Mutex // guards t
	t  time.Time
}

func (c *testClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *testClock) Add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// countingOrigin answers every path with a body naming the call, and can be
// switched to failing or to no-store answers.
type countingOrigin struct {
	calls   atomic.Int64
	down    atomic.Bool
	noStore atomic.Bool
	gate    chan struct{} // when non-nil, each call waits on it
	srv     *httptest.Server
}

func newCountingOrigin(t *testing.T) *countingOrigin {
	o := &countingOrigin{}
	o.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := o.calls.Add(1)
		if o.gate != nil {
			<-o.gate
		}
		if o.down.Load() {
			http.Error(w, "down", http.StatusBadGateway)
			return
		}
		if o.noStore.Load() {
			w.Header().Set("Cache-Control", "no-store")
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"call":%d,"path":%q,"query":%q}`, n, r.URL.Path, r.URL.RawQuery)
	}))
	t.Cleanup(o.srv.Close)
	return o
}

func cachedEdge(t *testing.T, origin string, rdb redis.UniversalClient, clk *testClock) http.Handler {
	var cfg config.Config
	cfg.Upstreams.Data.URL = origin
	cfg.Upstreams.Data.Retry.Budget = -1
	cfg.Defaults()
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	up, err := proxy.NewUpstream(catalog.Data, upstreamOf(cfg.Upstreams.Data), "", nil)
	if err != nil {
		t.Fatal(err)
	}
	c, err := cache.New(cache.Options{Redis: rdb, RedisTimeout: 200 * time.Millisecond, Now: clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	srv, err := proxy.New(proxy.Options{Upstreams: map[catalog.Service]*proxy.Upstream{catalog.Data: up},
		Routes: catalog.WithOverrides(cfg.Overrides()), Cache: c, Now: clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	return srv
}

func fetchVia(t *testing.T, h http.Handler, target string, hdr ...string) *httptest.ResponseRecorder {
	t.Helper()
	r := httptest.NewRequest("GET", target, nil)
	for i := 0; i+1 < len(hdr); i += 2 {
		r.Header.Set(hdr[i], hdr[i+1])
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

func TestEdgeCache(t *testing.T) {
	srv := redistest.Start(t)
	backends := []struct {
		name   string
		client func(t *testing.T) redis.UniversalClient
	}{
		{"redis", func(t *testing.T) redis.UniversalClient {
			c := srv.Client()
			c.FlushAll(context.Background())
			return c
		}},
		{"cluster", func(t *testing.T) redis.UniversalClient {
			if !redistest.Required() && !srv.Real {
				t.Skip("no redis-server for a cluster")
			}
			return redistest.StartCluster(t, 3).Client(t)
		}},
	}
	for _, be := range backends {
		t.Run(be.name, func(t *testing.T) {
			clk := &testClock{t: time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC)}
			o := newCountingOrigin(t)
			rdb := be.client(t)
			a := cachedEdge(t, o.srv.URL, rdb, clk)
			b := cachedEdge(t, o.srv.URL, rdb, clk)
			const subnets = "/v1/networks/fuji/subnets"

			w := fetchVia(t, a, subnets)
			if w.Header().Get("X-Cache-Status") != "MISS" || o.calls.Load() != 1 {
				t.Fatalf("first: %s calls %d", w.Header().Get("X-Cache-Status"), o.calls.Load())
			}
			first := w.Body.String()
			w = fetchVia(t, a, subnets+"?pageSize=100") // the SDK's default: same entry
			if w.Header().Get("X-Cache-Status") != "HIT" || w.Body.String() != first || o.calls.Load() != 1 {
				t.Fatalf("second: %s calls %d", w.Header().Get("X-Cache-Status"), o.calls.Load())
			}
			// The other instance serves the entry from Redis.
			if w := fetchVia(t, b, subnets); w.Header().Get("X-Cache-Status") != "HIT" || w.Body.String() != first {
				t.Fatalf("instance b: %s %s", w.Header().Get("X-Cache-Status"), w.Body)
			}
			// Page tokens are distinct entries; the client's key is not part of the key.
			fetchVia(t, a, subnets+"?pageToken=aaa", "X-Glacier-Api-Key", "k1")
			fetchVia(t, a, subnets+"?pageToken=bbb", "X-Glacier-Api-Key", "k1")
			if w := fetchVia(t, b, subnets+"?pageToken=aaa", "X-Glacier-Api-Key", "k2"); w.Header().Get("X-Cache-Status") != "HIT" || o.calls.Load() != 3 {
				t.Fatalf("page tokens: %s calls %d", w.Header().Get("X-Cache-Status"), o.calls.Load())
			}

			// 100 concurrent misses for one key: one upstream call.
			o.gate = make(chan struct{})
			before := o.calls.Load()
			var wg sync.WaitGroup
			for i := 0; i < 100; i++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					if w := fetchVia(t, a, "/v1/networks/fuji/delegators"); w.Code != 200 {
						t.Errorf("status %d", w.Code)
					}
				}()
			}
			time.Sleep(100 * time.Millisecond)
			close(o.gate)
			wg.Wait()
			o.gate = nil
			if n := o.calls.Load() - before; n != 1 {
				t.Fatalf("100 concurrent misses made %d upstream calls", n)
			}

			// Expired: served STALE at once while one refresh runs.
			clk.Add(45 * time.Second) // medium: fresh 30s, stale 30s
			before = o.calls.Load()
			if w := fetchVia(t, a, subnets); w.Header().Get("X-Cache-Status") != "STALE" || w.Body.String() != first {
				t.Fatalf("stale: %s", w.Header().Get("X-Cache-Status"))
			}
			deadline := time.Now().Add(5 * time.Second)
			for o.calls.Load() == before && time.Now().Before(deadline) {
				time.Sleep(10 * time.Millisecond)
			}
			if n := o.calls.Load() - before; n != 1 {
				t.Fatalf("refreshes = %d; want 1", n)
			}
			// The refresh has called the upstream; wait until it has stored
			// its answer too, or a later miss could join its flight.
			for fetchVia(t, a, subnets).Header().Get("X-Cache-Status") != "HIT" && time.Now().Before(deadline) {
				time.Sleep(10 * time.Millisecond)
			}
			if n := o.calls.Load() - before; n != 1 {
				t.Fatalf("refreshes = %d after it was stored; want 1", n)
			}
			// A HIT is the in-process tier's, stored before Redis's: the
			// flight stays open until its Redis write ends, bounded by
			// RedisTimeout (200 ms). A miss joining it would get its 200
			// (CI saw 200 MISS within the error window below under -race).
			time.Sleep(300 * time.Millisecond)

			// Upstream down: a stale entry within the error window serves, outside it does not.
			o.down.Store(true)
			clk.Add(50 * time.Minute) // medium error window: 1h after freshness
			w = fetchVia(t, a, subnets)
			if w.Code != 200 || w.Header().Get("X-Cache-Status") != "STALE" || w.Header().Get("X-Avaedge-Source") != "cache" {
				t.Fatalf("within error window: %d %s", w.Code, w.Header().Get("X-Cache-Status"))
			}
			clk.Add(time.Hour)
			if w := fetchVia(t, a, subnets); w.Code != http.StatusBadGateway {
				t.Fatalf("outside error window: %d %s", w.Code, w.Header().Get("X-Cache-Status"))
			}
			o.down.Store(false)

			// no-store answers are not kept.
			o.noStore.Store(true)
			before = o.calls.Load()
			fetchVia(t, a, "/v1/networks/fuji/validators")
			fetchVia(t, a, "/v1/networks/fuji/validators")
			if n := o.calls.Load() - before; n != 2 {
				t.Fatalf("no-store answer was cached: %d calls", n)
			}
			o.noStore.Store(false)
		})
	}
}

// TestEdgeCacheRedisStopped: Redis stopped mid-test loses no request.
func TestEdgeCacheRedisStopped(t *testing.T) {
	srv := redistest.Start(t)
	srv.RequireReal()
	clk := &testClock{t: time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC)}
	o := newCountingOrigin(t)
	e := cachedEdge(t, o.srv.URL, srv.Client(), clk)
	for i := 0; i < 20; i++ {
		fetchVia(t, e, fmt.Sprintf("/v1/networks/fuji/subnets?pageToken=%d", i%4))
	}
	srv.Stop()
	for i := 0; i < 200; i++ {
		if w := fetchVia(t, e, fmt.Sprintf("/v1/networks/fuji/subnets?pageToken=%d", i%8)); w.Code != 200 {
			t.Fatalf("request %d with Redis stopped: %d", i, w.Code)
		}
	}
	srv.Restart()
	clk.Add(2 * time.Second)
	if w := fetchVia(t, e, "/v1/networks/fuji/subnets?pageToken=new"); w.Code != 200 {
		t.Fatalf("after restart: %d", w.Code)
	}
}
