package main

import (
	"fmt"

	"github.com/redis/go-redis/v9"

	"github.com/avaedge/avaedge/config"
)

// newRedis opens the shared Redis: one node from a redis:// URL, or a Redis
// Cluster from a list of host:port nodes. Nil when none is configured.
func newRedis(cfg *config.Config) (redis.UniversalClient, error) {
	if cfg.Redis == "" {
		return nil, nil
	}
	addrs, err := config.RedisAddrs(cfg.Redis)
	if err != nil {
		return nil, err
	}
	if len(addrs) == 1 && (len(addrs[0]) > 8 && (addrs[0][:8] == "redis://" || addrs[0][:9] == "rediss://")) {
		opt, err := redis.ParseURL(addrs[0])
		if err != nil {
			return nil, fmt.Errorf("redis: %w", err)
		}
		opt.MaxRetries = 1
		return redis.NewClient(opt), nil
	}
	return redis.NewClusterClient(&redis.ClusterOptions{Addrs: addrs, MaxRetries: 1}), nil
}
