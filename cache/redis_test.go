package cache

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/avaedge/avaedge/internal/redistest"
)

func TestRedisStoppedLosesNoRequest(t *testing.T) {
	srv := redistest.Start(t)
	srv.RequireReal()
	ctx := context.Background()
	clk := newClock()
	purged := make(chan string, 1)
	c := mustNewHooked(t, Options{Now: clk.Now, Redis: srv.Client(), RedisTimeout: 100 * time.Millisecond}, purged)
	u := &upstream{clk: clk}
	if _, _, err := c.Do(ctx, "before", false, u.fetch); err != nil {
		t.Fatalf("Do: %v", err)
	}
	srv.Stop()
	for i := 0; i < 50; i++ {
		key := fmt.Sprintf("down%d", i%5)
		if _, _, err := c.Do(ctx, key, false, u.fetch); err != nil {
			t.Fatalf("request %d with Redis down: %v", i, err)
		}
	}
	if _, st, _ := c.Do(ctx, "before", false, u.fetch); st != Hit {
		t.Fatalf("entry stored before the stop: %s; want HIT from the in-process tier", st)
	}
	if n := u.calls.Load(); n != 6 {
		t.Fatalf("fetch calls = %d; want 6 (the in-process tier kept serving)", n)
	}
	if c.redis.until.Load() == 0 {
		t.Fatal("Redis not in backoff after repeated failures")
	}

	srv.Restart()
	rdb := srv.Client()
	// Past the backoff one request probes Redis; go-redis reconnects by
	// itself, so within a few probes entries reach Redis again.
	for i := 0; ; i++ {
		clk.Add(2 * backoff)
		if _, _, err := c.Do(ctx, "after", true, u.fetch); err != nil {
			t.Fatalf("Do after restart: %v", err)
		}
		if n, _ := rdb.Exists(ctx, "avaedge|after").Result(); n == 1 {
			break
		}
		if i == 50 {
			t.Fatal("entries never reached Redis again after Restart")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if c.redis.until.Load() != 0 || c.redis.fails.Load() != 0 {
		t.Fatalf("backoff state after recovery: until %d, fails %d; want 0, 0", c.redis.until.Load(), c.redis.fails.Load())
	}
	// The purge listener resubscribed by itself.
	other := mustNew(t, Options{Now: clk.Now, Redis: rdb})
	for i := 0; ; i++ {
		if _, err := other.Purge(ctx, "before"); err != nil {
			t.Fatalf("Purge: %v", err)
		}
		select {
		case <-purged:
		case <-time.After(100 * time.Millisecond):
			if i == 50 {
				t.Fatal("purge announcements not heard after Restart")
			}
			continue
		}
		break
	}
	if _, ok := c.Get(ctx, "before"); ok {
		t.Fatal("purged entry still in the in-process tier")
	}
}

func TestRedisBackoffSkipsDeadRedis(t *testing.T) {
	clk := newClock()
	// Nothing listens on this port: every call fails at once.
	rdb := redis.NewClient(&redis.Options{Addr: fmt.Sprintf("127.0.0.1:%d", redistest.FreePort(t)), MaxRetries: -1})
	t.Cleanup(func() { rdb.Close() })
	c := mustNew(t, Options{Now: clk.Now, MaxBytes: -1, Redis: rdb})
	ctx := context.Background()
	for i := 0; i < 20; i++ {
		c.Get(ctx, "k")
	}
	if n := c.redis.fails.Load(); n != failThreshold {
		t.Fatalf("Redis calls that failed = %d; want %d (then skipped)", n, failThreshold)
	}
	clk.Add(backoff)
	c.Get(ctx, "k") // the probe
	c.Get(ctx, "k") // skipped: the probe failed
	if n := c.redis.fails.Load(); n != failThreshold+1 {
		t.Fatalf("Redis calls that failed = %d; want %d (one probe per backoff)", n, failThreshold+1)
	}
}

func TestRedisCorruptValueIsAMiss(t *testing.T) {
	srv := redistest.Start(t)
	rdb := srv.Client()
	ctx := context.Background()
	c := mustNew(t, Options{MaxBytes: -1, Redis: rdb})
	for _, v := range []string{"", "garbage", string(make([]byte, headerLen))} {
		rdb.Set(ctx, "avaedge|k", v, time.Minute)
		if e, ok := c.Get(ctx, "k"); ok {
			t.Fatalf("value %q decoded to %+v; want a miss", v, e)
		}
	}
}

// TestSharedRedis runs two Cache instances (two edge replicas) over one
// Redis, a single node and a 3-node Cluster.
func TestSharedRedis(t *testing.T) {
	t.Run("single", func(t *testing.T) {
		srv := redistest.Start(t)
		testShared(t, func() redis.UniversalClient { return srv.Client() })
	})
	t.Run("cluster", func(t *testing.T) {
		cl := redistest.StartCluster(t, 3)
		testShared(t, func() redis.UniversalClient { return cl.Client(t) })
	})
}

func testShared(t *testing.T, client func() redis.UniversalClient) {
	ctx := context.Background()
	clk := newClock()
	purged := make(chan string, 16)
	a := mustNew(t, Options{Now: clk.Now, Redis: client(), RedisTimeout: time.Second})
	b := mustNewHooked(t, Options{Now: clk.Now, Redis: client(), RedisTimeout: time.Second}, purged)
	u := &upstream{clk: clk}

	t.Run("each sees the other's entries", func(t *testing.T) {
		for i := 0; i < 20; i++ { // 20 keys: spread over the Cluster's slots
			key := a.Key("data", "listBlocks", "/v1/x", fmt.Sprintf("page=%d", i))
			ea, st, _ := a.Do(ctx, key, false, u.fetch)
			if st != Miss {
				t.Fatalf("a %s: %s; want MISS", key, st)
			}
			eb, st, _ := b.Do(ctx, key, false, u.fetch)
			if st != Hit || string(eb.Body) != string(ea.Body) {
				t.Fatalf("b %s: %s %s; want HIT %s", key, st, eb.Body, ea.Body)
			}
		}
		if n := u.calls.Load(); n != 20 {
			t.Fatalf("fetch calls = %d; want 20", n)
		}
	})

	t.Run("a stale entry refreshed by one is fresh for the other", func(t *testing.T) {
		key := a.Key("data", "getHead", "/v1/head", "")
		a.Do(ctx, key, false, u.fetch)
		b.Do(ctx, key, false, u.fetch) // b holds it in process too
		clk.Add(15 * time.Second)
		if _, st, _ := a.Do(ctx, key, false, u.fetch); st != Stale {
			t.Fatalf("a: %s; want STALE", st)
		}
		waitRefreshes(t, a)
		calls := u.calls.Load()
		if _, st, _ := b.Do(ctx, key, false, u.fetch); st != Hit {
			t.Fatalf("b after a's refresh: %s; want HIT (newer entry in Redis)", st)
		}
		if u.calls.Load() != calls {
			t.Fatal("b fetched although a had refreshed the entry")
		}
	})

	t.Run("purge by prefix on both tiers and both instances", func(t *testing.T) {
		prefix := a.Key("data", "listBlocks", "/v1/x", "page=1")
		n, err := a.Purge(ctx, prefix) // page=1 and page=10..19
		if err != nil || n != 11 {
			t.Fatalf("Purge = %d, %v; want 11, nil", n, err)
		}
		select {
		case p := <-purged:
			if p != prefix {
				t.Fatalf("b purged %q; want %q", p, prefix)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("b never heard of the purge")
		}
		for i := 0; i < 20; i++ {
			key := a.Key("data", "listBlocks", "/v1/x", fmt.Sprintf("page=%d", i))
			want := i != 1 && i < 10
			for name, c := range map[string]*Cache{"a": a, "b": b} {
				if _, ok := c.Get(ctx, key); ok != want {
					t.Fatalf("%s Get(%s) = %v after purge; want %v", name, key, ok, want)
				}
			}
		}
	})
}

func TestPurgeExactPrefix(t *testing.T) {
	srv := redistest.Start(t)
	ctx := context.Background()
	clk := newClock()
	for _, maxBytes := range []int64{0, -1} {
		t.Run(fmt.Sprintf("maxBytes=%d", maxBytes), func(t *testing.T) {
			rdb := srv.Client()
			rdb.FlushAll(ctx)
			c := mustNew(t, Options{Now: clk.Now, MaxBytes: maxBytes, Redis: rdb})
			other := mustNew(t, Options{Now: clk.Now, Prefix: "staging", MaxBytes: maxBytes, Redis: srv.Client()})
			u := &upstream{clk: clk}
			keys := []string{
				c.Key("data", "a*", "/p"), // a glob character in a part
				c.Key("data", "a", "/p"),
				c.Key("data", "ab", "/p"),
				c.Key("data", "a|b", "/p"), // the separator in a part
			}
			for _, k := range keys {
				c.Do(ctx, k, false, u.fetch)
				other.Do(ctx, k, false, u.fetch)
			}
			n, err := c.Purge(ctx, c.Key("data", "a*")+"|")
			if err != nil || n != 1 {
				t.Fatalf("Purge = %d, %v; want 1, nil", n, err)
			}
			for i, k := range keys {
				if _, ok := c.Get(ctx, k); ok != (i != 0) {
					t.Fatalf("Get(%q) = %v; want %v", k, ok, i != 0)
				}
				if _, ok := other.Get(ctx, k); !ok {
					t.Fatalf("another prefix's %q was purged", k)
				}
			}
		})
	}
}
