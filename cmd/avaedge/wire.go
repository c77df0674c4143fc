package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/netip"
	"os"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/redis/go-redis/v9"

	"github.com/avaedge/avaedge/avanet"
	"github.com/avaedge/avaedge/cache"
	"github.com/avaedge/avaedge/catalog"
	"github.com/avaedge/avaedge/config"
	"github.com/avaedge/avaedge/internal/accesslog"
	"github.com/avaedge/avaedge/internal/redisguard"
	"github.com/avaedge/avaedge/limits"
	"github.com/avaedge/avaedge/local"
	"github.com/avaedge/avaedge/local/vocab/pagetoken"
	"github.com/avaedge/avaedge/proxy"
	"github.com/avaedge/avaedge/usage"
)

// app is the wired edge: its public and admin handlers and what to close.
type app struct {
	Handler http.Handler
	Admin   http.Handler
	ready   atomic.Bool
	// Redis is the shared Redis, or nil.
	Redis redis.UniversalClient
	// Reload re-reads the keys file (on SIGHUP).
	Reload func() error
	// CloseSockets closes the WebSockets with a going-away frame, on
	// shutdown (net/http's Shutdown does not know hijacked connections).
	CloseSockets func(ctx context.Context)
	// closers are what build opened, closed last first.
	closers []closer
	// wired records what build handed each component.
	wired wiring
}

// wiring is what build handed each component: the record that lets a test
// check that every config field reaches the component it configures.
type wiring struct {
	proxy     proxy.Options
	upstreams map[catalog.Service]*proxy.Upstream
	cache     cache.Options
	limits    limits.Options
	admin     proxy.AdminOptions
	usage     usage.Options
	local     local.BuildOptions
	// pageTokens is the page tokens' secret and where it came from.
	pageTokens struct {
		secret []byte
		source string
	}
}

func (a *app) SetReady(v bool) { a.ready.Store(v) }

// closer is one thing build opened, named for the error that says it did
// not close in time.
type closer struct {
	name  string
	close func() error
}

// onClose adds what Close closes (before what was added earlier).
func (a *app) onClose(name string, fn func() error) {
	a.closers = append(a.closers, closer{name, fn})
}

// Close closes what build opened, last first, within closeTimeout.
func (a *app) Close() error { return a.CloseWithin(closeTimeout) }

// CloseWithin closes what build opened, last first, waiting at most d: a
// closer still running then is left behind (the process is on its way out)
// and named in the error, so shutdown stays bounded whatever hangs.
func (a *app) CloseWithin(d time.Duration) error {
	var running atomic.Pointer[closer]
	done := make(chan struct{})
	// Owned by CloseWithin; it stops when the last closer returns, or never
	// when one hangs, which is what d bounds.
	go func() {
		defer close(done)
		for i := len(a.closers) - 1; i >= 0; i-- {
			running.Store(&a.closers[i])
			a.closers[i].close()
		}
	}()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-done:
		return nil
	case <-t.C:
		name := "?"
		if c := running.Load(); c != nil {
			name = c.name
		}
		return fmt.Errorf("closing: %s did not close within %v", name, d)
	}
}

// build wires config into the proxy: upstreams, local world, cache, limits,
// the access log (written to logOut, where log writes too). What it opened
// is closed when a later step fails.
func build(ctx context.Context, cfg *config.Config, log *slog.Logger, logOut io.Writer) (_ *app, err error) {
	a := &app{}
	defer func() {
		if err != nil {
			a.Close()
		}
	}()
	if cfg.DataDir != "" {
		// Like servers that keep state, create the directory when missing,
		// readable by this user only (it holds keys of certificates).
		if err := os.MkdirAll(cfg.DataDir, 0o700); err != nil {
			return nil, fmt.Errorf("data directory: %w", err)
		}
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	routes := catalog.WithOverrides(cfg.Overrides())

	var srv *proxy.Server
	ups, localMode, err := proxy.NewUpstreams(upstreamOptions(cfg.Upstreams), cfg.UpstreamAPIKey, func(svc catalog.Service, from, to string) {
		if srv != nil {
			srv.BreakerChanged(svc, from, to)
		}
	})
	if err != nil {
		return nil, err
	}
	nodeNetwork, nerr := proxy.NodeNetwork(ctx, ups[catalog.Node], cfg.Upstreams.Node.NetworkID)
	if nerr != nil {
		log.Warn("node upstream network unknown: node methods will not fall back locally", "err", nerr)
	}

	a.wired.local = localOptions(cfg, log, reg, routes, localMode, nodeNetwork)
	world, err := local.Build(ctx, a.wired.local)
	if err != nil {
		return nil, err
	}
	a.onClose("the local world", world.Close)

	var rdb redis.UniversalClient
	if cfg.Redis != "" {
		addrs, err := config.RedisAddrs(cfg.Redis)
		if err != nil {
			return nil, err
		}
		var guard *redisguard.Guard
		if rdb, guard, err = redisguard.Dial(addrs, redisguard.Options{Logger: log}, reg); err != nil {
			return nil, err
		}
		a.onClose("redis", rdb.Close)
		a.onClose("the redis guard", guard.Close)
		a.Redis = rdb
	}
	secret, source, err := pageTokenSecret(ctx, cfg, rdb, log)
	if err != nil {
		return nil, err
	}
	if err := pagetoken.SetSecret(secret); err != nil {
		return nil, fmt.Errorf("page tokens (%s): %w", source, err)
	}
	a.wired.pageTokens.secret, a.wired.pageTokens.source = secret, source
	log.Info("page tokens keyed", "secret", source)
	a.wired.cache = cache.Options{
		Prefix:        cfg.RedisPrefix,
		MaxBytes:      cfg.Cache.MaxBytes,
		Redis:         rdb,
		CompressAbove: cfg.Cache.CompressAbove,
		Registerer:    reg,
		Logger:        log,
	}
	c, err := cache.New(a.wired.cache)
	if err != nil {
		return nil, err
	}
	a.onClose("the cache", c.Close)

	trusted := cfg.TrustedPrefixes()
	a.wired.limits = limits.Options{
		KeysPath:       cfg.KeysFile,
		Redis:          rdb,
		Prefix:         cfg.RedisPrefix,
		Replicas:       cfg.Replicas,
		TrustedProxies: trusted,
		UnissuedKeys:   limits.UnissuedKeys{PerAddress: cfg.UnissuedKeys.PerAddress, Window: cfg.UnissuedKeys.Window.D()},
		Registerer:     reg,
		Logger:         log,
	}
	lim, err := limits.New(a.wired.limits)
	if err != nil {
		return nil, err
	}
	a.onClose("the limiter", lim.Close)
	a.Reload = lim.Reload

	// The access log is off when disabled or when the log level leaves out
	// info lines (as when it was written through log).
	var access *accesslog.Logger
	if !cfg.DisableAccessLog && log.Enabled(ctx, slog.LevelInfo) {
		opts := accessLogOptions
		opts.Registerer = reg
		if access, err = accesslog.New(logOut, opts); err != nil {
			return nil, err
		}
		a.onClose("the access log", func() error { return access.CloseWithin(accessLogFlush) })
	}
	clientIP := func(r *http.Request) string { return limits.ClientIP(r, trusted).String() }
	var meter *usage.Meter
	if !cfg.Usage.Disable {
		a.wired.usage = usage.Options{
			Redis:          rdb,
			Prefix:         cfg.RedisPrefix,
			DataDir:        cfg.DataDir,
			FlushInterval:  cfg.Usage.FlushInterval.D(),
			LogsPerKey:     cfg.Usage.LogsPerKey,
			LogBytesPerKey: cfg.Usage.LogBytesPerKey,
			LogMaxAge:      cfg.Usage.LogMaxAge.D(),
			RetryFor:       cfg.Usage.RetryFor.D(),
			ClientIP:       clientIP,
			EVMChainID:     evmChainID(nodeNetwork, localMode[catalog.Node]),
			Registerer:     reg,
			Logger:         log,
		}
		if meter, err = usage.New(a.wired.usage); err != nil {
			return nil, err
		}
		// Closed before Redis (closers run last first): the last batch is
		// written on the way out.
		a.onClose("the usage meter", meter.Close)
	}

	a.wired.upstreams = ups
	a.wired.proxy = proxy.Options{
		Routes:    routes,
		Upstreams: ups,
		Local:     world,
		Cache:     c,
		Limiter:   lim,
		Publish:   publishOf(cfg.Publish),
		// The dev chain's debug namespace, when its operator turned it on,
		// is served to every client (in proxy mode the node's is published
		// per key).
		EVMDebug:     localMode[catalog.Node] && cfg.Local.EVM.Debug,
		ClientIP:     func(r *http.Request) netip.Addr { return limits.ClientIP(r, trusted) },
		MaxBodyBytes: cfg.Server.MaxBodyBytes,
		Sockets:      socketOptions(cfg.WebSocket),
		AccessLog:    access,
		Logger:       log,
		Registerer:   reg,
	}
	if meter != nil {
		a.wired.proxy.Usage = meter
	}
	srv, err = proxy.New(a.wired.proxy)
	if err != nil {
		return nil, err
	}
	a.Handler = srv
	a.CloseSockets = srv.CloseSockets
	a.wired.admin = proxy.AdminOptions{
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
			detail := map[string]any{"breakers": srv.Breakers()}
			if st, ok := world.IndexLease(); ok {
				detail["index"] = st // this replica's role in the fleet, the lease's holder, where its route reads go
			}
			return a.ready.Load(), detail
		},
	}
	if meter != nil {
		a.wired.admin.Usage = meter.AdminHandler(lim.UsageHandler())
	}
	a.Admin = proxy.AdminHandler(a.wired.admin)
	return a, nil
}

// evmChainID is the EVM chain id of the node endpoint's C-Chain, which the
// usage of EVM JSON-RPC calls names: the dev chain's in local mode, the node
// upstream's network's C-Chain otherwise ("" when it is not known).
func evmChainID(nodeNetwork string, local bool) string {
	n, ok := avanet.ByName(nodeNetwork)
	if local {
		n, ok = avanet.Local, true
	}
	if !ok {
		return ""
	}
	return strconv.FormatUint(n.EVMChainID, 10)
}
