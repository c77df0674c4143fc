// Package lease elects one holder of a named lease among replicas sharing a
// PostgreSQL database: the follower of a network, the writer of its index.
//
// A lease is a session-level advisory lock (pg_try_advisory_lock) held on a
// connection of its own. PostgreSQL releases it the moment that session
// ends: the holder closes, dies, or its connection is terminated. The
// holder checks its connection every Interval and steps down when the check
// fails; a standby tries the lock every Interval, so another replica holds
// the lease within an Interval of PostgreSQL ending the holder's session:
// at once when the holder closes or its process dies, within 5 Intervals
// when it hangs (idle_session_timeout) and within seconds when its host
// vanishes (TCP keepalives and user timeout). Who holds a lease
// is recorded in the table avaedge_leases, read by the standbys for their
// metrics and /readyz.
//
// Between the loss of the lock and the holder's next check, the old holder
// may still believe it holds the lease: a writer calls Fence inside each of
// its transactions, which fails unless the lease's session holds the lock at
// that moment.
package lease

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"log/slog"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
)

// ErrNotHolder is returned by Fence when this replica does not hold the
// lease.
var ErrNotHolder = errors.New("lease: not the holder")

// Options configures an Elector.
type Options struct {
	// URL is the PostgreSQL database's postgres:// URL.
	URL string
	// Name names the lease, e.g. "evmindex/43114": replicas electing under
	// the same name elect one holder.
	Name string
	// Holder names this replica in avaedge_leases, the metrics and
	// /readyz. Empty means "<hostname>:<pid>".
	Holder string
	// Interval is how often the holder checks its connection and a standby
	// tries the lock; a holder silent for 5 Intervals loses the lease. Zero
	// means 1s.
	Interval time.Duration
	// Metrics receives the lease's gauges and counters. Nil records none.
	Metrics *Metrics
	// Logger logs elections and lost leases. Nil means slog.Default().
	Logger *slog.Logger
}

// Status is what an Elector last saw, for /readyz.
type Status struct {
	// Role is "writer" while this replica holds the lease, else "reader".
	Role string `json:"role"`
	// Holder is the lease's holder ("" when none is seen).
	Holder string `json:"holder"`
	// Error is the last failure to reach PostgreSQL, "" when none.
	Error string `json:"error,omitempty"`
}

// Elector takes part in the election of one lease. It is safe for
// concurrent use.
type Elector struct {
	opts Options
	key  int64
	log  *slog.Logger
	stop context.CancelFunc
	done chan struct{}

	// conn is the lease's session: owned by run, nil between connections.
	conn *pgx.Conn

	// mu guards st and pid.
	mu  sync.Mutex
	st  Status
	pid uint32 // the holder session's backend pid, 0 when not holding
}

// Key returns the advisory lock key of a lease name.
func Key(name string) int64 {
	h := fnv.New64a()
	h.Write([]byte("avaedge/lease/" + name))
	return int64(h.Sum64())
}

// Start starts taking part in the election; the Elector runs until Close.
// It returns at once: the first attempt is made in the background.
func Start(ctx context.Context, o Options) *Elector {
	if o.Interval <= 0 {
		o.Interval = time.Second
	}
	if o.Holder == "" {
		host, _ := os.Hostname()
		o.Holder = host + ":" + strconv.Itoa(os.Getpid())
	}
	e := &Elector{opts: o, key: Key(o.Name), log: o.Logger, done: make(chan struct{})}
	if e.log == nil {
		e.log = slog.Default()
	}
	e.log = e.log.With("lease", o.Name)
	e.st.Role = "reader"
	ctx, e.stop = context.WithCancel(ctx)
	go e.run(ctx)
	return e
}

// Close steps down (the lock goes with the session) and stops the Elector.
func (e *Elector) Close() {
	e.stop()
	<-e.done
}

// Leader reports whether this replica holds the lease now.
func (e *Elector) Leader() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.pid != 0
}

// Status returns what the Elector last saw.
func (e *Elector) Status() Status {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.st
}

// run is the Elector's loop: one round every Interval until ctx ends.
func (e *Elector) run(ctx context.Context) {
	defer close(e.done)
	defer e.disconnect()
	t := time.NewTicker(e.opts.Interval)
	defer t.Stop()
	for {
		e.round(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// round connects when needed, then checks the lease (holder) or tries to
// take it (standby), and reads who holds it.
func (e *Elector) round(ctx context.Context) {
	rctx, cancel := context.WithTimeout(ctx, e.opts.Interval+2*time.Second)
	defer cancel()
	err := e.attempt(rctx)
	if err != nil && ctx.Err() == nil {
		if e.Leader() {
			e.log.Warn("lease lost: its connection failed; standing by", "holder", e.opts.Holder, "err", err)
		}
		e.disconnect()
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.st.Error = ""
	if err != nil {
		e.st.Error = err.Error()
	}
}

func (e *Elector) attempt(ctx context.Context) error {
	if e.conn == nil {
		if err := e.connect(ctx); err != nil {
			return err
		}
	}
	if e.Leader() {
		if err := e.conn.Ping(ctx); err != nil {
			return fmt.Errorf("lease: check: %w", err)
		}
	} else if err := e.acquire(ctx); err != nil {
		return err
	}
	holder, err := e.holder(ctx)
	if err != nil {
		return err
	}
	e.mu.Lock()
	e.st.Holder = holder
	e.mu.Unlock()
	e.opts.Metrics.observe(e.opts.Name, e.Leader(), holder)
	return nil
}
