package lease

import (
	"context"
	"fmt"
	"strconv"

	"github.com/jackc/pgx/v5"
)

// leasesTable records who holds each lease, for the standbys to see. The
// lock is the lease; a row is believed only while its backend holds the
// lock.
const leasesTable = `CREATE TABLE IF NOT EXISTS avaedge_leases (
	name text PRIMARY KEY,
	holder text NOT NULL,
	backend integer NOT NULL,
	since timestamptz NOT NULL
)`

// schemaLock serializes the creation of avaedge_leases by replicas starting
// together (CREATE TABLE IF NOT EXISTS races on the catalog otherwise).
var schemaLock = Key("schema")

// heldBy is true when backend $1 holds the advisory lock of key ($2: the
// high 32 bits, $3: the low 32 bits; objsubid 1 is a bigint key).
const heldBy = `EXISTS (SELECT 1 FROM pg_locks k WHERE k.locktype='advisory' AND k.granted AND k.pid=%s
	AND k.classid::bigint=$2 AND k.objid::bigint=$3 AND k.objsubid=1)`

func (e *Elector) keyParts() (hi, lo int64) {
	return int64(uint64(e.key) >> 32), int64(uint64(e.key) & 0xffffffff)
}

// connect opens the lease's session, and makes the table of holders exist.
// PostgreSQL ends the session (and releases the lock) when the replica
// goes silent: TCP keepalives and a user timeout see a vanished peer within
// seconds, and idle_session_timeout (5 Intervals) a hung one whose kernel
// still answers, since a live Elector speaks every Interval.
func (e *Elector) connect(ctx context.Context) error {
	cfg, err := pgx.ParseConfig(e.opts.URL)
	if err != nil {
		return fmt.Errorf("lease: %w", err)
	}
	idle := strconv.FormatInt((5 * e.opts.Interval).Milliseconds(), 10)
	for k, v := range map[string]string{"tcp_keepalives_idle": "2", "tcp_keepalives_interval": "1",
		"tcp_keepalives_count": "3", "tcp_user_timeout": "5000", "idle_session_timeout": idle,
		"application_name": "avaedge lease " + e.opts.Name} {
		cfg.RuntimeParams[k] = v
	}
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return fmt.Errorf("lease: connect: %w", err)
	}
	e.conn = conn
	err = pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, schemaLock); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, leasesTable)
		return err
	})
	if err != nil {
		return fmt.Errorf("lease: table: %w", err)
	}
	return nil
}

// disconnect closes the session; holding, it steps down.
func (e *Elector) disconnect() {
	if e.conn != nil {
		e.conn.Close(context.Background())
		e.conn = nil
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.pid != 0 {
		e.pid = 0
		e.st.Role = "reader"
		e.opts.Metrics.observe(e.opts.Name, false, e.st.Holder)
	}
}

// acquire tries the lock; taken, it records this replica as the holder.
func (e *Elector) acquire(ctx context.Context) error {
	var got bool
	if err := e.conn.QueryRow(ctx, `SELECT pg_try_advisory_lock($1)`, e.key).Scan(&got); err != nil {
		return fmt.Errorf("lease: try: %w", err)
	}
	if !got {
		return nil
	}
	pid := e.conn.PgConn().PID()
	_, err := e.conn.Exec(ctx, `INSERT INTO avaedge_leases (name, holder, backend, since) VALUES ($1, $2, $3, now())
		ON CONFLICT (name) DO UPDATE SET holder=EXCLUDED.holder, backend=EXCLUDED.backend, since=EXCLUDED.since`,
		e.opts.Name, e.opts.Holder, int32(pid))
	if err != nil {
		return fmt.Errorf("lease: record holder: %w", err)
	}
	e.mu.Lock()
	e.pid, e.st.Role = pid, "writer"
	e.mu.Unlock()
	e.opts.Metrics.took(e.opts.Name)
	e.log.Info("lease taken: this replica is the writer", "holder", e.opts.Holder)
	return nil
}

// holder reads the lease's holder: the recorded one while its backend holds
// the lock, "" otherwise.
func (e *Elector) holder(ctx context.Context) (string, error) {
	hi, lo := e.keyParts()
	var holder string
	err := e.conn.QueryRow(ctx, `SELECT l.holder FROM avaedge_leases l WHERE l.name=$1 AND `+fmt.Sprintf(heldBy, "l.backend"),
		e.opts.Name, hi, lo).Scan(&holder)
	if err == pgx.ErrNoRows {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("lease: holder: %w", err)
	}
	return holder, nil
}

// Querier runs a query, e.g. within a writer's transaction (pgx.Tx).
type Querier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// Fence returns ErrNotHolder unless this replica's lease session holds the
// lock now, read through q: a writer calls it inside each transaction, so
// that a holder that lost the lease and does not know it yet commits
// nothing.
func (e *Elector) Fence(ctx context.Context, q Querier) error {
	e.mu.Lock()
	pid := e.pid
	e.mu.Unlock()
	if pid == 0 {
		return ErrNotHolder
	}
	hi, lo := e.keyParts()
	var held bool
	if err := q.QueryRow(ctx, `SELECT `+fmt.Sprintf(heldBy, "$1"), int32(pid), hi, lo).Scan(&held); err != nil {
		return fmt.Errorf("lease: fence: %w", err)
	}
	if !held {
		return ErrNotHolder
	}
	return nil
}
