package limits

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/avaedge/avaedge/internal/redistest"
)

const testKeys = `
plans:
  tiny: {cu_per_day: 100}
  minute: {cu_per_minute: 60}
  rate: {rps: 2, burst: 2}
  month: {cu_per_month: 10}
  narrow: {routes: [listSubnets]}
  free: {cu_per_minute: 8000, cu_per_day: 2000000}
keys:
  - {id: alice, key: alice-secret, plan: tiny}
  - {id: bob, sha256: 8c5d7ae6e1e0b5a87e3d3e33a2a4f1c5d0f3bd0e7f6c3b1f8f5b9f1d4e0a9c21, plan: free}
  - {id: carol, key: carol-secret, plan: minute}
  - {id: dave, key: dave-secret, plan: rate}
  - {id: erin, key: erin-secret, plan: month}
  - {id: frank, key: frank-secret, plan: narrow}
anonymous: free
`

type fakeClock struct {
	mu sync.Mutex // guards t
	t  time.Time
}

func (c *fakeClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *fakeClock) Set(t time.Time) {
	c.mu.Lock()
	c.t = t
	c.mu.Unlock()
}

func keys(t testing.TB) *KeysFile {
	kf, err := ParseKeysFile([]byte(testKeys))
	if err != nil {
		t.Fatal(err)
	}
	return kf
}

func newLimiter(t testing.TB, o Options) *Limiter {
	if o.Keys == nil && o.KeysPath == "" {
		o.Keys = keys(t)
	}
	o.RedisTimeout = time.Second
	l, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

func req(key string) *http.Request {
	r := httptest.NewRequest("GET", "/v1/networks/fuji/subnets", nil)
	if key != "" {
		r.Header.Set("X-Glacier-Api-Key", key)
	}
	return r
}

func charge(cost int64) Charge { return Charge{Routes: []string{"listSubnets"}, Cost: cost} }

// TestExactnessTwoInstances: two limiters on one real Redis, 1,000
// concurrent requests from one key allowed 100: exactly 100 pass.
func TestExactnessTwoInstances(t *testing.T) {
	for _, be := range backends(t) {
		t.Run(be.name, func(t *testing.T) {
			rdb := be.client(t)
			a := newLimiter(t, Options{Redis: rdb})
			b := newLimiter(t, Options{Redis: rdb})
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
					d := l.Admit(context.Background(), req("alice-secret"), charge(1))
					switch d.Status {
					case 0:
						ok.Add(1)
					case 429:
						limited.Add(1)
						h := http.Header{}
						d.WriteHeaders(h)
						if hv(h, "retry-after") == "" || hv(h, "ratelimit-reset") == "" || hv(h, "ratelimit-remaining") != "0" || hv(h, "ratelimit-limit") != "100" {
							t.Errorf("429 headers: %v", h)
						}
					default:
						t.Errorf("status %d: %s", d.Status, d.Message)
					}
				}(i)
			}
			wg.Wait()
			if ok.Load() != 100 || limited.Load() != 900 {
				t.Fatalf("allowed %d, limited %d; want 100 and 900", ok.Load(), limited.Load())
			}
		})
	}
}

type backend struct {
	name   string
	client func(t *testing.T) redis.UniversalClient
}

func backends(t *testing.T) []backend {
	return []backend{
		{"redis", func(t *testing.T) redis.UniversalClient { return redistest.Start(t).Client() }},
		{"cluster", func(t *testing.T) redis.UniversalClient {
			s := redistest.Start(t)
			if !s.Real {
				t.Skip("no redis-server for a cluster")
			}
			return redistest.StartCluster(t, 3).Client(t)
		}},
	}
}

// TestDailyQuota: survives a restart, refuses a crossing request, resets at
// UTC midnight (injected clock, no sleeps), in process and in Redis.
func TestDailyQuota(t *testing.T) {
	srv := redistest.Start(t)
	for _, mode := range []string{"memory", "redis"} {
		t.Run(mode, func(t *testing.T) {
			clk := &fakeClock{t: time.Date(2026, 11, 23, 23, 59, 0, 0, time.UTC)}
			var rdb redis.UniversalClient
			if mode == "redis" {
				rdb = srv.Client()
				rdb.FlushAll(context.Background())
			}
			l := newLimiter(t, Options{Redis: rdb, Now: clk.Now})
			if d := l.Admit(context.Background(), req("alice-secret"), charge(60)); !d.Allowed() {
				t.Fatal(d.Message)
			}
			if mode == "redis" {
				// A restarted edge sees the same usage.
				l.Close()
				l = newLimiter(t, Options{Redis: rdb, Now: clk.Now})
			}
			if d := l.Admit(context.Background(), req("alice-secret"), charge(41)); d.Status != 429 {
				t.Fatalf("crossing request: %d; want 429", d.Status)
			}
			d := l.Admit(context.Background(), req("alice-secret"), charge(40))
			if !d.Allowed() || d.Remaining != 0 {
				t.Fatalf("last 40: %+v", d)
			}
			if d := l.Admit(context.Background(), req("alice-secret"), charge(1)); d.Status != 429 || d.RetryAfter > time.Minute {
				t.Fatalf("over quota: %+v", d)
			}
			clk.Set(time.Date(2026, 11, 24, 0, 0, 1, 0, time.UTC))
			if d := l.Admit(context.Background(), req("alice-secret"), charge(100)); !d.Allowed() {
				t.Fatalf("after midnight: %+v", d)
			}
		})
	}
}

func TestAnswers(t *testing.T) {
	l := newLimiter(t, Options{})
	tests := []struct {
		name   string
		key    string
		routes []string
		cost   int64
		status int
	}{
		{"anonymous", "", []string{"listSubnets"}, 1, 0},
		{"unknown key", "nope", []string{"listSubnets"}, 1, 401},
		{"route outside plan", "frank-secret", []string{"listValidators"}, 1, 403},
		{"route in plan", "frank-secret", []string{"listSubnets"}, 1, 0},
		{"batch with one outside", "frank-secret", []string{"listSubnets", "info.peers"}, 2, 403},
		{"month quota", "erin-secret", []string{"x"}, 11, 429},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := l.Admit(context.Background(), req(tt.key), Charge{Routes: tt.routes, Cost: tt.cost})
			if d.Status != tt.status {
				t.Fatalf("status %d (%s); want %d", d.Status, d.Message, tt.status)
			}
			h := http.Header{}
			d.WriteHeaders(h)
			if (tt.status == 0 && tt.key != "" || tt.status == 429) && tt.key != "frank-secret" { // frank's plan has no limits; anonymous answers carry none
				for _, name := range []string{"ratelimit-policy", "ratelimit-limit", "ratelimit-remaining"} {
					if len(h[name]) != 1 {
						t.Fatalf("header %s missing: %v", name, h)
					}
				}
			}
			//lint:ignore SA1008 WriteHeaders sets the names lower-case on purpose, as the real Data API sends them
			if (tt.status == 429) != (len(h["retry-after"]) == 1) {
				t.Fatalf("retry-after on %d: %v", tt.status, h)
			}
			if tt.status != 0 && d.Message == "" {
				t.Fatal("refusal without a message")
			}
		})
	}
	// The x-data-api-key header of the Data API's interface description works too.
	r := httptest.NewRequest("GET", "/", nil)
	r.Header.Set("X-Data-Api-Key", "frank-secret")
	if d := l.Admit(context.Background(), r, charge(1)); d.KeyID != "frank" {
		t.Fatalf("x-data-api-key: %+v", d)
	}
}

func TestRateAndMinute(t *testing.T) {
	clk := &fakeClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	l := newLimiter(t, Options{Now: clk.Now})
	ctx := context.Background()
	// rps 2, burst 2: two at once, the third waits half a second.
	for i := 0; i < 2; i++ {
		if d := l.Admit(ctx, req("dave-secret"), charge(1)); !d.Allowed() {
			t.Fatalf("request %d: %s", i, d.Message)
		}
	}
	d := l.Admit(ctx, req("dave-secret"), charge(1))
	if d.Status != 429 || d.RetryAfter != 500*time.Millisecond {
		t.Fatalf("third: %d retry %v", d.Status, d.RetryAfter)
	}
	clk.Set(clk.Now().Add(500 * time.Millisecond))
	if d := l.Admit(ctx, req("dave-secret"), charge(1)); !d.Allowed() {
		t.Fatal("not allowed after the wait")
	}
	// 60 CU per minute: 60 at once, then one per second.
	if d := l.Admit(ctx, req("carol-secret"), charge(60)); !d.Allowed() {
		t.Fatal(d.Message)
	}
	if d := l.Admit(ctx, req("carol-secret"), charge(1)); d.Status != 429 || d.RetryAfter != time.Second {
		t.Fatalf("minute: %d %v", d.Status, d.RetryAfter)
	}
	clk.Set(clk.Now().Add(time.Second))
	if d := l.Admit(ctx, req("carol-secret"), charge(1)); !d.Allowed() {
		t.Fatal("not allowed a second later")
	}
}

// TestRedisStoppedUnderLoad: no request fails because of Redis; limits still
// apply in process (divided by replicas) and Redis is used again once back.
func TestRedisStoppedUnderLoad(t *testing.T) {
	srv := redistest.Start(t)
	srv.RequireReal()
	l := newLimiter(t, Options{Redis: srv.Client(), Replicas: 2})
	ctx := context.Background()
	for i := 0; i < 10; i++ {
		if d := l.Admit(ctx, req("alice-secret"), charge(1)); !d.Allowed() {
			t.Fatal(d.Message)
		}
	}
	// What this replica leased and has not spent stays its to spend.
	v, _ := l.leases.m.Load("key:alice")
	leased := v.(*entry[leaseState]).s.have[bDay]
	srv.Stop()
	var allowed, limited int
	for i := 0; i < 100; i++ {
		switch d := l.Admit(ctx, req("alice-secret"), charge(1)); d.Status {
		case 0:
			allowed++
		case 429:
			limited++
		default:
			t.Fatalf("status %d with Redis down", d.Status)
		}
	}
	// 100 per day divided by 2 replicas: 50 in process, after the units
	// leased before Redis stopped.
	if allowed != 50+int(leased) || limited != 50-int(leased) {
		t.Fatalf("with Redis down: allowed %d, limited %d; want %d/%d (%d leased)", allowed, limited, 50+leased, 50-leased, leased)
	}
	srv.Restart()
	deadline := time.Now().Add(5 * time.Second)
	for {
		l.redisUntil.Store(0) // skip the backoff instead of sleeping through it
		d := l.Admit(ctx, req("alice-secret"), charge(1))
		if !l.redisDown.Load() {
			if !d.Allowed() {
				t.Fatalf("after restart: %+v", d)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("Redis not used again after it came back")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestReloadKeepsCounters(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "keys.yaml")
	os.WriteFile(path, []byte(testKeys), 0o600)
	l := newLimiter(t, Options{KeysPath: path, PollInterval: 10 * time.Millisecond})
	ctx := context.Background()
	if d := l.Admit(ctx, req("alice-secret"), charge(90)); !d.Allowed() {
		t.Fatal(d.Message)
	}
	if d := l.Admit(ctx, req("zed-secret"), charge(1)); d.Status != 401 {
		t.Fatalf("zed before reload: %d", d.Status)
	}
	// Operators replace the file atomically (write, then rename).
	tmp := path + ".tmp"
	os.WriteFile(tmp, []byte(testKeys[:len(testKeys)-len("anonymous: free\n")]+"  - {id: zed, key: zed-secret, plan: tiny}\nanonymous: free\n"), 0o600)
	os.Rename(tmp, path)
	deadline := time.Now().Add(3 * time.Second)
	for l.Admit(ctx, req("zed-secret"), charge(0)).Status == 401 {
		if time.Now().After(deadline) {
			t.Fatal("keys file not reloaded")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if d := l.Admit(ctx, req("alice-secret"), charge(11)); d.Status != 429 {
		t.Fatalf("counters lost on reload: %d", d.Status)
	}
	os.WriteFile(path, []byte("plans: [broken"), 0o600)
	if err := l.Reload(); err == nil {
		t.Fatal("broken keys file accepted")
	}
	if d := l.Admit(ctx, req("zed-secret"), charge(0)); !d.Allowed() {
		t.Fatal("a broken reload dropped the keys")
	}
}

func TestClientIP(t *testing.T) {
	trusted := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}
	tests := []struct{ remote, xff, want string }{
		{"192.0.2.1:5", "", "192.0.2.1"},
		{"192.0.2.1:5", "198.51.100.7", "192.0.2.1"},
		{"10.1.1.1:5", "198.51.100.7", "198.51.100.7"},
		{"10.1.1.1:5", "203.0.113.9, 198.51.100.7, 10.2.2.2", "198.51.100.7"},
		{"10.1.1.1:5", "garbage", "10.1.1.1"},
	}
	for _, tt := range tests {
		r := httptest.NewRequest("GET", "/", nil)
		r.RemoteAddr = tt.remote
		if tt.xff != "" {
			r.Header.Set("X-Forwarded-For", tt.xff)
		}
		if got := ClientIP(r, trusted).String(); got != tt.want {
			t.Errorf("ClientIP(%s, %q) = %s; want %s", tt.remote, tt.xff, got, tt.want)
		}
	}
}

func TestKeysFileErrors(t *testing.T) {
	for _, bad := range []string{
		"plans: {a: {rps: -1}}",
		"plans: {a: {}}\nkeys: [{id: x, key: k, plan: b}]",
		"plans: {a: {}}\nkeys: [{id: x, plan: a}]",
		"plans: {a: {}}\nkeys: [{id: x, sha256: zz, plan: a}]",
		"plans: {a: {}}\nanonymous: b",
		"plans: {a: {cu_per_hour: 3}}",
		"",
	} {
		if _, err := ParseKeysFile([]byte(bad)); err == nil {
			t.Errorf("accepted %q", bad)
		}
	}
}

func BenchmarkAdmitMemory(b *testing.B) {
	l := newLimiter(b, Options{})
	r := req("bob-never-matches")
	r.Header.Del("X-Glacier-Api-Key")
	c := charge(1)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		l.Admit(context.Background(), r, c)
	}
}

// BenchmarkAdmitRedis: a key far from its limits, its limits in Redis:
// leases make almost every decision in process (redis-calls/op).
func BenchmarkAdmitRedis(b *testing.B) {
	srv := redistest.Start(b)
	rdb := srv.Client()
	kf, err := ParseKeysFile([]byte(bigPlan))
	if err != nil {
		b.Fatal(err)
	}
	l := newLimiter(b, Options{Keys: kf, Redis: rdb})
	r := req("big-secret")
	c := charge(1)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		l.Admit(context.Background(), r, c)
	}
	b.StopTimer()
	calls, _ := commandstats(b, rdb, "evalsha")
	b.ReportMetric(float64(calls)/float64(b.N), "redis-calls/op")
}

// BenchmarkLeaseCall: one lease call (all four budgets), and the Redis CPU
// it costs by INFO commandstats.
func BenchmarkLeaseCall(b *testing.B) {
	srv := redistest.Start(b)
	srv.RequireReal()
	rdb := srv.Client()
	kf, err := ParseKeysFile([]byte(bigPlan))
	if err != nil {
		b.Fatal(err)
	}
	p := kf.Plans["big"]
	r := ruleOf(&p, 1)
	a := &leaseArgs{need: [4]int64{1, 1, 1, 1}, want: [4]int64{1, 1, 1, 1}}
	ctx := context.Background()
	now := time.Now()
	if _, err := leaseCall(ctx, rdb, "avaedge", "key:big", &r, 2, a, now); err != nil {
		b.Fatal(err)
	}
	calls0, usec0 := commandstats(b, rdb, "evalsha")
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := leaseCall(ctx, rdb, "avaedge", "key:big", &r, 2, a, now); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	calls, usec := commandstats(b, rdb, "evalsha")
	b.ReportMetric(float64(usec-usec0)/float64(max(1, calls-calls0)), "redis-µs/call")
}

// hv reads a header set under its lower-case name.
func hv(h http.Header, name string) string {
	if v := h[name]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// TestAnonymousIDs: clients are told apart by IPv4 address and IPv6 /64,
// whatever the table remembers, including two addresses sharing a slot.
func TestAnonymousIDs(t *testing.T) {
	var tab anonIDs
	cases := []struct{ addr, want string }{
		{"192.0.2.7", "ip:192.0.2.7"},
		{"::ffff:192.0.2.7", "ip:192.0.2.7"},
		{"2001:db8:1:2:aaaa::1", "ip:2001:db8:1:2::/64"},
		{"2001:db8:1:2:bbbb::9", "ip:2001:db8:1:2::/64"},
		{"2001:db8:1:3::1", "ip:2001:db8:1:3::/64"},
	}
	for round := 0; round < 2; round++ { // the second round reads the table
		for _, c := range cases {
			if got := tab.get(netip.MustParseAddr(c.addr)); got != c.want {
				t.Fatalf("round %d: %s -> %q, want %q", round, c.addr, got, c.want)
			}
		}
	}
	// Fill every slot many times over: each answer is still the address's own.
	for i := 0; i < 3*anonSlots; i++ {
		a := netip.AddrFrom4([4]byte{10, byte(i >> 16), byte(i >> 8), byte(i)})
		if got, want := tab.get(a), "ip:"+a.String(); got != want {
			t.Fatalf("%s -> %q, want %q", a, got, want)
		}
	}
	a := netip.MustParseAddr("198.51.100.1")
	tab.get(a)
	if n := testing.AllocsPerRun(100, func() { tab.get(a) }); n != 0 {
		t.Fatalf("a remembered client allocates %v times", n)
	}
}

// TestChargeCachedRefused: the removed charge_cached setting is refused at
// load with its reason, not silently ignored.
func TestChargeCachedRefused(t *testing.T) {
	_, err := ParseKeysFile([]byte("plans:\n  a: {cu_per_day: 10, charge_cached: false}\n"))
	if err == nil || !strings.Contains(err.Error(), "plans.a.charge_cached: is not supported") {
		t.Fatalf("err = %v; want charge_cached refused with its reason", err)
	}
}

// TestUnmanagedKeys: without a keys file any key is accepted and metered on
// its own, by its hash, under the published keyed plan (free: 8,000 CU a
// minute, 2,000,000 a day); anonymous clients stay on "unauthenticated".
// The key itself appears nowhere in the decision.
func TestUnmanagedKeys(t *testing.T) {
	for _, be := range []string{"memory", "redis"} {
		t.Run(be, func(t *testing.T) {
			var rdb redis.UniversalClient
			if be == "redis" {
				rdb = redistest.Start(t).Client()
			}
			l := newLimiter(t, Options{Keys: DefaultKeysFile(), Redis: rdb})
			ctx := context.Background()
			d := l.Admit(ctx, req("app-key-one"), charge(7990))
			if d.Status != 0 || d.Plan != "free" || d.Limit != 8000 || d.Remaining != 10 {
				t.Fatalf("first key: %+v; want allowed on free with 10 CU left", d)
			}
			if strings.Contains(d.KeyID, "app-key-one") || !strings.HasPrefix(d.KeyID, "sha256:") {
				t.Fatalf("KeyID %q; want the hash's prefix, never the key", d.KeyID)
			}
			h := http.Header{}
			d.WriteHeaders(h)
			if hv(h, "ratelimit-remaining") != "10" || hv(h, "ratelimit-policy") != "8000;w=60, 2000000;w=86400" {
				t.Fatalf("headers %v", h)
			}
			// Another key has its own counters.
			if d := l.Admit(ctx, req("app-key-two"), charge(7990)); d.Status != 0 || d.Remaining != 10 {
				t.Fatalf("second key: %+v", d)
			}
			// The minute's budget refills continuously (8,000 CU over 60 s,
			// 133 a second): 1,000 more is beyond what the time the test
			// takes can refill.
			if d := l.Admit(ctx, req("app-key-one"), charge(1000)); d.Status != 429 {
				t.Fatalf("first key over its minute: %+v", d)
			}
			r := req("")
			r.RemoteAddr = "192.0.2.44:1000"
			if d := l.Admit(ctx, r, charge(6001)); d.Status != 429 || d.Plan != "unauthenticated" || d.Limit != 6000 {
				t.Fatalf("anonymous: %+v; want refused on unauthenticated", d)
			}
		})
	}
	// With a keys file an unknown key is still refused.
	l := newLimiter(t, Options{})
	if d := l.Admit(context.Background(), req("app-key-one"), charge(1)); d.Status != 401 {
		t.Fatalf("unknown key with a keys file: %d; want 401", d.Status)
	}
}
