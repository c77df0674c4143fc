package pindex

import (
	"database/sql"
	"errors"
	"math"
	"strconv"

	"github.com/avaedge/avaedge/avanet"
)

// Burned fees are totalled per transaction as blocks are stored. A
// transaction that spent a UTXO the index does not hold yet (an import
// whose export the other chain's follower has not stored) waits in
// burn_pending and is totalled once the UTXO is stored; one whose UTXO
// never will be (a P-avanet.Chain genesis allocation of a followed network, which
// no block lists) waits for ever and is never totalled.

// addBurned totals the fees of chain's blocks from..to, and of the pending
// transactions (of either chain) whose UTXOs are all stored now, within
// the store transaction tx of those blocks.
func addBurned(tx *sql.Tx, avaxID string, chain avanet.Chain, from, to uint64) error {
	fresh, err := burnedBy(tx, avaxID, `s.chain = ? AND s.height BETWEEN ? AND ?`, string(chain), int64(from), int64(min(to, math.MaxInt64)))
	if err != nil {
		return err
	}
	pending, err := burnedBy(tx, avaxID, `s.tx IN (SELECT tx FROM burn_pending)`)
	if err != nil {
		return err
	}
	return totalBurned(tx, append(fresh, pending...), "")
}

// resetBurned totals chain's burned fees afresh (after a rollback, or for a
// store written before they were kept).
func resetBurned(tx *sql.Tx, avaxID string, chain avanet.Chain) error {
	if _, err := tx.Exec(`DELETE FROM burn_pending WHERE chain = ?`, string(chain)); err != nil {
		return err
	}
	all, err := burnedBy(tx, avaxID, `s.chain = ?`, string(chain))
	if err != nil {
		return err
	}
	return totalBurned(tx, all, chain)
}

// txBurn is what one transaction burned, or that it spent a UTXO the index
// does not hold (missing).
type txBurn struct {
	tx, chain string
	height    int64
	burned    uint64
	missing   bool
}

// totalBurned adds the complete transactions' fees to their chains'
// totals (reset's set afresh), and keeps the others pending.
func totalBurned(tx *sql.Tx, burns []txBurn, reset avanet.Chain) error {
	add := map[string]uint64{}
	for _, b := range burns {
		if b.missing {
			if _, err := tx.Exec(`INSERT OR IGNORE INTO burn_pending (tx, chain, height) VALUES (?,?,?)`, b.tx, b.chain, b.height); err != nil {
				return err
			}
			continue
		}
		add[b.chain] += b.burned
		if _, err := tx.Exec(`DELETE FROM burn_pending WHERE tx = ?`, b.tx); err != nil {
			return err
		}
	}
	for _, c := range []string{string(avanet.ChainP), string(avanet.ChainX)} {
		if _, ok := add[c]; !ok && c != string(reset) {
			continue
		}
		var cur uint64
		var s string
		switch err := tx.QueryRow(`SELECT value FROM meta WHERE key=?`, "burned:"+c).Scan(&s); {
		case c == string(reset) || errors.Is(err, sql.ErrNoRows):
		case err != nil:
			return err
		default:
			if cur, err = parseMetaUint("burned:"+c, s); err != nil {
				return err
			}
		}
		if _, err := tx.Exec(upsertMeta, "burned:"+c, strconv.FormatUint(cur+add[c], 10)); err != nil {
			return err
		}
	}
	return nil
}

// burnedBy returns what the transactions that spent the UTXOs the spends
// (s) where selects burned, in AVAX (avaxID): the AVAX of the UTXOs each
// spent less that of the outputs it made (not the UTXOs it paid without
// spending: rewards, returned L1 balances) and the L1 balances it gave.
// The unary + on i.tx drops its TEXT affinity, without which SQLite cannot
// search utxos_emitted by it and scans every UTXO for each transaction.
func burnedBy(tx *sql.Tx, avaxID, where string, args ...any) ([]txBurn, error) {
	rows, err := tx.Query(`WITH
		i AS (SELECT s.tx, s.chain, MAX(s.height) AS height,
				SUM(CASE WHEN u.asset = ? THEN CAST(u.amount AS INTEGER) ELSE 0 END) AS v, COUNT(*) - COUNT(u.id) AS missing
			FROM spends s LEFT JOIN utxos u ON u.id = s.utxo WHERE `+where+` GROUP BY s.tx)
		SELECT i.tx, i.chain, i.height, i.missing, i.v
			- COALESCE((SELECT SUM(CAST(o.amount AS INTEGER)) FROM utxos o WHERE COALESCE(o.emitted_by, o.tx) = +i.tx AND o.emitted_by IS NULL AND o.asset = ?), 0)
			- COALESCE((SELECT SUM(l.balance) FROM l1_txs l WHERE l.tx = i.tx), 0)
		FROM i`, append(append([]any{avaxID}, args...), avaxID)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	return scanBurns(rows)
}
