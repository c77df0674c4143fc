package pindex

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/avaedge/avaedge/avanet"
)

// Supply is the primary network's AVAX supply as the followed node last
// reported it (platform.getCurrentSupply): the genesis supply plus the
// potential rewards of every staker the P-Chain added (less those of
// stakes that ended without their reward), in nAVAX, at P-Chain height
// Height, read at Time (Unix seconds).
type Supply struct {
	Current uint64 `json:"supply"`
	Height  uint64 `json:"height"`
	Time    int64  `json:"time"`
}

// RecordSupply stores the node's platform.getCurrentSupply now.
func (ix *Index) RecordSupply(ctx context.Context) error {
	var r struct {
		Supply string `json:"supply"`
		Height string `json:"height"`
	}
	if err := ix.rpc.Call(ctx, pathP, "platform.getCurrentSupply", nil, &r); err != nil {
		return err
	}
	s := Supply{Time: ix.now().Unix()}
	var err error
	if s.Current, err = strconv.ParseUint(r.Supply, 10, 64); err != nil {
		return fmt.Errorf("platform.getCurrentSupply: supply %q: %w", r.Supply, err)
	}
	if s.Height, err = parseHeight(r.Height); err != nil {
		return fmt.Errorf("platform.getCurrentSupply: %w", err)
	}
	b, _ := json.Marshal(s)
	ix.writeMu.Lock()
	defer ix.writeMu.Unlock()
	return ix.st.setMeta("supply", string(b))
}

// Supply returns the node's supply as last recorded; ok is false when it
// never was (a generated network's index).
func (ix *Index) Supply(ctx context.Context) (Supply, bool, error) {
	var s Supply
	var v string
	err := ix.st.r.QueryRowContext(ctx, `SELECT value FROM meta WHERE key='supply'`).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return s, false, nil
	}
	if err != nil {
		return s, false, err
	}
	if err := json.Unmarshal([]byte(v), &s); err != nil {
		return s, false, fmt.Errorf("pindex: stored supply %q: %w", v, err)
	}
	return s, true, nil
}

// Totals are AVAX amounts of the whole index, in nAVAX.
type Totals struct {
	// BurnedP and BurnedX are the transaction fees the P- and X-Chain
	// burned: what each transaction spent beyond what it made (its
	// outputs, exported and staked ones included) and, on the P-Chain,
	// the balances it gave L1 validators. A transaction that spent a UTXO
	// the index does not hold (a P-Chain genesis allocation of a followed
	// network, which no block lists) is not counted.
	BurnedP, BurnedX uint64
	// Rewards are the staking rewards paid (the reward UTXOs).
	Rewards uint64
	// L1Given are the balances transactions gave L1 validators; L1Returned
	// what DisableL1ValidatorTxs returned of them.
	L1Given, L1Returned uint64
}

// Totals sums the index's burned fees, rewards and L1 validator balances.
// The burned fees are kept per chain as blocks are stored (meta
// "burned:P", "burned:X"), the others are read from their few rows.
func (ix *Index) Totals(ctx context.Context) (Totals, error) {
	var t Totals
	for _, c := range []struct {
		key string
		dst *uint64
	}{{"burned:P", &t.BurnedP}, {"burned:X", &t.BurnedX}} {
		var v string
		err := ix.st.r.QueryRowContext(ctx, `SELECT value FROM meta WHERE key=?`, c.key).Scan(&v)
		if errors.Is(err, sql.ErrNoRows) {
			continue
		}
		if err != nil {
			return t, err
		}
		if *c.dst, err = strconv.ParseUint(v, 10, 64); err != nil {
			return t, fmt.Errorf("pindex: meta %s %q: %w", c.key, v, err)
		}
	}
	var rewards, returned, given int64
	err := ix.st.r.QueryRowContext(ctx, `SELECT
		(SELECT COALESCE(SUM(CAST(amount AS INTEGER)), 0) FROM utxos WHERE reward IS NOT NULL AND reward != ''),
		(SELECT COALESCE(SUM(CAST(amount AS INTEGER)), 0) FROM utxos WHERE emitted_by IS NOT NULL AND (reward IS NULL OR reward = '')),
		(SELECT COALESCE(SUM(balance), 0) FROM l1_txs)`).Scan(&rewards, &returned, &given)
	t.Rewards, t.L1Returned, t.L1Given = uint64(rewards), uint64(returned), uint64(given)
	return t, err
}

// LockedAVAX sums the unspent AVAX UTXOs of the P- and X-Chain (shared
// memory included) that are locked at now (Unix seconds): time-locked, or
// stakeable-locked and not staked.
func (ix *Index) LockedAVAX(ctx context.Context, now int64) (uint64, error) {
	var v int64
	err := ix.st.r.QueryRowContext(ctx, `SELECT COALESCE(SUM(CAST(u.amount AS INTEGER)), 0) FROM utxos u LEFT JOIN spends s ON s.utxo = u.id
		WHERE (u.locktime > 0 OR u.stake_locktime > 0) AND (u.locktime > ? OR (u.stake_locktime > ? AND u.staked = 0))
		AND s.utxo IS NULL AND u.asset = ? AND u.chain != 'C'`, now, now, ix.net.AVAXAssetID).Scan(&v)
	return uint64(v), err
}

// Burned fees are totalled per transaction as blocks are stored. A
// transaction that spent a UTXO the index does not hold yet (an import
// whose export the other chain's follower has not stored) waits in
// burn_pending and is totalled once the UTXO is stored; one whose UTXO
// never will be (a P-Chain genesis allocation of a followed network, which
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
			if cur, err = strconv.ParseUint(s, 10, 64); err != nil {
				return fmt.Errorf("pindex: meta burned:%s %q: %w", c, s, err)
			}
		}
		if _, err := tx.Exec(`INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value=excluded.value`,
			"burned:"+c, strconv.FormatUint(cur+add[c], 10)); err != nil {
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
	var out []txBurn
	for rows.Next() {
		var b txBurn
		var missing, v int64
		if err := rows.Scan(&b.tx, &b.chain, &b.height, &missing, &v); err != nil {
			return nil, err
		}
		b.missing, b.burned = missing > 0, uint64(max(v, 0))
		out = append(out, b)
	}
	return out, rows.Err()
}
