package evmindex_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/avaedge/avaedge/internal/pgtest"
	"github.com/avaedge/avaedge/local/source/evmindex"
)

// TestPostgresWritesSQLiteRows: the route benchmark's world (native and
// ERC-20 transfers, NFT mints, a factory's internal transactions and
// contracts, failures, NFT metadata), written through the indexer's write
// path into the SQLite store and into PostgreSQL, leaves the same rows in
// every table, value for value, and every EVM list route answers the same
// bytes from both, page after page, a page token of one paging on the
// other.
func TestPostgresWritesSQLiteRows(t *testing.T) {
	ctx := context.Background()
	dbURL := pgtest.Start(t).Database(t)
	st, err := evmindex.OpenPostgres(ctx, dbURL, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	pg, err := evmindex.Open(ctx, evmindex.Options{Store: st})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "index.db")
	lite, err := evmindex.Open(ctx, evmindex.Options{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	const n = 4_000
	evmindex.SetAnalyzeFloor(t, 1_000)
	buildFixture(t, pg, n)
	buildFixture(t, lite, n)
	sameAnswers(t, routesMux(lite), routesMux(pg), n)
	pg.Close()
	lite.Close()

	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	db, err := sql.Open("sqlite3", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// The catch-up analyzed the tables as it wrote (analyzeAfter).
	var analyzed bool
	for deadline := time.Now().Add(10 * time.Second); !analyzed && time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if err := conn.QueryRow(ctx, `SELECT coalesce(analyze_count, 0) > 0 FROM pg_stat_user_tables WHERE relname = 'txs'`).Scan(&analyzed); err != nil {
			t.Fatal(err)
		}
	}
	if !analyzed {
		t.Error("the fixture's writes left txs without an ANALYZE")
	}
	tables := pgColumns(t, conn)
	if len(tables) < 20 {
		t.Fatalf("%d tables in PostgreSQL", len(tables))
	}
	rowsSeen := 0
	for tbl, cols := range tables {
		got, want := pgRows(t, conn, tbl, cols), liteRows(t, db, tbl, cols)
		rowsSeen += len(want)
		if !slices.Equal(got, want) {
			t.Errorf("table %s: %d rows in PostgreSQL, %d in SQLite; first difference: %s", tbl, len(got), len(want), firstDiff(got, want))
		}
	}
	if rowsSeen < 3*n {
		t.Errorf("%d rows compared; the fixture wrote too little", rowsSeen)
	}
	if !t.Failed() {
		t.Logf("%d rows in %d tables equal", rowsSeen, len(tables))
	}
}

func pgColumns(t *testing.T, c *pgx.Conn) map[string][]string {
	t.Helper()
	rows, err := c.Query(context.Background(), `SELECT table_name, column_name, data_type FROM information_schema.columns
		WHERE table_schema='public' AND table_name NOT LIKE 'avaedge_%' ORDER BY table_name, ordinal_position`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string][]string{}
	for rows.Next() {
		var tbl, col, typ string
		if err := rows.Scan(&tbl, &col, &typ); err != nil {
			t.Fatal(err)
		}
		// Each value as text, the same in both: bytes in hex, flags 0/1.
		switch typ {
		case "bytea":
			col = "encode(" + col + ", 'hex')"
		case "boolean":
			col = col + "::int::text"
		default:
			col = col + "::text"
		}
		out[tbl] = append(out[tbl], col)
	}
	return out
}

func pgRows(t *testing.T, c *pgx.Conn, tbl string, cols []string) []string {
	t.Helper()
	rows, err := c.Query(context.Background(), "SELECT "+strings.Join(cols, ", ")+" FROM "+tbl)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	return textRows(t, rows, len(cols))
}

// textRows reads rows of n text columns, each row joined into one string,
// sorted.
func textRows(t *testing.T, rows interface {
	Next() bool
	Scan(...any) error
}, n int) []string {
	t.Helper()
	var out []string
	for rows.Next() {
		vals := make([]*string, n)
		ptrs := make([]any, n)
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		out = append(out, joinRow(vals))
	}
	slices.Sort(out)
	return out
}

func liteRows(t *testing.T, db *sql.DB, tbl string, pgCols []string) []string {
	t.Helper()
	var cols []string
	for _, c := range pgCols {
		name := strings.TrimSuffix(strings.TrimSuffix(strings.TrimPrefix(c, "encode("), ", 'hex')"), "::int::text")
		name = strings.TrimSuffix(name, "::text")
		cols = append(cols, "CASE WHEN typeof("+name+")='blob' THEN lower(hex("+name+")) ELSE CAST("+name+" AS TEXT) END")
	}
	rows, err := db.Query("SELECT " + strings.Join(cols, ", ") + " FROM " + tbl)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	return textRows(t, rows, len(cols))
}

func joinRow(vals []*string) string {
	parts := make([]string, len(vals))
	for i, v := range vals {
		parts[i] = "NULL"
		if v != nil {
			parts[i] = fmt.Sprintf("%q", *v)
		}
	}
	return strings.Join(parts, "|")
}

func firstDiff(a, b []string) string {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return "PostgreSQL " + a[i] + " / SQLite " + b[i]
		}
	}
	return "(one is a prefix of the other)"
}

// sameAnswers pages through every list route on lite and pg (pageSize 10
// and 100, up to 30 pages), each page asked of both with the page token
// the other gave, and fails on the first answer whose bytes differ.
func sameAnswers(t *testing.T, lite, pg http.Handler, n int) {
	t.Helper()
	get := func(h http.Handler, path string) []byte {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		if rec.Code != http.StatusOK {
			t.Fatalf("GET %s: %d %s", path, rec.Code, rec.Body)
		}
		return rec.Body.Bytes()
	}
	pages := 0
	for _, rt := range listRoutes(n) {
		for _, size := range []string{"10", "100"} {
			sep := "?"
			if strings.Contains(rt.path, "?") {
				sep = "&"
			}
			path := rt.path + sep + "pageSize=" + size
			for page := 0; page < 30; page++ {
				a, b := get(lite, path), get(pg, path)
				pages++
				if !bytes.Equal(a, b) {
					t.Fatalf("GET %s (page %d): SQLite answered\n%.600s\nPostgreSQL\n%.600s", path, page, a, b)
				}
				var v struct {
					Next string `json:"nextPageToken"`
				}
				json.Unmarshal(a, &v)
				if v.Next == "" {
					break
				}
				path = rt.path + sep + "pageSize=" + size + "&pageToken=" + url.QueryEscape(v.Next)
			}
		}
	}
	t.Logf("%d pages of %d routes answered the same bytes", pages, len(listRoutes(n)))
}
