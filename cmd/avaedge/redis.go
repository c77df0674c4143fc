package main

import (
	"fmt"
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/avaedge/avaedge/config"
	"github.com/avaedge/avaedge/internal/redisguard"
)

// Redis timeouts. Calls on the request path carry their own deadline (50ms
// in the cache and the limiter), which go-redis applies only with
// ContextTimeoutEnabled; these bound the rest (calls without a deadline: TLS
// storage, the usage report, Cluster topology reloads) and a dial or a wait
// for a pooled connection. A URL's own read_timeout, write_timeout,
// dial_timeout or pool_timeout is kept.
const (
	redisReadTimeout = 200 * time.Millisecond
	// redisWriteTimeout is longer: a large cached answer takes a while to send.
	redisWriteTimeout = 500 * time.Millisecond
	redisDialTimeout  = 250 * time.Millisecond
	redisPoolTimeout  = 200 * time.Millisecond
)

// newRedis opens the shared Redis: one node from a redis:// URL, or a Redis
// Cluster from a list of host:port nodes, with a guard installed that fails
// calls at once while Redis is not answering (the cache and the limiter then
// work in process), and the gauge avaedge_redis_up on reg. Nil when none is
// configured.
func newRedis(cfg *config.Config, log *slog.Logger, reg prometheus.Registerer) (redis.UniversalClient, *redisguard.Guard, error) {
	if cfg.Redis == "" {
		return nil, nil, nil
	}
	addrs, err := config.RedisAddrs(cfg.Redis)
	if err != nil {
		return nil, nil, err
	}
	var rdb redis.UniversalClient
	if len(addrs) == 1 && (len(addrs[0]) > 8 && (addrs[0][:8] == "redis://" || addrs[0][:9] == "rediss://")) {
		opt, err := redis.ParseURL(addrs[0])
		if err != nil {
			return nil, nil, fmt.Errorf("redis: %w", err)
		}
		opt.MaxRetries = 1
		opt.ContextTimeoutEnabled = true
		setDefault(&opt.ReadTimeout, redisReadTimeout)
		setDefault(&opt.WriteTimeout, redisWriteTimeout)
		setDefault(&opt.DialTimeout, redisDialTimeout)
		setDefault(&opt.PoolTimeout, redisPoolTimeout)
		rdb = redis.NewClient(opt)
	} else {
		rdb = redis.NewClusterClient(&redis.ClusterOptions{
			Addrs:                 addrs,
			MaxRetries:            1,
			ContextTimeoutEnabled: true,
			ReadTimeout:           redisReadTimeout,
			WriteTimeout:          redisWriteTimeout,
			DialTimeout:           redisDialTimeout,
			PoolTimeout:           redisPoolTimeout,
		})
	}
	g := redisguard.New(redisguard.Options{Logger: log})
	g.Install(rdb)
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
		rdb.Close()
		return nil, nil, fmt.Errorf("redis metrics: %w", err)
	}
	return rdb, g, nil
}

func setDefault(d *time.Duration, v time.Duration) {
	if *d == 0 {
		*d = v
	}
}
