package cache

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/avaedge/avaedge/internal/redistest"
)

// clock is a settable test clock. It is safe for concurrent use.
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

var errUpstream = errors.New("upstream down")

// upstream is a counting fetch: each call answers a body naming the call,
// fresh for 10s, stale-while-revalidate 10s, stale-if-error 1m. It is safe
// for concurrent use.
type upstream struct {
	clk   *clock
	calls atomic.Int64
	fail  atomic.Bool
	gate  chan struct{} // when not nil, each call waits for it (or its ctx)
}

func (u *upstream) fetch(ctx context.Context) (*Entry, error) {
	n := u.calls.Add(1)
	if u.gate != nil {
		select {
		case <-u.gate:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	if u.fail.Load() {
		return nil, errUpstream
	}
	return &Entry{Status: 200, ContentType: "application/json", Body: fmt.Appendf(nil, `{"call":%d}`, n),
		StoredAt: u.clk.Now(), FreshFor: 10 * time.Second, StaleFor: 10 * time.Second, ErrorFor: time.Minute}, nil
}

// tierSetup builds a Cache over one combination of tiers.
type tierSetup struct {
	name string
	new  func(t *testing.T, clk *clock) *Cache
}

// tierSetups are the in-process tier alone, Redis alone (a real
// redis-server through redistest) and both.
func tierSetups(t *testing.T) []tierSetup {
	srv := redistest.Start(t)
	withRedis := func(maxBytes int64) func(t *testing.T, clk *clock) *Cache {
		return func(t *testing.T, clk *clock) *Cache {
			rdb := srv.Client()
			if err := rdb.FlushAll(context.Background()).Err(); err != nil {
				t.Fatalf("flushall: %v", err)
			}
			return mustNew(t, Options{Now: clk.Now, MaxBytes: maxBytes, Redis: rdb, RedisTimeout: time.Second})
		}
	}
	return []tierSetup{
		{"memory", func(t *testing.T, clk *clock) *Cache { return mustNew(t, Options{Now: clk.Now}) }},
		{"redis", withRedis(-1)},
		{"memory+redis", withRedis(0)},
	}
}

func mustNew(t testing.TB, o Options) *Cache { return mustNewHooked(t, o, nil) }

// mustNewHooked returns a Cache that sends the prefixes of the purge
// announcements it applies to purged, when not nil.
func mustNewHooked(t testing.TB, o Options, purged chan<- string) *Cache {
	t.Helper()
	var hook func(string)
	if purged != nil {
		hook = func(p string) { purged <- p }
	}
	c, err := newCache(o, hook)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// waitRefreshes waits until no background refresh runs.
func waitRefreshes(t *testing.T, c *Cache) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		c.mu.Lock()
		n := len(c.refreshing)
		c.mu.Unlock()
		if n == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d refreshes still running after 5s", n)
		}
		time.Sleep(time.Millisecond)
	}
}
