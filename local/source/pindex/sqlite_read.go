package pindex

import (
	"context"
	"database/sql"
	"encoding/json"
	"strings"

	"github.com/avaedge/avaedge/local/vocab/avax"
)

func splitAddrs(s string) []avax.ShortID {
	if s == "" {
		return []avax.ShortID{}
	}
	parts := strings.Split(s, ",")
	out := make([]avax.ShortID, 0, len(parts))
	for _, p := range parts {
		if a, err := avax.ParseShortID(p); err == nil {
			out = append(out, a)
		}
	}
	return out
}

// sqliteReadSQL is the SQLite store's text of the statements indexReads
// runs.
var sqliteReadSQL = readSQL{
	meta: `SELECT value FROM meta WHERE key=?`,
	subnets: `SELECT s.id, s.height, s.time, o.locktime, o.threshold, o.addresses, c.tx, c.chain_id, c.address, c.height, c.time
		FROM subnets s
		JOIN subnet_owners o ON o.subnet = s.id AND o.height = (SELECT MAX(height) FROM subnet_owners WHERE subnet = s.id)
		LEFT JOIN conversions c ON c.subnet = s.id`,
	subnetWhere:     ` WHERE s.id = ?`,
	blockchains:     `SELECT id, subnet, name, vm, genesis, height, time FROM blockchains`,
	blockchainWhere: ` WHERE id = ?`,
	stakes: `SELECT s.tx, s.seq, s.kind, s.node, s.subnet, s.weight, s.start, s.end, s.fee, s.reward_owner,
			s.bls_key, s.bls_pop, s.validation_id, s.balance, s.height, s.time, e.tx, e.kind, e.time
		FROM stakes s LEFT JOIN stake_ends e ON e.stake = (CASE WHEN s.validation_id != '' THEN s.validation_id ELSE s.tx END)
		ORDER BY s.height, s.tx, s.seq`,
	stakeRewards: `SELECT tx, reward, amount FROM utxos WHERE reward IS NOT NULL AND reward != ''`,
	totals: `SELECT
		(SELECT COALESCE(SUM(CAST(amount AS INTEGER)), 0) FROM utxos WHERE reward IS NOT NULL AND reward != ''),
		(SELECT COALESCE(SUM(CAST(amount AS INTEGER)), 0) FROM utxos WHERE emitted_by IS NOT NULL AND (reward IS NULL OR reward = '')),
		(SELECT COALESCE(SUM(balance), 0) FROM l1_txs)`,
	asset: `SELECT a.name, a.symbol, a.denomination, COALESCE(a.cap, 'fixed'), COALESCE(a.type, 'secp256k1'),
			COALESCE(b.time, 0)
		FROM assets a LEFT JOIN blocks b ON b.chain = a.chain AND b.height = a.height WHERE a.id=?`,
	current:   `SELECT body, time FROM current WHERE subnet=?`,
	blockByID: `SELECT height, id, parent, time, type, size, txs FROM blocks WHERE chain=? AND id=?`,
}

// XBlock returns the bytes and the node's JSON of the X-avanet.Chain block with
// id, or at height when id is "".
func (st *sqliteStore) XBlock(id string, height uint64) (bytes []byte, js json.RawMessage, ok bool) {
	q, arg := `SELECT bytes, json FROM blocks WHERE chain='X' AND height=?`, any(height)
	if id != "" {
		q, arg = `SELECT bytes, json FROM blocks WHERE chain='X' AND id=?`, id
	}
	var j sql.NullString
	if err := st.r.QueryRow(q, arg).Scan(&bytes, &j); err != nil || bytes == nil || !j.Valid {
		return nil, nil, false
	}
	return bytes, json.RawMessage(j.String), true
}

// PBlock returns the bytes (nil when not kept: a generated network's) and
// the node's JSON of the P-Chain block with id, or at height when id is
// "".
func (st *sqliteStore) PBlock(id string, height uint64) (bytes []byte, js json.RawMessage, ok bool) {
	q, arg := `SELECT bytes, json FROM blocks WHERE chain='P' AND height=?`, any(height)
	if id != "" {
		q, arg = `SELECT bytes, json FROM blocks WHERE chain='P' AND id=?`, id
	}
	var j sql.NullString
	if err := st.r.QueryRow(q, arg).Scan(&bytes, &j); err != nil || !j.Valid {
		return nil, nil, false
	}
	return bytes, json.RawMessage(j.String), true
}

// XTx returns the signed bytes and the node's JSON of an X-avanet.Chain
// transaction.
func (st *sqliteStore) XTx(id string) (bytes []byte, js json.RawMessage, ok bool) {
	var body string
	if err := st.r.QueryRow(`SELECT bytes, body FROM txs WHERE chain='X' AND id=?`, id).Scan(&bytes, &body); err != nil || bytes == nil {
		return nil, nil, false
	}
	return bytes, json.RawMessage(body), true
}

// LockedAVAX sums the unspent AVAX UTXOs of the P- and X-avanet.Chain (shared
// memory included) that are locked at now (Unix seconds): time-locked, or
// stakeable-locked and not staked.
func (st *sqliteStore) LockedAVAX(ctx context.Context, avaxID string, now int64) (uint64, error) {
	var v int64
	err := st.r.QueryRowContext(ctx, `SELECT COALESCE(SUM(CAST(u.amount AS INTEGER)), 0) FROM utxos u LEFT JOIN spends s ON s.utxo = u.id
		WHERE (u.locktime > 0 OR u.stake_locktime > 0) AND (u.locktime > ? OR (u.stake_locktime > ? AND u.staked = 0))
		AND s.utxo IS NULL AND u.asset = ? AND u.chain != 'C'`, now, now, avaxID).Scan(&v)
	return uint64(v), err
}
