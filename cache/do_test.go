package cache

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"
)

func TestDoHitAfterStore(t *testing.T) {
	ctx := context.Background()
	for _, s := range tierSetups(t) {
		t.Run(s.name, func(t *testing.T) {
			clk := newClock()
			c := s.new(t, clk)
			u := &upstream{clk: clk}
			first, st, err := c.Do(ctx, "data|getBlock|/v1/x|", false, u.fetch)
			if err != nil || st != Miss {
				t.Fatalf("first Do = %s, %v; want MISS, nil", st, err)
			}
			for i := 0; i < 3; i++ {
				e, st, err := c.Do(ctx, "data|getBlock|/v1/x|", false, u.fetch)
				if err != nil || st != Hit {
					t.Fatalf("Do #%d = %s, %v; want HIT, nil", i+2, st, err)
				}
				if string(e.Body) != string(first.Body) {
					t.Fatalf("body = %s; want %s", e.Body, first.Body)
				}
			}
			if n := u.calls.Load(); n != 1 {
				t.Fatalf("fetch calls = %d; want 1", n)
			}
		})
	}
}

func TestDoPageTokensAreDifferentEntries(t *testing.T) {
	ctx := context.Background()
	for _, s := range tierSetups(t) {
		t.Run(s.name, func(t *testing.T) {
			clk := newClock()
			c := s.new(t, clk)
			u := &upstream{clk: clk}
			bodies := map[string]string{}
			for _, tok := range []string{"", "abc", "abd", "abc|x"} {
				key := c.Key("data", "listBlocks", "/v1/chains/43114/blocks", "pageSize=10&pageToken="+tok)
				e, st, err := c.Do(ctx, key, false, u.fetch)
				if err != nil || st != Miss {
					t.Fatalf("token %q: Do = %s, %v; want MISS", tok, st, err)
				}
				bodies[tok] = string(e.Body)
			}
			for tok, want := range bodies {
				key := c.Key("data", "listBlocks", "/v1/chains/43114/blocks", "pageSize=10&pageToken="+tok)
				e, st, _ := c.Do(ctx, key, false, u.fetch)
				if st != Hit || string(e.Body) != want {
					t.Fatalf("token %q: got %s %s; want HIT %s", tok, st, e.Body, want)
				}
			}
			if n := u.calls.Load(); n != 4 {
				t.Fatalf("fetch calls = %d; want 4", n)
			}
		})
	}
}

func TestDoSingleFlight(t *testing.T) {
	for _, s := range tierSetups(t) {
		t.Run(s.name, func(t *testing.T) {
			clk := newClock()
			c := s.new(t, clk)
			u := &upstream{clk: clk, gate: make(chan struct{})}
			const callers = 100
			var wg sync.WaitGroup
			statuses := make(chan Status, callers)
			for i := 0; i < callers; i++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					_, st, err := c.Do(context.Background(), "hot", false, u.fetch)
					if err != nil {
						t.Errorf("Do: %v", err)
					}
					statuses <- st
				}()
			}
			// Release the fetch once it has started; callers arriving after
			// that join the flight or hit the stored entry.
			for u.calls.Load() == 0 {
				time.Sleep(time.Millisecond)
			}
			close(u.gate)
			wg.Wait()
			close(statuses)
			if n := u.calls.Load(); n != 1 {
				t.Fatalf("fetch calls = %d; want 1", n)
			}
			for st := range statuses {
				if st != Miss && st != Hit {
					t.Fatalf("status %s; want MISS or HIT", st)
				}
			}
		})
	}
}

func TestDoStaleWhileRevalidate(t *testing.T) {
	ctx := context.Background()
	for _, s := range tierSetups(t) {
		t.Run(s.name, func(t *testing.T) {
			clk := newClock()
			c := s.new(t, clk)
			u := &upstream{clk: clk}
			first, _, _ := c.Do(ctx, "k", false, u.fetch)
			u.gate = make(chan struct{}) // the refresh blocks until released
			clk.Add(15 * time.Second)    // fresh 10s, stale window 10s more
			var wg sync.WaitGroup
			for i := 0; i < 50; i++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					e, st, err := c.Do(ctx, "k", false, u.fetch)
					if err != nil || st != Stale || string(e.Body) != string(first.Body) {
						t.Errorf("Do = %s, %v; want STALE with the first body", st, err)
					}
				}()
			}
			wg.Wait()
			close(u.gate)
			waitRefreshes(t, c)
			if n := u.calls.Load(); n != 2 {
				t.Fatalf("fetch calls = %d; want 2 (one refresh)", n)
			}
			e, st, _ := c.Do(ctx, "k", false, u.fetch)
			if st != Hit || string(e.Body) != `{"call":2}` {
				t.Fatalf("after refresh: %s %s; want HIT {\"call\":2}", st, e.Body)
			}
		})
	}
}

func TestDoStaleIfError(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name    string
		age     time.Duration
		want    Status
		wantErr bool
	}{
		{"within error window", 40 * time.Second, Stale, false}, // past fresh+stale (20s), within fresh+error (70s)
		{"past error window", 71 * time.Second, Miss, true},
	}
	for _, s := range tierSetups(t) {
		for _, tt := range tests {
			t.Run(s.name+"/"+tt.name, func(t *testing.T) {
				clk := newClock()
				c := s.new(t, clk)
				u := &upstream{clk: clk}
				first, _, _ := c.Do(ctx, "k", false, u.fetch)
				u.fail.Store(true)
				clk.Add(tt.age)
				e, st, err := c.Do(ctx, "k", false, u.fetch)
				if st != tt.want || (err != nil) != tt.wantErr {
					t.Fatalf("Do = %s, %v; want %s, error %v", st, err, tt.want, tt.wantErr)
				}
				if tt.wantErr && !errors.Is(err, errUpstream) {
					t.Fatalf("error = %v; want the upstream's", err)
				}
				if !tt.wantErr && string(e.Body) != string(first.Body) {
					t.Fatalf("body = %s; want %s", e.Body, first.Body)
				}
			})
		}
	}
}

func TestDoBypass(t *testing.T) {
	ctx := context.Background()
	clk := newClock()
	c := mustNew(t, Options{Now: clk.Now})
	u := &upstream{clk: clk}
	c.Do(ctx, "k", false, u.fetch)
	e, st, err := c.Do(ctx, "k", true, u.fetch)
	if err != nil || st != Bypass || string(e.Body) != `{"call":2}` {
		t.Fatalf("bypass: %s %s %v; want BYPASS {\"call\":2}", st, e.Body, err)
	}
	if e, st, _ := c.Do(ctx, "k", false, u.fetch); st != Hit || string(e.Body) != `{"call":2}` {
		t.Fatalf("after bypass: %s %s; want HIT of the bypass's answer", st, e.Body)
	}
	u.fail.Store(true)
	if e, st, err := c.Do(ctx, "k", true, u.fetch); err != nil || st != Stale || string(e.Body) != `{"call":2}` {
		t.Fatalf("bypass with upstream down: %s %v; want STALE", st, err)
	}
}

func TestDoStoreRules(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name       string
		entry      Entry
		wantStored bool
	}{
		{"200 fresh", Entry{Status: 200, FreshFor: time.Second}, true},
		{"404 negative", Entry{Status: 404, FreshFor: NegativeTTL}, true},
		{"not fresh", Entry{Status: 200, StaleFor: time.Minute, ErrorFor: time.Minute}, false},
		{"unknown encoding", Entry{Status: 200, Encoding: "br", FreshFor: time.Minute}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clk := newClock()
			c := mustNew(t, Options{Now: clk.Now})
			calls := 0
			fetch := func(context.Context) (*Entry, error) {
				calls++
				e := tt.entry
				e.Body, e.StoredAt = []byte("x"), clk.Now()
				return &e, nil
			}
			c.Do(ctx, "k", false, fetch)
			_, st, _ := c.Do(ctx, "k", false, fetch)
			if got := st == Hit; got != tt.wantStored {
				t.Fatalf("second Do = %s (fetch calls %d); want stored %v", st, calls, tt.wantStored)
			}
		})
	}
}

func TestDoGzipEntryKeptIdentity(t *testing.T) {
	ctx := context.Background()
	clk := newClock()
	c := mustNew(t, Options{Now: clk.Now})
	plain := []byte(fmt.Sprintf(`{"pad":"%0500d"}`, 0))
	gz, _ := appendGzip(nil, plain)
	fetch := func(context.Context) (*Entry, error) {
		return &Entry{Status: 200, Encoding: "gzip", Body: gz, StoredAt: clk.Now(), FreshFor: time.Minute}, nil
	}
	e, st, err := c.Do(ctx, "k", false, fetch)
	if err != nil || st != Miss || e.Encoding != "" || string(e.Body) != string(plain) {
		t.Fatalf("Do = %s %v, encoding %q; want MISS with the identity body", st, err, e.Encoding)
	}
	if e, st, _ := c.Do(ctx, "k", false, fetch); st != Hit || e.Encoding != "" {
		t.Fatalf("second Do = %s, encoding %q; want HIT, identity", st, e.Encoding)
	}
}

func TestDoFetchPanicIsAnError(t *testing.T) {
	c := mustNew(t, Options{})
	_, st, err := c.Do(context.Background(), "k", false, func(context.Context) (*Entry, error) { panic("boom") })
	if err == nil || st != Miss {
		t.Fatalf("Do = %s, %v; want MISS and an error", st, err)
	}
}

func TestDoCallerContextEnds(t *testing.T) {
	clk := newClock()
	c := mustNew(t, Options{Now: clk.Now})
	u := &upstream{clk: clk, gate: make(chan struct{})}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() {
		_, _, err := c.Do(ctx, "k", false, u.fetch)
		done <- err
	}()
	for u.calls.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("Do after cancel = %v; want context.Canceled", err)
	}
	// The fetch was not cancelled with the caller: it completes and stores.
	close(u.gate)
	for i := 0; ; i++ {
		if _, st, _ := c.Do(context.Background(), "k", false, u.fetch); st == Hit {
			break
		}
		if i > 1000 {
			t.Fatal("the detached fetch never stored its answer")
		}
		time.Sleep(time.Millisecond)
	}
}

func TestCloseStopsRefreshes(t *testing.T) {
	ctx := context.Background()
	clk := newClock()
	c, err := New(Options{Now: clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	u := &upstream{clk: clk}
	c.Do(ctx, "k", false, u.fetch)
	u.gate = make(chan struct{}) // never released: only cancellation ends the refresh
	clk.Add(15 * time.Second)
	if _, st, _ := c.Do(ctx, "k", false, u.fetch); st != Stale {
		t.Fatalf("Do = %s; want STALE", st)
	}
	for u.calls.Load() < 2 { // the refresh's fetch is running, blocked
		time.Sleep(time.Millisecond)
	}
	c.Close() // returns only when the refresh has stopped
	if _, st, _ := c.Do(ctx, "k", false, u.fetch); st != Stale {
		t.Fatalf("Do after Close = %s; want STALE (no refresh started)", st)
	}
	if n := u.calls.Load(); n != 2 {
		t.Fatalf("fetch calls = %d; want 2", n)
	}
}

// TestFresh: the fast lane answers only what the in-process tier holds
// fresh at the given time, never Redis, and allocates nothing.
func TestFresh(t *testing.T) {
	ctx := context.Background()
	for _, s := range tierSetups(t) {
		t.Run(s.name, func(t *testing.T) {
			clk := newClock()
			c := s.new(t, clk)
			u := &upstream{clk: clk}
			const key = "data|getBlock|/v1/fresh|"
			if e := c.Fresh(key, clk.Now()); e != nil {
				t.Fatalf("Fresh before any store = %s", e.Body)
			}
			stored, _, err := c.Do(ctx, key, false, u.fetch)
			if err != nil {
				t.Fatal(err)
			}
			e := c.Fresh(key, clk.Now())
			if c.mem == nil {
				if e != nil {
					t.Fatalf("Fresh without an in-process tier = %s; want nil (Redis is Do's)", e.Body)
				}
				return
			}
			if e == nil || string(e.Body) != string(stored.Body) {
				t.Fatalf("Fresh = %v; want the stored entry", e)
			}
			if n := testing.AllocsPerRun(100, func() { c.Fresh(key, clk.Now()) }); n != 0 {
				t.Fatalf("Fresh allocates %v times", n)
			}
			clk.Add(10 * time.Second)
			if e := c.Fresh(key, clk.Now()); e != nil {
				t.Fatal("Fresh answered an entry past its freshness")
			}
			// Checked before the stale Do below: that one starts a background
			// refresh, which is a second fetch by design.
			if u.calls.Load() != 1 {
				t.Fatalf("fetch calls = %d; want 1 (Fresh never fetches)", u.calls.Load())
			}
			if e, st, _ := c.Do(ctx, key, false, u.fetch); st != Stale || e == nil {
				t.Fatalf("Do after freshness = %s; the stale copy is still Do's to serve", st)
			}
		})
	}
}
