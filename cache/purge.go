package cache

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
)

// Purge removes every entry whose key starts with keyPrefix (a key as
// passed to Get, Set and Do, without Options.Prefix) from the in-process
// tier and from Redis, and tells the other Cache instances sharing Redis to
// drop it from their in-process tiers. It returns the larger of the two
// tiers' counts (an entry usually lives in both). Redis keys are found
// with SCAN, on every master of a Cluster. Unlike lookups, Purge does not
// hide Redis errors: it returns them, after purging the in-process tier.
// With no deadline on ctx, it is bounded by 30s. It is safe for concurrent
// use.
func (c *Cache) Purge(ctx context.Context, keyPrefix string) (int, error) {
	n := 0
	if c.mem != nil {
		n = c.mem.purge(keyPrefix)
	}
	if c.redis == nil {
		return n, nil
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
	}
	r, err := c.redis.purge(ctx, keyPrefix)
	if err != nil {
		c.m.redisErrors.WithLabelValues("purge").Inc()
		return max(n, r), fmt.Errorf("cache: purge %q from redis: %w", keyPrefix, err)
	}
	if err := c.redis.rdb.Publish(ctx, c.purgeChannel(), c.id+"|"+keyPrefix).Err(); err != nil {
		c.m.redisErrors.WithLabelValues("publish").Inc()
		return max(n, r), fmt.Errorf("cache: announce purge of %q: %w", keyPrefix, err)
	}
	return max(n, r), nil
}

// purge deletes the Redis keys under keyPrefix and returns how many.
func (r *remote) purge(ctx context.Context, keyPrefix string) (int, error) {
	pattern := globEscape(r.prefix+keyPrefix) + "*"
	scan := func(ctx context.Context, node redis.Cmdable) (int, error) {
		deleted := 0
		var cursor uint64
		for {
			keys, next, err := node.Scan(ctx, cursor, pattern, 1000).Result()
			if err != nil {
				return deleted, err
			}
			if len(keys) > 0 {
				// One UNLINK per key, pipelined: the keys of one node may
				// still belong to different Cluster slots.
				cmds, err := node.Pipelined(ctx, func(p redis.Pipeliner) error {
					for _, k := range keys {
						p.Unlink(ctx, k)
					}
					return nil
				})
				if err != nil {
					return deleted, err
				}
				for _, cmd := range cmds {
					deleted += int(cmd.(*redis.IntCmd).Val())
				}
			}
			if cursor = next; cursor == 0 {
				return deleted, nil
			}
		}
	}
	cc, ok := r.rdb.(*redis.ClusterClient)
	if !ok {
		return scan(ctx, r.rdb)
	}
	var total atomic.Int64 // ForEachMaster runs the nodes in parallel
	err := cc.ForEachMaster(ctx, func(ctx context.Context, node *redis.Client) error {
		n, err := scan(ctx, node)
		total.Add(int64(n))
		return err
	})
	return int(total.Load()), err
}

// globEscape escapes the characters SCAN MATCH treats specially, so a
// prefix matches only itself.
func globEscape(s string) string {
	if !strings.ContainsAny(s, `\*?[]`) {
		return s
	}
	return strings.NewReplacer(`\`, `\\`, `*`, `\*`, `?`, `\?`, `[`, `\[`, `]`, `\]`).Replace(s)
}

// purgeChannel is the Pub/Sub channel on which Cache instances sharing a
// Redis and a prefix announce purges to each other.
func (c *Cache) purgeChannel() string { return c.opts.Prefix + "|purge" }

// listen drops from the in-process tier the prefixes other instances purge,
// until Close. go-redis resubscribes after a lost connection; announcements
// made while it was lost are missed, and those entries live in this
// instance's in-process tier until they expire.
func (c *Cache) listen(ready chan<- struct{}) {
	defer c.wg.Done()
	sub := c.redis.rdb.Subscribe(c.ctx, c.purgeChannel())
	defer sub.Close()
	// Wait (briefly) for the subscription to be confirmed, so that a purge
	// announced after New returns is seen.
	rctx, cancel := context.WithTimeout(c.ctx, c.opts.RedisTimeout*10)
	_, err := sub.Receive(rctx)
	cancel()
	if err != nil && c.ctx.Err() == nil {
		c.log.Warn("cache: purge announcements not subscribed yet; go-redis keeps trying", "err", err)
	}
	close(ready)
	ch := sub.Channel()
	for {
		select {
		case <-c.ctx.Done():
			return
		case msg, ok := <-ch:
			if !ok {
				return
			}
			from, prefix, _ := strings.Cut(msg.Payload, "|")
			if from == c.id {
				continue
			}
			c.mem.purge(prefix)
			if c.onPurged != nil {
				c.onPurged(prefix)
			}
		}
	}
}
