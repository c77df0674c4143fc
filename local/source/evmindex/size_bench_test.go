package evmindex_test

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/avaedge/avaedge/internal/pgtest"
	"github.com/avaedge/avaedge/local/source/evmindex"
)

// BenchmarkFixtureSize writes the route benchmark's world
// (EVMINDEX_BENCH_TXS transactions, default 1,000,000; 100,000 is enough:
// the bytes grow with the transactions) into a store and reports what it
// takes on disk, per transaction and per table: the figures docs/sizing.md
// extrapolates to a mainnet-sized index. EVMINDEX_BENCH_STORE=postgres
// measures the PostgreSQL store (tables with their indexes and TOAST, after
// VACUUM ANALYZE), otherwise the SQLite file (after a checkpoint).
func BenchmarkFixtureSize(b *testing.B) {
	n := 1_000_000
	if v, err := strconv.Atoi(os.Getenv("EVMINDEX_BENCH_TXS")); err == nil && v > 0 {
		n = v
	}
	ctx := context.Background()
	path := filepath.Join(b.TempDir(), "index.db")
	opts := evmindex.Options{Path: path}
	pgURL := ""
	if os.Getenv("EVMINDEX_BENCH_STORE") == "postgres" {
		pgURL = pgtest.Start(b).Database(b)
		st, err := evmindex.OpenPostgres(ctx, pgURL, nil, nil)
		if err != nil {
			b.Fatal(err)
		}
		opts.Store = st
	}
	ix, err := evmindex.Open(ctx, opts)
	if err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	buildFixture(b, ix, n)
	took := time.Since(start)
	var tables []tableSize
	if pgURL != "" {
		tables = pgSizes(b, pgURL)
		ix.Close()
	} else {
		ix.Close() // checkpoints the WAL into the file
		tables = sqliteSizes(b, path)
	}
	var bytes, rows int64
	for _, t := range tables {
		bytes += t.bytes
		rows += t.rows
	}
	sort.Slice(tables, func(i, j int) bool { return tables[i].bytes > tables[j].bytes })
	for _, t := range tables {
		b.Logf("%-28s %10d rows %12d bytes (%.0f B/tx)", t.name, t.rows, t.bytes, float64(t.bytes)/float64(n))
	}
	b.Logf("%d transactions written in %s (%.0f tx/s)", n, took.Round(time.Second), float64(n)/took.Seconds())
	b.ReportMetric(float64(bytes)/float64(n), "B/tx")
	b.ReportMetric(float64(rows)/float64(n), "rows/tx")
	b.ReportMetric(float64(n)/took.Seconds(), "tx/s-written")
}

// tableSize is one table's rows and bytes on disk.
type tableSize struct {
	name        string
	rows, bytes int64
}

// sqliteSizes counts each table's rows; the bytes are the file's, under
// "(file)" (the driver is built without SQLite's dbstat table, which would
// split them by table).
func sqliteSizes(b *testing.B, path string) []tableSize {
	db, err := sql.Open("sqlite3", "file:"+path+"?mode=ro")
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	rs, err := db.Query(`SELECT name FROM sqlite_master WHERE type = 'table'`)
	if err != nil {
		b.Fatal(err)
	}
	var out []tableSize
	for rs.Next() {
		var t tableSize
		if err := rs.Scan(&t.name); err != nil {
			b.Fatal(err)
		}
		out = append(out, t)
	}
	rs.Close()
	for i := range out {
		if err := db.QueryRow(`SELECT count(*) FROM "` + out[i].name + `"`).Scan(&out[i].rows); err != nil {
			b.Fatal(err)
		}
	}
	fi, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	return append(out, tableSize{name: "(file)", bytes: fi.Size()})
}

// pgSizes reads each table's total size (heap, indexes, TOAST) after
// VACUUM ANALYZE, and its exact row count.
func pgSizes(b *testing.B, url string) []tableSize {
	ctx := context.Background()
	c, err := pgx.Connect(ctx, url)
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close(ctx)
	if _, err := c.Exec(ctx, "VACUUM ANALYZE"); err != nil {
		b.Fatal(err)
	}
	rs, err := c.Query(ctx, `SELECT relname, pg_total_relation_size(oid) FROM pg_class
		WHERE relkind = 'r' AND relnamespace = 'public'::regnamespace`)
	if err != nil {
		b.Fatal(err)
	}
	out, err := pgx.CollectRows(rs, func(r pgx.CollectableRow) (tableSize, error) {
		var t tableSize
		return t, r.Scan(&t.name, &t.bytes)
	})
	if err != nil {
		b.Fatal(err)
	}
	for i := range out {
		if err := c.QueryRow(ctx, `SELECT count(*) FROM "`+out[i].name+`"`).Scan(&out[i].rows); err != nil {
			b.Fatal(err)
		}
	}
	return out
}
