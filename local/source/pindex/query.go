package pindex

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/avaedge/avaedge/avanet"
	"github.com/avaedge/avaedge/local/vocab/avax"
)

// Owner is a threshold of addresses.
type Owner struct {
	Locktime  uint64
	Threshold uint32
	Addresses []avax.ShortID
}

// Blockchain is a chain created by a CreateChainTx.
type Blockchain struct {
	ID, SubnetID, Name, VMID string
	Genesis                  []byte
	Height                   uint64
	Time                     int64
}

// Conversion is the ConvertSubnetToL1Tx of an L1.
type Conversion struct {
	TxID, ChainID, Address string
	Height                 uint64
	Time                   int64
}

// Subnet is a subnet with its latest owner, its chains and, for an L1, its
// conversion.
type Subnet struct {
	ID         string
	Height     uint64
	Time       int64
	Owner      Owner
	Chains     []Blockchain
	Conversion *Conversion
}

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

// Subnets returns every indexed subnet, oldest first.
func (ix *Index) Subnets(ctx context.Context) ([]*Subnet, error) {
	return ix.subnets(ctx, "")
}

// Subnet returns one subnet; ok is false when it is not indexed.
func (ix *Index) Subnet(ctx context.Context, id string) (*Subnet, bool, error) {
	s, err := ix.subnets(ctx, id)
	if err != nil || len(s) == 0 {
		return nil, false, err
	}
	return s[0], true, nil
}

func (ix *Index) subnets(ctx context.Context, only string) ([]*Subnet, error) {
	q := `SELECT s.id, s.height, s.time, o.locktime, o.threshold, o.addresses, c.tx, c.chain_id, c.address, c.height, c.time
		FROM subnets s
		JOIN subnet_owners o ON o.subnet = s.id AND o.height = (SELECT MAX(height) FROM subnet_owners WHERE subnet = s.id)
		LEFT JOIN conversions c ON c.subnet = s.id`
	args := []any{}
	if only != "" {
		q += ` WHERE s.id = ?`
		args = append(args, only)
	}
	rows, err := ix.st.r.QueryContext(ctx, q+` ORDER BY s.height, s.id`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*Subnet
	byID := map[string]*Subnet{}
	for rows.Next() {
		s := &Subnet{}
		var addrs string
		var ctx, cchain, caddr sql.NullString
		var cheight, ctime sql.NullInt64
		if err := rows.Scan(&s.ID, &s.Height, &s.Time, &s.Owner.Locktime, &s.Owner.Threshold, &addrs, &ctx, &cchain, &caddr, &cheight, &ctime); err != nil {
			return nil, err
		}
		s.Owner.Addresses = splitAddrs(addrs)
		if ctx.Valid {
			s.Conversion = &Conversion{TxID: ctx.String, ChainID: cchain.String, Address: caddr.String, Height: uint64(cheight.Int64), Time: ctime.Int64}
		}
		s.Chains = []Blockchain{}
		out = append(out, s)
		byID[s.ID] = s
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	chains, err := ix.blockchains(ctx, "")
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
func (ix *Index) Blockchains(ctx context.Context) ([]Blockchain, error) {
	return ix.blockchains(ctx, "")
}

// Blockchain returns the chain with id; ok is false when no indexed
// CreateChainTx made it.
func (ix *Index) Blockchain(ctx context.Context, id string) (Blockchain, bool, error) {
	bs, err := ix.blockchains(ctx, id)
	if err != nil || len(bs) == 0 {
		return Blockchain{}, false, err
	}
	return bs[0], true, nil
}

func (ix *Index) blockchains(ctx context.Context, only string) ([]Blockchain, error) {
	q, args := `SELECT id, subnet, name, vm, genesis, height, time FROM blockchains`, []any{}
	if only != "" {
		q += ` WHERE id = ?`
		args = append(args, only)
	}
	rows, err := ix.st.r.QueryContext(ctx, q+` ORDER BY height, id`, args...)
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

// UTXO is an output the index knows, with its spend when spent.
type UTXO struct {
	ID                   string
	Chain, CreatedOn     avanet.Chain // the chain whose UTXO set holds it; the chain of the tx that made it
	TxID                 string
	OutputIndex          uint32
	AssetID              string
	Amount               uint64
	Locktime             uint64
	Threshold            uint32
	Addresses            []avax.ShortID
	StakeLocktime        uint64 // a stakeable LockOut's locktime, else 0
	Staked               bool
	Reward               string // a reward's kind (VALIDATOR, DELEGATOR, VALIDATOR_FEE), else ""
	EmittedBy            string // the tx that made it: TxID, or the RewardValidatorTx that paid a reward
	StakeStart, StakeEnd int64
	Bytes                []byte
	Height               uint64
	Time                 int64
	Spent                bool
	SpentBy              string
	SpentOn              avanet.Chain
	SpentHeight          uint64
	SpentTime            int64
	// StakeEnded says a stake output's staking ended (its stake_ends row):
	// the output is back in the UTXO set, unstaked.
	StakeEnded bool
	// Paid says a transaction made it without spending for it: a reward,
	// or the balance a DisableL1ValidatorTx returned (RawBlock.Paid).
	Paid bool
}

// UTXOs returns the UTXOs of chain that any of addrs may spend, oldest
// first; spent ones too when includeSpent.
func (ix *Index) UTXOs(ctx context.Context, chain avanet.Chain, addrs []avax.ShortID, includeSpent bool) ([]*UTXO, error) {
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
	return ix.queryUTXOs(ctx, q+` ORDER BY u.time, u.created_on, u.height, u.id`, args...)
}

// utxoColumns are the columns queryUTXOs scans: the UTXO (u) and its spend
// (s, left joined).
const utxoColumns = `u.id, u.chain, u.created_on, u.tx, u.output_index, u.asset, u.amount, u.locktime, u.threshold, u.addresses,
			u.stake_locktime, u.staked, u.stake_start, u.stake_end, u.bytes, u.height, u.time, COALESCE(u.reward, ''), COALESCE(u.emitted_by, u.tx),
			s.tx, s.chain, s.height, s.time, u.staked = 1 AND EXISTS (SELECT 1 FROM stake_ends e WHERE e.stake = u.tx), u.emitted_by IS NOT NULL`

// queryUTXOs runs q, which selects utxoColumns.
func (ix *Index) queryUTXOs(ctx context.Context, q string, args ...any) ([]*UTXO, error) {
	rows, err := ix.st.r.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	return scanUTXOs(rows)
}

// queryUTXOsPrepared runs the fixed query q, which selects utxoColumns, as
// a prepared statement.
func (ix *Index) queryUTXOsPrepared(ctx context.Context, q string, args ...any) ([]*UTXO, error) {
	st, err := ix.st.prepared(ctx, q)
	if err != nil {
		return nil, err
	}
	rows, err := st.QueryContext(ctx, args...)
	if err != nil {
		return nil, err
	}
	return scanUTXOs(rows)
}

// scanUTXOs reads and closes rows of utxoColumns.
func scanUTXOs(rows *sql.Rows) ([]*UTXO, error) {
	defer rows.Close()
	var out []*UTXO
	for rows.Next() {
		u := &UTXO{}
		var chainS, created, amount, addrs string
		var by, on sql.NullString
		var sh, stime sql.NullInt64
		if err := rows.Scan(&u.ID, &chainS, &created, &u.TxID, &u.OutputIndex, &u.AssetID, &amount, &u.Locktime, &u.Threshold, &addrs,
			&u.StakeLocktime, &u.Staked, &u.StakeStart, &u.StakeEnd, &u.Bytes, &u.Height, &u.Time, &u.Reward, &u.EmittedBy, &by, &on, &sh, &stime,
			&u.StakeEnded, &u.Paid); err != nil {
			return nil, err
		}
		u.Chain, u.CreatedOn, u.Addresses = avanet.Chain(chainS), avanet.Chain(created), splitAddrs(addrs)
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

// ChainsOf returns the chains (P, X, C) on which addr owns or owned a UTXO.
func (ix *Index) ChainsOf(ctx context.Context, addr avax.ShortID) ([]avanet.Chain, error) {
	rows, err := ix.st.r.QueryContext(ctx, `SELECT DISTINCT chain FROM utxo_addrs WHERE addr=? ORDER BY chain`, addr.String())
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

// Asset is an X-Chain asset's description: its CreateAssetTx's.
type Asset struct {
	ID, Name, Symbol string
	Denomination     int
	// Cap is "fixed" when no output of its creation is a minter, else
	// "variable"; Type "nft" when one is an nftfx output, else
	// "secp256k1".
	Cap, Type string
	// Time is when its CreateAssetTx was accepted (the X-Chain's genesis
	// for AVAX).
	Time int64
}

// Asset returns an asset created on the X-Chain. AVAX, whose creation is
// the X-Chain's genesis, is described by the network until that is
// indexed. Its time is its block's: reading the CreateAssetTx's row would
// read its whole body (the genesis's, with every allocation: megabytes).
func (ix *Index) Asset(ctx context.Context, id string) (Asset, bool, error) {
	a := Asset{ID: id}
	err := ix.st.r.QueryRowContext(ctx, `SELECT a.name, a.symbol, a.denomination, COALESCE(a.cap, 'fixed'), COALESCE(a.type, 'secp256k1'),
			COALESCE(b.time, 0)
		FROM assets a LEFT JOIN blocks b ON b.chain = a.chain AND b.height = a.height WHERE a.id=?`, id).Scan(&a.Name, &a.Symbol, &a.Denomination, &a.Cap, &a.Type, &a.Time)
	if errors.Is(err, sql.ErrNoRows) {
		if id == ix.net.AVAXAssetID {
			return Asset{ID: id, Name: "Avalanche", Symbol: "AVAX", Denomination: 9, Cap: "fixed", Type: "secp256k1"}, true, nil
		}
		return a, false, nil
	}
	return a, err == nil, err
}

// Stake is a validation or delegation made by a transaction, with its end
// when it ended.
type Stake struct {
	TxID         string
	Node         string // NodeID's string form ("NodeID-…"), as stored
	Seq          int    // the validator's index in a ConvertSubnetToL1Tx
	Kind         string // validator, delegator, subnet_validator, l1_validator
	NodeID       avax.NodeID
	SubnetID     string
	Weight       uint64
	Start, End   int64 // End 0: until removed (L1 validators)
	Fee          uint32
	RewardOwner  []avax.ShortID
	BLSKey       string // 0x hex, empty without a signer
	BLSPoP       string
	ValidationID string // L1 validators
	Balance      uint64 // L1 validators: the balance the tx gave
	Height       uint64
	Time         int64
	EndTx        string // RewardValidatorTx, RemoveSubnetValidatorTx, DisableL1ValidatorTx or SetL1ValidatorWeightTx
	EndKind      string // completed, removed, disabled
	EndTime      int64
	// Rewards are the amounts the stake's RewardValidatorTx paid, by kind
	// (VALIDATOR, DELEGATOR, VALIDATOR_FEE); empty when no reward UTXOs
	// are indexed for it.
	Rewards map[string]uint64
}

// stakesAt is Stakes' answer read at an index version.
type stakesAt struct {
	version uint64
	stakes  []*Stake // nil: none read yet
}

// Stakes returns every indexed stake, oldest first. The stakes are shared
// by every caller until the index changes: read them, never modify them
// (the slice is the caller's own). A network's history of stakes is read
// once per block, not once per request (listValidators on 1,000 validators
// and 2,000 delegations: 40 ms a request without this).
func (ix *Index) Stakes(ctx context.Context) ([]*Stake, error) {
	v := ix.version.Load()
	ix.stakesMu.Lock()
	cached := ix.stakes
	ix.stakesMu.Unlock()
	if cached.stakes != nil && cached.version == v {
		return slices.Clone(cached.stakes), nil
	}
	out, err := ix.readStakes(ctx)
	if err != nil {
		return nil, err
	}
	ix.stakesMu.Lock()
	if ix.version.Load() == v { // else a write may have come between: not kept
		ix.stakes = stakesAt{version: v, stakes: slices.Clip(out)}
	}
	ix.stakesMu.Unlock()
	return slices.Clone(out), nil
}

// readStakes reads every stake from the store.
func (ix *Index) readStakes(ctx context.Context) ([]*Stake, error) {
	out := []*Stake{}
	rows, err := ix.st.r.QueryContext(ctx, `SELECT s.tx, s.seq, s.kind, s.node, s.subnet, s.weight, s.start, s.end, s.fee, s.reward_owner,
			s.bls_key, s.bls_pop, s.validation_id, s.balance, s.height, s.time, e.tx, e.kind, e.time
		FROM stakes s LEFT JOIN stake_ends e ON e.stake = (CASE WHEN s.validation_id != '' THEN s.validation_id ELSE s.tx END)
		ORDER BY s.height, s.tx, s.seq`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		s := &Stake{}
		var node, owner string
		var weight, balance int64
		var etx, ekind sql.NullString
		var etime sql.NullInt64
		if err := rows.Scan(&s.TxID, &s.Seq, &s.Kind, &node, &s.SubnetID, &weight, &s.Start, &s.End, &s.Fee, &owner,
			&s.BLSKey, &s.BLSPoP, &s.ValidationID, &balance, &s.Height, &s.Time, &etx, &ekind, &etime); err != nil {
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
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return out, ix.stakeRewards(ctx, out)
}

// stakeRewards fills the Rewards of stakes from the reward UTXOs.
func (ix *Index) stakeRewards(ctx context.Context, stakes []*Stake) error {
	rows, err := ix.st.r.QueryContext(ctx, `SELECT tx, reward, amount FROM utxos WHERE reward IS NOT NULL AND reward != ''`)
	if err != nil {
		return err
	}
	defer rows.Close()
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

// CurrentValidators returns the node's last platform.getCurrentValidators
// answer for subnet (the primary network's id is the empty id) and when it
// was read; ok is false when it was never read.
//
// The answer is kept until SetCurrentValidators stores another: its bytes
// are shared by every caller, who reads them and never modifies them (a
// primary network of 1,000 validators is a megabyte, copied twice per
// read without this).
func (ix *Index) CurrentValidators(ctx context.Context, subnet string) (json.RawMessage, int64, bool, error) {
	v := ix.currentVersion.Load()
	ix.currentMu.Lock()
	c, hit := ix.current[subnet]
	ix.currentMu.Unlock()
	if hit && c.version == v {
		return c.body, c.time, c.ok, nil
	}
	var body []byte
	var at int64
	err := ix.st.r.QueryRowContext(ctx, `SELECT body, time FROM current WHERE subnet=?`, subnet).Scan(&body, &at)
	ok := err == nil
	if errors.Is(err, sql.ErrNoRows) {
		err = nil
	}
	if err != nil {
		return nil, 0, false, err
	}
	ix.currentMu.Lock()
	if ix.currentVersion.Load() == v {
		if ix.current == nil || len(ix.current) >= maxCurrentKept {
			ix.current = map[string]currentAt{}
		}
		ix.current[subnet] = currentAt{version: v, body: body, time: at, ok: ok}
	}
	ix.currentMu.Unlock()
	return body, at, ok, nil
}

// maxCurrentKept bounds the subnets whose current validators are kept.
const maxCurrentKept = 256

// currentAt is a subnet's current validators read at a version of them.
type currentAt struct {
	version uint64
	body    json.RawMessage
	time    int64
	ok      bool
}

// Block is a stored P- or X-Chain block.
type Block struct {
	Chain      avanet.Chain
	Height     uint64
	ID, Parent string
	Time       int64
	Type       string
	Size       int
	Txs        []string
}

// Block returns chain's block at height.
func (ix *Index) Block(ctx context.Context, chain avanet.Chain, height uint64) (*Block, bool, error) {
	b := &Block{Chain: chain, Height: height}
	var txs string
	err := ix.st.r.QueryRowContext(ctx, `SELECT id, parent, time, type, size, txs FROM blocks WHERE chain=? AND height=?`, string(chain), height).
		Scan(&b.ID, &b.Parent, &b.Time, &b.Type, &b.Size, &txs)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	if err := json.Unmarshal([]byte(txs), &b.Txs); err != nil {
		return nil, false, err
	}
	return b, true, nil
}

// Tx is a stored transaction: its type and the node's JSON of it.
type Tx struct {
	ID     string
	Chain  avanet.Chain
	Height uint64
	Index  int
	Type   string
	Time   int64
	Body   json.RawMessage
}

// Tx returns a transaction by id.
func (ix *Index) Tx(ctx context.Context, id string) (*Tx, bool, error) {
	t := &Tx{ID: id}
	var chain, body string
	st, err := ix.st.prepared(ctx, `SELECT chain, height, idx, type, time, body FROM txs WHERE id=?`)
	if err != nil {
		return nil, false, err
	}
	err = st.QueryRowContext(ctx, id).Scan(&chain, &t.Height, &t.Index, &t.Type, &t.Time, &body)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	t.Chain, t.Body = avanet.Chain(chain), json.RawMessage(body)
	return t, true, nil
}
