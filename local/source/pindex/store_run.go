package pindex

import (
	"context"
	"database/sql"
	"errors"

	"github.com/jackc/pgx/v5"
)

// runner runs a store's read statements: the SQLite store's readers
// (sqlRunner) or the PostgreSQL store's pool (pgRunner). The Go around the
// statements that is the same in both stores (scan loops, answers made of
// several reads: indexReads) is written once over it; each store passes
// its own SQL text, since the two dialects differ ($n against ?, types).
type runner interface {
	// query runs q; the caller closes the rows.
	query(ctx context.Context, q string, args ...any) (rows, error)
	// queryRow runs q, which selects at most one row; Scan of no row is an
	// error noRows tells.
	queryRow(ctx context.Context, q string, args ...any) row
}

// rows are a query's rows, closed by whoever ran the query.
type rows interface {
	scanRows
	Close()
}

// row is a query's one row: *sql.Row, pgx.Row.
type row interface {
	Scan(dest ...any) error
}

// noRows tells the error of scanning a row a query did not find, of either
// store (pgx.ErrNoRows wraps sql.ErrNoRows).
func noRows(err error) bool {
	return errors.Is(err, sql.ErrNoRows)
}

// sqlRunner runs statements on a database/sql handle.
type sqlRunner struct{ db *sql.DB }

// sqlRows are database/sql's rows, whose Close's error (the rows' own,
// which Err has told) is dropped, as a deferred Close drops it.
type sqlRows struct{ *sql.Rows }

// Close closes the rows.
func (r sqlRows) Close() { r.Rows.Close() }

func (r sqlRunner) query(ctx context.Context, q string, args ...any) (rows, error) {
	rs, err := r.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	return sqlRows{rs}, nil
}

func (r sqlRunner) queryRow(ctx context.Context, q string, args ...any) row {
	return r.db.QueryRowContext(ctx, q, args...)
}

// pgQuerier is a pgx pool, connection or transaction.
type pgQuerier interface {
	Query(ctx context.Context, q string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, q string, args ...any) pgx.Row
}

// pgRunner runs statements on pgx (whose statement cache works on their
// text).
type pgRunner struct{ q pgQuerier }

func (r pgRunner) query(ctx context.Context, q string, args ...any) (rows, error) {
	return r.q.Query(ctx, q, args...)
}

func (r pgRunner) queryRow(ctx context.Context, q string, args ...any) row {
	return r.q.QueryRow(ctx, q, args...)
}

var (
	_ runner = sqlRunner{}
	_ runner = pgRunner{}
)
