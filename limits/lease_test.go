package limits

import (
	"context"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/avaedge/avaedge/internal/redistest"
)

// TestAnonymousExactnessTwoInstances: 1,000 concurrent anonymous requests
// from one address through two limiters sharing Redis, on a per-IP budget
// of 100: exactly 100 pass.
func TestAnonymousExactnessTwoInstances(t *testing.T) {
	kf, err := ParseKeysFile([]byte("plans:\n  tiny: {cu_per_day: 100}\nanonymous: tiny\n"))
	if err != nil {
		t.Fatal(err)
	}
	rdb := redistest.Start(t).Client()
	a := newLimiter(t, Options{Keys: kf, Redis: rdb})
	b := newLimiter(t, Options{Keys: kf, Redis: rdb})
	var ok, limited atomic.Int64
	var wg sync.WaitGroup
	for i := 0; i < 1000; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			l := a
			if i%2 == 1 {
				l = b
			}
			r := req("")
			r.RemoteAddr = "198.51.100.9:4000"
			switch d := l.Admit(context.Background(), r, charge(1)); d.Status {
			case 0:
				ok.Add(1)
			case 429:
				limited.Add(1)
			default:
				t.Errorf("status %d: %s", d.Status, d.Message)
			}
		}(i)
	}
	wg.Wait()
	if ok.Load() != 100 || limited.Load() != 900 {
		t.Fatalf("allowed %d, limited %d; want 100 and 900", ok.Load(), limited.Load())
	}
}

// commandstats returns calls and total µs of one command from INFO
// commandstats.
func commandstats(t testing.TB, rdb redis.UniversalClient, cmd string) (calls, usec int64) {
	info, err := rdb.Info(context.Background(), "commandstats").Result()
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(info, "\n") {
		if !strings.HasPrefix(line, "cmdstat_"+cmd+":") {
			continue
		}
		for _, f := range strings.Split(strings.TrimSpace(strings.TrimPrefix(line, "cmdstat_"+cmd+":")), ",") {
			k, v, _ := strings.Cut(f, "=")
			n, _ := strconv.ParseFloat(v, 64)
			switch k {
			case "calls":
				calls = int64(n)
			case "usec":
				usec = int64(n)
			}
		}
	}
	return calls, usec
}

// bigPlan is far from its limits under any test's load, with all four
// budgets, so every lease call leases all four.
const bigPlan = "plans:\n  big: {rps: 1000000, burst: 1000000, cu_per_minute: 100000000, cu_per_day: 10000000000, cu_per_month: 100000000000}\n" +
	"keys:\n  - {id: big, key: big-secret, plan: big}\n"

// TestRedisCallsPerRequest: at steady state a key far from its limits costs
// at most one Redis call per 20 requests, counted by Redis itself (INFO
// commandstats): 8 clients at about 20,000 requests a second for 3 seconds.
func TestRedisCallsPerRequest(t *testing.T) {
	srv := redistest.Start(t)
	srv.RequireReal()
	rdb := srv.Client()
	kf, err := ParseKeysFile([]byte(bigPlan))
	if err != nil {
		t.Fatal(err)
	}
	l := newLimiter(t, Options{Keys: kf, Redis: rdb})
	ctx := context.Background()
	var n atomic.Int64
	var wg sync.WaitGroup
	end := time.Now().Add(3 * time.Second)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := req("big-secret")
			for time.Now().Before(end) {
				for i := 0; i < 10; i++ {
					if d := l.Admit(ctx, r, charge(3)); d.Status != 0 {
						t.Errorf("refused: %+v", d)
						return
					}
				}
				n.Add(10)
				time.Sleep(4 * time.Millisecond)
			}
		}()
	}
	wg.Wait()
	calls, usec := commandstats(t, rdb, "evalsha")
	evals, eusec := commandstats(t, rdb, "eval")
	calls, usec = calls+evals, usec+eusec
	t.Logf("%d requests, %d Redis calls (1 per %.0f requests), %.1f µs of Redis CPU per call",
		n.Load(), calls, float64(n.Load())/float64(max(calls, 1)), float64(usec)/float64(max(calls, 1)))
	if calls == 0 || calls*20 > n.Load() {
		t.Fatalf("%d Redis calls for %d requests; want at least one, and at most 1 per 20", calls, n.Load())
	}
}

func anon(i int) string {
	return netip.AddrFrom4([4]byte{10, byte(i >> 16), byte(i >> 8), byte(i)}).String() + ":1"
}

// TestEvictionBounded: a flood of distinct addresses never grows the
// in-process state past its bound; idle clients are forgotten, the keys
// file's own keys (and their usage) are not.
func TestEvictionBounded(t *testing.T) {
	clk := &fakeClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	l := newLimiter(t, Options{Now: clk.Now, MaxClients: 1000, ClientIdle: time.Minute})
	ctx := context.Background()
	if d := l.Admit(ctx, req("alice-secret"), charge(90)); d.Status != 0 {
		t.Fatal(d.Message)
	}
	for i := 0; i < 50000; i++ {
		r := req("")
		r.RemoteAddr = anon(i)
		if d := l.Admit(ctx, r, charge(1)); d.Status != 0 {
			t.Fatalf("client %d: %+v", i, d)
		}
		if n := l.mem.states.len(); n > 1000+1000/8 {
			t.Fatalf("%d states after %d clients; want at most %d", n, i+1, 1000+1000/8)
		}
	}
	clk.Set(clk.Now().Add(2 * time.Minute))
	l.mem.states.sweep(clk.Now(), false)
	if n := l.mem.states.len(); n != 1 {
		t.Fatalf("%d states after every client went idle; want 1 (the key of the file)", n)
	}
	if d := l.Admit(ctx, req("alice-secret"), charge(11)); d.Status != 429 {
		t.Fatalf("alice's usage forgotten: %+v", d)
	}
}

// TestLeaseEvictionReturns: with Redis, the lease table stays bounded under
// a flood, and an evicted client's unspent units go back to Redis, which
// then counts only what was spent.
func TestLeaseEvictionReturns(t *testing.T) {
	kf, err := ParseKeysFile([]byte("plans:\n  anon: {cu_per_day: 100000}\nanonymous: anon\n"))
	if err != nil {
		t.Fatal(err)
	}
	rdb := redistest.Start(t).Client()
	l := newLimiter(t, Options{Keys: kf, Redis: rdb, MaxClients: 200})
	ctx := context.Background()
	for i := 0; i < 2000; i++ {
		r := req("")
		r.RemoteAddr = anon(i)
		if d := l.Admit(ctx, r, charge(3)); d.Status != 0 {
			t.Fatalf("client %d: %+v", i, d)
		}
		if n := l.leases.len(); n > 200+200/8 {
			t.Fatalf("%d lease states after %d clients; want at most %d", n, i+1, 200+200/8)
		}
	}
	now := l.opts.Now()
	l.flushReturns(ctx, now)
	day, month, _, _ := windows(now)
	keys := redisKeys("avaedge", "ip:10.0.0.0", day, month)
	if got, err := rdb.Get(ctx, keys[bDay]).Result(); err != nil || got != "3" {
		t.Fatalf("first client's day counter after eviction = %q (%v); want 3 (its leased units given back)", got, err)
	}
}

// TestPlanChangeWithinASecond: two replicas watching one keys file; a plan
// cut below what the key has used refuses it on both within a second.
func TestPlanChangeWithinASecond(t *testing.T) {
	rdb := redistest.Start(t).Client()
	path := filepath.Join(t.TempDir(), "keys.yaml")
	write := func(perDay int) {
		tmp := path + ".tmp"
		if err := os.WriteFile(tmp, []byte(fmt.Sprintf("plans:\n  p: {cu_per_day: %d}\nkeys:\n  - {id: a, key: a-secret, plan: p}\n", perDay)), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, path); err != nil {
			t.Fatal(err)
		}
	}
	write(1000)
	a := newLimiter(t, Options{KeysPath: path, Redis: rdb})
	b := newLimiter(t, Options{KeysPath: path, Redis: rdb})
	ctx := context.Background()
	for i := 0; i < 10; i++ {
		for _, l := range []*Limiter{a, b} {
			if d := l.Admit(ctx, req("a-secret"), charge(1)); d.Status != 0 {
				t.Fatal(d.Message)
			}
		}
	}
	write(15)
	changed := time.Now()
	done := map[*Limiter]time.Duration{}
	for len(done) < 2 {
		for _, l := range []*Limiter{a, b} {
			if _, ok := done[l]; ok {
				continue
			}
			if d := l.Admit(ctx, req("a-secret"), charge(1)); d.Status == 429 && d.Policy == "15;w=86400" {
				done[l] = time.Since(changed)
			}
		}
		if time.Since(changed) > 3*time.Second {
			t.Fatalf("plan change not in effect on every replica after 3s: %v", done)
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Logf("plan change in effect after %v and %v", done[a], done[b])
	if done[a] > time.Second || done[b] > time.Second {
		t.Fatalf("plan change took %v and %v; want at most 1s", done[a], done[b])
	}
}

// TestRedisHung: with Redis stopped by SIGSTOP (a hang, not a refused
// connection), clients that need a lease are answered from the in-process
// fallback within the Redis deadline, not after go-redis's read timeout.
func TestRedisHung(t *testing.T) {
	srv := redistest.Start(t)
	srv.RequireReal()
	rdb := srv.Client()
	info, err := rdb.Info(context.Background(), "server").Result()
	if err != nil {
		t.Fatal(err)
	}
	pid := 0
	for _, line := range strings.Split(info, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "process_id:"); ok {
			pid, _ = strconv.Atoi(v)
		}
	}
	if pid == 0 {
		t.Fatal("no process_id in INFO server")
	}
	l, err := New(Options{Keys: keys(t), Redis: rdb, RedisTimeout: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Kill(pid, syscall.SIGCONT) })
	ctx := context.Background()
	var slowest time.Duration
	for i := 0; i < 100; i++ {
		r := req("")
		r.RemoteAddr = anon(i)
		start := time.Now()
		d := l.Admit(ctx, r, charge(1))
		took := time.Since(start)
		slowest = max(slowest, took)
		if d.Status != 0 {
			t.Fatalf("request %d with Redis hung: %+v", i, d)
		}
	}
	var wg sync.WaitGroup
	var slow atomic.Int64
	for i := 0; i < 50; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			r := req("")
			r.RemoteAddr = anon(1000 + i)
			start := time.Now()
			if d := l.Admit(ctx, r, charge(1)); d.Status != 0 {
				t.Errorf("concurrent request with Redis hung: %+v", d)
			}
			slow.Store(max(slow.Load(), int64(time.Since(start))))
		}(i)
	}
	wg.Wait()
	t.Logf("slowest sequential %v, slowest concurrent %v", slowest, time.Duration(slow.Load()))
	if slowest > 250*time.Millisecond || time.Duration(slow.Load()) > 250*time.Millisecond {
		t.Fatalf("slowest answers %v / %v with Redis hung; want under 250ms", slowest, time.Duration(slow.Load()))
	}
}

// TestMonthlyQuota: a monthly quota survives a restart and starts afresh at
// the UTC month boundary, in process and with Redis.
func TestMonthlyQuota(t *testing.T) {
	srv := redistest.Start(t)
	for _, mode := range []string{"memory", "redis"} {
		t.Run(mode, func(t *testing.T) {
			clk := &fakeClock{t: time.Date(2026, 11, 30, 23, 59, 0, 0, time.UTC)}
			var rdb redis.UniversalClient
			if mode == "redis" {
				rdb = srv.Client()
				rdb.FlushAll(context.Background())
			}
			ctx := context.Background()
			l := newLimiter(t, Options{Redis: rdb, Now: clk.Now})
			if d := l.Admit(ctx, req("erin-secret"), charge(6)); d.Status != 0 {
				t.Fatal(d.Message)
			}
			if mode == "redis" {
				l.Close()
				l = newLimiter(t, Options{Redis: rdb, Now: clk.Now})
			}
			if d := l.Admit(ctx, req("erin-secret"), charge(5)); d.Status != 429 || d.RetryAfter > time.Minute {
				t.Fatalf("over the month's 10: %+v", d)
			}
			if d := l.Admit(ctx, req("erin-secret"), charge(4)); d.Status != 0 || d.Remaining != 0 {
				t.Fatalf("the month's last 4: %+v", d)
			}
			clk.Set(time.Date(2026, 12, 1, 0, 0, 1, 0, time.UTC))
			if d := l.Admit(ctx, req("erin-secret"), charge(10)); d.Status != 0 {
				t.Fatalf("in the new month: %+v", d)
			}
		})
	}
}

// TestExactnessCostlyRequests: three limiters, a 2,000 CU daily budget and
// requests of 20 CU: exactly 100 of 300 pass, so the units replicas hold
// between requests never strand a request's worth.
func TestExactnessCostlyRequests(t *testing.T) {
	kf, err := ParseKeysFile([]byte("plans:\n  q: {cu_per_day: 2000}\nkeys:\n  - {id: q, key: q-secret, plan: q}\n"))
	if err != nil {
		t.Fatal(err)
	}
	rdb := redistest.Start(t).Client()
	ls := []*Limiter{newLimiter(t, Options{Keys: kf, Redis: rdb}), newLimiter(t, Options{Keys: kf, Redis: rdb}), newLimiter(t, Options{Keys: kf, Redis: rdb})}
	var ok atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < 10; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < 30; i++ {
				c := Charge{Routes: []string{"listSubnets"}, Cost: 20}
				if d := ls[(w+i)%3].Admit(context.Background(), req("q-secret"), c); d.Status == 0 {
					ok.Add(1)
				}
			}
		}(w)
	}
	wg.Wait()
	if ok.Load() != 100 {
		t.Fatalf("allowed %d of 300; want 100", ok.Load())
	}
}

// TestIdentifyThenAdmit: the split form decides as Admit does; Identify
// alone refuses an unknown key, and a zero Client is refused.
func TestIdentifyThenAdmit(t *testing.T) {
	l := newLimiter(t, Options{})
	ctx := context.Background()
	if _, d := l.Identify(req("nope")); d.Status != 401 || d.Message != "Invalid API key" {
		t.Fatalf("unknown key: %+v", d)
	}
	c, d := l.Identify(req("alice-secret"))
	if d.Status != 0 || c.KeyID() != "alice" {
		t.Fatalf("alice: %+v %q", d, c.KeyID())
	}
	if d := l.AdmitClient(ctx, c, charge(100)); d.Status != 0 || d.Remaining != 0 {
		t.Fatalf("alice's 100: %+v", d)
	}
	if d := l.Admit(ctx, req("alice-secret"), charge(1)); d.Status != 429 {
		t.Fatalf("Admit after AdmitClient spent the day: %+v", d)
	}
	if d := l.AdmitClient(ctx, Client{}, charge(1)); d.Status != 401 {
		t.Fatalf("zero Client: %+v", d)
	}
}
