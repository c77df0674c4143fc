package cache

import (
	"context"
	"errors"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
)

// remote is the Redis tier. Redis trouble never reaches a caller: every
// call is bounded by a short timeout, failures are counted and read as
// misses, and after failThreshold failures in a row Redis is skipped for
// backoff, then tried again by a single probing call. go-redis reconnects by
// itself. It is safe for concurrent use.
type remote struct {
	rdb           redis.UniversalClient
	prefix        string // Options.Prefix + "|"
	timeout       time.Duration
	compressAbove int
	now           func() time.Time
	m             *metrics
	log           *slog.Logger

	fails atomic.Int64 // consecutive failed calls
	until atomic.Int64 // unix ns before which Redis is skipped; 0: not skipping
}

// failThreshold failed calls in a row make the tier skip Redis for backoff,
// so a dead or black-holed Redis costs one timeout per backoff, not one per
// request.
const (
	failThreshold = 3
	backoff       = time.Second
)

// usable reports whether a call may go to Redis now. When a backoff has
// just ended, exactly one caller gets true (and probes); the others keep
// skipping until the probe succeeds or the next backoff ends.
func (r *remote) usable() bool {
	u := r.until.Load()
	if u == 0 {
		return true
	}
	now := r.now().UnixNano()
	if now < u {
		return false
	}
	return r.until.CompareAndSwap(u, now+int64(backoff))
}

// result records the outcome of one call.
func (r *remote) result(op string, err error) {
	if err == nil || errors.Is(err, redis.Nil) {
		if r.fails.Load() != 0 && r.fails.Swap(0) >= failThreshold {
			r.log.Info("cache: redis answers again")
		}
		if r.until.Load() != 0 {
			r.until.Store(0)
		}
		return
	}
	r.m.redisErrors.WithLabelValues(op).Inc()
	if n := r.fails.Add(1); n >= failThreshold {
		if n == failThreshold {
			r.log.Warn("cache: redis failing; serving from the in-process tier", "op", op, "err", err, "retry_every", backoff)
		}
		r.until.Store(r.now().Add(backoff).UnixNano())
	}
}

// callContext bounds one Redis call. It keeps ctx's values but not its
// cancellation: a client hanging up mid-call would otherwise make go-redis
// discard a healthy connection.
func (r *remote) callContext(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), r.timeout)
}

// get returns the entry under key, or nil when it is absent, undecodable or
// Redis is unavailable.
func (r *remote) get(ctx context.Context, key string) *Entry {
	if !r.usable() {
		return nil
	}
	ctx, cancel := r.callContext(ctx)
	defer cancel()
	start := time.Now()
	b, err := r.rdb.Get(ctx, r.prefix+key).Bytes()
	r.m.redisGet.Observe(time.Since(start).Seconds())
	r.result("get", err)
	if err != nil {
		return nil
	}
	e, err := decode(b)
	if err != nil {
		r.m.redisErrors.WithLabelValues("decode").Inc()
		return nil
	}
	return e
}

// set stores the identity entry e under key for the rest of its lifetime.
// gz, when not nil, is e.Body gzip-compressed.
func (r *remote) set(ctx context.Context, key string, e *Entry, gz []byte) {
	ttl := e.lifetime() - e.Age(r.now())
	if ttl < time.Millisecond || !r.usable() {
		return
	}
	v := encode(e, gz, r.compressAbove)
	// A large value takes longer to send: allow it 1s per 8 MiB more, so a
	// big page does not count as a Redis failure.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), r.timeout+time.Duration(len(v))*time.Second/(8<<20))
	defer cancel()
	start := time.Now()
	err := r.rdb.Set(ctx, r.prefix+key, v, ttl).Err()
	r.m.redisSet.Observe(time.Since(start).Seconds())
	r.result("set", err)
}
