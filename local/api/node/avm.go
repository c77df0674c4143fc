package node

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/avaedge/avaedge/local/vocab/avax"
)

// Error texts of avalanchego's avm service and state.
var (
	errNilTxID          = errors.New("nil transaction ID")
	errNotFound         = errors.New("not found")
	errNotLinearized    = errors.New("chain is not linearized")
	errTxNotCreateAsset = errors.New("transaction doesn't create an asset")
)

// lookupAsset resolves an asset alias or cb58 id (avm VM.lookupAssetID).
// An id that is not a known asset is returned as is: the caller decides
// whether that is an error.
func (s *service) lookupAsset(str string) (avax.ID, error) {
	for i := range s.w.Assets {
		if a := &s.w.Assets[i]; a.Alias != "" && a.Alias == str {
			return a.ID, nil
		}
	}
	if id, err := avax.ParseID(str); err == nil {
		return id, nil
	}
	return avax.ID{}, fmt.Errorf("asset '%s' not found", str)
}

// asset returns the asset an id names, by its printed or its raw id.
func (s *service) asset(id avax.ID) *Asset {
	if a, ok := s.assets[id]; ok {
		return a
	}
	if a, ok := s.rawAssets[id]; ok {
		return a
	}
	if s.w.AssetLookup != nil {
		if a, ok := s.w.AssetLookup(id); ok {
			return a
		}
	}
	return nil
}

type getAssetDescriptionArgs struct {
	AssetID string `json:"assetID"`
}

type getAssetDescriptionReply struct {
	AssetID      string `json:"assetID"`
	Name         string `json:"name"`
	Symbol       string `json:"symbol"`
	Denomination uint8s `json:"denomination"`
}

// uint8s is avalanchego's json.Uint8.
type uint8s uint8

// MarshalJSON quotes the decimal.
func (u uint8s) MarshalJSON() ([]byte, error) { return uint64s(u).MarshalJSON() }

func (s *service) getAssetDescription(_ context.Context, args *getAssetDescriptionArgs) (*getAssetDescriptionReply, error) {
	id, err := s.lookupAsset(args.AssetID)
	if err != nil {
		return nil, err
	}
	a := s.asset(id)
	if a == nil {
		if s.w.Txs != nil {
			if _, ok := s.w.Txs.Tx(id); ok {
				return nil, errTxNotCreateAsset
			}
		}
		return nil, errNotFound
	}
	return &getAssetDescriptionReply{AssetID: a.ID.String(), Name: a.Name, Symbol: a.Symbol, Denomination: uint8s(a.Denomination)}, nil
}

type getBalanceArgs struct {
	Address        string `json:"address"`
	AssetID        string `json:"assetID"`
	IncludePartial bool   `json:"includePartial"`
}

type utxoID struct {
	TxID        string `json:"txID"`
	OutputIndex uint32 `json:"outputIndex"`
}

type getBalanceReply struct {
	Balance uint64s  `json:"balance"`
	UTXOIDs []utxoID `json:"utxoIDs"`
}

// spendable reports whether a UTXO counts in a balance: without
// includePartial only outputs with a single owner and a passed locktime do
// (avm Service.GetBalance).
func spendable(u *avax.UTXO, includePartial bool, now uint64) (*avax.TransferOutput, bool) {
	out, ok := u.Out.(*avax.TransferOutput)
	if !ok {
		return nil, false
	}
	if !includePartial && (len(out.Addrs) != 1 || out.Locktime > now) {
		return nil, false
	}
	return out, true
}

// idUTXO is a UTXO with its id, computed once.
type idUTXO struct {
	id avax.ID
	*avax.UTXO
}

// addressUTXOs returns the UTXOs addr may spend on the X-Chain (source is
// the X-Chain) or exported to it from source, by UTXO id: the order of the
// node's per-address index that pagination follows.
func (s *service) addressUTXOs(source avax.ID, addr avax.ShortID) []idUTXO {
	if s.w.UTXOs == nil {
		return nil
	}
	return s.idUTXOs(source, s.w.UTXOs.UTXOs(source, addr))
}

// idUTXOs returns src, the UTXOs of an address from source, with their
// ids, in the order of the node's index (shared memory's by id).
func (s *service) idUTXOs(source avax.ID, src []*avax.UTXO) []idUTXO {
	us := make([]idUTXO, len(src))
	for i, u := range src {
		us[i] = idUTXO{u.ID(), u}
	}
	if source != s.xChain {
		slices.SortFunc(us, func(a, b idUTXO) int { return bytes.Compare(a.id[:], b.id[:]) })
	}
	return us
}

func (s *service) getBalance(_ context.Context, args *getBalanceArgs) (*getBalanceReply, error) {
	addr, err := s.parseAddress(args.Address)
	if err != nil {
		return nil, fmt.Errorf("problem parsing address '%s': %w", args.Address, err)
	}
	assetID, err := s.lookupAsset(args.AssetID)
	if err != nil {
		return nil, err
	}
	raw := assetID
	if a := s.asset(assetID); a != nil {
		raw = a.raw()
	}
	now := uint64(s.w.now().Unix())
	r := &getBalanceReply{UTXOIDs: []utxoID{}}
	for _, u := range s.addressUTXOs(s.xChain, addr) {
		if u.AssetID != raw {
			continue
		}
		out, ok := spendable(u.UTXO, args.IncludePartial, now)
		if !ok {
			continue
		}
		if uint64(r.Balance) > math.MaxUint64-out.Amt {
			return nil, errors.New("overflow")
		}
		r.Balance += uint64s(out.Amt)
		r.UTXOIDs = append(r.UTXOIDs, utxoID{TxID: u.TxID.String(), OutputIndex: u.OutputIndex})
	}
	return r, nil
}

type getAllBalancesArgs struct {
	Address        string `json:"address"`
	IncludePartial bool   `json:"includePartial"`
}

type balance struct {
	AssetID string  `json:"asset"`
	Balance uint64s `json:"balance"`
}

type getAllBalancesReply struct {
	Balances []balance `json:"balances"`
}

// getAllBalances sums the spendable UTXOs per asset; assets are named by
// their alias when they have one ("AVAX"), as the node's
// PrimaryAliasOrDefault does, and sorted by that name (the node's order is
// its set's, so random).
func (s *service) getAllBalances(_ context.Context, args *getAllBalancesArgs) (*getAllBalancesReply, error) {
	addr, err := s.parseAddress(args.Address)
	if err != nil {
		return nil, fmt.Errorf("problem parsing address '%s': %w", args.Address, err)
	}
	now := uint64(s.w.now().Unix())
	var order []avax.ID
	sums := map[avax.ID]uint64{}
	for _, u := range s.addressUTXOs(s.xChain, addr) {
		out, ok := spendable(u.UTXO, args.IncludePartial, now)
		if !ok {
			continue
		}
		if _, seen := sums[u.AssetID]; !seen {
			order = append(order, u.AssetID)
		}
		if sums[u.AssetID] > math.MaxUint64-out.Amt {
			sums[u.AssetID] = math.MaxUint64
		} else {
			sums[u.AssetID] += out.Amt
		}
	}
	r := &getAllBalancesReply{Balances: make([]balance, len(order))}
	for i, id := range order {
		name := id.String()
		if a := s.asset(id); a != nil {
			name = a.ID.String()
			if a.Alias != "" {
				name = a.Alias
			}
		}
		r.Balances[i] = balance{AssetID: name, Balance: uint64s(sums[id])}
	}
	slices.SortFunc(r.Balances, func(a, b balance) int { return strings.Compare(a.AssetID, b.AssetID) })
	return r, nil
}

type getTxFeeReply struct {
	TxFee            uint64s `json:"txFee"`
	CreateAssetTxFee uint64s `json:"createAssetTxFee"`
}

func (s *service) getAVMTxFee(context.Context, *noArgs) (*getTxFeeReply, error) {
	tx, asset := txFees(s.w.NetworkID)
	return &getTxFeeReply{TxFee: uint64s(tx), CreateAssetTxFee: uint64s(asset)}, nil
}

type txIDArgs struct {
	TxID jsonID `json:"txID"`
}

type getTxStatusReply struct {
	Status string `json:"status"`
}

// getTxStatus answers Accepted for an accepted transaction and Unknown
// otherwise: the local world has no mempool.
func (s *service) getTxStatus(_ context.Context, args *txIDArgs) (*getTxStatusReply, error) {
	id := avax.ID(args.TxID)
	if id.IsEmpty() {
		return nil, errNilTxID
	}
	if s.w.Txs != nil {
		if _, ok := s.w.Txs.Tx(id); ok {
			return &getTxStatusReply{Status: "Accepted"}, nil
		}
	}
	return &getTxStatusReply{Status: "Unknown"}, nil
}

type getTxArgs struct {
	TxID     jsonID   `json:"txID"`
	Encoding encoding `json:"encoding"`
}

type getTxReply struct {
	Tx       json.RawMessage `json:"tx"`
	Encoding encoding        `json:"encoding"`
}

func (s *service) getTx(_ context.Context, args *getTxArgs) (*getTxReply, error) {
	id := avax.ID(args.TxID)
	if id.IsEmpty() {
		return nil, errNilTxID
	}
	var b []byte
	ok := false
	if s.w.Txs != nil {
		b, ok = s.w.Txs.Tx(id)
	}
	if !ok {
		return nil, errNotFound
	}
	var result any
	if js, ok := s.w.Txs.(JSONTxs); ok && args.Encoding == encJSON {
		raw, found := js.TxJSON(id)
		if !found {
			return nil, errNotFound
		}
		return &getTxReply{Tx: raw, Encoding: args.Encoding}, nil
	}
	if args.Encoding == encJSON {
		tx, err := avax.ParseTx(b)
		if err != nil {
			return nil, fmt.Errorf("couldn't parse tx %s: %w", id, err)
		}
		result = s.xjson().Tx(tx, id)
	} else {
		str, err := args.Encoding.encode(b)
		if err != nil {
			return nil, err
		}
		result = str
	}
	raw, err := json.Marshal(result)
	if err != nil {
		return nil, err
	}
	return &getTxReply{Tx: raw, Encoding: args.Encoding}, nil
}

type getBlockArgs struct {
	BlockID  jsonID   `json:"blockID"`
	Encoding encoding `json:"encoding"`
}

type getBlockByHeightArgs struct {
	Height   uint64s  `json:"height"`
	Encoding encoding `json:"encoding"`
}

type getBlockReply struct {
	Block    json.RawMessage `json:"block"`
	Encoding encoding        `json:"encoding"`
}

func (s *service) getBlock(_ context.Context, args *getBlockArgs) (*getBlockReply, error) {
	if s.w.Blocks == nil {
		return nil, errNotLinearized
	}
	id := avax.ID(args.BlockID)
	b, ok := s.w.Blocks.Block(id)
	if !ok {
		return nil, fmt.Errorf("couldn't get block with id %s: %w", id, errNotFound)
	}
	return s.blockReply(b, id, args.Encoding)
}

func (s *service) getBlockByHeight(_ context.Context, args *getBlockByHeightArgs) (*getBlockReply, error) {
	if s.w.Blocks == nil {
		return nil, errNotLinearized
	}
	b, ok := s.w.Blocks.BlockAt(uint64(args.Height))
	if !ok {
		return nil, fmt.Errorf("couldn't get block at height %d: %w", uint64(args.Height), errNotFound)
	}
	return s.blockReply(b, avax.Hash256(b), args.Encoding)
}

func (s *service) blockReply(b []byte, id avax.ID, enc encoding) (*getBlockReply, error) {
	var result any
	if js, ok := s.w.Blocks.(JSONBlocks); ok && enc == encJSON {
		raw, found := js.BlockJSON(id)
		if !found {
			return nil, fmt.Errorf("couldn't get block with id %s: %w", id, errNotFound)
		}
		return &getBlockReply{Block: raw, Encoding: enc}, nil
	}
	if enc == encJSON {
		blk, err := avax.ParseStandardBlock(b)
		if err != nil {
			return nil, fmt.Errorf("couldn't parse block %s: %w", id, err)
		}
		result = s.xjson().Block(blk, id)
	} else {
		str, err := enc.encode(b)
		if err != nil {
			return nil, fmt.Errorf("couldn't encode block %s as string: %w", id, err)
		}
		result = str
	}
	raw, err := json.Marshal(result)
	if err != nil {
		return nil, err
	}
	return &getBlockReply{Block: raw, Encoding: enc}, nil
}

type getHeightReply struct {
	Height uint64s `json:"height"`
}

func (s *service) getHeight(context.Context, *noArgs) (*getHeightReply, error) {
	if s.w.Blocks == nil {
		return nil, errNotLinearized
	}
	h, ok := s.w.Blocks.Height()
	if !ok {
		return nil, errNotLinearized
	}
	return &getHeightReply{Height: uint64s(h)}, nil
}
