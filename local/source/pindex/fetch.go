package pindex

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/avaedge/avaedge/avanet"
)

// api returns the node's API of chain (P or X).
func (ix *Index) api(c avanet.Chain) chainAPI {
	if c == avanet.ChainX {
		return ix.node.X()
	}
	return ix.node.P()
}

// chainAPI is what a follower reads of its chain at the node: nodeclient's
// Platform (P) or AVM (X).
type chainAPI interface {
	Height(ctx context.Context) (uint64, error)
	BlockJSON(ctx context.Context, height uint64) (json.RawMessage, error)
	BlockBytes(ctx context.Context, height uint64) ([]byte, error)
}

// fetch reads the chain's block at height in both encodings, with the
// genesis transactions no block lists at height 0 and the signed bytes of
// an X-avanet.Chain block's transactions.
func (f *follower) fetch(ctx context.Context, height uint64) (*RawBlock, error) {
	b := &RawBlock{Height: height}
	var err error
	if b.JSON, err = f.api.BlockJSON(ctx, height); err != nil {
		return nil, err
	}
	if b.Bytes, err = f.api.BlockBytes(ctx, height); err != nil {
		return nil, err
	}
	if height == 0 {
		fetchGenesis := f.ix.fetchXGenesis
		if f.chain == avanet.ChainP {
			fetchGenesis = f.ix.fetchPGenesis
		}
		if err := fetchGenesis(ctx, b); err != nil {
			return nil, err
		}
	}
	if f.chain == avanet.ChainX {
		if err := f.ix.fetchTxBytes(ctx, b); err != nil {
			return nil, err
		}
	}
	return b, nil
}

// fetchPGenesis reads the transactions of the P-avanet.Chain's genesis that made
// the primary network's chains (the X- and C-avanet.Chain's CreateChainTxs, which
// no block lists): platform.getBlockchains names them, platform.getTx gives
// each. They are stored with the P-avanet.Chain's block 0, as a generated
// network's genesis transactions are.
func (ix *Index) fetchPGenesis(ctx context.Context, f *RawBlock) error {
	chains, err := ix.node.P().Blockchains(ctx)
	if err != nil {
		return err
	}
	for _, c := range chains {
		if c.SubnetID != PrimaryNetworkID {
			continue // created by a CreateChainTx of a block
		}
		tx, err := ix.node.P().TxJSON(ctx, c.ID)
		if err != nil {
			return err
		}
		var t txJSON
		if err := json.Unmarshal(tx, &t); err != nil || t.ID != c.ID {
			return fmt.Errorf("platform.getTx %s: not the chain's CreateChainTx: %.200s", c.ID, tx)
		}
		f.Genesis = append(f.Genesis, tx)
	}
	return nil
}

// fetchXGenesis reads the X-avanet.Chain's genesis transaction: the AVAX asset's
// CreateAssetTx, whose id is the asset's.
func (ix *Index) fetchXGenesis(ctx context.Context, f *RawBlock) error {
	tx, err := ix.node.X().TxJSON(ctx, ix.net.AVAXAssetID)
	if err != nil {
		return err
	}
	f.Genesis = []json.RawMessage{tx}
	return nil
}

// fetchTxBytes reads the signed bytes of an X-avanet.Chain block's transactions
// (avm.getTx, hexnc): the block bytes hold them, but only a parser of every
// tx type could cut them apart.
func (ix *Index) fetchTxBytes(ctx context.Context, f *RawBlock) error {
	var b blockJSON
	if err := json.Unmarshal(f.JSON, &b); err != nil {
		return err
	}
	for _, raw := range append(append([]json.RawMessage(nil), b.Txs...), f.Genesis...) {
		var t txJSON
		if err := json.Unmarshal(raw, &t); err != nil {
			return err
		}
		bs, err := ix.node.X().TxBytes(ctx, t.ID)
		if err != nil {
			return err
		}
		if f.TxBytes == nil {
			f.TxBytes = map[string][]byte{}
		}
		f.TxBytes[t.ID] = bs
	}
	return nil
}
