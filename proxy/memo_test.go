package proxy

import (
	"context"
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/avaedge/avaedge/cache"
	"github.com/avaedge/avaedge/catalog"
)

// mapCache is a minimal Cache for proxy tests: fresh forever, no windows.
type mapCache struct {
	mu sync.Mutex // guards m
	m  map[string]*cache.Entry
}

func (c *mapCache) Do(ctx context.Context, key string, bypass bool, fetch func(context.Context) (*cache.Entry, error)) (*cache.Entry, cache.Status, error) {
	c.mu.Lock()
	st, ok := c.m[key]
	c.mu.Unlock()
	if ok && !bypass {
		return st, cache.Hit, nil
	}
	st, err := fetch(ctx)
	if err != nil {
		return nil, cache.Miss, err
	}
	if st.FreshFor > 0 {
		c.mu.Lock()
		c.m[key] = st
		c.mu.Unlock()
	}
	return st, cache.Miss, nil
}

func (c *mapCache) Fresh(key string, _ time.Time) *cache.Entry {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.m[key]
}

// TestMemo: repeated valid GETs skip routing and validation but answer the
// same; invalid ones are never remembered; the local fallback still sees the
// path values.
func TestMemo(t *testing.T) {
	origin := newFlakyOrigin(t)
	local := &fakeLocal{}
	up := upstreamFor(t, catalog.Data, origin.srv.URL)
	up.RetryBudget = 0
	srv, err := New(Options{Upstreams: map[catalog.Service]*Upstream{catalog.Data: up}, Local: local,
		Cache: &mapCache{m: map[string]*cache.Entry{}}})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		if w := get(srv, "/v1/networks/fuji/subnets?pageSize=1000000"); w.Code != 400 {
			t.Fatalf("invalid request %d: %d", i, w.Code)
		}
	}
	if srv.memo.n.Load() != 0 {
		t.Fatal("an invalid request was remembered")
	}
	if w := get(srv, "/v1/networks/fuji/subnets?pageSize=5"); w.Header().Get("X-Cache-Status") != "MISS" {
		t.Fatal(w.Header())
	}
	if srv.memo.n.Load() != 1 {
		t.Fatalf("memo entries = %d; want 1", srv.memo.n.Load())
	}
	if w := get(srv, "/v1/networks/fuji/subnets?pageSize=5"); w.Header().Get("X-Cache-Status") != "HIT" || w.Code != 200 {
		t.Fatalf("memoised hit: %d %v", w.Code, w.Header())
	}
	// A remembered URI whose answer is not cached goes upstream; when that
	// fails, local still sees network=fuji.
	origin.mode.Store("500")
	if w := get(srv, "/v1/networks/fuji/validators"); w.Code != 500 && w.Header().Get("X-Avaedge-Source") != "local" {
		t.Fatalf("first: %d", w.Code)
	}
	w := get(srv, "/v1/networks/fuji/validators")
	if w.Header().Get("X-Avaedge-Source") != "local" {
		t.Fatalf("memoised request did not fall back to local: %d %v", w.Code, w.Header())
	}
}

// TestHitDateAndAge: a hit is dated by the request's clock reading, in
// RFC 9110's format, and its Age counts from the store.
func TestHitDateAndAge(t *testing.T) {
	origin := newFlakyOrigin(t)
	up := upstreamFor(t, catalog.Data, origin.srv.URL)
	now := time.Date(2026, 11, 23, 9, 30, 5, 0, time.UTC)
	var mu sync.Mutex
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	srv, err := New(Options{Upstreams: map[catalog.Service]*Upstream{catalog.Data: up},
		Cache: &mapCache{m: map[string]*cache.Entry{}}, Now: clock})
	if err != nil {
		t.Fatal(err)
	}
	if w := get(srv, "/v1/networks/fuji/subnets"); w.Header().Get("X-Cache-Status") != "MISS" {
		t.Fatal(w.Header())
	}
	for _, step := range []time.Duration{7 * time.Second, 1500 * time.Millisecond} {
		mu.Lock()
		now = now.Add(step)
		mu.Unlock()
		w := get(srv, "/v1/networks/fuji/subnets")
		if w.Header().Get("X-Cache-Status") != "HIT" {
			t.Fatal(w.Header())
		}
		if got, want := w.Header().Get("Date"), clock().Format(http.TimeFormat); got != want {
			t.Fatalf("Date = %q; want %q", got, want)
		}
		if got, want := w.Header().Get("Age"), strconv.Itoa(int(clock().Sub(time.Date(2026, 11, 23, 9, 30, 5, 0, time.UTC))/time.Second)); got != want {
			t.Fatalf("Age = %q; want %q", got, want)
		}
	}
}
