package pindex

import (
	"context"
	"database/sql"
	"encoding/json"
)

// pgReadSQL is the PostgreSQL store's text of the statements indexReads
// runs.
var pgReadSQL = readSQL{
	meta: `SELECT value FROM meta WHERE key=$1`,
	subnets: `SELECT s.id, s.height, s.time, o.locktime, o.threshold, o.addresses, c.tx, c.chain_id, c.address, c.height, c.time
		FROM subnets s
		JOIN subnet_owners o ON o.subnet = s.id AND o.height = (SELECT MAX(height) FROM subnet_owners WHERE subnet = s.id)
		LEFT JOIN conversions c ON c.subnet = s.id`,
	subnetWhere:     ` WHERE s.id = $1`,
	blockchains:     `SELECT id, subnet, name, vm, genesis, height, time FROM blockchains`,
	blockchainWhere: ` WHERE id = $1`,
	stakes: `SELECT s.tx, s.seq, s.kind, s.node, s.subnet, s.weight, s.start, s."end", s.fee, s.reward_owner,
			s.bls_key, s.bls_pop, s.validation_id, s.balance, s.height, s.time, e.tx, e.kind, e.time
		FROM stakes s LEFT JOIN stake_ends e ON e.stake = (CASE WHEN s.validation_id != '' THEN s.validation_id ELSE s.tx END)
		ORDER BY s.height, s.tx, s.seq`,
	stakeRewards: `SELECT tx, reward, amount::text FROM utxos WHERE reward IS NOT NULL AND reward != ''`,
	totals: `SELECT
		(SELECT COALESCE(SUM(amount), 0)::bigint FROM utxos WHERE reward IS NOT NULL AND reward != ''),
		(SELECT COALESCE(SUM(amount), 0)::bigint FROM utxos WHERE emitted_by IS NOT NULL AND (reward IS NULL OR reward = '')),
		(SELECT COALESCE(SUM(balance), 0)::bigint FROM l1_txs)`,
	asset: `SELECT a.name, a.symbol, a.denomination, COALESCE(a.cap, 'fixed'), COALESCE(a.type, 'secp256k1'),
			COALESCE(b.time, 0)
		FROM assets a LEFT JOIN blocks b ON b.chain = a.chain AND b.height = a.height WHERE a.id=$1`,
	current:   `SELECT body, time FROM current WHERE subnet=$1`,
	blockByID: `SELECT height, id, parent, time, type, size, txs FROM blocks WHERE chain=$1 AND id=$2`,
}

// keptBlock reads the kept bytes and JSON of chain's block with id, or at
// height when id is "".
func (st *pgStore) keptBlock(chain, id string, height uint64) ([]byte, sql.NullString, error) {
	q, arg := `SELECT bytes, json FROM blocks WHERE chain=$1 AND height=$2`, any(int64(height))
	if id != "" {
		q, arg = `SELECT bytes, json FROM blocks WHERE chain=$1 AND id=$2`, id
	}
	var bytes []byte
	var j sql.NullString
	err := st.pool.QueryRow(context.Background(), q, chain, arg).Scan(&bytes, &j)
	return bytes, j, err
}

// XBlock returns the bytes and the node's JSON of the X-Chain block with
// id, or at height when id is "".
func (st *pgStore) XBlock(id string, height uint64) ([]byte, json.RawMessage, bool) {
	bytes, j, err := st.keptBlock("X", id, height)
	if err != nil || bytes == nil || !j.Valid {
		return nil, nil, false
	}
	return bytes, json.RawMessage(j.String), true
}

// PBlock returns the bytes and the node's JSON of the P-Chain block with
// id, or at height when id is "".
func (st *pgStore) PBlock(id string, height uint64) ([]byte, json.RawMessage, bool) {
	bytes, j, err := st.keptBlock("P", id, height)
	if err != nil || !j.Valid {
		return nil, nil, false
	}
	return bytes, json.RawMessage(j.String), true
}

// XTx returns the signed bytes and the node's JSON of an X-Chain
// transaction.
func (st *pgStore) XTx(id string) ([]byte, json.RawMessage, bool) {
	var bytes []byte
	var body string
	if err := st.pool.QueryRow(context.Background(), `SELECT bytes, body FROM txs WHERE chain='X' AND id=$1`, id).Scan(&bytes, &body); err != nil || bytes == nil {
		return nil, nil, false
	}
	return bytes, json.RawMessage(body), true
}

// LockedAVAX sums the unspent AVAX UTXOs of the P- and X-Chain that are
// locked at now (Unix seconds).
func (st *pgStore) LockedAVAX(ctx context.Context, avaxID string, now int64) (uint64, error) {
	var v int64
	err := st.pool.QueryRow(ctx, `SELECT COALESCE(SUM(u.amount), 0)::bigint FROM utxos u LEFT JOIN spends s ON s.utxo = u.id
		WHERE (u.locktime > 0 OR u.stake_locktime > 0) AND (u.locktime > $1 OR (u.stake_locktime > $1 AND u.staked = 0))
		AND s.utxo IS NULL AND u.asset = $2 AND u.chain != 'C'`, now, avaxID).Scan(&v)
	return uint64(v), err
}
