package cache

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/avaedge/avaedge/internal/redistest"
)

// clock is a settable test clock.
type clock struct {
	mu sync.Mutex // guards t
	t  time.Time
}

func newClock() *clock { return &clock{t: time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC)} }
func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}
func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// counter is a fetch that counts its calls.
type counter struct {
	calls atomic.Int64
	fail  atomic.Bool
	clk   *clock
	body  string
}

func (f *counter) fetch(ctx context.Context) (*Entry, error) {
	n := f.calls.Add(1)
	if f.fail.Load() {
		return nil, errors.New("upstream down")
	}
	return &Entry{Status: 200, ContentType: "application/json", Body: []byte(fmt.Sprintf(`{"n":%d,"b":%q}`, n, f.body)),
		StoredAt: f.clk.Now(), FreshFor: 10 * time.Second, StaleFor: 10 * time.Second, ErrorFor: time.Minute}, nil
}

type setup struct {
	name  string
	cache func(t *testing.T, clk *clock) *Cache
}

func setups(t *testing.T) []setup {
	srv := redistest.Start(t)
	return []setup{
		{"memory", func(t *testing.T, clk *clock) *Cache { return mustNew(t, Options{Now: clk.Now}) }},
		{"redis only", func(t *testing.T, clk *clock) *Cache {
			rdb := srv.Client()
			rdb.FlushAll(context.Background())
			return mustNew(t, Options{Now: clk.Now, MaxBytes: -1, Redis: rdb, RedisTimeout: time.Second})
		}},
		{"both tiers", func(t *testing.T, clk *clock) *Cache {
			rdb := srv.Client()
			rdb.FlushAll(context.Background())
			return mustNew(t, Options{Now: clk.Now, Redis: rdb, RedisTimeout: time.Second})
		}},
	}
}

func mustNew(t *testing.T, o Options) *Cache {
	c, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func TestDo(t *testing.T) {
	ctx := context.Background()
	for _, s := range setups(t) {
		t.Run(s.name, func(t *testing.T) {
			clk := newClock()
			c := s.cache(t, clk)
			f := &counter{clk: clk, body: "x"}
			e, st, err := c.Do(ctx, "k", false, f.fetch)
			if err != nil || st != Miss || f.calls.Load() != 1 {
				t.Fatalf("first: %v %s calls %d", err, st, f.calls.Load())
			}
			e2, st, _ := c.Do(ctx, "k", false, f.fetch)
			if st != Hit || f.calls.Load() != 1 || string(e2.Body) != string(e.Body) {
				t.Fatalf("second: %s calls %d", st, f.calls.Load())
			}
			// A different page token is a different entry.
			if _, st, _ := c.Do(ctx, "k&pageToken=2", false, f.fetch); st != Miss || f.calls.Load() != 2 {
				t.Fatalf("other key: %s calls %d", st, f.calls.Load())
			}
			// no-cache bypasses the read but stores.
			if _, st, _ := c.Do(ctx, "k", true, f.fetch); st != Bypass || f.calls.Load() != 3 {
				t.Fatalf("bypass: %s calls %d", st, f.calls.Load())
			}
			// Expired but within the stale window: STALE at once, one refresh.
			clk.Add(15 * time.Second)
			_, st, _ = c.Do(ctx, "k", false, f.fetch)
			if st != Stale {
				t.Fatalf("stale: %s", st)
			}
			c.wg.Wait()
			if f.calls.Load() != 4 {
				t.Fatalf("refresh calls = %d; want 4", f.calls.Load())
			}
			if _, st, _ := c.Do(ctx, "k", false, f.fetch); st != Hit {
				t.Fatalf("after refresh: %s", st)
			}
			// Upstream down: within the error window the stale copy serves...
			f.fail.Store(true)
			clk.Add(40 * time.Second)
			if e, st, err := c.Do(ctx, "k", false, f.fetch); err != nil || st != Stale || e == nil {
				t.Fatalf("error window: %v %s", err, st)
			}
			// ...outside it nothing does.
			clk.Add(time.Minute)
			if _, _, err := c.Do(ctx, "k", false, f.fetch); err == nil {
				t.Fatal("served an entry past its error window")
			}
		})
	}
}

func TestSingleFlight(t *testing.T) {
	for _, s := range setups(t) {
		t.Run(s.name, func(t *testing.T) {
			clk := newClock()
			c := s.cache(t, clk)
			release := make(chan struct{})
			var calls atomic.Int64
			fetch := func(ctx context.Context) (*Entry, error) {
				calls.Add(1)
				<-release
				return &Entry{Status: 200, Body: []byte("v"), StoredAt: clk.Now(), FreshFor: time.Minute}, nil
			}
			var wg sync.WaitGroup
			for i := 0; i < 100; i++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					if _, _, err := c.Do(context.Background(), "hot", false, fetch); err != nil {
						t.Error(err)
					}
				}()
			}
			time.Sleep(50 * time.Millisecond) // let the callers pile up on the flight
			close(release)
			wg.Wait()
			if n := calls.Load(); n != 1 {
				t.Fatalf("upstream calls = %d; want 1", n)
			}
		})
	}
}

func TestWindows(t *testing.T) {
	p := DefaultPolicy(Medium)
	h := func(cc string) http.Header { return http.Header{"Cache-Control": {cc}} }
	tests := []struct {
		name   string
		status int
		h      http.Header
		token  bool
		fresh  time.Duration
		store  bool
	}{
		{"200", 200, nil, false, 30 * time.Second, true},
		{"500", 500, nil, false, 0, false},
		{"404 negative", 404, nil, false, NegativeTTL, true},
		{"no-store", 200, h("no-store"), false, 0, false},
		{"private", 200, h("private, max-age=60"), false, 0, false},
		{"max-age caps", 200, h("public, max-age=7"), false, 7 * time.Second, true},
		{"s-maxage wins", 200, h("max-age=1, s-maxage=9"), false, 9 * time.Second, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fresh, _, _, store := Windows(p, tt.status, tt.h, tt.token)
			if fresh != tt.fresh || store != tt.store {
				t.Fatalf("Windows = %v, %v; want %v, %v", fresh, store, tt.fresh, tt.store)
			}
		})
	}
	fresh, stale, errFor, _ := Windows(DefaultPolicy(Immutable), 200, nil, true)
	if fresh+max(stale, errFor) > PageTokenLifetime {
		t.Fatalf("page with a token kept %v; longer than the token lives", fresh+max(stale, errFor))
	}
	if _, _, _, store := Windows(DefaultPolicy(Never), 200, nil, false); store {
		t.Fatal("never class stored")
	}
}

func TestRedisStoppedLosesNothing(t *testing.T) {
	srv := redistest.Start(t)
	srv.RequireReal()
	clk := newClock()
	c := mustNew(t, Options{Now: clk.Now, Redis: srv.Client(), RedisTimeout: 100 * time.Millisecond})
	f := &counter{clk: clk}
	ctx := context.Background()
	if _, _, err := c.Do(ctx, "a", false, f.fetch); err != nil {
		t.Fatal(err)
	}
	srv.Stop()
	for i := 0; i < 50; i++ {
		key := fmt.Sprintf("k%d", i%5)
		if _, _, err := c.Do(ctx, key, false, f.fetch); err != nil {
			t.Fatalf("request %d failed with Redis down: %v", i, err)
		}
	}
	if _, st, _ := c.Do(ctx, "a", false, f.fetch); st != Hit {
		t.Fatalf("in-process tier lost its entry: %s", st)
	}
	srv.Restart()
	clk.Add(2 * time.Second) // past the Redis backoff
	if _, _, err := c.Do(ctx, "after", false, f.fetch); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		if n, _ := srv.Client().Exists(ctx, "avaedge|after").Result(); n == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("Redis not used again after it came back")
		}
		clk.Add(2 * time.Second)
		c.Do(ctx, "after", true, f.fetch)
	}
}

func TestSharedBetweenInstances(t *testing.T) {
	t.Run("single", func(t *testing.T) {
		srv := redistest.Start(t)
		shared(t, func() Options { return Options{Redis: srv.Client(), RedisTimeout: time.Second} })
	})
	t.Run("cluster", func(t *testing.T) {
		if !redistest.Required() {
			if _, err := lookRedis(); err != nil {
				t.Skip("redis-server not installed: cluster test needs it")
			}
		}
		cl := redistest.StartCluster(t, 3)
		shared(t, func() Options { return Options{Redis: cl.Client(t), RedisTimeout: time.Second} })
	})
}

func shared(t *testing.T, opts func() Options) {
	clk := newClock()
	o1, o2 := opts(), opts()
	o1.Now, o2.Now = clk.Now, clk.Now
	a, b := mustNew(t, o1), mustNew(t, o2)
	f := &counter{clk: clk, body: "shared"}
	ctx := context.Background()
	for i := 0; i < 20; i++ {
		key := fmt.Sprintf("route|/v1/x|page=%d", i)
		if _, st, _ := a.Do(ctx, key, false, f.fetch); st != Miss {
			t.Fatalf("a: %s", st)
		}
		if _, st, _ := b.Do(ctx, key, false, f.fetch); st != Hit {
			t.Fatalf("b did not see a's entry %s: %s", key, st)
		}
	}
	if f.calls.Load() != 20 {
		t.Fatalf("calls = %d; want 20", f.calls.Load())
	}
	n, err := b.Purge(ctx, "route|/v1/x|page=1")
	if err != nil || n < 11 { // page=1 and page=10..19
		t.Fatalf("purge = %d, %v", n, err)
	}
	if _, st, _ := a.Do(ctx, "route|/v1/x|page=15", true, f.fetch); st != Bypass {
		t.Fatal(st)
	}
}

func TestLRUEvictsByBytes(t *testing.T) {
	clk := newClock()
	c := mustNew(t, Options{Now: clk.Now, MaxBytes: 16 * 64 << 10})
	body := make([]byte, 4<<10)
	for i := 0; i < 1000; i++ {
		c.Set(context.Background(), fmt.Sprintf("k%d", i), &Entry{Status: 200, Body: body, StoredAt: clk.Now(), FreshFor: time.Hour})
	}
	var total int64
	for i := range c.l1.shards {
		total += c.l1.shards[i].bytes
	}
	if total > 16*64<<10 {
		t.Fatalf("in-process tier holds %d bytes; bound %d", total, 16*64<<10)
	}
	if _, ok := c.Get(context.Background(), "k999"); !ok {
		t.Fatal("newest entry evicted")
	}
	if _, ok := c.Get(context.Background(), "k0"); ok {
		t.Fatal("oldest entry kept")
	}
}

func TestEncodeRoundTrip(t *testing.T) {
	e := &Entry{Status: 200, ContentType: "application/json", Body: []byte(fmt.Sprintf("%0900d", 7)),
		StoredAt: time.Unix(0, 123456789), FreshFor: time.Second, StaleFor: 2 * time.Second, ErrorFor: 3 * time.Second}
	for _, above := range []int{-1, 10} {
		got, err := decode(encode(e, above))
		if err != nil || string(got.Body) != string(e.Body) || got.ContentType != e.ContentType || got.Encoding != "" ||
			!got.StoredAt.Equal(e.StoredAt) || got.FreshFor != e.FreshFor || got.StaleFor != e.StaleFor || got.ErrorFor != e.ErrorFor {
			t.Fatalf("round trip (compress above %d): %+v %v", above, got, err)
		}
	}
	for _, bad := range [][]byte{nil, {1}, make([]byte, headerLen)} {
		if _, err := decode(bad); err == nil {
			t.Fatalf("decoded %x", bad)
		}
	}
}

func FuzzDecode(f *testing.F) {
	f.Add(encode(&Entry{Status: 200, Body: []byte("abc")}, -1))
	f.Add(encode(&Entry{Status: 200, Body: make([]byte, 2000)}, 10))
	f.Fuzz(func(t *testing.T, b []byte) { decode(b) })
}

func BenchmarkHitMemory(b *testing.B) {
	c, _ := New(Options{})
	defer c.Close()
	ctx := context.Background()
	e := &Entry{Status: 200, Body: make([]byte, 4096), StoredAt: time.Now(), FreshFor: time.Hour}
	c.Set(ctx, "data|getLatestBlocks|/v1/chains/43114/blocks|pageSize=10", e)
	fetch := func(context.Context) (*Entry, error) { return e, nil }
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, st, _ := c.Do(ctx, "data|getLatestBlocks|/v1/chains/43114/blocks|pageSize=10", false, fetch); st != Hit {
			b.Fatal(st)
		}
	}
}

func BenchmarkHitRedis(b *testing.B) {
	srv := redistest.Start(b)
	c, _ := New(Options{MaxBytes: -1, Redis: srv.Client(), RedisTimeout: time.Second})
	defer c.Close()
	ctx := context.Background()
	e := &Entry{Status: 200, Body: make([]byte, 4096), StoredAt: time.Now(), FreshFor: time.Hour}
	c.Set(ctx, "k", e)
	fetch := func(context.Context) (*Entry, error) { return e, nil }
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, st, _ := c.Do(ctx, "k", false, fetch); st != Hit {
			b.Fatal(st)
		}
	}
}
