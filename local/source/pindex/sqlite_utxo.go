package pindex

import (
	"context"
	"strings"

	"github.com/avaedge/avaedge/avanet"
	"github.com/avaedge/avaedge/local/vocab/avax"
)

// UTXOs returns the UTXOs of chain that any of addrs may spend, oldest
// first; spent ones too when includeSpent.
func (st *sqliteStore) UTXOs(ctx context.Context, chain avanet.Chain, addrs []avax.ShortID, includeSpent bool) ([]*UTXO, error) {
	if len(addrs) == 0 {
		return nil, nil
	}
	marks := strings.Repeat("?,", len(addrs))
	args := []any{string(chain)}
	for _, a := range addrs {
		args = append(args, a.String())
	}
	// The unspent ones are read from utxo_unspent: an address's spent
	// UTXOs (all but one of a busy sender's) are never visited.
	table := "utxo_unspent"
	if includeSpent {
		table = "utxo_addrs"
	}
	q := `SELECT ` + utxoColumns + `
		FROM utxos u LEFT JOIN spends s ON s.utxo = u.id
		WHERE u.id IN (SELECT utxo FROM ` + table + ` WHERE chain=? AND addr IN (` + marks[:len(marks)-1] + `))`
	if !includeSpent {
		q += ` AND s.utxo IS NULL`
	}
	return st.queryUTXOs(ctx, q+` ORDER BY u.time, u.created_on, u.height, u.id`, args...)
}

// utxoColumns are the columns queryUTXOs scans: the UTXO (u) and its spend
// (s, left joined).
const utxoColumns = `u.id, u.chain, u.created_on, u.tx, u.output_index, u.asset, u.amount, u.locktime, u.threshold, u.addresses,
			u.stake_locktime, u.staked, u.stake_start, u.stake_end, u.bytes, u.height, u.time, COALESCE(u.reward, ''), COALESCE(u.emitted_by, u.tx),
			s.tx, s.chain, s.height, s.time, (SELECT MIN(e.time) FROM stake_ends e WHERE e.stake = u.tx AND u.staked = 1), u.emitted_by IS NOT NULL`

// queryUTXOsPrepared runs the fixed query q, which selects utxoColumns, as
// a prepared statement.
func (st *sqliteStore) queryUTXOsPrepared(ctx context.Context, q string, args ...any) ([]*UTXO, error) {
	stmt, err := st.prepared(ctx, q)
	if err != nil {
		return nil, err
	}
	rows, err := stmt.QueryContext(ctx, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	return scanUTXORows(rows)
}

// ChainsOf returns the chains (P, X, C) on which addr owns or owned a UTXO.
func (st *sqliteStore) ChainsOf(ctx context.Context, addr avax.ShortID) ([]avanet.Chain, error) {
	rows, err := st.r.QueryContext(ctx, `SELECT DISTINCT chain FROM utxo_addrs WHERE addr=? ORDER BY chain`, addr.String())
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []avanet.Chain
	for rows.Next() {
		var c string
		if err := rows.Scan(&c); err != nil {
			return nil, err
		}
		out = append(out, avanet.Chain(c))
	}
	return out, rows.Err()
}

// TxUTXOs returns the UTXOs a transaction made (in output order) and those
// it spent.
func (st *sqliteStore) TxUTXOs(ctx context.Context, txID string) (emitted, consumed []*UTXO, err error) {
	emitted, err = st.queryUTXOsPrepared(ctx, `SELECT `+utxoColumns+` FROM utxos u LEFT JOIN spends s ON s.utxo = u.id
		WHERE COALESCE(u.emitted_by, u.tx)=? ORDER BY u.output_index`, txID)
	if err != nil {
		return nil, nil, err
	}
	consumed, err = st.queryUTXOsPrepared(ctx, `SELECT `+utxoColumns+` FROM spends s JOIN utxos u ON u.id = s.utxo
		WHERE s.tx=? ORDER BY u.tx, u.output_index`, txID)
	return emitted, consumed, err
}

// TxsParts returns the parts of each of txs, in txs' order: each read as
// BlockID and TxUTXOs read it (SQLite has no round trips to save).
func (st *sqliteStore) TxsParts(ctx context.Context, txs []*Tx) ([]TxParts, error) {
	out := make([]TxParts, len(txs))
	for i, t := range txs {
		var err error
		if out[i].BlockID, err = st.BlockID(ctx, t.Chain, t.Height); err != nil {
			return nil, err
		}
		if out[i].Emitted, out[i].Consumed, err = st.TxUTXOs(ctx, t.ID); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// LastActivity returns the latest block of chain whose transactions made or
// spent a UTXO any of addrs may spend (a spend wins over a creation in the
// same block); ok is false when there is none.
func (st *sqliteStore) LastActivity(ctx context.Context, chain avanet.Chain, addrs []avax.ShortID) (Activity, bool, error) {
	if len(addrs) == 0 {
		return Activity{}, false, nil
	}
	args := []any{}
	for _, a := range addrs {
		args = append(args, a.String())
	}
	args = append(args, string(chain))
	m := marks(len(addrs))
	return st.lastActivity(ctx, `SELECT u.time, u.height, COALESCE(u.emitted_by, u.tx), u.id
		FROM utxo_addrs a JOIN utxos u ON u.id = a.utxo WHERE a.addr IN (`+m+`) AND a.created_on = ?
		ORDER BY u.height DESC, u.id DESC LIMIT 1`, `SELECT s.time, s.height, s.tx, s.utxo
		FROM utxo_addrs a JOIN spends s ON s.utxo = a.utxo WHERE a.addr IN (`+m+`) AND s.chain = ?
		ORDER BY s.height DESC, s.utxo DESC LIMIT 1`, args...)
}

// RewardUTXOs returns the reward UTXOs (Reward set) any of addrs may spend,
// or every one when addrs is empty, oldest first.
func (st *sqliteStore) RewardUTXOs(ctx context.Context, addrs []avax.ShortID) ([]*UTXO, error) {
	q := `SELECT ` + utxoColumns + ` FROM utxos u LEFT JOIN spends s ON s.utxo = u.id WHERE u.reward IS NOT NULL AND u.reward != ''`
	args := []any{}
	if len(addrs) > 0 {
		q += ` AND u.id IN (SELECT utxo FROM utxo_addrs WHERE addr IN (` + marks(len(addrs)) + `))`
		for _, a := range addrs {
			args = append(args, a.String())
		}
	}
	return st.queryUTXOs(ctx, q+` ORDER BY u.height, u.tx, u.output_index`, args...)
}

// XUTXOs returns the unspent outputs addr may spend on the X-Chain: its own
// (source X) or those exported to it from source and not yet imported,
// newest first: the order of avalanchego's per-address UTXO list, to which
// each accepted transaction adds its outputs in index order at the head.
// Only ID and Bytes are set.
func (st *sqliteStore) XUTXOs(ctx context.Context, source avanet.Chain, addr avax.ShortID) ([]*UTXO, error) {
	return st.queryXUTXOs(ctx, source, `SELECT u.id, u.bytes FROM utxo_unspent a
		CROSS JOIN utxos u ON u.id = a.utxo
		LEFT JOIN spends s ON s.utxo = u.id
		LEFT JOIN txs t ON t.id = u.tx
		WHERE a.addr=? AND a.chain='X' AND u.created_on=? AND s.utxo IS NULL
		ORDER BY u.height DESC, t.idx DESC, u.output_index DESC`, addr.String(), string(source))
}
