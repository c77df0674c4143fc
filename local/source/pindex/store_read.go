package pindex

import (
	"context"
	"encoding/json"

	"github.com/avaedge/avaedge/avanet"
)

// indexReads answers the reads whose Go is the same in both stores, running
// the store's own text of each statement (sql) on its readers (run). Both
// stores embed it. It is safe for concurrent use.
type indexReads struct {
	run runner
	sql *readSQL
}

// readSQL is one store's text of each statement indexReads runs (pgReadSQL,
// sqliteReadSQL).
type readSQL struct {
	// meta selects a meta value by its key.
	meta string
	// subnets selects subnets' columns (scanSubnets); subnetWhere is its
	// condition on one subnet's id, before ORDER BY.
	subnets, subnetWhere string
	// blockchains selects the chains' columns; blockchainWhere is its
	// condition on one chain's id, before ORDER BY.
	blockchains, blockchainWhere string
	// stakes selects the stakes with their ends (scanStakes); stakeRewards
	// the reward UTXOs (addRewards).
	stakes, stakeRewards string
	// totals sums the rewards, the L1 validators' returned and given
	// balances.
	totals string
	// asset selects an asset's name, symbol, denomination, cap, type and
	// time by its id.
	asset string
	// current selects a subnet's kept current validators and their time.
	current string
	// blockByID selects the block's columns (scanBlocks) of a chain's block
	// by its chain and id.
	blockByID string
}

// readMeta reads a meta value through the readers.
func (rd indexReads) readMeta(ctx context.Context, key string) (string, bool, error) {
	var v string
	err := rd.run.queryRow(ctx, rd.sql.meta, key).Scan(&v)
	if noRows(err) {
		return "", false, nil
	}
	return v, err == nil, err
}

// Supply returns the kept supply.
func (rd indexReads) Supply(ctx context.Context) (Supply, bool, error) {
	v, ok, err := rd.readMeta(ctx, "supply")
	if !ok || err != nil {
		return Supply{}, false, err
	}
	sp, err := decodeSupply(v)
	return sp, err == nil, err
}

// Recorded returns the kept answer to method.
func (rd indexReads) Recorded(method string) (json.RawMessage, bool) {
	v, ok, err := rd.readMeta(context.Background(), "rpc:"+method)
	if !ok || err != nil {
		return nil, false
	}
	return json.RawMessage(v), true
}

// Subnets returns every indexed subnet, oldest first.
func (rd indexReads) Subnets(ctx context.Context) ([]*Subnet, error) {
	return rd.subnets(ctx, "")
}

// Subnet returns one subnet; ok is false when it is not indexed.
func (rd indexReads) Subnet(ctx context.Context, id string) (*Subnet, bool, error) {
	s, err := rd.subnets(ctx, id)
	if err != nil || len(s) == 0 {
		return nil, false, err
	}
	return s[0], true, nil
}

// subnets returns the subnet with id only, or every one when only is "",
// each with its chains.
func (rd indexReads) subnets(ctx context.Context, only string) ([]*Subnet, error) {
	q, args := rd.sql.subnets, []any{}
	if only != "" {
		q += rd.sql.subnetWhere
		args = append(args, only)
	}
	rows, err := rd.run.query(ctx, q+` ORDER BY s.height, s.id`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out, byID, err := scanSubnets(rows)
	if err != nil {
		return nil, err
	}
	chains, err := rd.blockchains(ctx, "")
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

// Blockchains returns every chain a CreateChainTx made, the primary
// network's (in the P-Chain's genesis) included, oldest first.
func (rd indexReads) Blockchains(ctx context.Context) ([]Blockchain, error) {
	return rd.blockchains(ctx, "")
}

// Blockchain returns the chain with id; ok is false when no indexed
// CreateChainTx made it.
func (rd indexReads) Blockchain(ctx context.Context, id string) (Blockchain, bool, error) {
	bs, err := rd.blockchains(ctx, id)
	if err != nil || len(bs) == 0 {
		return Blockchain{}, false, err
	}
	return bs[0], true, nil
}

// blockchains returns the chain with id only, or every one when only is "".
func (rd indexReads) blockchains(ctx context.Context, only string) ([]Blockchain, error) {
	q, args := rd.sql.blockchains, []any{}
	if only != "" {
		q += rd.sql.blockchainWhere
		args = append(args, only)
	}
	rows, err := rd.run.query(ctx, q+` ORDER BY height, id`, args...)
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
func (rd indexReads) Stakes(ctx context.Context) ([]*Stake, error) {
	rows, err := rd.run.query(ctx, rd.sql.stakes)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out, err := scanStakes(rows)
	if err != nil {
		return nil, err
	}
	return out, rd.stakeRewards(ctx, out)
}

// stakeRewards fills the Rewards of stakes from the reward UTXOs.
func (rd indexReads) stakeRewards(ctx context.Context, stakes []*Stake) error {
	rows, err := rd.run.query(ctx, rd.sql.stakeRewards)
	if err != nil {
		return err
	}
	defer rows.Close()
	return addRewards(rows, stakes)
}

// BlockchainIDs returns the ids of the chains created on the P-Chain.
func (rd indexReads) BlockchainIDs(ctx context.Context) ([]string, error) {
	return rd.strings(ctx, `SELECT id FROM blockchains ORDER BY height, id`)
}

// SubnetIDs returns every subnet's id.
func (rd indexReads) SubnetIDs(ctx context.Context) ([]string, error) {
	return rd.strings(ctx, `SELECT id FROM subnets ORDER BY height, id`)
}

// strings runs q, which selects one text column.
func (rd indexReads) strings(ctx context.Context, q string, args ...any) ([]string, error) {
	rows, err := rd.run.query(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var v string
		if err := rows.Scan(&v); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// Totals sums the index's burned fees, rewards and L1 validator balances.
// The burned fees are kept per chain as blocks are stored (meta
// "burned:P", "burned:X"), the others are read from their few rows.
func (rd indexReads) Totals(ctx context.Context) (Totals, error) {
	var t Totals
	for _, c := range []struct {
		key string
		dst *uint64
	}{{"burned:P", &t.BurnedP}, {"burned:X", &t.BurnedX}} {
		v, ok, err := rd.readMeta(ctx, c.key)
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
	err := rd.run.queryRow(ctx, rd.sql.totals).Scan(&rewards, &returned, &given)
	t.Rewards, t.L1Returned, t.L1Given = uint64(rewards), uint64(returned), uint64(given)
	return t, err
}

// Asset returns an asset a CreateAssetTx created. Its time is its block's:
// reading the CreateAssetTx's row would read its whole body (the
// genesis's, with every allocation: megabytes).
func (rd indexReads) Asset(ctx context.Context, id string) (Asset, bool, error) {
	a := Asset{ID: id}
	err := rd.run.queryRow(ctx, rd.sql.asset, id).Scan(&a.Name, &a.Symbol, &a.Denomination, &a.Cap, &a.Type, &a.Time)
	if noRows(err) {
		return a, false, nil
	}
	return a, err == nil, err
}

// CurrentValidators returns subnet's kept current validators.
func (rd indexReads) CurrentValidators(ctx context.Context, subnet string) (json.RawMessage, int64, bool, error) {
	var body []byte
	var at int64
	err := rd.run.queryRow(ctx, rd.sql.current, subnet).Scan(&body, &at)
	if noRows(err) {
		return nil, 0, false, nil
	}
	return body, at, err == nil, err
}

// queryBlocks runs q, which selects chain's blocks' columns (scanBlocks).
func (rd indexReads) queryBlocks(ctx context.Context, chain avanet.Chain, q string, args ...any) ([]*Block, error) {
	rows, err := rd.run.query(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	return scanBlocks(chain, rows)
}

// BlockByID returns chain's block with id.
func (rd indexReads) BlockByID(ctx context.Context, chain avanet.Chain, id string) (*Block, bool, error) {
	bs, err := rd.queryBlocks(ctx, chain, rd.sql.blockByID, string(chain), id)
	if err != nil || len(bs) == 0 {
		return nil, false, err
	}
	return bs[0], true, nil
}

// queryUTXOs runs q, which selects the store's UTXO columns (scanUTXORows).
func (rd indexReads) queryUTXOs(ctx context.Context, q string, args ...any) ([]*UTXO, error) {
	rows, err := rd.run.query(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	return scanUTXORows(rows)
}

// lastActivity returns the latest of the block made (by made's query: the
// time, height, tx and id of the newest UTXO the addresses may spend) and
// the block spent (by spent's: the same of the newest spend of one), both
// run with args; a spend wins over a creation in the same block. ok is
// false when there is neither.
func (rd indexReads) lastActivity(ctx context.Context, madeQ, spentQ string, args ...any) (Activity, bool, error) {
	var made, spent Activity
	err := rd.run.queryRow(ctx, madeQ, args...).Scan(&made.Time, &made.Height, &made.TxID, &made.UTXOID)
	if err != nil && !noRows(err) {
		return Activity{}, false, err
	}
	found := err == nil
	err = rd.run.queryRow(ctx, spentQ, args...).Scan(&spent.Time, &spent.Height, &spent.TxID, &spent.UTXOID)
	switch {
	case noRows(err):
		return made, found, nil
	case err != nil:
		return Activity{}, false, err
	case !found || spent.Height >= made.Height:
		spent.Consumed = true
		return spent, true, nil
	}
	return made, true, nil
}

// queryXUTXOs runs q, which selects the id and bytes of X-Chain UTXOs made
// on source.
func (rd indexReads) queryXUTXOs(ctx context.Context, source avanet.Chain, q string, args ...any) ([]*UTXO, error) {
	rows, err := rd.run.query(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*UTXO
	for rows.Next() {
		u := &UTXO{Chain: avanet.ChainX, CreatedOn: source}
		if err := rows.Scan(&u.ID, &u.Bytes); err != nil {
			return nil, err
		}
		out = append(out, u)
	}
	return out, rows.Err()
}

// queryRewardTxs runs q on run, which selects reward transactions' id and
// body, and their option block's height, time and type, and the kind of the
// stake each rewards.
func queryRewardTxs(ctx context.Context, run runner, q string, args ...any) ([]RewardTx, error) {
	rows, err := run.query(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []RewardTx
	for rows.Next() {
		var r RewardTx
		var body string
		if err := rows.Scan(&r.ID, &body, &r.OptionHeight, &r.OptionTime, &r.OptionType, &r.StakeKind); err != nil {
			return nil, err
		}
		r.Body = json.RawMessage(body)
		out = append(out, r)
	}
	return out, rows.Err()
}

// metaSetter keeps meta values: either store.
type metaSetter interface {
	SetMeta(key, value string) error
}

// setSupply keeps the node's supply (meta "supply", as JSON).
func setSupply(m metaSetter, sp Supply) error {
	b, _ := json.Marshal(sp)
	return m.SetMeta("supply", string(b))
}

// record keeps the node's answer to method (meta "rpc:"+method).
func record(m metaSetter, method string, answer json.RawMessage) error {
	return m.SetMeta("rpc:"+method, string(answer))
}
