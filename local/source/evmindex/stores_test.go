package evmindex

import (
	"context"
	"os"
	"testing"

	"github.com/avaedge/avaedge/internal/pgtest"
)

// TestMain stops the PostgreSQL server the store tests share.
func TestMain(m *testing.M) {
	code := m.Run()
	pgtest.StopShared()
	os.Exit(code)
}

// storeFor opens the store a test's index keeps its rows in; nil means
// the default (SQLite).
type storeFor func(t testing.TB) Store

// eachStore runs fn once on each store: the embedded SQLite (the default,
// Options.Store nil) and PostgreSQL (a fresh database of the shared
// server). The same assertions hold on both.
func eachStore(t *testing.T, fn func(t *testing.T, store storeFor)) {
	t.Run("sqlite", func(t *testing.T) { fn(t, func(testing.TB) Store { return nil }) })
	t.Run("postgres", func(t *testing.T) {
		srv := pgtest.Shared(t)
		// A fresh database each time, as the default store is a fresh
		// temporary file.
		fn(t, func(t testing.TB) Store {
			st, err := openPostgres(context.Background(), srv.Database(t), nil)
			if err != nil {
				t.Fatal(err)
			}
			return st
		})
	})
}

// queryRow runs a read of ix's store directly, its ? placeholders numbered
// for PostgreSQL.
func queryRow(ix *Index, q string, args ...any) interface{ Scan(...any) error } {
	if pg, ok := ix.st.(*pgStore); ok {
		return pg.pool.QueryRow(context.Background(), pgNumbered(q), args...)
	}
	return sqliteOf(ix).r.QueryRow(q, args...)
}
