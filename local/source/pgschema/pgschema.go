// Package pgschema keeps the versioned schemas of avaedge's PostgreSQL
// stores (the EVM index, and later the P- and X-Chain index and the Metrics
// history), one version per component in the table avaedge_schema.
//
// The writer (the lease's holder) calls Migrate: each version's statements
// run in one transaction with the version's row, under an advisory lock of
// the component, so two writers starting together migrate once. Readers
// call Check, which refuses a schema newer than the replica knows (an older
// replica must not read what a newer one wrote) and reports one not
// migrated yet.
package pgschema

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
)

// ErrNewer is returned when the stored schema is newer than this replica
// knows: it was migrated by a newer avaedge.
var ErrNewer = errors.New("the schema is newer than this avaedge knows; run the newer avaedge (or a newer image) on this replica")

// ErrBehind is returned by Check when the stored schema is older than this
// replica knows: the writer has not migrated it yet.
var ErrBehind = errors.New("the schema is older than this avaedge knows; the writer migrates it")

// table holds each component's schema version.
const table = `CREATE TABLE IF NOT EXISTS avaedge_schema (
	component text PRIMARY KEY,
	version integer NOT NULL,
	migrated timestamptz NOT NULL
)`

// Version is one schema version: statements run in order, in one
// transaction.
type Version []string

// Conn is a connection that runs transactions (a *pgx.Conn, a
// *pgxpool.Pool).
type Conn interface {
	Begin(ctx context.Context) (pgx.Tx, error)
}

// lockKey is the advisory lock serializing the migrations, of every
// component: they are rare, and two components migrating together would
// race to create avaedge_schema.
var lockKey = func() int64 {
	h := fnv.New64a()
	h.Write([]byte("avaedge/schema"))
	return int64(h.Sum64())
}()

// Migrate brings component's schema to len(versions): versions[i] makes
// version i+1 from version i. It returns the version found before, and
// ErrNewer (wrapped, naming both versions) when the stored one is newer.
// Each version applied is logged with the time it took.
func Migrate(ctx context.Context, c Conn, component string, versions []Version, log *slog.Logger) (int, error) {
	if log == nil {
		log = slog.Default()
	}
	var found int
	for next := 1; ; next++ {
		start := time.Now()
		done, v, err := step(ctx, c, component, versions)
		if next == 1 {
			found = v
		}
		if err != nil {
			return found, err
		}
		if done {
			return found, nil
		}
		log.Info("pgschema: migrated", "component", component, "version", v+1, "took", time.Since(start).Round(time.Millisecond))
	}
}

// step applies the version after the stored one (v), in one transaction
// under the component's lock; done is true when there is none to apply.
func step(ctx context.Context, c Conn, component string, versions []Version) (done bool, v int, err error) {
	tx, err := c.Begin(ctx)
	if err != nil {
		return false, 0, fmt.Errorf("pgschema: %s: %w", component, err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, lockKey); err != nil {
		return false, 0, fmt.Errorf("pgschema: %s: lock: %w", component, err)
	}
	if _, err := tx.Exec(ctx, table); err != nil {
		return false, 0, fmt.Errorf("pgschema: %s: %w", component, err)
	}
	v, err = stored(ctx, tx, component)
	if err != nil {
		return false, 0, err
	}
	switch {
	case v > len(versions):
		return false, v, fmt.Errorf("pgschema: %s: version %d stored, this avaedge knows %d: %w", component, v, len(versions), ErrNewer)
	case v == len(versions):
		return true, v, nil
	}
	for _, q := range versions[v] {
		if _, err := tx.Exec(ctx, q); err != nil {
			return false, v, fmt.Errorf("pgschema: %s: migrating to version %d: %.80s: %w", component, v+1, q, err)
		}
	}
	if _, err := tx.Exec(ctx, `INSERT INTO avaedge_schema (component, version, migrated) VALUES ($1, $2, now())
		ON CONFLICT (component) DO UPDATE SET version=EXCLUDED.version, migrated=EXCLUDED.migrated`, component, v+1); err != nil {
		return false, v, fmt.Errorf("pgschema: %s: %w", component, err)
	}
	if err := tx.Commit(ctx); err != nil {
		return false, v, fmt.Errorf("pgschema: %s: migrating to version %d: %w", component, v+1, err)
	}
	return false, v, nil
}

// Querier reads a row (a *pgx.Conn, a *pgxpool.Pool, a pgx.Tx).
type Querier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

func stored(ctx context.Context, q Querier, component string) (int, error) {
	var v int
	err := q.QueryRow(ctx, `SELECT version FROM avaedge_schema WHERE component=$1`, component).Scan(&v)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("pgschema: %s: version: %w", component, err)
	}
	return v, nil
}

// Check reads component's stored version for a reader that knows version
// known: nil when they are equal, ErrNewer or ErrBehind (wrapped, naming
// both versions) otherwise. A database without avaedge_schema is behind.
func Check(ctx context.Context, q Querier, component string, known int) error {
	var exists bool
	if err := q.QueryRow(ctx, `SELECT to_regclass('avaedge_schema') IS NOT NULL`).Scan(&exists); err != nil {
		return fmt.Errorf("pgschema: %s: %w", component, err)
	}
	v := 0
	if exists {
		var err error
		if v, err = stored(ctx, q, component); err != nil {
			return err
		}
	}
	switch {
	case v > known:
		return fmt.Errorf("pgschema: %s: version %d stored, this avaedge knows %d: %w", component, v, known, ErrNewer)
	case v < known:
		return fmt.Errorf("pgschema: %s: version %d stored, this avaedge knows %d: %w", component, v, known, ErrBehind)
	}
	return nil
}
