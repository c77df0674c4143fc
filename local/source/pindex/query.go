package pindex

import (
	"context"
	"encoding/json"
	"slices"

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

// Block is a stored P- or X-avanet.Chain block.
type Block struct {
	Chain      avanet.Chain
	Height     uint64
	ID, Parent string
	Time       int64
	Type       string
	Size       int
	Txs        []string
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

// TxParts are what every answer of a transaction shows besides its row:
// its block's id ("" when there is none) and the UTXOs it made (in output
// order) and spent (by tx, then output index).
type TxParts struct {
	BlockID           string
	Emitted, Consumed []*UTXO
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
	// the output is back in the UTXO set, unstaked. StakeEndedTime is when
	// (the block time of the transaction that ended it), so that a balance
	// at a past time classifies it as of then.
	StakeEnded     bool
	StakeEndedTime int64
	// Paid says a transaction made it without spending for it: a reward,
	// or the balance a DisableL1ValidatorTx returned (RawBlock.Paid).
	Paid bool
}

// Asset is an X-avanet.Chain asset's description: its CreateAssetTx's.
type Asset struct {
	ID, Name, Symbol string
	Denomination     int
	// Cap is "fixed" when no output of its creation is a minter, else
	// "variable"; Type "nft" when one is an nftfx output, else
	// "secp256k1".
	Cap, Type string
	// Time is when its CreateAssetTx was accepted (the X-avanet.Chain's genesis
	// for AVAX).
	Time int64
}

// Asset returns an asset created on the X-avanet.Chain (Reader.Asset). AVAX,
// whose creation is the X-avanet.Chain's genesis, is described by the network
// until that is indexed.
//
// The answers are kept until the index changes (an asset's row changes
// only by a rollback): every UTXO and transaction answer names its assets,
// and on PostgreSQL each read is a round trip.
func (ix *Index) Asset(ctx context.Context, id string) (Asset, bool, error) {
	v := ix.version.Load()
	ix.assetsMu.Lock()
	kept, hit := ix.assets.answers[id]
	hit = hit && ix.assets.version == v
	ix.assetsMu.Unlock()
	if hit {
		return kept.asset, kept.ok, nil
	}
	a, ok, err := ix.reader.Asset(ctx, id)
	if err != nil {
		return a, false, err
	}
	if !ok && id == ix.net.AVAXAssetID {
		a, ok = Asset{ID: id, Name: "Avalanche", Symbol: "AVAX", Denomination: 9, Cap: "fixed", Type: "secp256k1"}, true
	}
	ix.assetsMu.Lock()
	if ix.version.Load() == v { // else a write may have come between: not kept
		if ix.assets.answers == nil || ix.assets.version != v || len(ix.assets.answers) >= maxAssetsKept {
			ix.assets = assetsAt{version: v, answers: map[string]assetAnswer{}}
		}
		ix.assets.answers[id] = assetAnswer{asset: a, ok: ok}
	}
	ix.assetsMu.Unlock()
	return a, ok, nil
}

// maxAssetsKept bounds the assets whose answers are kept.
const maxAssetsKept = 1024

// assetsAt are Asset's answers read at an index version, by id.
type assetsAt struct {
	version uint64
	answers map[string]assetAnswer
}

// assetAnswer is one of Asset's answers.
type assetAnswer struct {
	asset Asset
	ok    bool
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
	out, err := ix.reader.Stakes(ctx)
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
	body, at, ok, err := ix.reader.CurrentValidators(ctx, subnet)
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

// BlockRange selects blocks or transactions of one chain: by time (Unix
// seconds, 0 for no bound), newest first unless Asc, at most Limit (0 for
// all), after the position After when it is set.
type BlockRange struct {
	Start, End int64
	Asc        bool
	Limit      int
	// After, when set, continues a listing after the row at that place
	// (the previous page's last, Tx.Pos or Block.Pos): the rows past it in
	// the listing's order, found by key. Any position is a place to start
	// from, whether a row has it or not.
	After *Pos
}

// Pos is a row's place in the order of a chain's listings: a transaction's
// block height and index in its block, or a block's height (index 0).
type Pos uint64

// posBias stores an index, negative for the genesis transactions, as an
// unsigned number of 24 bits.
const posBias = 1 << 23

// PosOf returns the place of index (within ±2^23) in the block at height
// (below 2^40).
func PosOf(height uint64, index int) Pos {
	return Pos(height<<24 | uint64(index+posBias)&(1<<24-1))
}

// Height returns the block height of p.
func (p Pos) Height() uint64 { return uint64(p) >> 24 }

// Index returns the index in its block of p.
func (p Pos) Index() int { return int(p&(1<<24-1)) - posBias }

// Pos returns the transaction's place in its chain's listings.
func (t *Tx) Pos() Pos { return PosOf(t.Height, t.Index) }

// Pos returns the block's place in its chain's listings.
func (b *Block) Pos() Pos { return PosOf(b.Height, 0) }

// TxFilter selects transactions of one chain.
type TxFilter struct {
	BlockRange
	Types []string       // the tx types to keep; none means every type
	Addrs []avax.ShortID // keep txs that made or spent a UTXO of one of them
	// L1ValidationID keeps the txs that made or changed that L1 validation
	// (ConvertSubnetToL1Tx, RegisterL1ValidatorTx, SetL1ValidatorWeightTx,
	// IncreaseL1ValidatorBalanceTx, DisableL1ValidatorTx).
	L1ValidationID string
	// Asset keeps the X-avanet.Chain txs that spent or made a UTXO of that asset
	// (its CreateAssetTx included).
	Asset string
	// IDs keeps only these txs; nil means no such filter.
	IDs []string
}

// Activity is the latest thing a chain's transactions did to a set of
// addresses' UTXOs: made one, or spent one (Consumed).
type Activity struct {
	Time     int64
	Height   uint64
	TxID     string
	UTXOID   string
	Consumed bool
}

// Supply is the primary network's AVAX supply as the followed node last
// reported it (platform.getCurrentSupply): the genesis supply plus the
// potential rewards of every staker the P-avanet.Chain added (less those of
// stakes that ended without their reward), in nAVAX, at P-avanet.Chain height
// Height, read at Time (Unix seconds).
type Supply struct {
	Current uint64 `json:"supply"`
	Height  uint64 `json:"height"`
	Time    int64  `json:"time"`
}

// Totals are AVAX amounts of the whole index, in nAVAX.
type Totals struct {
	// BurnedP and BurnedX are the transaction fees the P- and X-avanet.Chain
	// burned: what each transaction spent beyond what it made (its
	// outputs, exported and staked ones included) and, on the P-avanet.Chain,
	// the balances it gave L1 validators. A transaction that spent a UTXO
	// the index does not hold (a P-avanet.Chain genesis allocation of a followed
	// network, which no block lists) is not counted.
	BurnedP, BurnedX uint64
	// Rewards are the staking rewards paid (the reward UTXOs).
	Rewards uint64
	// L1Given are the balances transactions gave L1 validators; L1Returned
	// what DisableL1ValidatorTxs returned of them.
	L1Given, L1Returned uint64
}

// LockedAVAX sums the unspent AVAX UTXOs of the P- and X-avanet.Chain (shared
// memory included) that are locked at now (Unix seconds): time-locked, or
// stakeable-locked and not staked.
func (ix *Index) LockedAVAX(ctx context.Context, now int64) (uint64, error) {
	return ix.reader.LockedAVAX(ctx, ix.net.AVAXAssetID, now)
}
