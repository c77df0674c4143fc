package pindex

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/avaedge/avaedge/avanet"
	"github.com/avaedge/avaedge/local/vocab/avax"
)

// Both stores select the same columns for the same answers; these read
// them from either's rows (database/sql's, pgx's).

// scanRows are a query's rows: *sql.Rows, pgx.Rows.
type scanRows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
}

// scanSubnets reads rows of subnets' columns (s.id, s.height, s.time, the
// owner's locktime, threshold and addresses, the conversion's tx, chain_id,
// address, height and time), with their ids.
func scanSubnets(rows scanRows) ([]*Subnet, map[string]*Subnet, error) {
	var out []*Subnet
	byID := map[string]*Subnet{}
	for rows.Next() {
		s := &Subnet{}
		var addrs string
		var ctx, cchain, caddr sql.NullString
		var cheight, ctime sql.NullInt64
		if err := rows.Scan(&s.ID, &s.Height, &s.Time, &s.Owner.Locktime, &s.Owner.Threshold, &addrs, &ctx, &cchain, &caddr, &cheight, &ctime); err != nil {
			return nil, nil, err
		}
		s.Owner.Addresses = splitAddrs(addrs)
		if ctx.Valid {
			s.Conversion = &Conversion{TxID: ctx.String, ChainID: cchain.String, Address: caddr.String, Height: uint64(cheight.Int64), Time: ctime.Int64}
		}
		s.Chains = []Blockchain{}
		out = append(out, s)
		byID[s.ID] = s
	}
	return out, byID, rows.Err()
}

// scanStakes reads rows of a stake's columns and its end's (tx, kind, time).
func scanStakes(rows scanRows) ([]*Stake, error) {
	out := []*Stake{}
	for rows.Next() {
		s := &Stake{}
		var node, owner string
		var weight, balance int64
		var etx, ekind sql.NullString
		var etime sql.NullInt64
		err := rows.Scan(&s.TxID, &s.Seq, &s.Kind, &node, &s.SubnetID, &weight, &s.Start, &s.End, &s.Fee, &owner,
			&s.BLSKey, &s.BLSPoP, &s.ValidationID, &balance, &s.Height, &s.Time, &etx, &ekind, &etime)
		if err != nil {
			return nil, err
		}
		if s.NodeID, err = avax.ParseNodeID(node); err != nil {
			return nil, err
		}
		s.Node = node
		s.Weight, s.Balance, s.RewardOwner = uint64(weight), uint64(balance), splitAddrs(owner)
		s.EndTx, s.EndKind, s.EndTime = etx.String, ekind.String, etime.Int64
		out = append(out, s)
	}
	return out, rows.Err()
}

// addRewards reads rows of reward UTXOs (tx, reward kind, amount as text)
// into the Rewards of stakes.
func addRewards(rows scanRows, stakes []*Stake) error {
	byTx := map[string]map[string]uint64{}
	for rows.Next() {
		var tx, kind, amount string
		if err := rows.Scan(&tx, &kind, &amount); err != nil {
			return err
		}
		v, err := strconv.ParseUint(amount, 10, 64)
		if err != nil {
			return fmt.Errorf("pindex: reward of %s amount %q: %w", tx, amount, err)
		}
		if byTx[tx] == nil {
			byTx[tx] = map[string]uint64{}
		}
		byTx[tx][kind] += v
	}
	for _, s := range stakes {
		s.Rewards = byTx[s.TxID]
	}
	return rows.Err()
}

// scanUTXORows reads rows of utxoColumns.
func scanUTXORows(rows scanRows) ([]*UTXO, error) {
	var out []*UTXO
	for rows.Next() {
		u := &UTXO{}
		var chainS, created, amount, addrs string
		var by, on sql.NullString
		var sh, stime, ended sql.NullInt64
		if err := rows.Scan(&u.ID, &chainS, &created, &u.TxID, &u.OutputIndex, &u.AssetID, &amount, &u.Locktime, &u.Threshold, &addrs,
			&u.StakeLocktime, &u.Staked, &u.StakeStart, &u.StakeEnd, &u.Bytes, &u.Height, &u.Time, &u.Reward, &u.EmittedBy, &by, &on, &sh, &stime,
			&ended, &u.Paid); err != nil {
			return nil, err
		}
		u.Chain, u.CreatedOn, u.Addresses = avanet.Chain(chainS), avanet.Chain(created), splitAddrs(addrs)
		u.StakeEnded, u.StakeEndedTime = ended.Valid, ended.Int64
		var err error
		if u.Amount, err = strconv.ParseUint(amount, 10, 64); err != nil {
			return nil, fmt.Errorf("pindex: utxo %s amount %q: %w", u.ID, amount, err)
		}
		if by.Valid {
			u.Spent, u.SpentBy, u.SpentOn, u.SpentHeight, u.SpentTime = true, by.String, avanet.Chain(on.String), uint64(sh.Int64), stime.Int64
		}
		out = append(out, u)
	}
	return out, rows.Err()
}

// scanTxs reads rows of (id, chain, height, idx, type, time, body).
func scanTxs(rows scanRows) ([]*Tx, error) {
	var out []*Tx
	for rows.Next() {
		t := &Tx{}
		var c, body string
		if err := rows.Scan(&t.ID, &c, &t.Height, &t.Index, &t.Type, &t.Time, &body); err != nil {
			return nil, err
		}
		t.Chain, t.Body = avanet.Chain(c), json.RawMessage(body)
		out = append(out, t)
	}
	return out, rows.Err()
}

// scanBlocks reads rows of chain's (height, id, parent, time, type, size,
// txs).
func scanBlocks(chain avanet.Chain, rows scanRows) ([]*Block, error) {
	var out []*Block
	for rows.Next() {
		b := &Block{Chain: chain}
		var txs string
		if err := rows.Scan(&b.Height, &b.ID, &b.Parent, &b.Time, &b.Type, &b.Size, &txs); err != nil {
			return nil, err
		}
		if err := json.Unmarshal([]byte(txs), &b.Txs); err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, rows.Err()
}

// scanBurns reads burnedBy's rows (tx, chain, height, missing, burned).
func scanBurns(rows scanRows) ([]txBurn, error) {
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

// decodeSupply reads the kept supply (meta "supply").
func decodeSupply(v string) (Supply, error) {
	var sp Supply
	if err := json.Unmarshal([]byte(v), &sp); err != nil {
		return sp, fmt.Errorf("pindex: stored supply %q: %w", v, err)
	}
	return sp, nil
}
