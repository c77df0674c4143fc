package pindex

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/avaedge/avaedge/avanet"
	"github.com/avaedge/avaedge/internal/pgtest"
	"github.com/avaedge/avaedge/local/vocab/avax"
)

// TestMain stops the PostgreSQL server the store tests share.
func TestMain(m *testing.M) {
	code := m.Run()
	pgtest.StopShared()
	os.Exit(code)
}

// storeFor opens the store a test's index keeps its rows in; nil means the
// default (SQLite).
type storeFor func(t testing.TB) Store

// eachStore runs fn once on each store: the embedded SQLite (the default,
// Options.Store nil) and PostgreSQL (a fresh database of the shared
// server). The same assertions hold on both.
func eachStore(t *testing.T, fn func(t *testing.T, store storeFor)) {
	t.Run("sqlite", func(t *testing.T) { fn(t, func(testing.TB) Store { return nil }) })
	t.Run("postgres", func(t *testing.T) { fn(t, pgStoreFor(t)) })
}

// pgStoreFor opens fresh PostgreSQL stores on the shared server.
func pgStoreFor(t *testing.T) storeFor {
	srv := pgtest.Shared(t)
	return func(t testing.TB) Store {
		st, err := openPostgres(context.Background(), srv.Database(t), nil)
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
}

// storeRows reads every table of the store as sorted text rows, by table:
// the SQLite store's tables, and the same columns of the PostgreSQL
// store's, each value as text (bytes as \x and hex, NULL as NULL).
func storeRows(t *testing.T, st Store, tables map[string][]string) map[string][]string {
	t.Helper()
	ctx := context.Background()
	out := map[string][]string{}
	for table, cols := range tables {
		var rows []string
		switch s := st.(type) {
		case *sqliteStore:
			r, err := s.r.QueryContext(ctx, `SELECT `+strings.Join(cols, ", ")+` FROM `+table)
			if err != nil {
				t.Fatal(err)
			}
			for r.Next() {
				vals := make([]any, len(cols))
				ptrs := make([]any, len(cols))
				for i := range vals {
					ptrs[i] = &vals[i]
				}
				if err := r.Scan(ptrs...); err != nil {
					t.Fatal(err)
				}
				var row []string
				for _, v := range vals {
					switch v := v.(type) {
					case nil:
						row = append(row, "NULL")
					case []byte:
						row = append(row, `\x`+hex.EncodeToString(v))
					default:
						row = append(row, fmt.Sprint(v))
					}
				}
				rows = append(rows, strings.Join(row, "|"))
			}
			r.Close()
		case *pgStore:
			sel := make([]string, len(cols))
			for i, c := range cols {
				sel[i] = `COALESCE("` + c + `"::text, 'NULL')`
			}
			r, err := s.pool.Query(ctx, `SELECT `+strings.Join(sel, ` || '|' || `)+` FROM `+table)
			if err != nil {
				t.Fatal(err)
			}
			for r.Next() {
				var row string
				if err := r.Scan(&row); err != nil {
					t.Fatal(err)
				}
				rows = append(rows, row)
			}
			r.Close()
		}
		slices.Sort(rows)
		out[table] = rows
	}
	return out
}

// sqliteTables lists the SQLite store's tables and their columns.
func sqliteTables(t *testing.T, st *sqliteStore) map[string][]string {
	t.Helper()
	names, err := st.strings(context.Background(), `SELECT name FROM sqlite_master WHERE type='table' ORDER BY name`)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for _, n := range names {
		cols, err := st.strings(context.Background(), `SELECT name FROM pragma_table_info(?) ORDER BY cid`, n)
		if err != nil {
			t.Fatal(err)
		}
		out[n] = cols
	}
	return out
}

// TestStoresEqual: the same random P/X history (transfers, exports and
// imports, an import stored before its export, a rollback of each chain),
// written through the index into SQLite and into PostgreSQL, leaves equal
// rows in every table, and every listing the queries page through (each
// address's transactions on each chain, in both orders, a page of 7 at a
// time from each page's last position, with each page's parts; its UTXOs,
// spent or not) answers
// the same from both.
func TestStoresEqual(t *testing.T) {
	ctx := context.Background()
	net := avanet.Network{ID: 12345, Name: "local", HRP: "local", XChainID: fakeX.String(), CChainID: fakeC.String(), AVAXAssetID: fakeAVAX.String()}
	pg := pgStoreFor(t)
	var ixs [2]*Index
	var worlds [2]*addrWorld
	for i, st := range []Store{nil, pg(t)} {
		ix, err := Open(ctx, Options{Network: &net, Path: Memory, Store: st})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ix.Close() })
		w := &addrWorld{t: t, ix: ix, net: net, r: rand.New(rand.NewPCG(3, 30)), heights: map[avanet.Chain]uint64{}, unspent: map[avanet.Chain][]addrUTXO{}}
		for a := range 5 {
			w.addrs = append(w.addrs, avax.ShortID{0xad, byte(a)})
		}
		w.genesis()
		w.steps(400)
		e, export := w.export()
		xb := w.block(avanet.ChainX, export)
		w.append(avanet.ChainP, w.block(avanet.ChainP, w.importTx(e)))
		w.append(avanet.ChainX, xb)
		ixs[i], worlds[i] = ix, w
	}
	compareStores(t, ixs, worlds[0].addrs, "after 400 txs")
	for _, ix := range ixs {
		if err := ix.st.Rollback(ctx, net.AVAXAssetID, avanet.ChainP, int64(worlds[0].heights[avanet.ChainP]/2)); err != nil {
			t.Fatal(err)
		}
		if err := ix.st.Rollback(ctx, net.AVAXAssetID, avanet.ChainX, int64(worlds[0].heights[avanet.ChainX])-20); err != nil {
			t.Fatal(err)
		}
	}
	compareStores(t, ixs, worlds[0].addrs, "after a rollback of each chain")
}

// compareStores compares the two indexes' rows and listings.
func compareStores(t *testing.T, ixs [2]*Index, addrs []avax.ShortID, when string) {
	t.Helper()
	ctx := context.Background()
	tables := sqliteTables(t, sqliteOf(ixs[0]))
	a, b := storeRows(t, ixs[0].st, tables), storeRows(t, ixs[1].st, tables)
	for table := range tables {
		if !slices.Equal(a[table], b[table]) {
			t.Errorf("%s: table %s: SQLite has %d rows, PostgreSQL %d; first differing:\n%s", when, table, len(a[table]), len(b[table]), firstDiff(a[table], b[table]))
		}
	}
	if len(a["txs"]) < 250 || len(a["addr_txs"]) < 400 {
		t.Fatalf("%s: %d txs, %d addr_txs rows: the world is not what the test means", when, len(a["txs"]), len(a["addr_txs"]))
	}
	answers := func(ix *Index) string {
		var sb strings.Builder
		put := func(v any, err error) {
			if err != nil {
				t.Fatal(err)
			}
			j, _ := json.Marshal(v)
			sb.Write(j)
			sb.WriteByte('\n')
		}
		for _, c := range []avanet.Chain{avanet.ChainP, avanet.ChainX} {
			for _, sets := range [][]avax.ShortID{addrs[:1], addrs[1:3], nil} {
				for _, asc := range []bool{false, true} {
					f := TxFilter{Addrs: sets, BlockRange: BlockRange{Limit: 7, Asc: asc}}
					for range 200 {
						txs, err := ix.Txs(ctx, c, f)
						put(txs, err)
						put(ix.TxsParts(ctx, txs))
						if len(txs) < 7 {
							break
						}
						last := txs[len(txs)-1]
						f.After = new(Pos)
						*f.After = PosOf(last.Height, last.Index)
					}
				}
			}
			for _, spent := range []bool{false, true} {
				put(ix.UTXOs(ctx, c, addrs, spent))
			}
			put(ix.Blocks(ctx, c, BlockRange{Limit: 10}))
			act, ok, err := ix.LastActivity(ctx, c, addrs[:2])
			put([]any{act, ok}, err)
		}
		put(ix.Totals(ctx))
		put(ix.Stakes(ctx))
		return sb.String()
	}
	if x, y := answers(ixs[0]), answers(ixs[1]); x != y {
		xs, ys := strings.Split(x, "\n"), strings.Split(y, "\n")
		t.Errorf("%s: the listings differ:\n%s", when, firstDiff(xs, ys))
	}
}

// firstDiff shows the first line where a and b differ.
func firstDiff(a, b []string) string {
	for i := range max(len(a), len(b)) {
		var x, y string
		if i < len(a) {
			x = a[i]
		}
		if i < len(b) {
			y = b[i]
		}
		if x != y {
			return fmt.Sprintf("  line %d\n  sqlite:   %.300s\n  postgres: %.300s", i, x, y)
		}
	}
	return "(none)"
}

// eachStoreAt runs fn once on each store, reopened at each call of open:
// a SQLite file of the test, a PostgreSQL database of the shared server.
func eachStoreAt(t *testing.T, fn func(t *testing.T, open func() Store)) {
	t.Run("sqlite", func(t *testing.T) {
		path := t.TempDir() + "/pindex.db"
		fn(t, func() Store {
			st, err := openSQLite(path)
			if err != nil {
				t.Fatal(err)
			}
			return st
		})
	})
	t.Run("postgres", func(t *testing.T) {
		url := pgtest.Shared(t).Database(t)
		fn(t, func() Store {
			st, err := openPostgres(context.Background(), url, nil)
			if err != nil {
				t.Fatal(err)
			}
			return st
		})
	})
}
