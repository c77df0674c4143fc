// Package limits identifies clients (API keys, or anonymous by IP), holds
// their plans, and enforces request rates and compute-unit (CU) quotas shared
// by every replica: GCRA and fixed UTC day/month windows in one Redis Lua
// script per decision with Redis TIME as the clock, or the same limits in
// process when Redis is absent, and divided by the replica count while Redis
// is failing.
package limits

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/netip"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/avaedge/avaedge/internal/decimal"
)

// Charge is what one request costs.
type Charge struct {
	// Routes are the route names charged: one, or the calls of a batch.
	Routes []string
	// Cost is the total in compute units.
	Cost int64
	// Cached says the answer comes from the cache (see Plan.ChargeCached).
	Cached bool
	// At is when the request arrived, read by the caller from the same
	// clock as Options.Now (one clock reading per request). Zero means
	// Options.Now().
	At time.Time
}

// Decision is a verdict and what the rate-limit headers say.
type Decision struct {
	// Status is 0 when allowed, else 401, 403 or 429.
	Status  int
	Message string
	// KeyID names the key ("anonymous" without one); never the key itself.
	KeyID string
	Plan  string
	// Policy is the ratelimit-policy value, e.g. "8000;w=60, 2000000;w=86400".
	Policy           string
	Limit, Remaining int64
	// RetryAfter and ResetAfter are set on a 429.
	RetryAfter, ResetAfter time.Duration
}

// Allowed reports whether the request may proceed.
func (d Decision) Allowed() bool { return d.Status == 0 }

// HasHeaders reports whether WriteHeaders writes any header.
func (d Decision) HasHeaders() bool { return d.Policy != "" }

// WriteHeaders sets the rate-limit headers: ratelimit-policy, ratelimit-limit
// and ratelimit-remaining on every answer with a plan, and retry-after and
// ratelimit-reset (whole seconds, rounded up) on a 429. The names are set
// lower-case, as the real Data API sends them (HTTP/2 lower-cases anyway;
// on HTTP/1.1 this keeps the bytes identical).
func (d Decision) WriteHeaders(h http.Header) {
	if !d.HasHeaders() {
		return
	}
	vals := make([]string, 5) // one allocation for every value
	vals[0] = d.Policy
	vals[1] = decimal.Itoa(d.Limit)
	vals[2] = decimal.Itoa(max(0, d.Remaining))
	h["ratelimit-policy"] = vals[0:1:1]
	h["ratelimit-limit"] = vals[1:2:2]
	h["ratelimit-remaining"] = vals[2:3:3]
	if d.Status == http.StatusTooManyRequests {
		vals[3], vals[4] = seconds(d.RetryAfter), seconds(d.ResetAfter)
		h["retry-after"] = vals[3:4:4]
		h["ratelimit-reset"] = vals[4:5:5]
	}
}

func seconds(d time.Duration) string {
	s := int64((d + time.Second - 1) / time.Second)
	return strconv.FormatInt(max(1, s), 10)
}

// Options configures a Limiter. Zero values mean the documented defaults.
type Options struct {
	// Keys are the keys and plans. Nil means KeysPath, else DefaultKeysFile().
	Keys *KeysFile
	// KeysPath, when set, is read at start and re-read when it changes
	// (polled every PollInterval) or on Reload, without losing counters.
	KeysPath string
	// PollInterval is how often KeysPath is checked. 0 means 2s.
	PollInterval time.Duration
	// Redis shares the limits between replicas. Nil means in process.
	Redis redis.UniversalClient
	// Prefix starts every Redis key. "" means "avaedge".
	Prefix string
	// Replicas divides every limit while Redis is failing. 0 means 1.
	Replicas int
	// TrustedProxies are the CIDRs whose X-Forwarded-For is believed.
	TrustedProxies []netip.Prefix
	// RedisTimeout bounds one decision in Redis. 0 means 50ms.
	RedisTimeout time.Duration
	// Registerer receives the limiter's metrics. Nil registers none.
	Registerer prometheus.Registerer
	// Logger logs reloads and Redis transitions. Nil means slog.Default().
	Logger *slog.Logger
	// Now is the in-process clock, also naming the day and month windows.
	// Nil means time.Now.
	Now func() time.Time
}

// Limiter decides whether requests may proceed. It is safe for concurrent
// use.
type Limiter struct {
	opts    Options
	keys    atomic.Pointer[keySet]
	mem     *memory // the in-process limits (no Redis configured)
	backup  *memory // the fallback while Redis fails (limits / Replicas)
	m       *metrics
	log     *slog.Logger
	fileSig atomic.Value // string: size and mtime of KeysPath
	anonIDs anonIDs      // recent clients' anonymous ids

	redisDown  atomic.Bool
	redisUntil atomic.Int64 // unix ns before which Redis is not retried

	stop chan struct{}
	wg   sync.WaitGroup
}

// keySet is an immutable view of a keys file.
type keySet struct {
	file   *KeysFile
	byHash map[string]*Key // hex sha256 -> key
	byID   map[string]*Key
	plans  map[string]*planInfo
}

// planInfo is what a decision needs of a plan, computed once per keys file.
type planInfo struct {
	plan    Plan
	rule    rule // the plan's limits
	divided rule // the limits while Redis fails (divided by replicas)
	policy  string
	// allowed, limited and forbidden count the plan's decisions.
	allowed, limited, forbidden prometheus.Counter
}

func newKeySet(kf *KeysFile, replicas int, m *metrics) *keySet {
	ks := &keySet{file: kf, byHash: map[string]*Key{}, byID: map[string]*Key{}, plans: map[string]*planInfo{}}
	for i := range kf.Keys {
		k := &kf.Keys[i]
		ks.byHash[k.hash()] = k
		ks.byID[k.ID] = k
	}
	for name, p := range kf.Plans {
		pi := &planInfo{plan: p,
			allowed:   m.decisions.WithLabelValues(name, "allowed"),
			limited:   m.decisions.WithLabelValues(name, "limited"),
			forbidden: m.decisions.WithLabelValues(name, "forbidden")}
		pi.rule = ruleOf(&pi.plan, 1)
		pi.divided = ruleOf(&pi.plan, replicas)
		pi.policy = policyOf(&pi.plan)
		ks.plans[name] = pi
	}
	return ks
}

// policyOf is the ratelimit-policy of a plan: each limit as
// "<quota>;w=<window seconds>" (IETF RateLimit header fields draft), the
// month counted as 30 days.
func policyOf(p *Plan) string {
	var parts []string
	if p.CUPerMinute > 0 {
		parts = append(parts, strconv.FormatInt(p.CUPerMinute, 10)+";w=60")
	}
	if p.CUPerDay > 0 {
		parts = append(parts, strconv.FormatInt(p.CUPerDay, 10)+";w=86400")
	}
	if p.CUPerMonth > 0 {
		parts = append(parts, strconv.FormatInt(p.CUPerMonth, 10)+";w=2592000")
	}
	if p.RPS > 0 {
		parts = append(parts, strconv.Itoa(p.Burst)+";w=1")
	}
	return strings.Join(parts, ", ")
}

// New returns a Limiter.
func New(opts Options) (*Limiter, error) {
	if opts.Prefix == "" {
		opts.Prefix = "avaedge"
	}
	if opts.Replicas <= 0 {
		opts.Replicas = 1
	}
	if opts.RedisTimeout <= 0 {
		opts.RedisTimeout = 50 * time.Millisecond
	}
	if opts.PollInterval <= 0 {
		opts.PollInterval = 2 * time.Second
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	m, err := newMetrics(opts.Registerer)
	if err != nil {
		return nil, err
	}
	l := &Limiter{opts: opts, mem: &memory{}, backup: &memory{}, m: m, log: opts.Logger, stop: make(chan struct{})}
	kf := opts.Keys
	if kf == nil && opts.KeysPath != "" {
		if kf, err = LoadKeysFile(opts.KeysPath); err != nil {
			return nil, err
		}
		l.fileSig.Store(fileSig(opts.KeysPath))
	}
	if kf == nil {
		kf = DefaultKeysFile()
	}
	l.keys.Store(newKeySet(kf, opts.Replicas, m))
	if opts.KeysPath != "" {
		l.wg.Add(1)
		go l.watch()
	}
	return l, nil
}

// Reload re-reads KeysPath. Counters are kept: they belong to key ids.
func (l *Limiter) Reload() error {
	if l.opts.KeysPath == "" {
		return nil
	}
	kf, err := LoadKeysFile(l.opts.KeysPath)
	if err != nil {
		l.log.Error("keys file not reloaded", "err", err)
		return err
	}
	l.keys.Store(newKeySet(kf, l.opts.Replicas, l.m))
	l.fileSig.Store(fileSig(l.opts.KeysPath))
	l.log.Info("keys file reloaded", "keys", len(kf.Keys), "plans", len(kf.Plans))
	return nil
}

func fileSig(path string) string {
	st, err := os.Stat(path)
	if err != nil {
		return ""
	}
	return strconv.FormatInt(st.Size(), 10) + "@" + strconv.FormatInt(st.ModTime().UnixNano(), 10)
}

func (l *Limiter) watch() {
	defer l.wg.Done()
	t := time.NewTicker(l.opts.PollInterval)
	defer t.Stop()
	for {
		select {
		case <-l.stop:
			return
		case <-t.C:
			if sig := fileSig(l.opts.KeysPath); sig != "" && sig != l.fileSig.Load() {
				l.Reload()
			}
		}
	}
}

// Close stops watching the keys file. It does not close the Redis client.
func (l *Limiter) Close() error {
	select {
	case <-l.stop:
	default:
		close(l.stop)
	}
	l.wg.Wait()
	return nil
}

// identify returns the key (nil for anonymous), the identity the counters
// belong to, and the plan; unknown is true for a key that is not in the file.
func (l *Limiter) identify(r *http.Request) (key *Key, id string, plan *planInfo, unknown bool) {
	ks := l.keys.Load()
	presented := header(r.Header, "X-Glacier-Api-Key")
	if presented == "" {
		presented = header(r.Header, "X-Data-Api-Key")
	}
	if presented != "" {
		sum := sha256.Sum256([]byte(presented))
		want := hex.EncodeToString(sum[:])
		k, ok := ks.byHash[want]
		// The map finds the key by its hash; compare again in constant time
		// so the answer's timing does not depend on how much of it matched.
		if !ok || subtle.ConstantTimeCompare([]byte(k.hash()), []byte(want)) != 1 {
			return nil, "", nil, true
		}
		return k, "key:" + k.ID, ks.plans[k.Plan], false
	}
	if ks.file.Anonymous == "" {
		return nil, "", nil, true
	}
	return nil, l.anonIDs.get(ClientIP(r, l.opts.TrustedProxies)), ks.plans[ks.file.Anonymous], false
}

// header is h.Get(key) for a key already in canonical form (as servers
// store received names), without canonicalising it again.
func header(h http.Header, key string) string {
	if v := h[key]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// anonIDs remembers the anonymous ids of recent client addresses in a
// direct-mapped table, so a returning client's request builds no string.
// Slots are replaced whole, so readers never see a torn pair.
type anonIDs struct {
	slots [anonSlots]atomic.Pointer[anonID]
}

const anonSlots = 4096 // a power of two

type anonID struct {
	addr netip.Addr
	id   string
}

func (t *anonIDs) get(a netip.Addr) string {
	b := a.As16()
	h := (binary.LittleEndian.Uint64(b[:8])*0x9e3779b97f4a7c15 ^ binary.LittleEndian.Uint64(b[8:])) * 0xff51afd7ed558ccd
	slot := &t.slots[h>>32&(anonSlots-1)]
	if e := slot.Load(); e != nil && e.addr == a {
		return e.id
	}
	id := anonymousID(a)
	slot.Store(&anonID{addr: a, id: id})
	return id
}

// anonymousID groups IPv6 clients by /64, as one host usually owns one.
func anonymousID(a netip.Addr) string {
	var buf [64]byte
	b := append(buf[:0], "ip:"...)
	if a.Is6() && !a.Is4In6() {
		p, _ := a.Prefix(64)
		return string(p.AppendTo(b))
	}
	return string(a.Unmap().AppendTo(b))
}

// ClientIP returns the client's address: the connection's peer, or, when
// that peer is a trusted proxy, the right-most X-Forwarded-For address that
// is not itself a trusted proxy.
func ClientIP(r *http.Request, trusted []netip.Prefix) netip.Addr {
	ap, err := netip.ParseAddrPort(r.RemoteAddr)
	var peer netip.Addr
	if err == nil {
		peer = ap.Addr().Unmap()
	} else if a, err := netip.ParseAddr(r.RemoteAddr); err == nil {
		peer = a.Unmap()
	}
	if !isTrusted(peer, trusted) {
		return peer
	}
	var hops []string
	for _, v := range r.Header.Values("X-Forwarded-For") {
		hops = append(hops, strings.Split(v, ",")...)
	}
	for i := len(hops) - 1; i >= 0; i-- {
		a, err := netip.ParseAddr(strings.TrimSpace(hops[i]))
		if err != nil {
			return peer
		}
		a = a.Unmap()
		if !isTrusted(a, trusted) {
			return a
		}
		peer = a
	}
	return peer
}

func isTrusted(a netip.Addr, trusted []netip.Prefix) bool {
	for _, p := range trusted {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// Admit decides on one request.
func (l *Limiter) Admit(ctx context.Context, r *http.Request, c Charge) Decision {
	key, id, plan, unknown := l.identify(r)
	if unknown {
		l.m.unauthorized.Inc()
		msg := "Invalid API key"
		if r.Header.Get("X-Glacier-Api-Key") == "" && r.Header.Get("X-Data-Api-Key") == "" {
			msg = "An API key is required"
		}
		return Decision{Status: http.StatusUnauthorized, Message: msg, KeyID: "unknown"}
	}
	d := Decision{KeyID: "anonymous", Plan: plan.plan.Name, Policy: plan.policy}
	if key != nil {
		d.KeyID = key.ID
	}
	if route, ok := plan.plan.allows(c.Routes); !ok {
		plan.forbidden.Inc()
		d.Status, d.Message = http.StatusForbidden, "The "+plan.plan.Name+" plan does not include "+route
		return d
	}
	cost := c.Cost
	if c.Cached && !plan.plan.chargesCached() {
		cost = 0
	}
	res := l.decide(ctx, id, plan, cost, c.At)
	fill(&d, &plan.plan, res)
	if !res.allowed {
		plan.limited.Inc()
		d.Status = http.StatusTooManyRequests
		d.Message = "Rate limit exceeded (" + limitName(res.failed) + "); retry after " + seconds(res.retryAfter) + "s"
		d.RetryAfter = res.retryAfter
		d.ResetAfter = res.retryAfter
		return d
	}
	plan.allowed.Inc()
	if key == nil {
		// Rate-limit headers go on answers to keyed requests (the Data
		// API's Usage Guide); anonymous clients see them only on a refusal.
		d.Policy = ""
	}
	return d
}

func limitName(f string) string {
	switch f {
	case "rate":
		return "requests per second"
	case "minute":
		return "compute units per minute"
	case "day":
		return "compute units per day"
	}
	return "compute units per month"
}

// decide asks Redis, or the in-process limiter when there is none or it is
// failing.
func (l *Limiter) decide(ctx context.Context, id string, plan *planInfo, cost int64, now time.Time) result {
	if now.IsZero() {
		now = l.opts.Now()
	}
	if l.opts.Redis == nil {
		return l.mem.decide(id, plan.rule, cost, now)
	}
	if now.UnixNano() >= l.redisUntil.Load() {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), l.opts.RedisTimeout)
		start := time.Now()
		res, err := redisDecide(rctx, l.opts.Redis, l.opts.Prefix, id, plan.rule, cost, now)
		cancel()
		l.m.redisLatency.Observe(time.Since(start).Seconds())
		if err == nil {
			if l.redisDown.Swap(false) {
				l.log.Info("limits: redis is back; limits are cluster-wide again")
			}
			return res
		}
		if !errors.Is(err, context.Canceled) {
			l.m.fallbacks.Inc()
			if !l.redisDown.Swap(true) {
				l.log.Warn("limits: redis failing; enforcing limits in process, divided by replicas", "err", err, "replicas", l.opts.Replicas)
			}
			l.redisUntil.Store(now.Add(time.Second).UnixNano())
		}
	} else {
		l.m.fallbacks.Inc()
	}
	return l.backup.decide(id, plan.divided, cost, now)
}

// fill sets the headers' numbers from the most constraining limit.
func fill(d *Decision, p *Plan, res result) {
	best := 2.0
	consider := func(limit, remaining int64) {
		if frac := float64(remaining) / float64(limit); frac < best {
			best, d.Limit, d.Remaining = frac, limit, remaining
		}
	}
	if p.CUPerMinute > 0 {
		left := res.minuteLeft
		if left < 0 {
			left = p.CUPerMinute
		}
		consider(p.CUPerMinute, min(left, p.CUPerMinute))
	}
	if p.CUPerDay > 0 {
		consider(p.CUPerDay, p.CUPerDay-res.dayUsed)
	}
	if p.CUPerMonth > 0 {
		consider(p.CUPerMonth, p.CUPerMonth-res.monthUsed)
	}
	if p.RPS > 0 {
		left := res.rateLeft
		if left < 0 {
			left = int64(p.Burst)
		}
		consider(int64(p.Burst), min(left, int64(p.Burst)))
	}
}

// Usage is a key's consumption and limits.
type Usage struct {
	KeyID       string  `json:"keyId"`
	Plan        string  `json:"plan"`
	MinuteUsed  int64   `json:"cuMinuteUsed"`
	DayUsed     int64   `json:"cuDayUsed"`
	MonthUsed   int64   `json:"cuMonthUsed"`
	CUPerMinute int64   `json:"cuPerMinute,omitempty"`
	CUPerDay    int64   `json:"cuPerDay,omitempty"`
	CUPerMonth  int64   `json:"cuPerMonth,omitempty"`
	RPS         float64 `json:"rps,omitempty"`
}

// ErrUnknownKey is returned by Usage for an id not in the keys file.
var ErrUnknownKey = errors.New("unknown key id")

// Usage returns a key's current usage by key id.
func (l *Limiter) Usage(ctx context.Context, keyID string) (Usage, error) {
	ks := l.keys.Load()
	k, ok := ks.byID[keyID]
	if !ok {
		return Usage{}, ErrUnknownKey
	}
	p := ks.file.Plans[k.Plan]
	u := Usage{KeyID: keyID, Plan: k.Plan, CUPerMinute: p.CUPerMinute, CUPerDay: p.CUPerDay, CUPerMonth: p.CUPerMonth, RPS: p.RPS}
	now := l.opts.Now()
	id := "key:" + keyID
	var tat time.Time
	if l.opts.Redis != nil && !l.redisDown.Load() {
		us, day, month, err := redisUsage(ctx, l.opts.Redis, l.opts.Prefix, id, now)
		if err != nil {
			return u, err
		}
		u.DayUsed, u.MonthUsed = day, month
		if us > 0 {
			// Redis TIME and the local clock agree closely enough for a report.
			tat = time.UnixMicro(us)
		}
	} else {
		tat, u.DayUsed, u.MonthUsed = l.mem.usage(id, now)
		if l.opts.Redis != nil {
			tat, u.DayUsed, u.MonthUsed = l.backup.usage(id, now)
		}
	}
	if p.CUPerMinute > 0 && tat.After(now) {
		u.MinuteUsed = min(p.CUPerMinute, int64(tat.Sub(now)/(time.Minute/time.Duration(p.CUPerMinute))))
	}
	return u, nil
}

// UsageHandler serves GET ?key=<id> with the key's Usage as JSON.
func (l *Limiter) UsageHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		u, err := l.Usage(r.Context(), r.URL.Query().Get("key"))
		switch {
		case errors.Is(err, ErrUnknownKey):
			w.WriteHeader(http.StatusNotFound)
			json.NewEncoder(w).Encode(map[string]string{"error": "no key with id " + strconv.Quote(r.URL.Query().Get("key"))})
		case err != nil:
			w.WriteHeader(http.StatusBadGateway)
			json.NewEncoder(w).Encode(map[string]string{"error": err.Error()})
		default:
			json.NewEncoder(w).Encode(u)
		}
	})
}
