package pindex

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"log/slog"
	"strconv"
	"time"

	"github.com/avaedge/avaedge/avanet"
)

// schemaVersion is the version of the derived tables a store holds (meta
// "schema"; a store without it is version 1). Version 3 added the address
// tables (addr_txs, utxo_unspent), filled from the UTXO rows.
const schemaVersion = 3

// Upgrade derives the lookup tables and the burned fees of a store an
// earlier version wrote from the transactions it holds, in one store
// transaction, and records the version.
func (st *sqliteStore) Upgrade(ctx context.Context, avaxID string, log *slog.Logger) error {
	v := 1
	switch s, ok, err := st.Meta("schema"); {
	case err != nil:
		return err
	case ok:
		if v, err = strconv.Atoi(s); err != nil {
			return fmt.Errorf("meta schema %q: %w", s, err)
		}
	}
	if v >= schemaVersion {
		return nil
	}
	start := time.Now()
	tx, err := st.w.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	n := 0
	if v < 2 {
		if n, err = deriveAll(tx, avaxID); err != nil {
			return err
		}
	}
	if v < 3 {
		if err := fillAddressTables(tx); err != nil {
			return fmt.Errorf("address tables: %w", err)
		}
	}
	if _, err := tx.Exec(upsertMeta, "schema", strconv.Itoa(schemaVersion)); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	if v > 1 || n > 0 { // a new store has nothing to upgrade
		log.Info("store upgraded", "from", v, "to", schemaVersion, "txs", n, "took", time.Since(start).Round(time.Millisecond))
	}
	return nil
}

// fillAddressTables fills addr_txs and utxo_unspent from the UTXO, spend
// and transaction rows of a store written before them. The transactions
// are walked in their covering index and each one's UTXOs found by key (its
// rows overflow: looking them up one by one is four times slower), the
// owners split from the UTXO's stored addresses (CB58, never quoted), and
// the rows inserted in key order: 101 s for 1,000,000 transactions.
func fillAddressTables(tx *sql.Tx) error {
	const owners = `json_each('["' || replace(u.addresses, ',', '","') || '"]') j`
	for _, q := range []string{
		// +t.id: without affinity, as utxos_emitted's expression is.
		`INSERT OR IGNORE INTO addr_txs (addr, chain, height, idx, tx)
			SELECT j.value, t.chain, t.height, t.idx, t.id FROM txs t INDEXED BY txs_height
			CROSS JOIN utxos u ON COALESCE(u.emitted_by, u.tx) = +t.id CROSS JOIN ` + owners + `
			WHERE u.addresses != '' ORDER BY 1, 2, 3, 4`,
		`INSERT OR IGNORE INTO addr_txs (addr, chain, height, idx, tx)
			SELECT j.value, t.chain, t.height, t.idx, t.id FROM txs t INDEXED BY txs_height
			CROSS JOIN spends s INDEXED BY spends_tx ON s.tx = t.id CROSS JOIN utxos u ON u.id = s.utxo CROSS JOIN ` + owners + `
			WHERE u.addresses != '' ORDER BY 1, 2, 3, 4`,
		`INSERT OR IGNORE INTO utxo_unspent (addr, chain, utxo, created_on, height)
			SELECT a.addr, a.chain, a.utxo, a.created_on, a.height FROM utxo_addrs a WHERE NOT EXISTS (SELECT 1 FROM spends s WHERE s.utxo = a.utxo)`,
	} {
		if _, err := tx.Exec(q); err != nil {
			return err
		}
	}
	return nil
}

// deriveAll derives the version 2 tables (asset_txs, l1_txs, the assets'
// kinds and the burned fees) from every stored transaction; it returns how
// many it read.
func deriveAll(tx *sql.Tx, avaxID string) (int, error) {
	rows, err := tx.Query(`SELECT id, chain, height, idx, type, body FROM txs ORDER BY chain, height, idx`)
	if err != nil {
		return 0, err
	}
	type stored struct {
		id, chain, typ string
		height         uint64
		idx            int
		body           string
	}
	var all []stored
	for rows.Next() {
		var t stored
		if err := rows.Scan(&t.id, &t.chain, &t.height, &t.idx, &t.typ, &t.body); err != nil {
			rows.Close()
			return 0, err
		}
		all = append(all, t)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, err
	}
	w := &writer{b: &sqliteBatch{tx: tx}}
	for _, t := range all {
		var body struct {
			Unsigned unsignedJSON `json:"unsignedTx"`
		}
		if err := json.Unmarshal([]byte(t.body), &body); err != nil {
			return 0, fmt.Errorf("tx %s: %w", t.id, err)
		}
		w.chain, w.height = avanet.Chain(t.chain), t.height
		if err := w.derive(t.typ, t.id, t.idx, &body.Unsigned); err != nil {
			return 0, fmt.Errorf("tx %s: %w", t.id, err)
		}
		if t.typ == TxCreateAsset {
			capKind, assetType := assetKind(&body.Unsigned)
			if _, err := tx.Exec(`UPDATE assets SET cap=?, type=? WHERE id=?`, capKind, assetType, t.id); err != nil {
				return 0, err
			}
		}
	}
	for _, c := range []avanet.Chain{avanet.ChainP, avanet.ChainX} {
		if err := resetBurned(tx, avaxID, c); err != nil {
			return 0, err
		}
	}
	return len(all), nil
}
