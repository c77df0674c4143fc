package pindex

import (
	"database/sql"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

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
	// P-Chain, its type. A generated P-Chain block without bytes sets Type
	// and Size instead.
	Bytes []byte
	Type  string
	Size  int
	// TxBytes are an X-Chain block's transactions' signed bytes, by id.
	TxBytes map[string][]byte
	// Genesis are the transactions a chain accepted at its genesis, which
	// no block lists (the X-Chain's AVAX CreateAssetTx, whose initial states
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

// writer applies blocks within one store transaction. It is used by one
// follower at a time.
type writer struct {
	tx  *sql.Tx
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

func (w *writer) exec(q string, args ...any) error {
	_, err := w.tx.Exec(q, args...)
	return err
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
	txs, _ := json.Marshal(ids)
	var raw, js any // kept for the node methods (X-Chain only)
	if chain == avanet.ChainX {
		raw, js = f.Bytes, string(f.JSON)
	}
	if err := w.exec(`INSERT INTO blocks (chain, height, id, parent, time, type, size, txs, bytes, json) VALUES (?,?,?,?,?,?,?,?,?,?)`,
		string(chain), b.Height, b.ID, b.ParentID, w.time, typ, size, string(txs), raw, js); err != nil {
		return nil, err
	}
	return &b, nil
}

// pBlockType names a P-Chain block by its codec type id, after the codec
// version; UNKNOWN when the bytes are too short or the id is not a block's.
func pBlockType(b []byte) string {
	if len(b) >= 6 {
		if name, ok := pBlockTypes[binary.BigEndian.Uint32(b[2:6])]; ok {
			return name
		}
	}
	return "UNKNOWN"
}

// applyTx stores one transaction and returns its id.
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
	var signed any
	if b, ok := txBytes[t.ID]; ok {
		signed = b
	}
	w.idx = idx
	if err := w.exec(`INSERT INTO txs (id, chain, height, idx, type, time, body, bytes) VALUES (?,?,?,?,?,?,?,?)`,
		t.ID, string(w.chain), w.height, idx, typ, w.time, string(raw), signed); err != nil {
		return "", err
	}
	for _, in := range append(append([]transferableInJSON(nil), u.Inputs...), u.ImportedInputs...) {
		if err := w.spend(in.TxID, in.OutputIndex, t.ID); err != nil {
			return "", err
		}
	}
	for _, op := range u.Operations {
		for _, in := range op.InputIDs {
			if err := w.spend(in.TxID, in.OutputIndex, t.ID); err != nil {
				return "", err
			}
		}
	}
	next := uint32(0)
	for _, o := range u.Outputs {
		if err := w.output(txID, next, o.AssetID, &o.Output, w.chain, nil); err != nil {
			return "", err
		}
		next++
	}
	switch typ {
	case TxExport:
		dest, err := chainOf(w.net, u.DestinationChain)
		if err != nil {
			return "", err
		}
		for _, o := range u.ExportedOutputs {
			if err := w.output(txID, next, o.AssetID, &o.Output, dest, nil); err != nil {
				return "", err
			}
			next++
		}
	case TxCreateAsset:
		capKind, assetType := assetKind(&u)
		if err := w.exec(`INSERT INTO assets (id, chain, name, symbol, denomination, height, cap, type) VALUES (?,?,?,?,?,?,?,?)`,
			t.ID, string(w.chain), u.Name, u.Symbol, int(deref(u.Denomination)), w.height, capKind, assetType); err != nil {
			return "", err
		}
		for _, st := range u.InitialStates {
			for i := range st.Outputs {
				if err := w.output(txID, next, t.ID, &st.Outputs[i], w.chain, nil); err != nil {
					return "", err
				}
				next++
			}
		}
	case TxOperation:
		for _, op := range u.Operations {
			for _, o := range []*outputJSON{op.Operation.MintOutput, op.Operation.TransferOutput} {
				if o != nil {
					if err := w.output(txID, next, op.AssetID, o, w.chain, nil); err != nil {
						return "", err
					}
					next++
				}
			}
		}
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
	id := u.ID().String()
	var start, end int64
	if stake != nil {
		start, end = stake.start, stake.end
	}
	if err := w.exec(`INSERT INTO utxos (id, chain, created_on, height, time, tx, output_index, asset, amount, locktime, threshold, addresses,
		stake_locktime, staked, stake_start, stake_end, bytes) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`,
		id, string(chain), string(w.chain), w.height, w.time, txID.String(), index, assetStr, strconv.FormatUint(*inner.Amount, 10),
		inner.Locktime, inner.Threshold, joinAddrs(addrs), lock, stake != nil, start, end, u.Bytes()); err != nil {
		return err
	}
	return w.owned(id, chain, addrs, txID.String(), w.height, w.idx)
}

// owned stores the address rows of UTXO id of chain, made in the block
// being applied by tx, at txHeight and position idx of its own chain: who may spend it (utxo_addrs),
// that it is unspent (utxo_unspent) and that tx touched their addresses
// (addr_txs). An exported output may have been imported (spent) by the
// other chain's follower already: then its spender touched them too, and
// it is not unspent.
func (w *writer) owned(id string, chain avanet.Chain, addrs []avax.ShortID, tx string, txHeight uint64, idx int) error {
	var spender struct {
		chain, tx string
		height    uint64
		idx       int
	}
	spent := false
	if chain != w.chain {
		err := w.tx.QueryRow(`SELECT t.chain, t.id, t.height, t.idx FROM spends s JOIN txs t ON t.id = s.tx WHERE s.utxo=?`, id).
			Scan(&spender.chain, &spender.tx, &spender.height, &spender.idx)
		switch {
		case err == nil:
			spent = true
		case !errors.Is(err, sql.ErrNoRows):
			return err
		}
	}
	for _, a := range addrs {
		as := a.String()
		if err := w.exec(`INSERT OR IGNORE INTO utxo_addrs (addr, chain, utxo, created_on, height) VALUES (?,?,?,?,?)`,
			as, string(chain), id, string(w.chain), w.height); err != nil {
			return err
		}
		if err := w.exec(`INSERT OR IGNORE INTO addr_txs (addr, chain, height, idx, tx) VALUES (?,?,?,?,?)`,
			as, string(w.chain), txHeight, idx, tx); err != nil {
			return err
		}
		if spent {
			if err := w.exec(`INSERT OR IGNORE INTO addr_txs (addr, chain, height, idx, tx) VALUES (?,?,?,?,?)`,
				as, spender.chain, spender.height, spender.idx, spender.tx); err != nil {
				return err
			}
			continue
		}
		if err := w.exec(`INSERT OR IGNORE INTO utxo_unspent (addr, chain, utxo, created_on, height) VALUES (?,?,?,?,?)`,
			as, string(chain), id, string(w.chain), w.height); err != nil {
			return err
		}
	}
	return nil
}

// spend records that the transaction being applied (by) spent a UTXO: it
// touched the UTXO's addresses, which no longer hold it unspent. A UTXO
// another chain exported and its follower has not stored yet gets those
// rows when it is stored (owned).
func (w *writer) spend(txStr string, index uint32, by string) error {
	txID, err := parseID(txStr)
	if err != nil {
		return err
	}
	id := txID.Prefix(uint64(index)).String()
	if err := w.exec(`INSERT OR REPLACE INTO spends (utxo, tx, chain, height, time) VALUES (?,?,?,?,?)`,
		id, by, string(w.chain), w.height, w.time); err != nil {
		return err
	}
	var chain, addrs string
	switch err := w.tx.QueryRow(`SELECT chain, addresses FROM utxos WHERE id=?`, id).Scan(&chain, &addrs); {
	case errors.Is(err, sql.ErrNoRows):
		return nil
	case err != nil:
		return err
	}
	for _, a := range storedAddrs(addrs) {
		if err := w.exec(`INSERT OR IGNORE INTO addr_txs (addr, chain, height, idx, tx) VALUES (?,?,?,?,?)`,
			a, string(w.chain), w.height, w.idx, by); err != nil {
			return err
		}
		if err := w.exec(`DELETE FROM utxo_unspent WHERE addr=? AND chain=? AND utxo=?`, a, chain, id); err != nil {
			return err
		}
	}
	return nil
}

func joinAddrs(addrs []avax.ShortID) string {
	s := make([]string, len(addrs))
	for i, a := range addrs {
		s[i] = a.String()
	}
	return strings.Join(s, ",")
}

func deref[T any](p *T) T {
	var z T
	if p == nil {
		return z
	}
	return *p
}

// ownerRow reads an owner's addresses into the stored form.
func ownerRow(o *ownerJSON) (string, error) {
	if o == nil {
		return "", nil
	}
	addrs, err := parseAddrs(o.Addresses)
	if err != nil {
		return "", err
	}
	return joinAddrs(addrs), nil
}

// pchainOwnerRow reads a PChainOwner (no locktime).
func pchainOwnerRow(o pchainOwnerJSON) (string, error) {
	return ownerRow(&ownerJSON{Addresses: o.Addresses, Threshold: o.Threshold})
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
