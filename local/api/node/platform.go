package node

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
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
	PBlock(id string, height uint64) ([]byte, json.RawMessage, bool)
	Tx(ctx context.Context, id string) (*pindex.Tx, bool, error)
	Supply(ctx context.Context) (pindex.Supply, bool, error)
	UTXOs(ctx context.Context, chain avanet.Chain, addrs []avax.ShortID, includeSpent bool) ([]*pindex.UTXO, error)
	Subnets(ctx context.Context) ([]*pindex.Subnet, error)
	Subnet(ctx context.Context, id string) (*pindex.Subnet, bool, error)
	Blockchains(ctx context.Context) ([]pindex.Blockchain, error)
	Blockchain(ctx context.Context, id string) (pindex.Blockchain, bool, error)
	CurrentValidators(ctx context.Context, subnet string) (json.RawMessage, int64, bool, error)
}

var _ PIndex = (*pindex.Index)(nil)

// errNoPBlock answers the P-Chain's reads of the head before the index holds
// a block.
var errNoPBlock = errors.New("the index holds no P-Chain block yet")

// PlatformMethods returns the platform.* methods answered from ix, in
// avalanchego v1.14.2's formats, with v's network (its HRP, its chains'
// aliases, AVAX as Assets[0] and its clock):
//
//   - getHeight, getTimestamp, getBlock and getBlockByHeight: the indexed
//     blocks (the node's JSON, and its bytes when the index keeps them);
//   - getTxStatus (Committed for a P-Chain transaction the index holds,
//     else Unknown) and getTx (the node's JSON, or the signed bytes cut
//     from its block's bytes where the index keeps them);
//   - getBalance and getUTXOs: the P-Chain's UTXOs and those exported to
//     it, paged as the node pages them;
//   - getSubnets, getSubnet (an L1's conversion id computed from the
//     ConvertSubnetToL1Tx the index holds), getBlockchains,
//     validatedBy and validates: the subnets and chains the index holds;
//   - getCurrentValidators and getTotalStake: the node's last
//     getCurrentValidators answer the index keeps (the devnet's own);
//   - getCurrentSupply (the node's last recorded supply) and
//     getStakingAssetID (AVAX).
//
// The methods only the node can answer (nodeOnly) answer an error saying
// so; getBlockchainStatus and getL1Validator are answered for a view with
// a node of its own (the devnet's), and getStake, getMinStake, getValidatorsAt,
// getAllValidatorsAt and sampleValidators for a view with a staker set
// (v.Staking, the devnet's),
// and only by the node otherwise.
func PlatformMethods(ix PIndex, v *View) map[string]jsonrpc.Method {
	s := chainService(ix, v, avanet.ChainP)
	p := platform{ix: ix, avax: v.Assets[0].ID, s: s}
	methods := map[string]jsonrpc.Method{
		"platform.getHeight":            method(p.getHeight),
		"platform.getTimestamp":         method(p.getTimestamp),
		"platform.getTxStatus":          method(p.getTxStatus),
		"platform.getTx":                method(p.getTx),
		"platform.getCurrentSupply":     method(p.getCurrentSupply),
		"platform.getStakingAssetID":    method(p.getStakingAssetID),
		"platform.getBalance":           method(p.getBalance),
		"platform.getUTXOs":             method(s.getUTXOs),
		"platform.getSubnets":           method(p.getSubnets),
		"platform.getSubnet":            method(p.getSubnet),
		"platform.getBlockchains":       method(p.getBlockchains),
		"platform.validatedBy":          method(p.validatedBy),
		"platform.validates":            method(p.validates),
		"platform.getCurrentValidators": method(p.getCurrentValidators),
		"platform.getTotalStake":        method(p.getTotalStake),
		"platform.getBlock":             method(p.getBlock),
		"platform.getBlockByHeight":     method(p.getBlockByHeight),
	}
	for _, name := range nodeOnly {
		methods[name] = onlyNode(name)
	}
	if v.Node.ID != (avax.NodeID{}) {
		methods["platform.getBlockchainStatus"] = method(p.getBlockchainStatus)
		methods["platform.getL1Validator"] = method(p.getL1Validator)
	}
	if v.Staking != nil {
		for name, m := range p.stakingMethods(v.Staking) {
			methods[name] = m
		}
	}
	return methods
}

// chainService is the service of v's chain holder (the P- or the C-Chain,
// aliased "P" or "C"): its addresses, and the UTXOs the index holds on it
// as its own list or shared memory.
func chainService(ix PIndex, v *View, holder avanet.Chain) *service {
	cv := *v
	chains := map[avax.ID]avanet.Chain{avax.EmptyID: avanet.ChainP}
	for _, c := range v.Chains {
		switch {
		case slices.Contains(c.Aliases, "X"):
			chains[c.ID] = avanet.ChainX
		case slices.Contains(c.Aliases, "C"):
			chains[c.ID] = avanet.ChainC
		}
	}
	cv.UTXOs = chainUTXOs{ix: ix, holder: holder, chains: chains}
	s := newService(&cv)
	s.xAlias = string(holder)
	s.xChain = avax.EmptyID
	if holder != avanet.ChainP {
		s.xChain = s.aliases[string(holder)]
	}
	return s
}

// nodeOnly are the P-Chain reads the index cannot answer: the node's fee
// state and configuration, its proposer view, its staking configuration,
// its validator sets at past heights and its samples, the stakes of
// addresses as its staker set holds them, reward UTXOs, L1 validators'
// current state, and the status of a blockchain on a followed node.
var nodeOnly = []string{
	"platform.getFeeConfig", "platform.getFeeState", "platform.getValidatorFeeConfig", "platform.getValidatorFeeState",
	"platform.getProposedHeight", "platform.getMinStake", "platform.getValidatorsAt", "platform.getAllValidatorsAt",
	"platform.sampleValidators", "platform.getStake", "platform.getRewardUTXOs", "platform.getL1Validator",
	"platform.getBlockchainStatus",
}

// onlyNode answers a method only the node knows, in the node's error shape.
func onlyNode(name string) jsonrpc.Method {
	return func(context.Context, json.RawMessage) (any, error) {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeServer, Message: name + " is answered by the node only, and no node answers: " +
			"follow a running node (AVAEDGE_LOCAL_NODE) or configure a node upstream (upstreams.node.url)"}
	}
}

// platform answers the P-Chain methods from an index; s is the P-Chain's
// view of addresses and UTXOs.
type platform struct {
	ix   PIndex
	avax avax.ID
	s    *service
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
// keeps it from the block that holds it, or its signed bytes, cut from the
// bytes of that block (pTxBytes).
func (p platform) getTx(ctx context.Context, args *getTxArgs) (*getTxReply, error) {
	id := avax.ID(args.TxID)
	t, ok, err := p.ix.Tx(ctx, id.String())
	if err != nil {
		return nil, fmt.Errorf("couldn't get tx: %w", err)
	}
	if !ok || t.Chain != avanet.ChainP {
		return nil, errors.New("couldn't get tx: not found")
	}
	if args.Encoding == encJSON {
		return &getTxReply{Tx: t.Body, Encoding: encJSON}, nil
	}
	bs, err := p.txBytes(ctx, id, t.Height)
	if err != nil {
		return nil, err
	}
	str, err := args.Encoding.encode(bs)
	if err != nil {
		return nil, fmt.Errorf("couldn't encode tx as %s: %w", args.Encoding, err)
	}
	raw, err := json.Marshal(str)
	if err != nil {
		return nil, err
	}
	return &getTxReply{Tx: raw, Encoding: args.Encoding}, nil
}

// txBytes returns the signed bytes of transaction id of the P-Chain block at
// height, cut from the block's bytes when the index keeps them.
func (p platform) txBytes(ctx context.Context, id avax.ID, height uint64) ([]byte, error) {
	noBytes := fmt.Errorf("the index keeps no bytes of P-Chain transaction %s (its block %d's are not kept: a generated network's, or indexed before they were kept): ask with encoding json", id, height)
	bs, _, ok := p.ix.PBlock("", height)
	if !ok || bs == nil {
		return nil, noBytes
	}
	b, ok, err := p.ix.Block(ctx, avanet.ChainP, height)
	if err != nil {
		return nil, fmt.Errorf("P-Chain block %d: %w", height, err)
	}
	if !ok {
		return nil, noBytes
	}
	txIDs := make([]avax.ID, 0, len(b.Txs))
	for _, s := range b.Txs {
		if t, err := avax.ParseID(s); err == nil {
			txIDs = append(txIDs, t)
		}
	}
	tx, ok := pTxBytes(bs, id, txIDs)
	if !ok {
		return nil, fmt.Errorf("transaction %s not found in the bytes of P-Chain block %d: only the node answers it in this encoding", id, height)
	}
	return tx, nil
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

// getBlock is the P-Chain block with id, in the node's JSON or bytes as the
// index keeps them.
func (p platform) getBlock(_ context.Context, args *getBlockArgs) (*getBlockReply, error) {
	id := avax.ID(args.BlockID)
	bs, js, ok := p.ix.PBlock(id.String(), 0)
	if !ok {
		return nil, fmt.Errorf("couldn't get block with id %s: not found", id)
	}
	return pBlockReply(bs, js, id, args.Encoding)
}

// getBlockByHeight is the P-Chain block at a height.
func (p platform) getBlockByHeight(ctx context.Context, args *getBlockByHeightArgs) (*getBlockReply, error) {
	bs, js, ok := p.ix.PBlock("", uint64(args.Height))
	if !ok {
		if _, held, err := p.ix.Block(ctx, avanet.ChainP, uint64(args.Height)); err == nil && held {
			// Indexed by a version that kept no P-Chain block JSON.
			return nil, fmt.Errorf("the index keeps no JSON of P-Chain block %d (indexed before it kept them): only the node answers it", uint64(args.Height))
		}
		return nil, fmt.Errorf("couldn't get block at height %d: not found", uint64(args.Height))
	}
	var b struct {
		ID string `json:"id"`
	}
	_ = json.Unmarshal(js, &b)
	id, _ := avax.ParseID(b.ID)
	return pBlockReply(bs, js, id, args.Encoding)
}

func pBlockReply(bs []byte, js json.RawMessage, id avax.ID, enc encoding) (*getBlockReply, error) {
	if enc == encJSON {
		return &getBlockReply{Block: js, Encoding: enc}, nil
	}
	if bs == nil {
		return nil, fmt.Errorf("the index keeps the JSON of P-Chain block %s only (a generated network's): ask with encoding json", id)
	}
	str, err := enc.encode(bs)
	if err != nil {
		return nil, fmt.Errorf("couldn't encode block %s as %s: %w", id, enc, err)
	}
	raw, err := json.Marshal(str)
	if err != nil {
		return nil, err
	}
	return &getBlockReply{Block: raw, Encoding: enc}, nil
}
