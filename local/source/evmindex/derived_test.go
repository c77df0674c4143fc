package evmindex

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// derivedTables are the rows schema version 2 derives from what earlier
// versions stored, as "table: ordered columns".
var derivedTables = []string{
	"address_txs: chain_id, address, block_number, tx_index, native, spam",
	"address_internals: chain_id, address, seq, tx_hash, idx",
	"collection_tokens: chain_id, contract, token_id, first_seq",
	"contracts: chain_id, address, origin, seq",
	"nft_owners: chain_id, contract, token_id, seq",
	"erc1155_balances: chain_id, owner, contract, token_id, seq",
	"untraced_blocks: chain_id, number, reason",
}

// dumpDerived returns the derived rows of the store at db, one line each.
func dumpDerived(t testing.TB, db *sql.DB) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for _, d := range derivedTables {
		table, cols, _ := strings.Cut(d, ": ")
		rows, err := db.Query(`SELECT ` + cols + ` FROM ` + table + ` ORDER BY ` + cols)
		if err != nil {
			t.Fatal(err)
		}
		n := strings.Count(cols, ",") + 1
		for rows.Next() {
			vals := make([]any, n)
			ptrs := make([]any, n)
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			out[table] = append(out[table], fmt.Sprintf("%x", vals))
		}
		rows.Close()
	}
	return out
}

// downgrade turns the store at path back into a version 1 store: the tables,
// columns and indexes of version 2 removed.
func downgrade(t testing.TB, path string) {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range []string{
		`DROP TABLE address_txs`, `DROP TABLE address_internals`, `DROP TABLE collection_tokens`,
		`DROP INDEX txs_pos`, `DROP INDEX txs_failed`, `DROP INDEX blocks_time`,
		`DROP INDEX contracts_origin`, `DROP INDEX contracts_deployer`, `DROP INDEX nft_owners_seq`, `DROP INDEX erc1155_balances_seq`,
		`DROP INDEX nft_owners_contract_seq`, `DROP INDEX erc1155_balances_contract_seq`,
		`DELETE FROM untraced_blocks WHERE reason = '` + noTracerReason + `'`,
		`ALTER TABLE contracts DROP COLUMN origin`, `ALTER TABLE contracts DROP COLUMN seq`,
		`ALTER TABLE nft_owners DROP COLUMN seq`, `ALTER TABLE erc1155_balances DROP COLUMN seq`,
		`CREATE INDEX txs_block ON txs (chain_id, block_number)`,
		`PRAGMA user_version = 0`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

// checkDerived checks that what the indexer wrote into ix's listings is
// exactly what the migration derives from the rows they come from: a copy
// of the store is downgraded to version 1 and opened again. A PostgreSQL
// store has no such migration (its schema starts at the listings): there
// is nothing to check.
func checkDerived(t testing.TB, ix *Index) {
	t.Helper()
	if _, ok := ix.st.(*sqliteStore); !ok {
		return
	}
	path := filepath.Join(t.TempDir(), "copy.db")
	sqliteOf(ix).mu.Lock()
	_, err := sqliteOf(ix).w.Exec(`VACUUM INTO ?`, path)
	sqliteOf(ix).mu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	want := dumpDerived(t, sqliteOf(ix).r)
	downgrade(t, path)
	mig, err := Open(context.Background(), Options{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	defer mig.Close()
	got := dumpDerived(t, sqliteOf(mig).r)
	for _, d := range derivedTables {
		table, _, _ := strings.Cut(d, ": ")
		if strings.Join(got[table], "\n") != strings.Join(want[table], "\n") {
			t.Errorf("%s: the migration derives\n%s\nthe indexer wrote\n%s", table, strings.Join(got[table], "\n"), strings.Join(want[table], "\n"))
		}
	}
	if len(want["address_txs"]) == 0 {
		t.Error("no address_txs rows to compare")
	}
}
