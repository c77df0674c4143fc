package pindex

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/avaedge/avaedge/avanet"
	"github.com/avaedge/avaedge/local/vocab/avax"
)

// pgUTXOColumns are the columns pgScanUTXOs scans: the UTXO (u) and its
// spend (s, left joined), as utxoColumns.
const pgUTXOColumns = `u.id, u.chain, u.created_on, u.tx, u.output_index, u.asset, u.amount::text, u.locktime, u.threshold, u.addresses,
	u.stake_locktime, u.staked = 1, u.stake_start, u.stake_end, u.bytes, u.height, u.time, COALESCE(u.reward, ''), COALESCE(u.emitted_by, u.tx),
	s.tx, s.chain, s.height, s.time, (SELECT MIN(e.time) FROM stake_ends e WHERE e.stake = u.tx AND u.staked = 1), u.emitted_by IS NOT NULL`

// UTXOs returns the UTXOs of chain that any of addrs may spend, oldest
// first; spent ones too when includeSpent (the unspent ones are read from
// utxo_unspent).
func (st *pgStore) UTXOs(ctx context.Context, chain avanet.Chain, addrs []avax.ShortID, includeSpent bool) ([]*UTXO, error) {
	if len(addrs) == 0 {
		return nil, nil
	}
	table := "utxo_unspent"
	if includeSpent {
		table = "utxo_addrs"
	}
	q := `SELECT ` + pgUTXOColumns + `
		FROM utxos u LEFT JOIN spends s ON s.utxo = u.id
		WHERE u.id IN (SELECT utxo FROM ` + table + ` WHERE chain=$1 AND addr = ANY($2))`
	if !includeSpent {
		q += ` AND s.utxo IS NULL`
	}
	return st.queryUTXOs(ctx, q+` ORDER BY u.time, u.created_on, u.height, u.id`, string(chain), addrStrings(addrs))
}

// ChainsOf returns the chains (P, X, C) on which addr owns or owned a UTXO.
func (st *pgStore) ChainsOf(ctx context.Context, addr avax.ShortID) ([]avanet.Chain, error) {
	rows, err := st.pool.Query(ctx, `SELECT DISTINCT chain FROM utxo_addrs WHERE addr=$1 ORDER BY chain`, addr.String())
	if err != nil {
		return nil, err
	}
	cs, err := pgx.CollectRows(rows, pgx.RowTo[string])
	out := make([]avanet.Chain, len(cs))
	for i, c := range cs {
		out[i] = avanet.Chain(c)
	}
	if len(out) == 0 {
		out = nil
	}
	return out, err
}

// TxUTXOs returns the UTXOs a transaction made (in output order) and those
// it spent.
func (st *pgStore) TxUTXOs(ctx context.Context, txID string) (emitted, consumed []*UTXO, err error) {
	emitted, err = st.queryUTXOs(ctx, `SELECT `+pgUTXOColumns+` FROM utxos u LEFT JOIN spends s ON s.utxo = u.id
		WHERE COALESCE(u.emitted_by, u.tx)=$1 ORDER BY u.output_index`, txID)
	if err != nil {
		return nil, nil, err
	}
	consumed, err = st.queryUTXOs(ctx, `SELECT `+pgUTXOColumns+` FROM spends s JOIN utxos u ON u.id = s.utxo
		WHERE s.tx=$1 ORDER BY u.tx, u.output_index`, txID)
	return emitted, consumed, err
}

// TxsParts returns the parts of each of txs, in txs' order, in one round
// trip: their blocks' ids, the UTXOs they made and those they spent, three
// queries sent as one batch (a page of ten transactions read one at a time
// took 31 round trips).
func (st *pgStore) TxsParts(ctx context.Context, txs []*Tx) ([]TxParts, error) {
	out := make([]TxParts, len(txs))
	if len(txs) == 0 {
		return out, nil
	}
	ids, chains, heights := make([]string, len(txs)), make([]string, len(txs)), make([]int64, len(txs))
	for i, t := range txs {
		ids[i], chains[i], heights[i] = t.ID, string(t.Chain), int64(t.Height)
	}
	var b pgx.Batch
	b.Queue(`SELECT b.chain, b.height, b.id FROM blocks b JOIN unnest($1::text[], $2::bigint[]) k(chain, height)
		ON b.chain = k.chain AND b.height = k.height`, chains, heights)
	b.Queue(`SELECT `+pgUTXOColumns+` FROM utxos u LEFT JOIN spends s ON s.utxo = u.id
		WHERE COALESCE(u.emitted_by, u.tx) = ANY($1) ORDER BY COALESCE(u.emitted_by, u.tx), u.output_index`, ids)
	b.Queue(`SELECT `+pgUTXOColumns+` FROM spends s JOIN utxos u ON u.id = s.utxo
		WHERE s.tx = ANY($1) ORDER BY s.tx, u.tx, u.output_index`, ids)
	br := st.pool.SendBatch(ctx, &b)
	defer br.Close()
	type at struct {
		chain  string
		height int64
	}
	blocks := map[at]string{}
	rows, err := br.Query()
	if err != nil {
		return nil, err
	}
	var k at
	var id string
	if _, err := pgx.ForEachRow(rows, []any{&k.chain, &k.height, &id}, func() error { blocks[k] = id; return nil }); err != nil {
		return nil, err
	}
	emitted, err := pgUTXOsBy(br, func(u *UTXO) string { return u.EmittedBy })
	if err != nil {
		return nil, err
	}
	consumed, err := pgUTXOsBy(br, func(u *UTXO) string { return u.SpentBy })
	if err != nil {
		return nil, err
	}
	for i, t := range txs {
		out[i] = TxParts{BlockID: blocks[at{string(t.Chain), int64(t.Height)}], Emitted: emitted[t.ID], Consumed: consumed[t.ID]}
	}
	return out, nil
}

// pgUTXOsBy reads the batch's next result, UTXO rows (pgUTXOColumns), and
// groups them by key, in their order.
func pgUTXOsBy(br pgx.BatchResults, key func(*UTXO) string) (map[string][]*UTXO, error) {
	rows, err := br.Query()
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	us, err := scanUTXORows(rows)
	if err != nil {
		return nil, err
	}
	by := map[string][]*UTXO{}
	for _, u := range us {
		by[key(u)] = append(by[key(u)], u)
	}
	return by, nil
}

// LastActivity returns the latest block of chain whose transactions made or
// spent a UTXO any of addrs may spend (a spend wins over a creation in the
// same block); ok is false when there is none.
func (st *pgStore) LastActivity(ctx context.Context, chain avanet.Chain, addrs []avax.ShortID) (Activity, bool, error) {
	if len(addrs) == 0 {
		return Activity{}, false, nil
	}
	as := addrStrings(addrs)
	return st.lastActivity(ctx, `SELECT u.time, u.height, COALESCE(u.emitted_by, u.tx), u.id
		FROM utxo_addrs a JOIN utxos u ON u.id = a.utxo WHERE a.addr = ANY($1) AND a.created_on = $2
		ORDER BY u.height DESC, u.id DESC LIMIT 1`, `SELECT s.time, s.height, s.tx, s.utxo
		FROM utxo_addrs a JOIN spends s ON s.utxo = a.utxo WHERE a.addr = ANY($1) AND s.chain = $2
		ORDER BY s.height DESC, s.utxo DESC LIMIT 1`, as, string(chain))
}

// RewardUTXOs returns the reward UTXOs any of addrs may spend, or every one
// when addrs is empty, oldest first.
func (st *pgStore) RewardUTXOs(ctx context.Context, addrs []avax.ShortID) ([]*UTXO, error) {
	q := `SELECT ` + pgUTXOColumns + ` FROM utxos u LEFT JOIN spends s ON s.utxo = u.id WHERE u.reward IS NOT NULL AND u.reward != ''`
	args := []any{}
	if len(addrs) > 0 {
		q += ` AND u.id IN (SELECT utxo FROM utxo_addrs WHERE addr = ANY($1))`
		args = append(args, addrStrings(addrs))
	}
	return st.queryUTXOs(ctx, q+` ORDER BY u.height, u.tx, u.output_index`, args...)
}

// XUTXOs returns the unspent outputs addr may spend on the X-Chain made on
// source, newest first (only ID and Bytes set).
func (st *pgStore) XUTXOs(ctx context.Context, source avanet.Chain, addr avax.ShortID) ([]*UTXO, error) {
	return st.queryXUTXOs(ctx, source, `SELECT u.id, u.bytes FROM utxo_unspent a
		JOIN utxos u ON u.id = a.utxo
		LEFT JOIN spends s ON s.utxo = u.id
		LEFT JOIN txs t ON t.id = u.tx
		WHERE a.addr=$1 AND a.chain='X' AND u.created_on=$2 AND s.utxo IS NULL
		ORDER BY u.height DESC, t.idx DESC NULLS LAST, u.output_index DESC`, addr.String(), string(source))
}
