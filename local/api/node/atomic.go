package node

import (
	"context"
	"errors"
	"fmt"

	"github.com/avaedge/avaedge/avanet"
	"github.com/avaedge/avaedge/jsonrpc"
	"github.com/avaedge/avaedge/local/vocab/avax"
)

var errNoSourceChain = errors.New("no source chain provided")

// AtomicMethods returns the C-Chain's atomic reads (avax.getUTXOs,
// avax.getAtomicTx, avax.getAtomicTxStatus) in coreth's formats, from an
// index that holds the C-Chain's atomic transactions (pindex follows them
// in a followed node's blocks; a generated network's C-Chain, the
// embedded EVM dev chain, takes none, so there its shared memory holds
// what the X- and P-Chain exported to it and no atomic transaction is
// known). getUTXOs lists the UTXOs exported to the C-Chain that no import
// spent; getAtomicTx and getAtomicTxStatus know the accepted transactions
// (Unknown for any other: the index does not see the node's mempool).
func AtomicMethods(ix PIndex, v *View) map[string]jsonrpc.Method {
	s := chainService(ix, v, avanet.ChainC)
	return map[string]jsonrpc.Method{
		"avax.getUTXOs": method(func(ctx context.Context, args *getUTXOsArgs) (*getUTXOsReply, error) {
			return atomicUTXOs(ctx, s, args)
		}),
		"avax.getAtomicTxStatus": method(func(ctx context.Context, args *txIDArgs) (*atomicTxStatusReply, error) {
			return atomicTxStatus(ctx, ix, args)
		}),
		"avax.getAtomicTx": method(func(ctx context.Context, args *getTxArgs) (*atomicTxReply, error) {
			return atomicTx(ctx, ix, args)
		}),
	}
}

// atomicUTXOs is coreth's AvaxAPI.GetUTXOs: the UTXOs source exported to
// the C-Chain for the addresses, paged in shared memory's order.
func atomicUTXOs(ctx context.Context, s *service, args *getUTXOsArgs) (*getUTXOsReply, error) {
	if len(args.Addresses) == 0 {
		return nil, errNoAddresses
	}
	if len(args.Addresses) > maxGetUTXOsAddrs {
		return nil, fmt.Errorf("number of addresses given, %d, exceeds maximum, %d", len(args.Addresses), maxGetUTXOsAddrs)
	}
	if args.SourceChain == "" {
		return nil, errNoSourceChain
	}
	return s.getUTXOs(ctx, args)
}

type atomicTxStatusReply struct {
	Status      string   `json:"status"`
	BlockHeight *uint64s `json:"blockHeight,omitempty"`
}

// indexedAtomicTx reads an accepted C-Chain atomic transaction's signed
// bytes and block height from the index; ok is false for one it does not
// hold.
func indexedAtomicTx(ctx context.Context, ix PIndex, id avax.ID) ([]byte, uint64, bool, error) {
	t, ok, err := ix.Tx(ctx, id.String())
	if err != nil || !ok || t.Chain != avanet.ChainC {
		return nil, 0, false, err
	}
	b, err := t.AtomicBytes()
	return b, t.Height, err == nil, err
}

// atomicTxStatus is coreth's AvaxAPI.GetAtomicTxStatus: Accepted, with its
// block's height, for a transaction the index holds; else Unknown.
func atomicTxStatus(ctx context.Context, ix PIndex, args *txIDArgs) (*atomicTxStatusReply, error) {
	id := avax.ID(args.TxID)
	if id.IsEmpty() {
		return nil, errNilTxID
	}
	_, h, ok, err := indexedAtomicTx(ctx, ix, id)
	if err != nil {
		return nil, err
	}
	if !ok {
		return &atomicTxStatusReply{Status: "Unknown"}, nil
	}
	height := uint64s(h)
	return &atomicTxStatusReply{Status: "Accepted", BlockHeight: &height}, nil
}

type atomicTxReply struct {
	Tx          string   `json:"tx"`
	Encoding    encoding `json:"encoding"`
	BlockHeight *uint64s `json:"blockHeight,omitempty"`
}

// atomicTx is coreth's AvaxAPI.GetAtomicTx: the signed bytes in a hex
// encoding (json is refused, as coreth refuses it) and the block's height;
// coreth's error for a transaction it does not know.
func atomicTx(ctx context.Context, ix PIndex, args *getTxArgs) (*atomicTxReply, error) {
	id := avax.ID(args.TxID)
	if id.IsEmpty() {
		return nil, errNilTxID
	}
	b, h, ok, err := indexedAtomicTx(ctx, ix, id)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("could not find tx %s", id)
	}
	str, err := args.Encoding.encode(b)
	if err != nil {
		return nil, err
	}
	height := uint64s(h)
	return &atomicTxReply{Tx: str, Encoding: args.Encoding, BlockHeight: &height}, nil
}
