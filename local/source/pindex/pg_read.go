package pindex

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"

	"github.com/jackc/pgx/v5"
)

// Subnets returns every indexed subnet, oldest first.
func (st *pgStore) Subnets(ctx context.Context) ([]*Subnet, error) { return st.subnets(ctx, "") }

// Subnet returns one subnet; ok is false when it is not indexed.
func (st *pgStore) Subnet(ctx context.Context, id string) (*Subnet, bool, error) {
	s, err := st.subnets(ctx, id)
	if err != nil || len(s) == 0 {
		return nil, false, err
	}
	return s[0], true, nil
}

func (st *pgStore) subnets(ctx context.Context, only string) ([]*Subnet, error) {
	q := `SELECT s.id, s.height, s.time, o.locktime, o.threshold, o.addresses, c.tx, c.chain_id, c.address, c.height, c.time
		FROM subnets s
		JOIN subnet_owners o ON o.subnet = s.id AND o.height = (SELECT MAX(height) FROM subnet_owners WHERE subnet = s.id)
		LEFT JOIN conversions c ON c.subnet = s.id`
	args := []any{}
	if only != "" {
		q += ` WHERE s.id = $1`
		args = append(args, only)
	}
	rows, err := st.pool.Query(ctx, q+` ORDER BY s.height, s.id`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out, byID, err := scanSubnets(rows)
	if err != nil {
		return nil, err
	}
	chains, err := st.blockchains(ctx, "")
	if err != nil {
		return nil, err
	}
	for _, b := range chains {
		if s := byID[b.SubnetID]; s != nil {
			s.Chains = append(s.Chains, b)
		}
	}
	return out, nil
}

// Blockchains returns every chain a CreateChainTx made, oldest first.
func (st *pgStore) Blockchains(ctx context.Context) ([]Blockchain, error) {
	return st.blockchains(ctx, "")
}

// Blockchain returns the chain with id.
func (st *pgStore) Blockchain(ctx context.Context, id string) (Blockchain, bool, error) {
	bs, err := st.blockchains(ctx, id)
	if err != nil || len(bs) == 0 {
		return Blockchain{}, false, err
	}
	return bs[0], true, nil
}

func (st *pgStore) blockchains(ctx context.Context, only string) ([]Blockchain, error) {
	q, args := `SELECT id, subnet, name, vm, genesis, height, time FROM blockchains`, []any{}
	if only != "" {
		q += ` WHERE id = $1`
		args = append(args, only)
	}
	rows, err := st.pool.Query(ctx, q+` ORDER BY height, id`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Blockchain
	for rows.Next() {
		var b Blockchain
		if err := rows.Scan(&b.ID, &b.SubnetID, &b.Name, &b.VMID, &b.Genesis, &b.Height, &b.Time); err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, rows.Err()
}

// Stakes reads every stake, with its end and its rewards.
func (st *pgStore) Stakes(ctx context.Context) ([]*Stake, error) {
	rows, err := st.pool.Query(ctx, `SELECT s.tx, s.seq, s.kind, s.node, s.subnet, s.weight, s.start, s."end", s.fee, s.reward_owner,
			s.bls_key, s.bls_pop, s.validation_id, s.balance, s.height, s.time, e.tx, e.kind, e.time
		FROM stakes s LEFT JOIN stake_ends e ON e.stake = (CASE WHEN s.validation_id != '' THEN s.validation_id ELSE s.tx END)
		ORDER BY s.height, s.tx, s.seq`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out, err := scanStakes(rows)
	if err != nil {
		return nil, err
	}
	return out, st.stakeRewards(ctx, out)
}

// stakeRewards fills the Rewards of stakes from the reward UTXOs.
func (st *pgStore) stakeRewards(ctx context.Context, stakes []*Stake) error {
	rows, err := st.pool.Query(ctx, `SELECT tx, reward, amount::text FROM utxos WHERE reward IS NOT NULL AND reward != ''`)
	if err != nil {
		return err
	}
	defer rows.Close()
	return addRewards(rows, stakes)
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

// BlockchainIDs returns the ids of the chains created on the P-Chain.
func (st *pgStore) BlockchainIDs(ctx context.Context) ([]string, error) {
	return st.strings(ctx, `SELECT id FROM blockchains ORDER BY height, id`)
}

// SubnetIDs returns every subnet's id.
func (st *pgStore) SubnetIDs(ctx context.Context) ([]string, error) {
	return st.strings(ctx, `SELECT id FROM subnets ORDER BY height, id`)
}

// strings runs q, which selects one text column.
func (st *pgStore) strings(ctx context.Context, q string, args ...any) ([]string, error) {
	rows, err := st.pool.Query(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}

// Totals sums the burned fees (kept per chain as blocks are stored),
// rewards and L1 validator balances.
func (st *pgStore) Totals(ctx context.Context) (Totals, error) {
	var t Totals
	for _, c := range []struct {
		key string
		dst *uint64
	}{{"burned:P", &t.BurnedP}, {"burned:X", &t.BurnedX}} {
		v, ok, err := st.readMeta(ctx, c.key)
		if err != nil {
			return t, err
		}
		if !ok {
			continue
		}
		if *c.dst, err = parseMetaUint(c.key, v); err != nil {
			return t, err
		}
	}
	var rewards, returned, given int64
	err := st.pool.QueryRow(ctx, `SELECT
		(SELECT COALESCE(SUM(amount), 0)::bigint FROM utxos WHERE reward IS NOT NULL AND reward != ''),
		(SELECT COALESCE(SUM(amount), 0)::bigint FROM utxos WHERE emitted_by IS NOT NULL AND (reward IS NULL OR reward = '')),
		(SELECT COALESCE(SUM(balance), 0)::bigint FROM l1_txs)`).Scan(&rewards, &returned, &given)
	t.Rewards, t.L1Returned, t.L1Given = uint64(rewards), uint64(returned), uint64(given)
	return t, err
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

// Asset returns an asset a CreateAssetTx created, with its block's time.
func (st *pgStore) Asset(ctx context.Context, id string) (Asset, bool, error) {
	a := Asset{ID: id}
	err := st.pool.QueryRow(ctx, `SELECT a.name, a.symbol, a.denomination, COALESCE(a.cap, 'fixed'), COALESCE(a.type, 'secp256k1'),
			COALESCE(b.time, 0)
		FROM assets a LEFT JOIN blocks b ON b.chain = a.chain AND b.height = a.height WHERE a.id=$1`, id).
		Scan(&a.Name, &a.Symbol, &a.Denomination, &a.Cap, &a.Type, &a.Time)
	if errors.Is(err, pgx.ErrNoRows) {
		return a, false, nil
	}
	return a, err == nil, err
}

// CurrentValidators returns subnet's kept current validators.
func (st *pgStore) CurrentValidators(ctx context.Context, subnet string) (json.RawMessage, int64, bool, error) {
	var body string
	var at int64
	err := st.pool.QueryRow(ctx, `SELECT body, time FROM current WHERE subnet=$1`, subnet).Scan(&body, &at)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, 0, false, nil
	}
	return json.RawMessage(body), at, err == nil, err
}
