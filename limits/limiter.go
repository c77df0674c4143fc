// Package limits identifies clients (API keys, or anonymous by IP), holds
// their plans, and enforces request rates and compute-unit (CU) quotas shared
// by every replica: GCRA and fixed UTC day/month windows in one Redis Lua
// script per decision with Redis TIME as the clock, or the same limits in
// process when Redis is absent, and divided by the replica count while Redis
// is failing.
package limits

import (
	"context"
	"errors"
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

// Admit decides on one request: Identify, then AdmitClient.
func (l *Limiter) Admit(ctx context.Context, r *http.Request, c Charge) Decision {
	client, d := l.Identify(r)
	if d.Status != 0 {
		return d
	}
	return l.AdmitClient(ctx, client, c)
}

// AdmitClient decides whether client, from Identify, may spend c.
func (l *Limiter) AdmitClient(ctx context.Context, client Client, c Charge) Decision {
	plan := client.plan
	d := Decision{KeyID: client.keyID, Plan: plan.plan.Name, Policy: plan.policy}
	if route, ok := plan.plan.allows(c.Routes); !ok {
		plan.forbidden.Inc()
		d.Status, d.Message = http.StatusForbidden, "The "+plan.plan.Name+" plan does not include "+route
		return d
	}
	res := l.decide(ctx, client.id, plan, c.Cost, c.At)
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
	if !client.keyed {
		// The real Data API sends rate-limit headers on keyed answers;
		// anonymous clients see them only on a refusal.
		d.Policy = ""
	}
	return d
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
