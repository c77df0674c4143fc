package pindex

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
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
	if err := ix.rpc.call(ctx, pathP, "platform.getCurrentSupply", nil, &r); err != nil {
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
		AND s.utxo IS NULL AND u.asset = ? AND u.chain != 'C'`, now, now, ix.net.Avax).Scan(&v)
	return uint64(v), err
}

// addBurned adds the fees chain's blocks from..to burned to the chain's
// total, within the store transaction tx of those blocks.
func addBurned(tx *sql.Tx, avaxID string, chain Chain, from, to uint64) error {
	v, err := burnedIn(tx, avaxID, chain, int64(from), int64(min(to, math.MaxInt64)))
	if err != nil {
		return err
	}
	var cur uint64
	var s string
	switch err := tx.QueryRow(`SELECT value FROM meta WHERE key=?`, "burned:"+string(chain)).Scan(&s); {
	case err == nil:
		if cur, err = strconv.ParseUint(s, 10, 64); err != nil {
			return fmt.Errorf("pindex: meta burned:%s %q: %w", chain, s, err)
		}
	case !errors.Is(err, sql.ErrNoRows):
		return err
	}
	return setBurned(tx, chain, cur+v)
}

// resetBurned totals chain's burned fees afresh (after a rollback, or for a
// store written before they were kept).
func resetBurned(tx *sql.Tx, avaxID string, chain Chain) error {
	v, err := burnedIn(tx, avaxID, chain, 0, math.MaxInt64)
	if err != nil {
		return err
	}
	return setBurned(tx, chain, v)
}

func setBurned(tx *sql.Tx, chain Chain, v uint64) error {
	_, err := tx.Exec(`INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value=excluded.value`,
		"burned:"+string(chain), strconv.FormatUint(v, 10))
	return err
}

// burnedIn sums the AVAX chain's transactions at heights from..to burned:
// per transaction, the AVAX of the UTXOs it spent less that of the outputs
// it made (not the UTXOs it paid without spending, rewards and returned L1
// balances) and the L1 balances it gave, when the index holds every UTXO it
// spent.
func burnedIn(tx *sql.Tx, avaxID string, chain Chain, from, to int64) (uint64, error) {
	var v int64
	err := tx.QueryRow(`WITH
		i AS (SELECT s.tx, SUM(CASE WHEN u.asset = ?1 THEN CAST(u.amount AS INTEGER) ELSE 0 END) AS v, COUNT(*) - COUNT(u.id) AS missing
			FROM spends s LEFT JOIN utxos u ON u.id = s.utxo WHERE s.chain = ?2 AND s.height BETWEEN ?3 AND ?4 GROUP BY s.tx),
		o AS (SELECT tx, SUM(CAST(amount AS INTEGER)) AS v FROM utxos
			WHERE created_on = ?2 AND height BETWEEN ?3 AND ?4 AND emitted_by IS NULL AND asset = ?1 GROUP BY tx),
		l AS (SELECT tx, SUM(balance) AS v FROM l1_txs WHERE height BETWEEN ?3 AND ?4 GROUP BY tx)
		SELECT COALESCE(SUM(MAX(0, i.v - COALESCE(o.v, 0) - COALESCE(l.v, 0))), 0)
		FROM i LEFT JOIN o ON o.tx = i.tx LEFT JOIN l ON l.tx = i.tx WHERE i.missing = 0`,
		avaxID, string(chain), from, to).Scan(&v)
	return uint64(v), err
}
