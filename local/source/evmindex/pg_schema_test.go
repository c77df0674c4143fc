package evmindex

import (
	"context"
	"database/sql"
	"errors"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/avaedge/avaedge/internal/pgtest"
	"github.com/avaedge/avaedge/local/source/pgschema"
)

func migrated(t *testing.T) *pgx.Conn {
	t.Helper()
	ctx := context.Background()
	c, err := pgx.Connect(ctx, pgtest.Start(t).Database(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(ctx) })
	if err := CheckPostgres(ctx, c); !errors.Is(err, pgschema.ErrBehind) {
		t.Fatalf("Check before Migrate: %v; want ErrBehind", err)
	}
	if err := MigratePostgres(ctx, c, nil); err != nil {
		t.Fatal(err)
	}
	return c
}

// TestSchemaMatchesSQLite: the PostgreSQL schema has the SQLite store's
// tables with the same columns, so both stores keep the same rows.
func TestSchemaMatchesSQLite(t *testing.T) {
	ctx := context.Background()
	c := migrated(t)
	if err := CheckPostgres(ctx, c); err != nil {
		t.Fatalf("Check after Migrate: %v", err)
	}
	path := filepath.Join(t.TempDir(), "evmindex.db")
	ix, err := Open(ctx, Options{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	ix.Close()
	lite, err := sql.Open("sqlite3", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer lite.Close()
	liteRows, err := lite.Query(`SELECT m.name, p.name FROM sqlite_master m, pragma_table_info(m.name) p WHERE m.type='table'`)
	if err != nil {
		t.Fatal(err)
	}
	defer liteRows.Close()
	want := columns(t, liteRows)
	pgRows, err := c.Query(ctx, `SELECT table_name, column_name FROM information_schema.columns
		WHERE table_schema='public' AND table_name <> 'avaedge_schema'`)
	if err != nil {
		t.Fatal(err)
	}
	defer pgRows.Close()
	got := columns(t, pgRows)
	if len(want) < 20 {
		t.Fatalf("the SQLite store has %d tables; the test reads its schema wrong", len(want))
	}
	for tbl, cols := range want {
		slices.Sort(cols)
		g := got[tbl]
		slices.Sort(g)
		if !slices.Equal(g, cols) {
			t.Errorf("table %s: PostgreSQL columns %v; SQLite's %v", tbl, g, cols)
		}
	}
	for tbl := range got {
		if want[tbl] == nil {
			t.Errorf("table %s is in PostgreSQL only", tbl)
		}
	}
	// ANALYZE (analyzeAfter) names every table.
	tables := slices.Sorted(maps.Keys(got))
	if analyzed := slices.Sorted(slices.Values(pgTables)); !slices.Equal(analyzed, tables) {
		t.Errorf("pgTables %v; the schema's tables %v", analyzed, tables)
	}
}

// columns reads rows of (table, column) into each table's columns.
func columns(t *testing.T, rows interface {
	Next() bool
	Scan(...any) error
}) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for rows.Next() {
		var tbl, col string
		if err := rows.Scan(&tbl, &col); err != nil {
			t.Fatal(err)
		}
		out[tbl] = append(out[tbl], col)
	}
	return out
}

// TestKeysetPages: each listing's page is one index range read in the
// listing's order, from a row comparison (no sort, no offset).
func TestKeysetPages(t *testing.T) {
	ctx := context.Background()
	c := migrated(t)
	if _, err := c.Exec(ctx, `SET enable_seqscan = off`); err != nil {
		t.Fatal(err)
	}
	pages := map[string]string{
		"an address's transactions": `SELECT block_number, tx_index FROM address_txs WHERE chain_id=1 AND address='\x01'
			AND (block_number, tx_index) < (10, 2) ORDER BY block_number DESC, tx_index DESC LIMIT 10`,
		"an address's native transactions": `SELECT block_number, tx_index FROM address_txs WHERE chain_id=1 AND address='\x01' AND native
			AND (block_number, tx_index) < (10, 2) ORDER BY block_number DESC, tx_index DESC LIMIT 10`,
		"a chain's transactions": `SELECT hash FROM txs WHERE chain_id=1 AND (block_number, tx_index) < (10, 2)
			ORDER BY block_number DESC, tx_index DESC LIMIT 10`,
		"a chain's failed transactions": `SELECT hash FROM txs WHERE chain_id=1 AND status=0 AND (block_number, tx_index) < (10, 2)
			ORDER BY block_number DESC, tx_index DESC LIMIT 10`,
		"an address's ERC-20 transfers": `SELECT seq FROM address_transfers WHERE chain_id=1 AND address='\x01' AND kind=20 AND seq < 99
			ORDER BY seq DESC LIMIT 10`,
		"a collection's tokens": `SELECT token_id FROM collection_tokens WHERE chain_id=1 AND contract='\x01' AND first_seq > 5
			ORDER BY first_seq LIMIT 10`,
		"a deployer's contracts":    `SELECT address FROM contracts WHERE chain_id=1 AND origin='\x01' AND seq < 99 ORDER BY seq DESC LIMIT 10`,
		"latest blocks":             `SELECT number FROM blocks WHERE chain_id=1 AND number < 99 ORDER BY number DESC LIMIT 10`,
		"ICM messages from a chain": `SELECT message_id FROM icm_messages WHERE src_chain='\x01' AND ord < 99 ORDER BY ord DESC LIMIT 10`,
	}
	for name, q := range pages {
		t.Run(name, func(t *testing.T) {
			rows, err := c.Query(ctx, "EXPLAIN "+q)
			if err != nil {
				t.Fatal(err)
			}
			var plan []string
			for rows.Next() {
				var line string
				rows.Scan(&line)
				plan = append(plan, line)
			}
			p := strings.Join(plan, "\n")
			if !strings.Contains(p, "Index") || strings.Contains(p, "Sort") || strings.Contains(p, "Seq Scan") {
				t.Errorf("plan of %s:\n%s\nwant one index range, no sort", name, p)
			}
		})
	}
}
