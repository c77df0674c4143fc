// Package cache is avaedge's response cache: a byte-bounded in-process tier
// in front of Redis (one node or a Cluster, through go-redis's
// UniversalClient), freshness with stale-while-revalidate and stale-if-error
// windows (RFC 5861), and single flight, so concurrent misses of one key
// make one upstream call.
//
// Redis trouble never fails a caller: every Redis call has a short deadline,
// errors are counted and read as misses, and after repeated errors Redis is
// skipped for a short backoff while the in-process tier serves alone;
// go-redis reconnects by itself.
package cache

import (
	"context"
	crand "crypto/rand"
	"encoding/hex"
	"log/slog"
	"math/rand/v2"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"
	"golang.org/x/sync/singleflight"
)

// Status is how an answer was served, as sent in X-Cache-Status.
type Status string

// The statuses.
const (
	Hit    Status = "HIT"    // fresh from the cache
	Miss   Status = "MISS"   // fetched (or the fetch failed with nothing to cover it)
	Stale  Status = "STALE"  // stale from the cache, while revalidating or because the fetch failed
	Bypass Status = "BYPASS" // fetched without reading the cache (Cache-Control: no-cache), then stored
)

// Options configures a Cache. Zero values mean the documented defaults.
type Options struct {
	// Prefix starts every Redis key (as Prefix|key) and names the purge
	// channel, so one Redis can serve several environments. "" means
	// "avaedge".
	Prefix string
	// MaxBytes bounds the in-process tier; entries larger than MaxBytes/8
	// are not kept in it. 0 means 64 MiB; negative disables the tier (every
	// lookup goes to Redis).
	MaxBytes int64
	// Redis is the shared tier: a *redis.Client, *redis.ClusterClient or
	// failover client, owned by the caller (Close does not close it). Nil
	// means the in-process tier alone.
	Redis redis.UniversalClient
	// RedisTimeout bounds each Redis call on the request path. 0 means 50ms.
	RedisTimeout time.Duration
	// CompressAbove gzips bodies larger than this many bytes in Redis (the
	// in-process tier keeps them identity-encoded). 0 means 1024; negative
	// never compresses.
	CompressAbove int
	// FetchTimeout bounds a fetch that runs for several callers or in the
	// background, which is detached from any one caller's cancellation.
	// 0 means 30s.
	FetchTimeout time.Duration
	// Registerer receives the cache's metrics (avaedge_cache_*). Nil
	// registers none.
	Registerer prometheus.Registerer
	// Logger logs Redis state changes and failed refreshes. Nil means
	// slog.Default().
	Logger *slog.Logger
	// Now is the clock for freshness and the Redis backoff. Nil means
	// time.Now.
	Now func() time.Time
}

// Cache is a two-tier response cache. It is safe for concurrent use. Its
// background work (refreshes, purge announcements) stops at Close.
type Cache struct {
	opts   Options
	id     string  // this instance, in purge announcements
	mem    *memory // nil when disabled
	redis  *remote // nil without Redis
	m      *metrics
	log    *slog.Logger
	now    func() time.Time
	flight singleflight.Group

	ctx    context.Context // cancelled by Close: stops background work
	cancel context.CancelFunc
	wg     sync.WaitGroup // refreshes and the purge listener

	mu         sync.Mutex // guards refreshing and closed
	refreshing map[string]struct{}
	closed     bool

	onPurged func(prefix string) // nil, or called when a purge announcement was applied; set by newCache
}

// New returns a Cache. It fails only when its metrics cannot be registered.
// With Redis and an in-process tier, it subscribes to purge announcements
// before returning (waiting at most ten RedisTimeouts when Redis is down).
func New(opts Options) (*Cache, error) { return newCache(opts, nil) }

// newCache is New with a hook the tests use to see purge announcements
// applied.
func newCache(opts Options, onPurged func(prefix string)) (*Cache, error) {
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
	if opts.FetchTimeout <= 0 {
		opts.FetchTimeout = 30 * time.Second
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	c := &Cache{opts: opts, log: opts.Logger, now: opts.Now, refreshing: make(map[string]struct{}), onPurged: onPurged}
	if opts.MaxBytes > 0 {
		c.mem = newMemory(opts.MaxBytes)
	}
	m, err := newMetrics(opts.Registerer, c.mem)
	if err != nil {
		return nil, err
	}
	c.m = m
	if c.mem != nil {
		c.mem.onEvict = m.evictions.Inc
	}
	var id [8]byte
	crand.Read(id[:])
	c.id = hex.EncodeToString(id[:])
	c.ctx, c.cancel = context.WithCancel(context.Background())
	if opts.Redis != nil {
		c.redis = &remote{rdb: opts.Redis, prefix: opts.Prefix + "|", timeout: opts.RedisTimeout,
			compressAbove: opts.CompressAbove, now: opts.Now, m: m, log: opts.Logger}
		if c.mem != nil {
			ready := make(chan struct{})
			c.wg.Add(1)
			go c.listen(ready)
			<-ready
		}
	}
	return c, nil
}

// Key returns the key of parts: each part escaped, joined with '|'. The
// escaping ('%' as %25, '|' as %7C, and the glob characters '*', '?', '[',
// ']', '\' as %2A, %3F, %5B, %5D, %5C) makes keys of different parts
// differ and makes a Purge of Key(a, b)+"|" remove exactly the keys whose
// first parts are a and b. In Redis the key is stored as Prefix|key. It is
// safe for concurrent use.
func (c *Cache) Key(parts ...string) string {
	n := len(parts)
	for _, p := range parts {
		n += len(p)
	}
	var b strings.Builder
	b.Grow(n)
	for i, p := range parts {
		if i > 0 {
			b.WriteByte('|')
		}
		for len(p) > 0 {
			j := strings.IndexAny(p, `%|*?[]\`)
			if j < 0 {
				b.WriteString(p)
				break
			}
			b.WriteString(p[:j])
			b.WriteByte('%')
			b.WriteByte(hexDigits[p[j]>>4])
			b.WriteByte(hexDigits[p[j]&15])
			p = p[j+1:]
		}
	}
	return b.String()
}

const hexDigits = "0123456789ABCDEF"

// Get returns the entry under key when it is still within its lifetime
// (fresh, or stale within one of its windows: compare Age with FreshFor),
// from the in-process tier or else from Redis, which then fills the
// in-process tier. It is safe for concurrent use.
func (c *Cache) Get(ctx context.Context, key string) (*Entry, bool) {
	e, _ := c.lookup(ctx, key, c.now())
	return e, e != nil
}

// Set stores e under key in both tiers, in Redis for the rest of its
// lifetime (FreshFor plus the longer stale window). Entries with FreshFor
// <= 0 or an Encoding other than "" and "gzip" are not stored; a gzip body
// is kept identity-encoded in process. The cache owns e afterwards: it must
// not be changed. It is safe for concurrent use.
func (c *Cache) Set(ctx context.Context, key string, e *Entry) {
	c.store(ctx, key, e)
}

// Close stops background refreshes (cancelling their fetches) and the
// purge listener, and waits for them. Fetches run for callers of Do are
// not cancelled; FetchTimeout bounds them. The Cache still answers after
// Close, without starting background work. It does not close the Redis
// client. It is safe to call more than once.
func (c *Cache) Close() error {
	c.mu.Lock()
	c.closed = true
	c.mu.Unlock()
	c.cancel()
	c.wg.Wait()
	return nil
}

// tier names where lookup found an entry.
type tier int

const (
	tierNone tier = iota
	tierMemory
	tierRedis
)

// memorySample: one in memorySample in-process lookups is timed for the
// latency histogram. Reading the clock twice costs more than the lookup.
const memorySample = 64

// lookup returns the entry under key that is still alive at now, and its
// tier. A fresh in-process entry is returned at once, without allocating.
// Otherwise Redis is asked too, and the newer of the two entries wins:
// another instance may have refreshed what this one holds stale.
func (c *Cache) lookup(ctx context.Context, key string, now time.Time) (*Entry, tier) {
	var local *Entry
	if c.mem != nil {
		if rand.Uint32()%memorySample == 0 {
			start := time.Now()
			local = c.mem.get(key)
			c.m.memoryGet.Observe(time.Since(start).Seconds())
		} else {
			local = c.mem.get(key)
		}
		if local != nil {
			if local.fresh(now) {
				return local, tierMemory
			}
			if !local.alive(now) {
				c.mem.remove(key, local)
				local = nil
			}
		}
	}
	if c.redis != nil {
		if e := c.redis.get(ctx, key); e != nil && e.alive(now) && (local == nil || e.StoredAt.After(local.StoredAt)) {
			if c.mem != nil {
				c.mem.set(key, e)
			}
			return e, tierRedis
		}
	}
	if local != nil {
		return local, tierMemory
	}
	return nil, tierNone
}

// store keeps e under key in both tiers when it is storable, and returns
// the entry as kept (identity-encoded), or e itself when it was not stored.
func (c *Cache) store(ctx context.Context, key string, e *Entry) *Entry {
	if e == nil || e.FreshFor <= 0 {
		return e
	}
	id, gz := e, []byte(nil)
	switch e.Encoding {
	case "":
	case "gzip":
		b, err := gunzip(e.Body, -1)
		if err != nil {
			c.log.Warn("cache: not storing a gzip body that does not decompress", "key", key, "err", err)
			return e
		}
		cp := *e
		cp.Encoding, cp.Body = "", b
		id, gz = &cp, e.Body
	default:
		return e
	}
	c.m.stores.Inc()
	if c.mem != nil {
		c.mem.set(key, id)
	}
	if c.redis != nil {
		c.redis.set(ctx, key, id, gz)
	}
	return id
}
