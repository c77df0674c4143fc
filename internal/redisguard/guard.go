// Package redisguard keeps a hung Redis from stalling its callers. A Guard is
// a go-redis hook: the first call that fails the way a hung or unreachable
// Redis fails (a timeout, a refused or reset connection) trips it, every call
// after that fails at once with ErrUnavailable, and one background probe
// (PING with a short deadline) closes it again when Redis answers.
//
// A stopped Redis (SIGSTOP, a failover, a network partition) accepts
// connections and never answers, so without a guard every call waits for its
// whole deadline; with one, only the calls already in flight when it hangs do.
package redisguard

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
)

// ErrUnavailable is the error of every call made while the guard is tripped.
// Callers treat it like any Redis failure (as "Redis down").
var ErrUnavailable = errors.New("redis unavailable: a call failed and the probe has not been answered yet")

// Options configures a Guard. Zero values mean the documented defaults.
type Options struct {
	// ProbeTimeout bounds one probe. Zero means 100ms.
	ProbeTimeout time.Duration
	// ProbeInterval is the pause after a failed probe. Zero means 250ms.
	ProbeInterval time.Duration
	// LogEvery is the least time between two "tripped" warnings; trips in
	// between are counted and reported with the next one. Zero means 1m.
	LogEvery time.Duration
	// OnChange, when set, is called with false when the guard trips and with
	// true when a probe is answered, from the goroutine that changed it.
	OnChange func(up bool)
	// Logger logs trips and recoveries. Nil means slog.Default().
	Logger *slog.Logger
}

// Guard is a redis.Hook that fails calls fast while Redis is not answering.
// Install it on one client. It is safe for concurrent use.
type Guard struct {
	opts Options
	down atomic.Bool // tripped: calls fail with ErrUnavailable
	ping func(ctx context.Context) error

	// mu guards closed, the probe's start (wg.Add) and the log throttle.
	mu       sync.Mutex
	closed   bool
	lastWarn time.Time
	quiet    int // trips not logged since lastWarn
	since    time.Time
	stop     chan struct{}
	wg       sync.WaitGroup
}

var _ redis.Hook = (*Guard)(nil)

// New returns a Guard that is not yet installed on a client.
func New(opts Options) *Guard {
	if opts.ProbeTimeout <= 0 {
		opts.ProbeTimeout = 100 * time.Millisecond
	}
	if opts.ProbeInterval <= 0 {
		opts.ProbeInterval = 250 * time.Millisecond
	}
	if opts.LogEvery <= 0 {
		opts.LogEvery = time.Minute
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	return &Guard{opts: opts, stop: make(chan struct{})}
}

// Install adds g to rdb's hooks and makes rdb's PING the probe. Call it once,
// before rdb is used.
func (g *Guard) Install(rdb redis.UniversalClient) {
	g.ping = func(ctx context.Context) error { return rdb.Ping(ctx).Err() }
	rdb.AddHook(g)
}

// Up reports whether calls go to Redis (the guard is not tripped).
func (g *Guard) Up() bool { return !g.down.Load() }

// Close stops the probe. Calls keep failing fast if the guard is tripped.
func (g *Guard) Close() error {
	g.mu.Lock()
	if !g.closed {
		g.closed = true
		close(g.stop)
	}
	g.mu.Unlock()
	g.wg.Wait()
	return nil
}

// probeKey marks the probe's context: the probe passes a tripped guard.
type probeKey struct{}

func passes(ctx context.Context) bool { return ctx.Value(probeKey{}) != nil }

// DialHook trips the guard when a dial fails. Dials are not refused while
// it is tripped: commands are, so the only dials then are the probe's, which
// go-redis may run on a context of its own.
func (g *Guard) DialHook(next redis.DialHook) redis.DialHook {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := next(ctx, network, addr)
		if err != nil && trips(ctx, err) {
			g.trip(err)
		}
		return c, err
	}
}

// ProcessHook fails a command while the guard is tripped and trips it when
// a command fails as a hung or unreachable Redis does.
func (g *Guard) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if g.down.Load() && !passes(ctx) {
			cmd.SetErr(ErrUnavailable)
			return ErrUnavailable
		}
		err := next(ctx, cmd)
		if err != nil && trips(ctx, err) {
			g.trip(err)
		}
		return err
	}
}

// ProcessPipelineHook does for a pipeline what ProcessHook does for one
// command.
func (g *Guard) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		if g.down.Load() && !passes(ctx) {
			for _, c := range cmds {
				c.SetErr(ErrUnavailable)
			}
			return ErrUnavailable
		}
		err := next(ctx, cmds)
		if err != nil && trips(ctx, err) {
			g.trip(err)
		}
		return err
	}
}

// trips reports whether err is how a hung or unreachable Redis fails: a
// timeout (the connection's or the call's deadline), a pool with no free
// connection in time, a network error or a closed connection. Answers of
// Redis (redis.Nil, error replies) and a caller's cancellation are not.
func trips(ctx context.Context, err error) bool {
	if passes(ctx) || errors.Is(err, ErrUnavailable) || errors.Is(err, context.Canceled) {
		return false
	}
	var ne net.Error
	return errors.Is(err, context.DeadlineExceeded) || errors.Is(err, redis.ErrPoolTimeout) ||
		errors.As(err, &ne) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
}

// trip opens the guard and starts the probe, once per outage.
func (g *Guard) trip(cause error) {
	if !g.down.CompareAndSwap(false, true) {
		return
	}
	g.mu.Lock()
	if g.closed {
		g.mu.Unlock()
		return
	}
	now := time.Now()
	g.since = now
	if now.Sub(g.lastWarn) >= g.opts.LogEvery {
		g.opts.Logger.Warn("redis not answering: calls fail fast until a probe is answered",
			"err", cause, "probe_every", g.opts.ProbeInterval.String(), "trips_not_logged", g.quiet)
		g.lastWarn, g.quiet = now, 0
	} else {
		g.quiet++
	}
	g.wg.Add(1)
	g.mu.Unlock()
	if g.opts.OnChange != nil {
		g.opts.OnChange(false)
	}
	go g.probe()
}

// probe pings Redis until it answers, then closes the guard. It is the only
// goroutine of a Guard; Close stops it.
func (g *Guard) probe() {
	defer g.wg.Done()
	ctx := context.WithValue(context.Background(), probeKey{}, true)
	t := time.NewTimer(0) // the first probe at once: most trips are brief
	defer t.Stop()
	for {
		select {
		case <-g.stop:
			return
		case <-t.C:
		}
		pctx, cancel := context.WithTimeout(ctx, g.opts.ProbeTimeout)
		err := g.ping(pctx)
		cancel()
		if err == nil {
			break
		}
		t.Reset(g.opts.ProbeInterval)
	}
	g.mu.Lock()
	logged := g.quiet == 0
	down := time.Since(g.since)
	g.mu.Unlock()
	g.down.Store(false)
	if logged {
		g.opts.Logger.Info("redis answers again", "down_for", down.Round(time.Millisecond).String())
	}
	if g.opts.OnChange != nil {
		g.opts.OnChange(true)
	}
}
