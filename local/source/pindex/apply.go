package pindex

import (
	"encoding/binary"
	"encoding/json"
	"fmt"

	"github.com/avaedge/avaedge/avanet"
	"github.com/avaedge/avaedge/local/vocab/avax"
	"github.com/avaedge/avaedge/local/vocab/warpmsg"
)

// RawBlock is one block as the node returns it (platform.getBlockByHeight,
// avm.getBlockByHeight), or as a generated network (the devnet) makes it.
type RawBlock struct {
	// Height is the block's height; JSON its encoding "json".
	Height uint64
	JSON   json.RawMessage
	// Bytes are the block's bytes (encoding "hexnc"): its size and, on the
	// P-avanet.Chain, its type. A generated P-avanet.Chain block without bytes sets Type
	// and Size instead.
	Bytes []byte
	Type  string
	Size  int
	// TxBytes are an X-avanet.Chain block's transactions' signed bytes, by id.
	TxBytes map[string][]byte
	// Genesis are the transactions a chain accepted at its genesis, which
	// no block lists (the X-avanet.Chain's AVAX CreateAssetTx, whose initial states
	// are the genesis allocations; the devnet's genesis stakers), stored
	// with the block at height 0.
	Genesis []json.RawMessage
	// Paid are the UTXOs transactions of the block make that their JSON
	// does not list, by the tx's id: the rewards a RewardValidatorTx pays
	// when its commit block is accepted (their ids derive from the staking
	// tx, whose own stake outputs are returned), the balance a
	// DisableL1ValidatorTx returns.
	Paid map[string][]Paid
}

// Paid is a UTXO a transaction makes without listing it. Reward is the
// Data API's rewardType of a reward (VALIDATOR, DELEGATOR, VALIDATOR_FEE),
// else empty.
type Paid struct {
	UTXO   avax.UTXO
	Reward string
}

// pBlockTypes are the PlatformVM block codec's type ids (block/codec.go:
// Apricot blocks first, then the tx types, then Banff blocks at 29).
var pBlockTypes = map[uint32]string{
	0: "ApricotProposalBlock", 1: "ApricotAbortBlock", 2: "ApricotCommitBlock", 3: "ApricotStandardBlock",
	4: "ApricotAtomicBlock", 29: "BanffProposalBlock", 30: "BanffAbortBlock", 31: "BanffCommitBlock", 32: "BanffStandardBlock",
}

// Stake kinds of the stakes table.
const (
	stakeValidator       = "validator"        // primary network, AddValidatorTx or AddPermissionlessValidatorTx
	stakeDelegator       = "delegator"        // primary network delegation
	stakeSubnetValidator = "subnet_validator" // AddSubnetValidatorTx (or a permissionless one on a subnet)
	stakeL1Validator     = "l1_validator"     // ConvertSubnetToL1Tx or RegisterL1ValidatorTx
)

// writer decodes blocks into the rows of one store transaction (b). It is
// used by one follower at a time.
type writer struct {
	b   Batch
	net *avanet.Network
	// height and time of the block being applied.
	chain  avanet.Chain
	height uint64
	time   int64
	// idx is the position in its block of the transaction being applied.
	idx int
	// paid are the UTXOs the block's txs make without listing them.
	paid map[string][]Paid
}

// apply stores one block and everything its transactions make.
func (w *writer) apply(chain avanet.Chain, f *RawBlock, prevTime int64) (*blockJSON, error) {
	var b blockJSON
	if err := json.Unmarshal(f.JSON, &b); err != nil {
		return nil, fmt.Errorf("pindex: %s block %d: %w", chain, f.Height, err)
	}
	if b.Height != f.Height {
		return nil, fmt.Errorf("pindex: %s block at height %d says height %d", chain, f.Height, b.Height)
	}
	typ, size := "StandardBlock", len(f.Bytes)
	if chain == avanet.ChainP {
		typ = pBlockType(f.Bytes)
	}
	if f.Bytes == nil && f.Type != "" {
		typ, size = f.Type, f.Size
	}
	w.chain, w.height, w.time, w.paid = chain, b.Height, prevTime, f.Paid
	if b.Time != nil {
		w.time = int64(*b.Time)
	}
	raws := b.Txs
	if len(b.Tx) > 0 && string(b.Tx) != "null" {
		raws = append(append([]json.RawMessage(nil), raws...), b.Tx)
	}
	for i, raw := range f.Genesis {
		if _, err := w.applyTx(raw, i-len(f.Genesis), f.TxBytes); err != nil {
			return nil, fmt.Errorf("pindex: %s genesis tx %d: %w", chain, i, err)
		}
	}
	ids := make([]string, 0, len(raws))
	for i, raw := range raws {
		id, err := w.applyTx(raw, i, f.TxBytes)
		if err != nil {
			return nil, fmt.Errorf("pindex: %s block %d tx %d: %w", chain, b.Height, i, err)
		}
		ids = append(ids, id)
	}
	// The bytes and the node's JSON are kept for the node methods
	// (avm.getBlock, platform.getBlock).
	raw, js := f.Bytes, f.JSON
	row := &Block{Chain: chain, Height: b.Height, ID: b.ID, Parent: b.ParentID, Time: w.time, Type: typ, Size: size, Txs: ids}
	if err := w.b.Block(row, raw, js); err != nil {
		return nil, err
	}
	return &b, nil
}

// pBlockType names a P-avanet.Chain block by its codec type id, after the codec
// version; UNKNOWN when the bytes are too short or the id is not a block's.
func pBlockType(b []byte) string {
	if len(b) >= 6 {
		if name, ok := pBlockTypes[binary.BigEndian.Uint32(b[2:6])]; ok {
			return name
		}
	}
	return "UNKNOWN"
}

// applyTx stores one transaction and returns its id: the transaction, the
// UTXOs it spent, those it made (listed, and paid without listing), and
// what its type adds (applyP, derive).
func (w *writer) applyTx(raw json.RawMessage, idx int, txBytes map[string][]byte) (string, error) {
	var t txJSON
	if err := json.Unmarshal(raw, &t); err != nil {
		return "", err
	}
	txID, err := parseID(t.ID)
	if err != nil {
		return "", err
	}
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(t.Unsigned, &keys); err != nil {
		return "", err
	}
	var u unsignedJSON
	if err := json.Unmarshal(t.Unsigned, &u); err != nil {
		return "", err
	}
	typ := classifyX(keys)
	if w.chain == avanet.ChainP {
		typ = classifyP(keys)
	}
	w.idx = idx
	if err := w.b.Tx(&Tx{ID: t.ID, Chain: w.chain, Height: w.height, Index: idx, Type: typ, Time: w.time, Body: raw}, txBytes[t.ID]); err != nil {
		return "", err
	}
	if err := w.spends(t.ID, &u); err != nil {
		return "", err
	}
	next, err := w.outputs(typ, t.ID, txID, &u)
	if err != nil {
		return "", err
	}
	if w.chain == avanet.ChainP {
		if err := w.applyP(typ, t.ID, txID, &u, next); err != nil {
			return "", err
		}
	}
	if err := w.derive(typ, t.ID, idx, &u); err != nil {
		return "", err
	}
	for _, p := range w.paid[t.ID] {
		if err := w.paidUTXO(t.ID, p); err != nil {
			return "", err
		}
	}
	return t.ID, nil
}

// spends records the UTXOs transaction id spent: its inputs, imported
// inputs and operations' inputs.
func (w *writer) spends(id string, u *unsignedJSON) error {
	for _, in := range append(append([]transferableInJSON(nil), u.Inputs...), u.ImportedInputs...) {
		if err := w.spend(in.TxID, in.OutputIndex, id); err != nil {
			return err
		}
	}
	for _, op := range u.Operations {
		for _, in := range op.InputIDs {
			if err := w.spend(in.TxID, in.OutputIndex, id); err != nil {
				return err
			}
		}
	}
	return nil
}

// outputs stores the outputs transaction id (of type typ) lists, in output
// index order: its outputs, then those it exported, the initial states of
// the asset it created (and the asset), or its operations' outputs. It
// returns the next output index (where a P-avanet.Chain staker's stake outputs
// begin).
func (w *writer) outputs(typ, id string, txID avax.ID, u *unsignedJSON) (uint32, error) {
	next := uint32(0)
	put := func(assetID string, o *outputJSON, chain avanet.Chain) error {
		err := w.output(txID, next, assetID, o, chain, nil)
		next++
		return err
	}
	for _, o := range u.Outputs {
		if err := put(o.AssetID, &o.Output, w.chain); err != nil {
			return 0, err
		}
	}
	switch typ {
	case TxExport:
		dest, err := chainOf(w.net, u.DestinationChain)
		if err != nil {
			return 0, err
		}
		for _, o := range u.ExportedOutputs {
			if err := put(o.AssetID, &o.Output, dest); err != nil {
				return 0, err
			}
		}
	case TxCreateAsset:
		capKind, assetType := assetKind(u)
		a := &Asset{ID: id, Name: u.Name, Symbol: u.Symbol, Denomination: int(deref(u.Denomination)), Cap: capKind, Type: assetType}
		if err := w.b.Asset(a, w.chain, w.height); err != nil {
			return 0, err
		}
		for _, st := range u.InitialStates {
			for i := range st.Outputs {
				if err := put(id, &st.Outputs[i], w.chain); err != nil {
					return 0, err
				}
			}
		}
	case TxOperation:
		for _, op := range u.Operations {
			for _, o := range []*outputJSON{op.Operation.MintOutput, op.Operation.TransferOutput} {
				if o != nil {
					if err := put(op.AssetID, o, w.chain); err != nil {
						return 0, err
					}
				}
			}
		}
	}
	return next, nil
}

// stakeWindow marks stake outputs with their staking period.
type stakeWindow struct{ start, end int64 }

// output stores one output as a UTXO of chain (the chain whose UTXO set, or
// shared memory, holds it). Outputs other than secp256k1fx transfer outputs
// (mint and NFT outputs) count for the output indexes but are not UTXOs the
// Data API lists.
func (w *writer) output(txID avax.ID, index uint32, assetStr string, o *outputJSON, chain avanet.Chain, stake *stakeWindow) error {
	inner, lock := o, uint64(0)
	if o.Output != nil {
		inner, lock = o.Output, o.Locktime
	}
	if inner.Amount == nil || inner.GroupID != nil {
		return nil
	}
	asset, err := parseID(assetStr)
	if err != nil {
		return err
	}
	addrs, err := parseAddrs(inner.Addresses)
	if err != nil {
		return err
	}
	tout := avax.TransferOutput{Amt: *inner.Amount, OutputOwners: avax.OutputOwners{Locktime: inner.Locktime, Threshold: inner.Threshold, Addrs: addrs}}
	u := avax.UTXO{TxID: txID, OutputIndex: index, AssetID: asset, Out: &tout}
	if o.Output != nil {
		u.Out = &avax.StakeableLockOut{Locktime: lock, Out: tout}
	}
	row := &UTXO{ID: u.ID().String(), Chain: chain, CreatedOn: w.chain, Height: w.height, Time: w.time, TxID: txID.String(), OutputIndex: index,
		AssetID: assetStr, Amount: *inner.Amount, Locktime: inner.Locktime, Threshold: inner.Threshold, Addresses: addrs,
		StakeLocktime: lock, Staked: stake != nil, Bytes: u.Bytes()}
	if stake != nil {
		row.StakeStart, row.StakeEnd = stake.start, stake.end
	}
	return w.b.UTXO(row, w.idx)
}

// spend records that the transaction being applied (by) spent a UTXO: it
// touched the UTXO's addresses, which no longer hold it unspent.
func (w *writer) spend(txStr string, index uint32, by string) error {
	txID, err := parseID(txStr)
	if err != nil {
		return err
	}
	return w.b.Spend(&Spend{UTXO: txID.Prefix(uint64(index)).String(), Tx: by, Chain: w.chain, Height: w.height, Index: w.idx, Time: w.time})
}

func deref[T any](p *T) T {
	var z T
	if p == nil {
		return z
	}
	return *p
}

// ownerAddrs reads an owner's addresses (none for no owner).
func ownerAddrs(o *ownerJSON) ([]avax.ShortID, error) {
	if o == nil {
		return nil, nil
	}
	return parseAddrs(o.Addresses)
}

// l1Message reads the L1 message in a signed Warp message (0x hex): the
// payload of its AddressedCall, which the L1's validator manager sends (its
// source chain and address are the conversion's manager's).
func l1Message(s string) (warpmsg.L1Message, error) {
	b, err := hexBytes(s)
	if err != nil {
		return nil, err
	}
	m, err := warpmsg.ParseMessage(b)
	if err != nil {
		return nil, fmt.Errorf("warp message: %w", err)
	}
	p, err := warpmsg.ParsePayload(m.Payload)
	if err != nil {
		return nil, fmt.Errorf("warp message: %w", err)
	}
	call, ok := p.(*warpmsg.AddressedCall)
	if !ok {
		return nil, fmt.Errorf("warp message: the payload is a %T, not an AddressedCall", p)
	}
	return warpmsg.ParseL1Message(call.Payload)
}

func hexID(b [32]byte) string { return avax.ID(b).String() }
