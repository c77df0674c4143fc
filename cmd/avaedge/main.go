// Command avaedge is the edge proxy for Avalanche's Data API, Metrics API and
// node JSON-RPC. With no configuration it runs in local mode on :8080.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/avaedge/avaedge/config"
	"github.com/avaedge/avaedge/internal/bodyrate"
	"github.com/avaedge/avaedge/internal/coalesce"
	"github.com/avaedge/avaedge/internal/lazydeadline"
	"github.com/avaedge/avaedge/proxy"
	"github.com/avaedge/avaedge/proxy/edgetls"
)

func main() {
	configPath := flag.String("config", "", "YAML config file (environment variables override it)")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// After the first signal, a second one ends the process at once (the
	// default action): drain and close are bounded, but an operator may
	// not want to wait.
	go func() {
		<-ctx.Done()
		stop()
	}()
	if err := run(ctx, *configPath, os.Getenv, os.Stderr, nil); err != nil {
		fmt.Fprintln(os.Stderr, "avaedge:", err)
		os.Exit(1)
	}
}

// closeTimeout bounds closing what the edge opened (the access log's last
// lines, the last usage batch, Redis, the local world) once the listeners
// have drained: run returns at most server.shutdown_timeout + closeTimeout
// after ctx is done, whatever a handler or a closer is stuck in.
const closeTimeout = 10 * time.Second

// run serves until ctx is done (SIGINT/SIGTERM), then drains in-flight
// requests for server.shutdown_timeout, cuts off those still running, and
// closes what it opened (writing the access log's last lines) within
// closeTimeout. Logs go to stderr. started, when set, is told the bound
// addresses.
func run(ctx context.Context, configPath string, getenv func(string) string, stderr io.Writer, started func(pub, admin net.Addr)) (err error) {
	cfg, err := config.Load(configPath, getenv)
	if err != nil {
		return err
	}
	log := newLogger(cfg.LogLevel, stderr)
	slog.SetDefault(log)

	app, err := build(ctx, cfg, log, stderr)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := app.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("shutdown: %w", cerr)
		}
	}()

	srvs := newServers(cfg, app)
	pub, adm := srvs.public, srvs.admin

	pubLn, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		return fmt.Errorf("listen %s: %w", cfg.Listen, err)
	}
	pubLn = publicListener(pubLn)
	admLn, err := net.Listen("tcp", cfg.AdminListen)
	if err != nil {
		pubLn.Close()
		return fmt.Errorf("admin listen %s: %w", cfg.AdminListen, err)
	}
	errc := make(chan error, 3)
	var plain *http.Server
	if cfg.TLS.Enabled() {
		tm, err := edgetls.New(tlsOptions(cfg, log, app.Redis))
		if err != nil {
			pubLn.Close()
			admLn.Close()
			return err
		}
		go func() {
			if err := tm.Manage(ctx); err != nil {
				log.Error("tls", "err", err)
			}
		}()
		pub.TLSConfig = tm.TLSConfig()
		plain = proxy.HTTPServer(srvs.acme, tm.HTTPHandler(), 10*time.Second, 60*time.Second, 1<<16)
		go func() { errc <- untilClosed(plain.ListenAndServe) }()
		go func() { errc <- untilClosed(func() error { return pub.ServeTLS(pubLn, "", "") }) }()
	} else {
		go func() { errc <- untilClosed(func() error { return pub.Serve(pubLn) }) }()
	}
	go func() { errc <- untilClosed(func() error { return adm.Serve(admLn) }) }()
	log.Info("avaedge started", "listen", pubLn.Addr().String(), "admin", admLn.Addr().String(),
		"data", modeOf(cfg.Upstreams.Data), "metrics", modeOf(cfg.Upstreams.Metrics), "node", modeOf(cfg.Upstreams.Node))
	app.SetReady(true)
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer close(hup)
	defer signal.Stop(hup)
	go func() {
		for range hup {
			if app.Reload != nil {
				app.Reload()
			}
		}
	}()
	if started != nil {
		started(pubLn.Addr(), admLn.Addr())
	}

	select {
	case <-ctx.Done():
	case err := <-errc:
		if err != nil {
			return err
		}
	}
	app.SetReady(false)
	log.Info("shutting down: draining in-flight requests", "timeout", srvs.shutdown.String())
	sctx, cancel := context.WithTimeout(context.Background(), srvs.shutdown)
	defer cancel()
	if app.CloseSockets != nil {
		app.CloseSockets(sctx) // a going-away frame to each WebSocket client
	}
	err = pub.Shutdown(sctx)
	adm.Shutdown(sctx)
	if plain != nil {
		plain.Shutdown(sctx)
	}
	if err != nil {
		// Requests still running past the drain are cut off: their
		// connections close, which cancels their contexts.
		pub.Close()
		adm.Close()
		if plain != nil {
			plain.Close()
		}
		return fmt.Errorf("shutdown: %w", err)
	}
	log.Info("stopped")
	return nil
}

// publicListener wraps the public listener: the server's per-request
// deadline changes (header, idle and write timeouts) are applied lazily,
// with the same meaning, and an answer the edge writes whole (a cached one)
// goes out in one write (with newServers' ConnContext).
func publicListener(ln net.Listener) net.Listener {
	return coalesce.Listen(lazydeadline.Listen(ln, 0))
}

// servers are the public and admin listeners' servers and how long
// shutdown drains them.
type servers struct {
	public, admin *http.Server
	shutdown      time.Duration
	bodyRate      bodyrate.Options // what the public handler holds request bodies to
	// acme is the address of the ACME challenge and redirect listener
	// when TLS is on.
	acme string
}

// newServers builds the listeners' servers from the server section.
func newServers(cfg *config.Config, a *app) servers {
	// Request bodies must arrive at a minimum rate, and an answer must be
	// taken within WriteTimeout: a slow client holds a connection for a
	// bounded time (bodyrate leaves requests without a body untouched).
	br := bodyrate.Options{Grace: cfg.Server.BodyReadTimeout.D(), MinRate: cfg.Server.MinBodyRate}
	h := bodyrate.Handler(a.Handler, br)
	pub := proxy.HTTPServer(cfg.Listen, h, cfg.Server.ReadHeaderTimeout.D(), cfg.Server.IdleTimeout.D(), cfg.Server.MaxHeaderBytes)
	pub.WriteTimeout = cfg.Server.WriteTimeout.D()
	pub.ConnContext = coalesce.ConnContext
	return servers{
		public:   pub,
		bodyRate: br,
		admin:    proxy.HTTPServer(cfg.AdminListen, a.Admin, 10*time.Second, 60*time.Second, 1<<16),
		shutdown: cfg.Server.ShutdownTimeout.D(),
		acme:     cfg.TLS.HTTPListen,
	}
}

// untilClosed runs serve, a server's Serve, until the server is shut down.
func untilClosed(serve func() error) error {
	if err := serve(); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

func modeOf(u config.Upstream) string {
	if u.URL == "" {
		return "local"
	}
	return u.Mode + " " + u.URL
}

func newLogger(level string, w io.Writer) *slog.Logger {
	var l slog.Level
	l.UnmarshalText([]byte(level))
	return slog.New(slog.NewJSONHandler(w, &slog.HandlerOptions{Level: l}))
}
