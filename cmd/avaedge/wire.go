package main

import (
	"context"
	"log/slog"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/redis/go-redis/v9"

	"github.com/avaedge/avaedge/cache"
	"github.com/avaedge/avaedge/config"
	"github.com/avaedge/avaedge/limits"
	"github.com/avaedge/avaedge/proxy"
)

// app is the wired edge: its public and admin handlers and what to close.
type app struct {
	Handler http.Handler
	Admin   http.Handler
	ready   atomic.Bool
	// Redis is the shared Redis, or nil.
	Redis redis.UniversalClient
	// Reload re-reads the keys file (on SIGHUP).
	Reload  func() error
	closers []func() error
}

func (a *app) SetReady(v bool) { a.ready.Store(v) }

func (a *app) Close() error {
	for i := len(a.closers) - 1; i >= 0; i-- {
		a.closers[i]()
	}
	return nil
}

// build wires config into the proxy: upstreams, local world, cache, limits.
func build(ctx context.Context, cfg *config.Config, log *slog.Logger) (*app, error) {
	a := &app{}
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	routes := cfg.RoutesWithOverrides()

	var srv *proxy.Server
	ups := map[config.Service]*proxy.Upstream{}
	localMode := map[config.Service]bool{}
	for svc, u := range map[config.Service]config.Upstream{config.Data: cfg.Upstreams.Data, config.Metrics: cfg.Upstreams.Metrics, config.Node: cfg.Upstreams.Node} {
		if u.URL == "" || u.Mode == "local" {
			localMode[svc] = true
			continue
		}
		up, err := proxy.NewUpstream(svc, u, cfg.UpstreamAPIKey, func(svc config.Service, from, to string) {
			if srv != nil {
				srv.BreakerChanged(svc, from, to)
			}
		})
		if err != nil {
			return nil, err
		}
		ups[svc] = up
	}

	nodeNetwork := ""
	if up := ups[config.Node]; up != nil {
		id := cfg.Upstreams.Node.NetworkID
		if id == 0 {
			nctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			learned, err := up.NetworkID(nctx)
			cancel()
			if err != nil {
				log.Warn("node upstream network unknown: node methods will not fall back locally", "err", err)
			}
			id = learned
		}
		nodeNetwork = proxy.NetworkName(id)
	}

	world, err := buildLocal(ctx, cfg, log, reg, routes, localMode, nodeNetwork)
	if err != nil {
		return nil, err
	}
	a.closers = append(a.closers, world.close...)

	rdb, guard, err := newRedis(cfg, log, reg)
	if err != nil {
		return nil, err
	}
	if rdb != nil {
		a.closers = append(a.closers, rdb.Close, guard.Close)
		a.Redis = rdb
	}
	c, err := cache.New(cache.Options{
		Prefix:        cfg.RedisPrefix,
		MaxBytes:      cfg.Cache.MaxBytes,
		Redis:         rdb,
		CompressAbove: cfg.Cache.CompressAbove,
		Registerer:    reg,
		Logger:        log,
	})
	if err != nil {
		return nil, err
	}
	a.closers = append(a.closers, c.Close)

	trusted := parsePrefixes(cfg.TrustedProxies)
	lim, err := limits.New(limits.Options{
		KeysPath:       cfg.KeysFile,
		Redis:          rdb,
		Prefix:         cfg.RedisPrefix,
		Replicas:       cfg.Replicas,
		TrustedProxies: trusted,
		Registerer:     reg,
		Logger:         log,
	})
	if err != nil {
		return nil, err
	}
	a.closers = append(a.closers, lim.Close)
	a.Reload = lim.Reload

	srv, err = proxy.New(proxy.Options{
		Routes:     routes,
		Upstreams:  ups,
		Local:      world.handler,
		Cache:      cacheAdapter{c},
		Freshness:  freshness(cfg),
		Limiter:    limiterAdapter{lim},
		ClientIP:   func(r *http.Request) string { return limits.ClientIP(r, trusted).String() },
		AccessLog:  !cfg.DisableAccessLog,
		Logger:     log,
		Registerer: reg,
	})
	if err != nil {
		return nil, err
	}
	a.Handler = srv
	a.Admin = proxy.AdminHandler(proxy.AdminOptions{
		Gatherer: reg,
		Token:    cfg.AdminToken,
		Purge:    c.Purge,
		Usage:    lim.UsageHandler(),
		RoutePrefix: func(name string) string {
			if rt := srv.Route(name); rt != nil {
				return proxy.RoutePrefix(rt)
			}
			return ""
		},
		Ready: func() (bool, map[string]any) {
			return a.ready.Load(), map[string]any{"breakers": srv.Breakers()}
		},
	})
	return a, nil
}
