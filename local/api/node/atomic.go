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
// avax.getAtomicTx, avax.getAtomicTxStatus) in coreth's formats, over an
// index that holds every atomic transaction of the C-Chain: a generated
// network's, whose C-Chain takes none (it is the embedded EVM dev chain),
// so its shared memory holds what the X- and P-Chain exported to it, and
// no atomic transaction is known. A followed node's index does not follow
// the C-Chain's atomic imports and transactions: FollowedAtomicMethods
// says so.
func AtomicMethods(ix PIndex, v *View) map[string]jsonrpc.Method {
	s := chainService(ix, v, avanet.ChainC)
	return map[string]jsonrpc.Method{
		"avax.getUTXOs": method(func(ctx context.Context, args *getUTXOsArgs) (*getUTXOsReply, error) {
			return atomicUTXOs(ctx, s, args)
		}),
		"avax.getAtomicTxStatus": method(noAtomicTxStatus),
		"avax.getAtomicTx":       method(noAtomicTx),
	}
}

// FollowedAtomicMethods are the C-Chain's atomic reads with a followed
// node down: the index does not follow the C-Chain's atomic transactions,
// so it cannot tell which of the UTXOs exported to the C-Chain were
// imported, nor any atomic transaction's status.
func FollowedAtomicMethods() map[string]jsonrpc.Method {
	return map[string]jsonrpc.Method{
		"avax.getUTXOs":          onlyNode("avax.getUTXOs"),
		"avax.getAtomicTxStatus": onlyNode("avax.getAtomicTxStatus"),
		"avax.getAtomicTx":       onlyNode("avax.getAtomicTx"),
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
	Status string `json:"status"`
}

// noAtomicTxStatus answers Unknown: the C-Chain accepted no atomic
// transaction.
func noAtomicTxStatus(_ context.Context, args *txIDArgs) (*atomicTxStatusReply, error) {
	if avax.ID(args.TxID).IsEmpty() {
		return nil, errNilTxID
	}
	return &atomicTxStatusReply{Status: "Unknown"}, nil
}

// noAtomicTx answers coreth's error for a transaction it does not know.
func noAtomicTx(_ context.Context, args *getTxArgs) (*getTxReply, error) {
	if avax.ID(args.TxID).IsEmpty() {
		return nil, errNilTxID
	}
	return nil, fmt.Errorf("could not find tx %s", avax.ID(args.TxID))
}
