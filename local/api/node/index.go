package node

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/avaedge/avaedge/avanet"
	"github.com/avaedge/avaedge/jsonrpc"
	"github.com/avaedge/avaedge/local/source/pindex"
	"github.com/avaedge/avaedge/local/vocab/avax"
)

// Index is what IndexMethods reads: the index of a followed avalanchego
// node (local/source/pindex); *pindex.Index is one.
type Index interface {
	PIndex
	Network() avanet.Network
	Recorded(method string) (json.RawMessage, bool)
	XBlock(id string, height uint64) ([]byte, json.RawMessage, bool)
	XTx(id string) ([]byte, json.RawMessage, bool)
	XUTXOs(ctx context.Context, source avanet.Chain, addr avax.ShortID) ([]*pindex.UTXO, error)
	Asset(ctx context.Context, id string) (pindex.Asset, bool, error)
	BlockchainIDs(ctx context.Context) ([]string, error)
}

var _ Index = (*pindex.Index)(nil)

// offline are the methods whose answers only the running node knows: its
// peers and its uptime as they see it now.
var offline = []string{"info.peers", "info.uptime"}

// IndexMethods returns the info.* and avm.* methods over the index of a
// followed node: what a client gets while that node does not answer. The
// X-Chain's blocks, transactions, UTXOs (atomic ones by source chain),
// balances and assets come from the index, in the node's own bytes and JSON;
// the methods that describe the node itself (its id, IP, version, VMs,
// upgrades, fees, network name) answer what the node last answered; peers
// and uptime answer an error, since only the running node knows them. The
// devnet never answers for a followed network.
func IndexMethods(ctx context.Context, ix Index) (map[string]jsonrpc.Method, error) {
	n := ix.Network()
	x, c, avaxID := avax.MustParseID(n.XChainID), avax.MustParseID(n.CChainID), avax.MustParseID(n.AVAXAssetID)
	w := &View{
		NetworkID: n.ID,
		Chains: []Chain{
			{ID: avax.EmptyID, Aliases: []string{"P", "platform"}},
			{ID: x, Aliases: []string{"X", "avm"}},
			{ID: c, Aliases: []string{"C", "evm"}},
		},
		Assets: []Asset{{ID: avaxID, Alias: "AVAX", Name: "Avalanche", Symbol: "AVAX", Denomination: 9}},
	}
	w.ReadIndex(ix, map[avax.ID]avanet.Chain{x: avanet.ChainX, avax.EmptyID: avanet.ChainP, c: avanet.ChainC}, true)
	chains, err := ix.BlockchainIDs(ctx)
	if err != nil {
		return nil, fmt.Errorf("node: blockchains of the index: %w", err)
	}
	// The index lists the primary network's X- and C-Chain too (the
	// P-Chain's genesis creates them): they keep their aliases above.
	for _, s := range chains {
		if id, err := avax.ParseID(s); err == nil && !slices.ContainsFunc(w.Chains, func(c Chain) bool { return c.ID == id }) {
			w.Chains = append(w.Chains, Chain{ID: id})
		}
	}
	methods := Methods(w)
	for name, m := range PlatformMethods(ix, w) {
		methods[name] = m
	}
	for name := range recordedInfo {
		methods[name] = recorded(ix, name)
	}
	methods["platform.getMinStake"] = recordedMinStake(ix, methods["platform.getMinStake"])
	for name, m := range AtomicMethods(ix, w) {
		methods[name] = m
	}
	for _, name := range []string{"avm.issueTx", "platform.issueTx", "avax.issueTx"} {
		methods[name] = func(context.Context, json.RawMessage) (any, error) {
			return nil, fmt.Errorf("the followed node does not answer: %s is sent to it, and it is down", name)
		}
	}
	for _, name := range offline {
		methods[name] = func(context.Context, json.RawMessage) (any, error) {
			return nil, fmt.Errorf("the followed node does not answer: %s is not known without it", name)
		}
	}
	return methods, nil
}

// recordedMinStake answers getMinStake of the primary network with the
// node's recorded answer (its staking configuration), and a subnet's with
// other (a subnet's minimums are its TransformSubnetTx's, which the index
// does not read).
func recordedMinStake(ix Index, other jsonrpc.Method) jsonrpc.Method {
	rec := recorded(ix, "platform.getMinStake")
	return func(ctx context.Context, params json.RawMessage) (any, error) {
		var args subnetArgs
		if err := jsonrpc.UnmarshalParams(params, &args); err != nil {
			return nil, err
		}
		if !avax.ID(args.SubnetID).IsEmpty() {
			return other(ctx, params)
		}
		return rec(ctx, params)
	}
}

// recordedInfo are the methods answered with the node's recorded answer.
var recordedInfo = map[string]bool{
	"info.acps": true, "info.getNodeID": true, "info.getNodeIP": true, "info.getNodeVersion": true,
	"info.getTxFee": true, "info.getVMs": true, "info.upgrades": true, "info.getNetworkName": true,
	"avm.getTxFee": true, "platform.getFeeConfig": true, "platform.getValidatorFeeConfig": true,
}

func recorded(ix Index, name string) jsonrpc.Method {
	return func(context.Context, json.RawMessage) (any, error) {
		r, ok := ix.Recorded(name)
		if !ok {
			return nil, fmt.Errorf("the followed node does not answer, and avaedge has no answer of it to %s yet", name)
		}
		return r, nil
	}
}

// ReadIndex makes the View's X-Chain the one of ix: its blocks,
// transactions and UTXOs (Blocks, Txs, UTXOs) and the assets it holds
// (AssetLookup). chains names the primary network's chains by the ids a
// caller may give as a UTXO source. With nodeJSON, encoding "json" answers
// with the node's own JSON of blocks and transactions, which the index keeps;
// without, the JSON is printed from the bytes with the View's addresses.
func (w *View) ReadIndex(ix Index, chains map[avax.ID]avanet.Chain, nodeJSON bool) {
	w.AssetLookup = assetLookup(ix)
	w.Blocks, w.Txs = indexBlocks{ix}, indexTxs{ix}
	if nodeJSON {
		w.Blocks, w.Txs = indexJSONBlocks{indexBlocks{ix}}, indexJSONTxs{indexTxs{ix}}
	}
	w.UTXOs = indexUTXOs{ix: ix, chains: chains}
}

// assetLookup finds the assets the index holds.
func assetLookup(ix Index) func(id avax.ID) (*Asset, bool) {
	return func(id avax.ID) (*Asset, bool) {
		a, ok, err := ix.Asset(context.Background(), id.String())
		if err != nil || !ok {
			return nil, false
		}
		return &Asset{ID: id, Name: a.Name, Symbol: a.Symbol, Denomination: uint8(a.Denomination)}, true
	}
}

// indexBlocks are the X-Chain blocks the index holds, in the node's bytes;
// indexJSONBlocks adds the node's JSON of them.
type indexBlocks struct{ ix Index }

func (b indexBlocks) Block(id avax.ID) ([]byte, bool) {
	bs, _, ok := b.ix.XBlock(id.String(), 0)
	return bs, ok
}

func (b indexBlocks) BlockAt(height uint64) ([]byte, bool) {
	bs, _, ok := b.ix.XBlock("", height)
	return bs, ok
}

func (b indexBlocks) Height() (uint64, bool) { return b.ix.Head(avanet.ChainX) }

type indexJSONBlocks struct{ indexBlocks }

// BlockJSON is the node's own JSON of the block.
func (b indexJSONBlocks) BlockJSON(id avax.ID) (json.RawMessage, bool) {
	_, js, ok := b.ix.XBlock(id.String(), 0)
	return js, ok
}

// indexTxs are the X-Chain transactions the index holds, in the node's
// bytes; indexJSONTxs adds the node's JSON of them.
type indexTxs struct{ ix Index }

func (t indexTxs) Tx(id avax.ID) ([]byte, bool) {
	bs, _, ok := t.ix.XTx(id.String())
	return bs, ok
}

type indexJSONTxs struct{ indexTxs }

// TxJSON is the node's own JSON of the transaction.
func (t indexJSONTxs) TxJSON(id avax.ID) (json.RawMessage, bool) {
	_, js, ok := t.ix.XTx(id.String())
	return js, ok
}

// indexUTXOs are the X-Chain's UTXOs the index holds; chains names the
// primary network's chains by the ids a caller may give as a source.
type indexUTXOs struct {
	ix     Index
	chains map[avax.ID]avanet.Chain
}

func (u indexUTXOs) UTXOs(source avax.ID, addr avax.ShortID) []*avax.UTXO {
	chain, ok := u.chains[source]
	if !ok {
		return nil
	}
	us, err := u.ix.XUTXOs(context.Background(), chain, addr)
	if err != nil {
		return nil
	}
	out := make([]*avax.UTXO, 0, len(us))
	for _, x := range us {
		// Outputs other than secp256k1 transfers (an asset's mint or NFT
		// outputs) are not parsed here and are left out.
		if p, err := avax.ParseUTXO(x.Bytes); err == nil {
			out = append(out, p)
		}
	}
	return out
}
