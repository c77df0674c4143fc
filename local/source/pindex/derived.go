package pindex

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"log/slog"
	"strconv"
	"time"

	"github.com/avaedge/avaedge/avanet"
	"github.com/avaedge/avaedge/local/vocab/warpmsg"
)

// What a transaction adds to the lookup tables beyond its own rows: the
// assets an X-Chain transaction moved (asset_txs, which listAssetTransactions
// reads in block order) and the L1 validations a P-Chain transaction made or
// changed, with the balance it gave each (l1_txs, for the transactions list's
// l1ValidationId filter and the L1 validators' fees). The write path derives
// them from each transaction's JSON; a store written before they existed is
// derived once, at open, from the transactions it holds (schemaVersion).

// schemaVersion is the version of the derived tables a store holds (meta
// "schema"; a store without it is version 1). Version 3 added the address
// tables (addr_txs, utxo_unspent), filled from the UTXO rows.
const schemaVersion = 3

// derive stores the lookup rows of transaction id, of type typ, at position
// idx of the block being applied.
func (w *writer) derive(typ, id string, idx int, u *unsignedJSON) error {
	if w.chain == avanet.ChainX {
		for _, asset := range movedAssets(typ, id, u) {
			if err := w.exec(`INSERT OR IGNORE INTO asset_txs (asset, height, idx, tx) VALUES (?,?,?,?)`, asset, w.height, idx, id); err != nil {
				return err
			}
		}
		return nil
	}
	changes, err := l1Changes(typ, u)
	if err != nil {
		return err
	}
	for _, c := range changes {
		if err := w.exec(`INSERT OR REPLACE INTO l1_txs (validation_id, tx, balance, height) VALUES (?,?,?,?)`,
			c.validationID, id, int64(c.balance), w.height); err != nil {
			return err
		}
	}
	return nil
}

// movedAssets are the assets an X-Chain transaction spent or made, in the
// order they first appear; a CreateAssetTx's own asset first.
func movedAssets(typ, id string, u *unsignedJSON) []string {
	var out []string
	add := func(a string) {
		for _, x := range out {
			if x == a {
				return
			}
		}
		out = append(out, a)
	}
	if typ == TxCreateAsset {
		add(id)
	}
	for _, ins := range [][]transferableInJSON{u.Inputs, u.ImportedInputs} {
		for _, in := range ins {
			add(in.AssetID)
		}
	}
	for _, outs := range [][]transferableOutJSON{u.Outputs, u.ExportedOutputs} {
		for _, o := range outs {
			add(o.AssetID)
		}
	}
	for _, op := range u.Operations {
		add(op.AssetID)
	}
	return out
}

// l1Change is an L1 validation a transaction made or changed, and the
// balance it gave it.
type l1Change struct {
	validationID string
	balance      uint64
}

// l1Changes are the L1 validations a P-Chain transaction of type typ made
// or changed.
func l1Changes(typ string, u *unsignedJSON) ([]l1Change, error) {
	switch typ {
	case TxConvertSubnetToL1:
		subnet, err := parseID(u.SubnetID)
		if err != nil {
			return nil, err
		}
		out := make([]l1Change, len(u.Validators))
		for i, v := range u.Validators {
			out[i] = l1Change{subnet.Append(uint32(i)).String(), v.Balance}
		}
		return out, nil
	case TxRegisterL1Validator, TxSetL1ValidatorWeight:
		m, err := l1Message(u.Message)
		if err != nil {
			return nil, err
		}
		switch m := m.(type) {
		case *warpmsg.RegisterL1Validator:
			return []l1Change{{hexID(m.ValidationID()), deref(u.Balance)}}, nil
		case *warpmsg.L1ValidatorWeight:
			return []l1Change{{hexID(m.ValidationID), 0}}, nil
		}
		return nil, fmt.Errorf("%s carries a %T", typ, m)
	case TxIncreaseL1ValidatorBalance:
		return []l1Change{{u.ValidationID, deref(u.Balance)}}, nil
	case TxDisableL1Validator:
		return []l1Change{{u.ValidationID, 0}}, nil
	}
	return nil, nil
}

// assetKind reads a CreateAssetTx's initial states: its cap is variable when
// some output is a minter (no amount), its type nft when some output is an
// nftfx one (a group id).
func assetKind(u *unsignedJSON) (capKind, assetType string) {
	capKind, assetType = "fixed", "secp256k1"
	for _, st := range u.InitialStates {
		for _, o := range st.Outputs {
			if o.GroupID != nil {
				assetType = "nft"
			}
			if o.Amount == nil && o.Output == nil {
				capKind = "variable"
			}
		}
	}
	return capKind, assetType
}

// upgrade derives the lookup tables and the burned fees of a store an
// earlier version wrote from the transactions it holds, in one store
// transaction, and records the version.
func upgrade(db *sql.DB, avaxID string, log *slog.Logger) error {
	v := 1
	var s string
	switch err := db.QueryRow(`SELECT value FROM meta WHERE key='schema'`).Scan(&s); {
	case err == nil:
		if v, err = strconv.Atoi(s); err != nil {
			return fmt.Errorf("meta schema %q: %w", s, err)
		}
	case err != sql.ErrNoRows:
		return err
	}
	if v >= schemaVersion {
		return nil
	}
	start := time.Now()
	tx, err := db.Begin()
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
	if _, err := tx.Exec(`INSERT INTO meta (key, value) VALUES ('schema', ?) ON CONFLICT(key) DO UPDATE SET value=excluded.value`,
		strconv.Itoa(schemaVersion)); err != nil {
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
	w := &writer{tx: tx}
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
