package node

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/avaedge/avaedge/avanet"
	"github.com/avaedge/avaedge/jsonrpc"
	"github.com/avaedge/avaedge/local/source/pindex"
	"github.com/avaedge/avaedge/local/vocab/avax"
)

// PIndex is what PlatformMethods reads: the P-Chain of an index, a
// followed node's or the devnet's; *pindex.Index is one.
type PIndex interface {
	Head(c avanet.Chain) (uint64, bool)
	Block(ctx context.Context, chain avanet.Chain, height uint64) (*pindex.Block, bool, error)
	Tx(ctx context.Context, id string) (*pindex.Tx, bool, error)
	Supply(ctx context.Context) (pindex.Supply, bool, error)
}

var _ PIndex = (*pindex.Index)(nil)

// errNoPBlock answers the P-Chain's reads of the head before the index holds
// a block.
var errNoPBlock = errors.New("the index holds no P-Chain block yet")

// PlatformMethods returns the platform.* methods answered from ix, in
// avalanchego v1.14.2's formats: getHeight and getTimestamp (the last
// indexed block's height and time), getTxStatus (Committed for a P-Chain
// transaction the index holds, else Unknown), getTx with encoding json (the
// node's own JSON of the transaction, which the index keeps; the index keeps
// no P-Chain transaction bytes, so the hex encodings say so),
// getCurrentSupply (the node's
// last recorded supply; an index without one says so) and
// getStakingAssetID (the primary network's: avaxID, the AVAX id the
// methods print). The other P-Chain methods are not among them: the local
// world answers them with an error saying they are not built.
func PlatformMethods(ix PIndex, avaxID avax.ID) map[string]jsonrpc.Method {
	p := platform{ix: ix, avax: avaxID}
	return map[string]jsonrpc.Method{
		"platform.getHeight":         method(p.getHeight),
		"platform.getTimestamp":      method(p.getTimestamp),
		"platform.getTxStatus":       method(p.getTxStatus),
		"platform.getTx":             method(p.getTx),
		"platform.getCurrentSupply":  method(p.getCurrentSupply),
		"platform.getStakingAssetID": method(p.getStakingAssetID),
	}
}

// platform answers the P-Chain methods from an index.
type platform struct {
	ix   PIndex
	avax avax.ID
}

type getTimestampReply struct {
	Timestamp time.Time `json:"timestamp"`
}

func (p platform) getHeight(context.Context, *noArgs) (*getHeightReply, error) {
	h, ok := p.ix.Head(avanet.ChainP)
	if !ok {
		return nil, errNoPBlock
	}
	return &getHeightReply{Height: uint64s(h)}, nil
}

// getTimestamp is the chain time: the last accepted block's timestamp, in
// UTC as the node prints it.
func (p platform) getTimestamp(ctx context.Context, _ *noArgs) (*getTimestampReply, error) {
	h, ok := p.ix.Head(avanet.ChainP)
	if !ok {
		return nil, errNoPBlock
	}
	b, ok, err := p.ix.Block(ctx, avanet.ChainP, h)
	if err != nil {
		return nil, fmt.Errorf("P-Chain block %d: %w", h, err)
	}
	if !ok {
		return nil, errNoPBlock
	}
	return &getTimestampReply{Timestamp: time.Unix(b.Time, 0).UTC()}, nil
}

// getTxStatus answers Committed for a P-Chain transaction the index holds
// and Unknown otherwise: the index has no mempool.
func (p platform) getTxStatus(ctx context.Context, args *txIDArgs) (*getTxStatusReply, error) {
	t, ok, err := p.ix.Tx(ctx, avax.ID(args.TxID).String())
	if err != nil {
		return nil, fmt.Errorf("couldn't get tx: %w", err)
	}
	if ok && t.Chain == avanet.ChainP {
		return &getTxStatusReply{Status: "Committed"}, nil
	}
	return &getTxStatusReply{Status: "Unknown"}, nil
}

// getTx answers a P-Chain transaction in the node's own JSON, as the index
// keeps it from the block that holds it.
func (p platform) getTx(ctx context.Context, args *getTxArgs) (*getTxReply, error) {
	t, ok, err := p.ix.Tx(ctx, avax.ID(args.TxID).String())
	if err != nil {
		return nil, fmt.Errorf("couldn't get tx: %w", err)
	}
	if !ok || t.Chain != avanet.ChainP {
		return nil, errors.New("couldn't get tx: not found")
	}
	if args.Encoding != encJSON {
		return nil, fmt.Errorf("the index keeps P-Chain transactions as the node's JSON only: encoding %s is not built locally, ask with encoding json", args.Encoding)
	}
	return &getTxReply{Tx: t.Body, Encoding: encJSON}, nil
}

type subnetArgs struct {
	SubnetID jsonID `json:"subnetID"`
}

type getCurrentSupplyReply struct {
	Supply uint64s `json:"supply"`
	Height uint64s `json:"height"`
}

func (p platform) getCurrentSupply(ctx context.Context, args *subnetArgs) (*getCurrentSupplyReply, error) {
	if !avax.ID(args.SubnetID).IsEmpty() {
		return nil, fmt.Errorf("the index keeps the primary network's supply only, not subnet %s's", avax.ID(args.SubnetID))
	}
	s, ok, err := p.ix.Supply(ctx)
	if err != nil {
		return nil, fmt.Errorf("the supply: %w", err)
	}
	if !ok {
		return nil, errors.New("the index holds no supply the node answered (platform.getCurrentSupply answers following a node)")
	}
	return &getCurrentSupplyReply{Supply: uint64s(s.Current), Height: uint64s(s.Height)}, nil
}

type getStakingAssetIDReply struct {
	AssetID string `json:"assetID"`
}

func (p platform) getStakingAssetID(_ context.Context, args *subnetArgs) (*getStakingAssetIDReply, error) {
	if !avax.ID(args.SubnetID).IsEmpty() {
		return nil, fmt.Errorf("the staking asset of subnet %s is not built locally: only the primary network's", avax.ID(args.SubnetID))
	}
	return &getStakingAssetIDReply{AssetID: p.avax.String()}, nil
}
