// Package cache is avaedge's response cache: a byte-bounded in-process tier
// in front of Redis (one node or a Cluster, through go-redis's
// UniversalClient), freshness with stale-while-revalidate and stale-if-error
// windows, and single flight so concurrent misses make one upstream call.
//
// Redis trouble never fails a caller: every Redis call has a short deadline,
// errors are counted, and after repeated errors Redis is skipped for a short
// backoff while the in-process tier serves alone; go-redis reconnects by
// itself.
package cache

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"
	"golang.org/x/sync/singleflight"
)

// Status is how an answer was served.
type Status string

// Statuses, as sent in X-Cache-Status.
const (
	Hit    Status = "HIT"
	Miss   Status = "MISS"
	Stale  Status = "STALE"
	Bypass Status = "BYPASS"
)

// Options configures a Cache. Zero values mean the documented defaults.
type Options struct {
	// Prefix starts every key, so one Redis can serve several environments.
	// "" means "avaedge".
	Prefix string
	// MaxBytes bounds the in-process tier. 0 means 64 MiB; negative disables
	// the tier (every read goes to Redis).
	MaxBytes int64
	// Redis is the shared tier. Nil means the in-process tier alone.
	Redis redis.UniversalClient
	// RedisTimeout bounds each Redis call. 0 means 50ms.
	RedisTimeout time.Duration
	// CompressAbove gzips bodies larger than this many bytes at rest in
	// Redis. 0 means 1024; negative never compresses.
	CompressAbove int
	// RefreshTimeout bounds a background refresh. 0 means 30s.
	RefreshTimeout time.Duration
	// Registerer receives the cache's metrics. Nil registers none.
	Registerer prometheus.Registerer
	// Logger logs Redis state changes. Nil means slog.Default().
	Logger *slog.Logger
	// Now is the clock. Nil means time.Now.
	Now func() time.Time
}

// Cache is a two-tier response cache. It is safe for concurrent use.
type Cache struct {
	opts    Options
	prefix  string
	l1      *lru
	rdb     redis.UniversalClient
	flight  singleflight.Group
	refresh singleflight.Group
	m       *metrics
	log     *slog.Logger

	// Redis health: consecutive errors and the time (unix ns) before which
	// Redis is skipped.
	redisErrs  atomic.Int64
	redisUntil atomic.Int64

	ctx    context.Context // cancelled by Close: stops background refreshes
	cancel context.CancelFunc
	wg     sync.WaitGroup // background refreshes
}

// New returns a Cache.
func New(opts Options) (*Cache, error) {
	if opts.Prefix == "" {
		opts.Prefix = "avaedge"
	}
	if opts.MaxBytes == 0 {
		opts.MaxBytes = 64 << 20
	}
	if opts.RedisTimeout <= 0 {
		opts.RedisTimeout = 50 * time.Millisecond
	}
	if opts.CompressAbove == 0 {
		opts.CompressAbove = 1024
	}
	if opts.RefreshTimeout <= 0 {
		opts.RefreshTimeout = 30 * time.Second
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
	c := &Cache{opts: opts, prefix: opts.Prefix + "|", rdb: opts.Redis, m: m, log: opts.Logger}
	if opts.MaxBytes > 0 {
		c.l1 = newLRU(opts.MaxBytes, m.evictions.Inc)
	}
	c.ctx, c.cancel = context.WithCancel(context.Background())
	return c, nil
}

// Key joins parts into a key, escaping the separator so keys built from
// different parts never collide.
func (c *Cache) Key(parts ...string) string {
	var b strings.Builder
	for i, p := range parts {
		if i > 0 {
			b.WriteByte('|')
		}
		b.WriteString(strings.ReplaceAll(p, "|", "%7C"))
	}
	return b.String()
}

// Get returns the entry stored under key, from the in-process tier or else
// from Redis (which then fills the in-process tier). Expired entries are not
// returned.
func (c *Cache) Get(ctx context.Context, key string) (*Entry, bool) {
	now := c.opts.Now()
	if c.l1 != nil {
		if e, ok := c.l1.get(key); ok {
			if e.usableOnError(now) || e.revalidatable(now) {
				c.m.hitsL1.Inc()
				return e, true
			}
			c.l1.remove(key)
		}
	}
	e, ok := c.redisGet(ctx, key)
	if !ok {
		return nil, false
	}
	if !e.usableOnError(now) && !e.revalidatable(now) {
		return nil, false
	}
	c.m.hitsL2.Inc()
	if c.l1 != nil {
		c.l1.set(key, e)
	}
	return e, true
}

// Set stores e under key in both tiers, for its lifetime.
func (c *Cache) Set(ctx context.Context, key string, e *Entry) {
	if e.lifetime() <= 0 {
		return
	}
	c.m.stores.Inc()
	if c.l1 != nil {
		c.l1.set(key, e)
	}
	c.redisSet(ctx, key, e)
}

// Do answers key from the cache when fresh (HIT), or when stale within the
// stale-while-revalidate window (STALE, refreshing once in the background);
// else it calls fetch once for all concurrent callers of key, looking again
// inside the flight, and stores the answer when its FreshFor is positive
// (MISS). When fetch fails, a stale copy within its stale-if-error window is
// served (STALE); else fetch's error is returned. bypass skips the read
// (Cache-Control: no-cache) but still stores the answer (BYPASS).
func (c *Cache) Do(ctx context.Context, key string, bypass bool, fetch func(ctx context.Context) (*Entry, error)) (*Entry, Status, error) {
	var old *Entry
	if !bypass {
		if e, ok := c.Get(ctx, key); ok {
			now := c.opts.Now()
			if e.fresh(now) {
				return e, Hit, nil
			}
			if e.revalidatable(now) {
				c.m.stale.Inc()
				c.backgroundRefresh(key, fetch)
				return e, Stale, nil
			}
			old = e
		}
	}
	c.m.misses.Inc()
	v, err, _ := c.flight.Do(key, func() (any, error) {
		if !bypass {
			if e, ok := c.Get(ctx, key); ok && e.fresh(c.opts.Now()) {
				return e, nil
			}
		}
		e, err := fetch(ctx)
		if err != nil {
			return nil, err
		}
		c.Set(ctx, key, e)
		return e, nil
	})
	if err != nil {
		if old == nil {
			old, _ = c.Get(ctx, key)
		}
		if old != nil && old.usableOnError(c.opts.Now()) {
			c.m.stale.Inc()
			return old, Stale, nil
		}
		return nil, Miss, err
	}
	if bypass {
		return v.(*Entry), Bypass, nil
	}
	return v.(*Entry), Miss, nil
}

// backgroundRefresh runs one refresh of key at a time, owned by the Cache
// and stopped by Close.
func (c *Cache) backgroundRefresh(key string, fetch func(ctx context.Context) (*Entry, error)) {
	if c.ctx.Err() != nil {
		return
	}
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		c.refresh.Do(key, func() (any, error) {
			ctx, cancel := context.WithTimeout(c.ctx, c.opts.RefreshTimeout)
			defer cancel()
			e, err := fetch(ctx)
			if err == nil {
				c.m.refreshes.Inc()
				c.Set(ctx, key, e)
			}
			return nil, nil
		})
	}()
}

// Purge removes every entry whose key starts with keyPrefix from both tiers
// and returns how many it removed (Redis keys counted once).
func (c *Cache) Purge(ctx context.Context, keyPrefix string) (int, error) {
	n := 0
	if c.l1 != nil {
		n = c.l1.purge(keyPrefix)
	}
	if c.rdb == nil {
		return n, nil
	}
	pattern := globEscape(c.prefix+keyPrefix) + "*"
	var total atomic.Int64
	scan := func(ctx context.Context, rdb redis.Cmdable) error {
		iter := rdb.Scan(ctx, 0, pattern, 500).Iterator()
		var batch []string
		flush := func() error {
			if len(batch) == 0 {
				return nil
			}
			for _, k := range batch {
				// One key per DEL: keys of a batch may live in different
				// Cluster slots.
				if err := rdb.Del(ctx, k).Err(); err != nil {
					return err
				}
			}
			total.Add(int64(len(batch)))
			batch = batch[:0]
			return nil
		}
		for iter.Next(ctx) {
			batch = append(batch, iter.Val())
			if len(batch) == 500 {
				if err := flush(); err != nil {
					return err
				}
			}
		}
		if err := iter.Err(); err != nil {
			return err
		}
		return flush()
	}
	var err error
	if cc, ok := c.rdb.(*redis.ClusterClient); ok {
		err = cc.ForEachMaster(ctx, func(ctx context.Context, node *redis.Client) error { return scan(ctx, node) })
	} else {
		err = scan(ctx, c.rdb)
	}
	if r := int(total.Load()); r > n {
		n = r
	}
	return n, err
}

func globEscape(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `*`, `\*`, `?`, `\?`, `[`, `\[`, `]`, `\]`)
	return r.Replace(s)
}

// Close stops background refreshes. It does not close the Redis client,
// which the caller owns.
func (c *Cache) Close() error {
	c.cancel()
	c.wg.Wait()
	return nil
}

// redisUsable reports whether Redis is configured and not in backoff.
func (c *Cache) redisUsable() bool {
	return c.rdb != nil && c.opts.Now().UnixNano() >= c.redisUntil.Load()
}

// redisResult records the outcome of one Redis call: after 3 errors in a row
// Redis is skipped for a second, so a dead Redis costs one timeout per
// second, not one per request.
func (c *Cache) redisResult(op string, err error) {
	if err == nil || errors.Is(err, redis.Nil) {
		if c.redisErrs.Swap(0) >= 3 {
			c.log.Info("cache: redis is back")
		}
		return
	}
	c.m.redisErrors.WithLabelValues(op).Inc()
	if n := c.redisErrs.Add(1); n >= 3 {
		if n == 3 {
			c.log.Warn("cache: redis failing, serving from the in-process tier", "err", err)
		}
		c.redisUntil.Store(c.opts.Now().Add(time.Second).UnixNano())
	}
}

func (c *Cache) redisGet(ctx context.Context, key string) (*Entry, bool) {
	if !c.redisUsable() {
		return nil, false
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), c.opts.RedisTimeout)
	defer cancel()
	start := time.Now()
	b, err := c.rdb.Get(ctx, c.prefix+key).Bytes()
	c.m.redisLatency.WithLabelValues("get").Observe(time.Since(start).Seconds())
	c.redisResult("get", err)
	if err != nil {
		return nil, false
	}
	e, err := decode(b)
	if err != nil {
		c.m.redisErrors.WithLabelValues("decode").Inc()
		return nil, false
	}
	return e, true
}

func (c *Cache) redisSet(ctx context.Context, key string, e *Entry) {
	if !c.redisUsable() {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), c.opts.RedisTimeout)
	defer cancel()
	ttl := e.lifetime() - e.Age(c.opts.Now())
	if ttl <= 0 {
		return
	}
	start := time.Now()
	err := c.rdb.Set(ctx, c.prefix+key, encode(e, c.opts.CompressAbove), ttl).Err()
	c.m.redisLatency.WithLabelValues("set").Observe(time.Since(start).Seconds())
	c.redisResult("set", err)
}
