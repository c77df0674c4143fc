package main

import (
	"log/slog"
	"path/filepath"

	"github.com/redis/go-redis/v9"

	"github.com/avaedge/avaedge/catalog"
	"github.com/avaedge/avaedge/config"
	"github.com/avaedge/avaedge/proxy"
	"github.com/avaedge/avaedge/proxy/edgetls"
)

// The proxy takes its own options, not the configuration: these turn the
// configuration's sections into them.

// upstreamOptions are the upstreams section as the proxy's options: a
// service in local mode, or without a URL, has none.
func upstreamOptions(c config.Upstreams) map[catalog.Service]proxy.UpstreamOptions {
	out := map[catalog.Service]proxy.UpstreamOptions{}
	for svc, u := range map[catalog.Service]config.Upstream{catalog.Data: c.Data, catalog.Metrics: c.Metrics, catalog.Node: c.Node} {
		if u.URL != "" && u.Mode != "local" {
			out[svc] = upstreamOf(u)
		}
	}
	return out
}

// upstreamOf is one upstream's section as the proxy's options.
func upstreamOf(u config.Upstream) proxy.UpstreamOptions {
	b := u.Breaker
	return proxy.UpstreamOptions{URL: u.URL, Headers: u.Headers, ConnectTimeout: u.ConnectTimeout.D(), FirstByteTimeout: u.FirstByteTimeout.D(),
		Timeout: u.Timeout.D(), RetryBudget: u.Retry.Budget, LocalFallback: u.Mode != "upstream-only",
		Breaker: proxy.BreakerOptions{MinRequests: b.MinRequests, FailureRatio: b.FailureRatio, ConsecutiveFailures: b.ConsecutiveFailures,
			Interval: b.Interval.D(), OpenFor: b.OpenFor.D(), HalfOpenProbes: b.HalfOpenProbes}}
}

// publishOf is the publish section as the proxy's options.
func publishOf(ps []config.Publish) []proxy.Publish {
	out := make([]proxy.Publish, len(ps))
	for i, p := range ps {
		out[i] = proxy.Publish{Method: p.Method, Path: p.Path, Keys: p.Keys, Cost: p.Cost, RPCMethods: p.RPCMethods}
	}
	return out
}

// socketOptions are the WebSocket endpoints' bounds of the websocket
// section (zero values are the proxy's defaults).
func socketOptions(w config.WebSocket) proxy.SocketOptions {
	return proxy.SocketOptions{
		Disable:                    w.Disable,
		MaxConnections:             w.MaxConnections,
		ConnectionsPerKey:          w.ConnectionsPerKey,
		ConnectionsPerAddress:      w.ConnectionsPerAddress,
		SubscriptionsPerConnection: w.SubscriptionsPerConnection,
		MaxMessageBytes:            w.MaxMessageBytes,
		MessagesPerSecond:          w.MessagesPerSecond,
		BytesPerSecond:             w.BytesPerSecond,
		SendQueue:                  w.SendQueue,
		PingInterval:               w.PingInterval.D(),
		IdleTimeout:                w.IdleTimeout.D(),
		NotificationCost:           w.NotificationCost,
	}
}

// tlsOptions is the tls section as the public listener's certificate
// manager's options. With a shared Redis, certificates live there so every
// replica uses the one certificate that any of them obtains.
func tlsOptions(cfg *config.Config, log *slog.Logger, rdb redis.UniversalClient) edgetls.Options {
	storage := ""
	if cfg.DataDir != "" {
		storage = filepath.Join(cfg.DataDir, "certs")
	}
	return edgetls.Options{
		Domains:     cfg.TLS.Domains,
		Email:       cfg.TLS.Email,
		CA:          cfg.TLS.CA,
		StoragePath: storage,
		Redis:       rdb,
		RedisPrefix: cfg.RedisPrefix,
		CertFile:    cfg.TLS.CertFile,
		KeyFile:     cfg.TLS.KeyFile,
		Logger:      log,
	}
}
