// Package limits identifies clients (API keys, or anonymous by IP), holds
// their plans, and enforces request rates and compute-unit (CU) quotas shared
// by every replica. With Redis, each replica leases slices of a client's
// budgets from Redis in one Lua call and spends them in process (lease.go),
// so a client far from its limits costs no Redis round trip per request;
// without Redis the limits are kept in process (memory.go), and while Redis
// fails each replica enforces 1/replicas of them there.
package limits

import (
	"context"
	"log/slog"
	"net/http"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"
)

// Options configures a Limiter. Zero values mean the documented defaults.
type Options struct {
	// Keys are the keys and plans. Nil means KeysPath, else DefaultKeysFile().
	Keys *KeysFile
	// KeysPath, when set, is read at start and re-read when it changes
	// (polled every PollInterval) or on Reload, without losing counters.
	KeysPath string
	// PollInterval is how often KeysPath is checked. 0 means 500ms, so a
	// plan change takes effect within a second on every replica.
	PollInterval time.Duration
	// Redis shares the limits between replicas. Nil means in process.
	Redis redis.UniversalClient
	// Prefix starts every Redis key. "" means "avaedge".
	Prefix string
	// Replicas divides every limit while Redis is failing. 0 means 1.
	Replicas int
	// TrustedProxies are the CIDRs whose X-Forwarded-For is believed.
	TrustedProxies []netip.Prefix
	// RedisTimeout bounds one lease call to Redis. 0 means 50ms.
	RedisTimeout time.Duration
	// MaxClients bounds how many clients' states each table keeps in
	// process; past it the least recently seen are forgotten first. 0 means
	// 100,000.
	MaxClients int
	// ClientIdle is how long an in-process client state (no Redis, or the
	// fallback) is kept without a request; a client forgotten starts afresh.
	// Keys of the keys file are never forgotten. 0 means one hour.
	ClientIdle time.Duration
	// UnissuedKeys bounds what keys nobody issued (KeysFile.Unmanaged) buy
	// from one address (unissued.go). Zero fields mean their defaults.
	UnissuedKeys UnissuedKeys
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
	mem     *memory            // the in-process limits (no Redis configured)
	backup  *memory            // the fallback while Redis fails (limits / Replicas)
	leases  *table[leaseState] // the clients' leases (with Redis)
	keyCap  *keyCap            // unissued keys in use per address; nil: no bound
	closing atomic.Bool        // Close has begun: no new background calls
	m       *metrics
	log     *slog.Logger
	fileSig atomic.Value // string: size and mtime of KeysPath
	anonIDs anonIDs      // recent clients' anonymous ids

	redisDown  atomic.Bool
	redisUntil atomic.Int64 // unix ns before which Redis is not retried

	returnsMu sync.Mutex      // guards returns
	returns   []pendingReturn // evicted clients' leases, to give back

	stop chan struct{}
	wg   sync.WaitGroup
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
		opts.PollInterval = 500 * time.Millisecond
	}
	if opts.MaxClients <= 0 {
		opts.MaxClients = 100_000
	}
	if opts.ClientIdle <= 0 {
		opts.ClientIdle = time.Hour
	}
	if opts.UnissuedKeys.PerAddress == 0 {
		opts.UnissuedKeys.PerAddress = DefaultUnissuedPerAddress
	}
	if opts.UnissuedKeys.Window <= 0 {
		opts.UnissuedKeys.Window = time.Hour
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
	max := int64(opts.MaxClients)
	l := &Limiter{opts: opts, mem: newMemory(max, opts.ClientIdle), backup: newMemory(max, opts.ClientIdle),
		m: m, log: opts.Logger, stop: make(chan struct{})}
	l.leases = &table[leaseState]{max: max, idle: leaseIdle, evict: l.evictLease}
	if opts.UnissuedKeys.PerAddress > 0 {
		l.keyCap = newKeyCap(opts.UnissuedKeys, max)
	}
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
	l.keys.Store(newKeySet(kf, opts.Replicas, opts.UnissuedKeys.PerAddress, m))
	if opts.KeysPath != "" {
		l.wg.Add(1)
		go l.watch()
	}
	l.wg.Add(1)
	go l.janitor()
	return l, nil
}

// Close stops watching the keys file and gives the leases this replica
// holds back to Redis. It does not close the Redis client.
func (l *Limiter) Close() error {
	select {
	case <-l.stop:
		return nil
	default:
		close(l.stop)
	}
	l.closing.Store(true)
	l.wg.Wait()
	if l.opts.Redis != nil {
		l.leases.m.Range(func(k, v any) bool {
			l.leases.remove(k.(string), v.(*entry[leaseState]))
			return true
		})
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		l.flushReturns(ctx, l.opts.Now())
		cancel()
	}
	return nil
}

// janitor forgets idle clients and gives evicted leases back, until Close.
func (l *Limiter) janitor() {
	defer l.wg.Done()
	t := time.NewTicker(time.Second)
	defer t.Stop()
	var ticks int
	for {
		select {
		case <-l.stop:
			return
		case <-t.C:
		}
		now := l.opts.Now()
		ticks++
		if ticks%60 == 0 {
			l.mem.states.sweep(now, false)
			l.backup.states.sweep(now, false)
			if l.keyCap != nil {
				l.keyCap.states.sweep(now, false)
			}
		}
		if l.opts.Redis != nil {
			l.leases.sweep(now, false)
			ctx, cancel := context.WithTimeout(context.Background(), 5*l.opts.RedisTimeout)
			l.flushReturns(ctx, now)
			cancel()
		}
	}
}

// Admit decides on one request: Identify, then AdmitClient.
func (l *Limiter) Admit(ctx context.Context, r *http.Request, c Charge) Decision {
	client, d := l.Identify(r)
	if d.Status != 0 {
		return d
	}
	return l.AdmitClient(ctx, client, c)
}

// AdmitClient decides whether client, from Identify, may spend c. A zero
// Client (not from Identify) is refused with 401.
func (l *Limiter) AdmitClient(ctx context.Context, client Client, c Charge) Decision {
	plan := client.plan
	if plan == nil {
		_, d := l.unauthorized("An API key is required")
		return d
	}
	d := Decision{KeyID: client.keyID, Identity: client.id, Plan: plan.plan.Name, Policy: plan.policy, CacheBypass: plan.plan.CacheBypass}
	if route, ok := plan.plan.allows(c.Routes, c.AnyRoute); !ok {
		plan.forbidden.Inc()
		d.Status, d.Message = http.StatusForbidden, "The "+plan.plan.Name+" plan does not include "+route
		if c.AnyRoute {
			d.Message = "The " + plan.plan.Name + " plan does not include this endpoint"
		}
		return d
	}
	if c.Extra && c.Cost <= 0 {
		d.Policy = "" // nothing decided: the admission's headers stand
		return d
	}
	now := c.At
	if now.IsZero() {
		now = l.opts.Now()
	}
	var spendID string // the shared budgets of an unissued key's address
	if client.group != "" {
		var r Decision
		if r, spendID = l.admitUnissued(client, now); r.Status != 0 {
			return r
		}
	}
	res := l.decide(client.id, plan, c.Cost, !c.Extra, now, client.keyed)
	fill(&d, &plan.plan, res)
	if !res.allowed {
		plan.limited.Inc()
		d.Status = http.StatusTooManyRequests
		d.Message = "Rate limit exceeded (" + limitName(res.failed) + "); retry after " + seconds(res.retryAfter) + "s"
		d.RetryAfter = res.retryAfter
		d.ResetAfter = res.retryAfter
		return d
	}
	if spendID != "" {
		if r := l.spendUnissued(client, spendID, c.Cost, now); r.Status != 0 {
			return r
		}
	}
	if !c.Extra {
		plan.allowed.Inc() // a request is counted once, when admitted
	}
	if !client.keyed {
		// The real Data API sends rate-limit headers on keyed answers;
		// anonymous clients see them only on a refusal.
		d.Policy = ""
	}
	return d
}

// decide spends the client's leases (leasing from Redis when they fall
// short), or asks the in-process limiter when there is no Redis or it is
// failing. request says the spend is a request's (it takes one from the
// rate) rather than extra compute units of one already counted.
func (l *Limiter) decide(id string, plan *planInfo, cost int64, request bool, now time.Time, left bool) result {
	if now.IsZero() {
		now = l.opts.Now()
	}
	if l.opts.Redis == nil {
		return l.mem.decide(id, plan.rule, cost, request, now, left)
	}
	if now.UnixNano() >= l.redisUntil.Load() {
		res, err := l.leaseDecide(id, &plan.rule, cost, request, now)
		if err == nil {
			if l.redisDown.Load() && l.redisDown.Swap(false) {
				l.log.Info("limits: redis is back; limits are cluster-wide again")
			}
			return res
		}
		l.redisFailed(err, now)
	}
	l.m.fallbacks.Inc()
	return l.backup.decide(id, plan.divided, cost, request, now, left)
}

// redisFailed turns to the in-process limits for a second: a Redis error or
// timeout counts as a refused connection.
func (l *Limiter) redisFailed(err error, now time.Time) {
	if !l.redisDown.Swap(true) {
		l.log.Warn("limits: redis failing; enforcing limits in process, divided by replicas", "err", err, "replicas", l.opts.Replicas)
	}
	l.redisUntil.Store(now.Add(time.Second).UnixNano())
}
