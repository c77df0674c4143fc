package main

import (
	"context"
	"net/http"
	"time"

	"github.com/avaedge/avaedge/cache"
	"github.com/avaedge/avaedge/catalog"
	"github.com/avaedge/avaedge/proxy"
)

// cacheAdapter presents cache.Cache as the proxy's Cache. The two entry types
// have the same fields, so entries convert without copying.
type cacheAdapter struct{ c *cache.Cache }

func (a cacheAdapter) Do(ctx context.Context, key string, bypass bool, fetch func(context.Context) (*proxy.Stored, error)) (*proxy.Stored, proxy.CacheStatus, error) {
	e, st, err := a.c.Do(ctx, key, bypass, func(ctx context.Context) (*cache.Entry, error) {
		s, err := fetch(ctx)
		return (*cache.Entry)(s), err
	})
	return (*proxy.Stored)(e), proxy.CacheStatus(st), err
}

func (a cacheAdapter) Fresh(key string, now time.Time) *proxy.Stored {
	return (*proxy.Stored)(a.c.Fresh(key, now))
}

// freshness gives the proxy the cache windows of a route's answers: the
// policy of its class, with the route's TTL (a configured override) replacing
// the class's freshness and its stale-while-revalidate window.
func freshness() proxy.Freshness {
	return func(rt *catalog.Route, status int, h http.Header, hasToken bool) (time.Duration, time.Duration, time.Duration, bool) {
		p := cache.DefaultPolicy(rt.Cache)
		if rt.TTL > 0 {
			p.Fresh, p.Stale = rt.TTL, rt.TTL
			p.Error = max(p.Error, rt.TTL)
		}
		return cache.Windows(p, status, h, hasToken)
	}
}
