package pindex

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/avaedge/avaedge/avanet"
)

// Every write of the index goes through the functions below, under
// writeMu: they move the heads and count the versions that the queries'
// caches are kept at.

// commit stores blocks, chain's blocks from on, in one store transaction,
// checking that each names the one below it as its parent (parent is the
// stored block's below from, "" at genesis).
func (ix *Index) commit(ctx context.Context, c avanet.Chain, from uint64, parent string, blocks []*RawBlock) error {
	ix.writeMu.Lock()
	defer ix.writeMu.Unlock()
	err := ix.st.Write(ctx, func(b Batch) error {
		var prevTime int64
		if from > 0 {
			var err error
			if prevTime, err = b.BlockTime(c, from-1); err != nil {
				return err
			}
		}
		w := &writer{b: b, net: &ix.net}
		for _, f := range blocks {
			bj, err := w.apply(c, f, prevTime)
			if err != nil {
				return err
			}
			if f.Height > 0 && bj.ParentID != parent && parent != "" {
				return fmt.Errorf("pindex: %s block %d names parent %s, but block %d is %s", c, f.Height, bj.ParentID, f.Height-1, parent)
			}
			parent, prevTime = bj.ID, w.time
		}
		if err := b.AddBurned(ix.net.AVAXAssetID, c, from, from+uint64(len(blocks))-1); err != nil {
			return fmt.Errorf("pindex: burned fees: %w", err)
		}
		return nil
	})
	if err != nil {
		return err
	}
	ix.version.Add(1)
	to := from + uint64(len(blocks)) - 1
	ix.metrics.blocks.WithLabelValues(string(c)).Add(float64(len(blocks)))
	ix.setHead(c, int64(to))
	ix.metrics.lag.WithLabelValues(string(c)).Sub(float64(len(blocks)))
	return nil
}

// Append stores blocks of a generated chain (Options.Network), the first at
// the height after chain's head, each naming the one below it as its
// parent, in one store transaction.
func (ix *Index) Append(ctx context.Context, c avanet.Chain, blocks []*RawBlock) error {
	if c != avanet.ChainP && c != avanet.ChainX {
		return ErrUnknownChain
	}
	if len(blocks) == 0 {
		return nil
	}
	head, _ := ix.headOf(c)
	from := uint64(head + 1)
	var parent string
	if from > 0 {
		id, err := ix.st.BlockIDAt(c, from-1)
		if err != nil {
			return fmt.Errorf("pindex: %s block %d: %w", c, from-1, err)
		}
		parent = id
	}
	for i, f := range blocks {
		if f.Height != from+uint64(i) {
			return fmt.Errorf("pindex: %s block at height %d appended after height %d", c, f.Height, from+uint64(i)-1)
		}
	}
	return ix.commit(ctx, c, from, parent, blocks)
}

// SetCurrentValidators stores a platform.getCurrentValidators answer for
// subnet (the primary network's id is the empty id) as the node's current
// one, read now: a generated network's (the devnet's) validators.
func (ix *Index) SetCurrentValidators(ctx context.Context, subnet string, body json.RawMessage) error {
	ix.writeMu.Lock()
	defer ix.writeMu.Unlock()
	err := ix.st.SetCurrentValidators(ctx, subnet, body, ix.now().Unix())
	ix.currentVersion.Add(1)
	return err
}

// rollBack rolls chain back to height h (-1: nothing stored), unless its
// head is there already.
func (ix *Index) rollBack(ctx context.Context, c avanet.Chain, h int64) error {
	cur, _ := ix.headOf(c)
	if h == cur {
		return nil
	}
	ix.log.Warn("the node's chain differs from the index; rolling back", "chain", string(c), "from", cur, "to", h)
	ix.writeMu.Lock()
	defer ix.writeMu.Unlock()
	err := ix.st.Rollback(ctx, ix.net.AVAXAssetID, c, h)
	ix.version.Add(1) // after a failed commit too: nothing cached may outlive it
	if err != nil {
		return err
	}
	ix.setHead(c, h)
	return nil
}

// record stores what set writes outside a batch (the node's answers, its
// supply), between the followers' transactions.
func (ix *Index) record(set func() error) error {
	ix.writeMu.Lock()
	defer ix.writeMu.Unlock()
	return set()
}

func (ix *Index) setHead(c avanet.Chain, h int64) {
	ix.mu.Lock()
	ix.heads[c] = h
	close(ix.changed)
	ix.changed = make(chan struct{})
	ix.mu.Unlock()
	ix.metrics.indexed.WithLabelValues(string(c)).Set(float64(h))
}

func (ix *Index) headOf(c avanet.Chain) (int64, bool) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	h := ix.heads[c]
	return h, h >= 0
}
