package limits

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/avaedge/avaedge/internal/redistest"
)

// reqFrom is a request with key from addr.
func reqFrom(key, addr string) *http.Request {
	r := req(key)
	r.RemoteAddr = addr
	return r
}

// lapse makes every key in use from every address look idle for longer
// than the window, in process and, with rdb, in Redis (whose clock the test
// cannot move).
func lapse(t *testing.T, l *Limiter, clk *fakeClock, rdb redis.UniversalClient) {
	t.Helper()
	clk.Set(clk.Now().Add(l.opts.UnissuedKeys.Window + time.Minute))
	if rdb == nil {
		return
	}
	ctx := context.Background()
	keys, err := rdb.Keys(ctx, "{avaedge|unissued|*").Result()
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range keys {
		members, _ := rdb.ZRange(ctx, k, 0, -1).Result()
		for _, m := range members {
			rdb.ZAdd(ctx, k, redis.Z{Score: 1, Member: m})
		}
	}
}

// TestUnissuedKeysPerAddress: without a keys file, one address gets at most
// PerAddress distinct keys in use; a key in use keeps working; another
// address, or another IPv6 /64, has its own; a key idle for the window
// frees its place. In process and in Redis.
func TestUnissuedKeysPerAddress(t *testing.T) {
	for _, be := range []string{"memory", "redis"} {
		t.Run(be, func(t *testing.T) {
			var rdb redis.UniversalClient
			if be == "redis" {
				rdb = redistest.Start(t).Client()
			}
			clk := &fakeClock{t: time.Date(2026, 3, 3, 10, 0, 0, 0, time.UTC)}
			l := newLimiter(t, Options{Keys: DefaultKeysFile(), Redis: rdb, Now: clk.Now})
			ctx := context.Background()
			allowed := 0
			for i := range 100 {
				d := l.Admit(ctx, reqFrom(fmt.Sprintf("fresh-%d", i), "192.0.2.7:4000"), charge(20))
				switch {
				case d.Status == 0:
					allowed++
				case d.Status == 429:
					h := http.Header{}
					d.WriteHeaders(h)
					if hv(h, "ratelimit-policy") != "5;w=3600" || hv(h, "ratelimit-remaining") != "0" || hv(h, "retry-after") == "" ||
						d.RetryAfter <= 0 || d.RetryAfter > time.Hour || !strings.Contains(d.Message, "at most 5 keys") {
						t.Fatalf("refusal %d: %+v, headers %v", i, d, h)
					}
				default:
					t.Fatalf("key %d: %+v", i, d)
				}
			}
			if allowed != 5 {
				t.Fatalf("100 fresh keys from one address: %d allowed; want 5", allowed)
			}
			for i := range 5 { // keys in use keep working
				if d := l.Admit(ctx, reqFrom(fmt.Sprintf("fresh-%d", i), "192.0.2.7:4001"), charge(1)); d.Status != 0 {
					t.Fatalf("key in use %d: %+v", i, d)
				}
			}
			// Another address; an IPv6 /64 is one address.
			for _, c := range []struct {
				addr string
				want int
			}{{"192.0.2.8:1", 5}, {"[2001:db8:1::1]:1", 5}, {"[2001:db8:1::2]:1", 0}, {"[2001:db8:2::1]:1", 5}} {
				n := 0
				for i := range 7 {
					if l.Admit(ctx, reqFrom(fmt.Sprintf("%s-%d", c.addr, i), c.addr), charge(1)).Status == 0 {
						n++
					}
				}
				if n != c.want {
					t.Errorf("%s: %d new keys allowed; want %d", c.addr, n, c.want)
				}
			}
			lapse(t, l, clk, rdb)
			if d := l.Admit(ctx, reqFrom("after-the-window", "192.0.2.7:4000"), charge(1)); d.Status != 0 {
				t.Fatalf("a new key after the others were idle for the window: %+v", d)
			}
		})
	}
}

// TestUnissuedKeysTwoReplicas: the bound is shared through Redis: 100 fresh
// keys from one address through two replicas get 5 in all.
func TestUnissuedKeysTwoReplicas(t *testing.T) {
	rs := redistest.Start(t)
	a := newLimiter(t, Options{Keys: DefaultKeysFile(), Redis: rs.Client()})
	b := newLimiter(t, Options{Keys: DefaultKeysFile(), Redis: rs.Client()})
	var allowed []string
	for i := range 100 {
		l := a
		if i%2 == 1 {
			l = b
		}
		key := fmt.Sprintf("fresh-%d", i)
		if l.Admit(context.Background(), reqFrom(key, "198.51.100.3:1"), charge(1)).Status == 0 {
			allowed = append(allowed, key)
		}
	}
	if len(allowed) != 5 {
		t.Fatalf("two replicas admitted %d fresh keys from one address; want 5", len(allowed))
	}
	// A key in use works on either replica, whichever admitted it.
	for _, key := range allowed {
		for _, l := range []*Limiter{a, b} {
			if d := l.Admit(context.Background(), reqFrom(key, "198.51.100.3:1"), charge(1)); d.Status != 0 {
				t.Fatalf("key in use %s: %+v", key, d)
			}
		}
	}
}

// TestUnissuedKeysShareBudgets: one address's unissued keys together spend
// at most PerAddress times the plan's day budget, however they rotate.
func TestUnissuedKeysShareBudgets(t *testing.T) {
	for _, be := range []string{"memory", "redis"} {
		t.Run(be, func(t *testing.T) {
			var rdb redis.UniversalClient
			if be == "redis" {
				rdb = redistest.Start(t).Client()
			}
			kf := DefaultKeysFile()
			kf.Plans["free"] = Plan{Name: "free", CUPerDay: 100}
			clk := &fakeClock{t: time.Date(2026, 3, 3, 10, 0, 0, 0, time.UTC)}
			l := newLimiter(t, Options{Keys: kf, Redis: rdb, Now: clk.Now, UnissuedKeys: UnissuedKeys{PerAddress: 2}})
			ctx := context.Background()
			const addr = "203.0.113.5:1"
			for _, k := range []string{"a", "b"} {
				if d := l.Admit(ctx, reqFrom(k, addr), charge(100)); d.Status != 0 {
					t.Fatalf("key %s: %+v", k, d)
				}
			}
			if d := l.Admit(ctx, reqFrom("a", addr), charge(1)); d.Status != 429 || strings.Contains(d.Message, "did not issue") {
				t.Fatalf("key a over its own day: %+v", d)
			}
			lapse(t, l, clk, rdb) // the same day, two hours later
			d := l.Admit(ctx, reqFrom("c", addr), charge(1))
			if d.Status != 429 || !strings.Contains(d.Message, "compute units per day of all the keys this service did not issue") || d.Limit != 200 {
				t.Fatalf("a third key after the address spent 2x the day budget: %+v", d)
			}
			if d := l.Admit(ctx, reqFrom("d", "203.0.113.6:1"), charge(100)); d.Status != 0 {
				t.Fatalf("another address: %+v", d)
			}
		})
	}
}

// TestUnissuedKeysOff: a negative PerAddress turns the bound off, and with
// a keys file (no unissued keys) it never applies.
func TestUnissuedKeysOff(t *testing.T) {
	l := newLimiter(t, Options{Keys: DefaultKeysFile(), UnissuedKeys: UnissuedKeys{PerAddress: -1}})
	for i := range 20 {
		if d := l.Admit(context.Background(), reqFrom(fmt.Sprintf("k%d", i), "192.0.2.9:1"), charge(1)); d.Status != 0 {
			t.Fatalf("key %d with no bound: %+v", i, d)
		}
	}
}

// BenchmarkAdmitUnissuedKey is a known unissued key's decision, with the
// bound on such keys (its in-process table is on the path, Redis is not)
// and without it.
func BenchmarkAdmitUnissuedKey(b *testing.B) {
	for _, c := range []struct {
		name string
		per  int
	}{{"bound", 0}, {"off", -1}} {
		b.Run(c.name, func(b *testing.B) {
			l := newLimiter(b, Options{Keys: DefaultKeysFile(), UnissuedKeys: UnissuedKeys{PerAddress: c.per}})
			r := reqFrom("bench-key", "192.0.2.10:1")
			ctx := context.Background()
			ch := Charge{Routes: []string{"x"}, Cost: 0}
			l.Admit(ctx, r, ch)
			b.ReportAllocs()
			for b.Loop() {
				l.Admit(ctx, r, ch)
			}
		})
	}
}
