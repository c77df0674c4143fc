package redisguard

import (
	"fmt"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"
)

// Timeouts of the clients Dial opens. Calls on the request path carry their
// own deadline (50ms in the cache and the limiter), which go-redis applies
// only with ContextTimeoutEnabled; these bound the rest (calls without a
// deadline: TLS storage, the usage report, Cluster topology reloads) and a
// dial or a wait for a pooled connection. A URL's own read_timeout,
// write_timeout, dial_timeout or pool_timeout is kept.
const (
	ReadTimeout = 200 * time.Millisecond
	// WriteTimeout is longer: a large cached answer takes a while to send.
	WriteTimeout = 500 * time.Millisecond
	DialTimeout  = 250 * time.Millisecond
	PoolTimeout  = 200 * time.Millisecond
)

// Dial opens a shared Redis: one node from a redis:// (or rediss://) URL, or
// a Redis Cluster from a list of host:port nodes (config.RedisAddrs), with a
// Guard of opts installed, so that calls fail at once while Redis is not
// answering, and the gauge avaedge_redis_up on reg (nil: none). The caller
// closes both.
func Dial(addrs []string, opts Options, reg prometheus.Registerer) (redis.UniversalClient, *Guard, error) {
	var rdb redis.UniversalClient
	if len(addrs) == 1 && (strings.HasPrefix(addrs[0], "redis://") || strings.HasPrefix(addrs[0], "rediss://")) {
		opt, err := redis.ParseURL(addrs[0])
		if err != nil {
			return nil, nil, fmt.Errorf("redis: %w", err)
		}
		opt.MaxRetries = 1
		opt.ContextTimeoutEnabled = true
		setDefault(&opt.ReadTimeout, ReadTimeout)
		setDefault(&opt.WriteTimeout, WriteTimeout)
		setDefault(&opt.DialTimeout, DialTimeout)
		setDefault(&opt.PoolTimeout, PoolTimeout)
		rdb = redis.NewClient(opt)
	} else {
		rdb = redis.NewClusterClient(&redis.ClusterOptions{
			Addrs:                 addrs,
			MaxRetries:            1,
			ContextTimeoutEnabled: true,
			ReadTimeout:           ReadTimeout,
			WriteTimeout:          WriteTimeout,
			DialTimeout:           DialTimeout,
			PoolTimeout:           PoolTimeout,
		})
	}
	g := New(opts)
	g.Install(rdb)
	if reg != nil {
		up := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "avaedge_redis_up",
			Help: "1 while Redis calls are made, 0 while a hung or unreachable Redis is skipped until a probe is answered.",
		}, func() float64 {
			if g.Up() {
				return 1
			}
			return 0
		})
		if err := reg.Register(up); err != nil {
			g.Close()
			rdb.Close()
			return nil, nil, fmt.Errorf("redis metrics: %w", err)
		}
	}
	return rdb, g, nil
}

func setDefault(d *time.Duration, v time.Duration) {
	if *d == 0 {
		*d = v
	}
}
