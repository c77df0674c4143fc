package devnet

import (
	"context"
	"fmt"

	"github.com/avaedge/avaedge/avanet"
	"github.com/avaedge/avaedge/local/source/pindex"
)

// index stores the world's blocks in an index in memory, as a followed
// node's would be stored, with the validators its network has now.
func (w *World) index() error {
	w.blockIDs = map[avanet.Chain]map[string]*Block{}
	for c, bs := range map[avanet.Chain][]*Block{avanet.ChainP: w.pBlocks, avanet.ChainX: w.xBlocks} {
		w.blockIDs[c] = make(map[string]*Block, len(bs))
		for _, b := range bs {
			w.blockIDs[c][b.ID.String()] = b
		}
	}
	ctx := context.Background()
	net := avanet.Local
	ix, err := pindex.Open(ctx, pindex.Options{Network: &net, Path: pindex.Memory, Now: w.Now})
	if err != nil {
		return fmt.Errorf("devnet: %w", err)
	}
	for _, c := range []avanet.Chain{avanet.ChainX, avanet.ChainP} {
		if err := ix.Append(ctx, c, w.raw[c]); err != nil {
			ix.Close()
			return fmt.Errorf("devnet: %w", err)
		}
	}
	current, err := w.currentValidators()
	if err == nil {
		for _, c := range current {
			if err = ix.SetCurrentValidators(ctx, c.subnet.String(), c.body); err != nil {
				break
			}
		}
	}
	if err != nil {
		ix.Close()
		return fmt.Errorf("devnet: %w", err)
	}
	w.ix = ix
	return nil
}

// Blocks returns the world's blocks of chain (P or X) as a node's
// getBlockByHeight gives them, by height: what its index holds. The slice is
// shared: do not modify it.
func (w *World) Blocks(c avanet.Chain) []*pindex.RawBlock { return w.raw[c] }
