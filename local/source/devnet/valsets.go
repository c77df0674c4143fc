package devnet

import (
	"bytes"
	"cmp"
	"fmt"
	"slices"

	"github.com/avaedge/avaedge/local/vocab/avax"
)

// The validator sets of the devnet's P-Chain at each height, and the
// proposers of its blocks.

// SetChange is a change of a subnet's validator set at a P-chain height.
type SetChange struct {
	Height    uint64
	NodeID    avax.NodeID
	Weight    int64 // added (positive) or removed (negative)
	PublicKey []byte
}

// heightAt returns the height of the first block with time >= t, ok false
// if there is none.
func (w *World) heightAt(t int64) (uint64, bool) {
	i, _ := slices.BinarySearchFunc(w.pBlocks, t, func(b *Block, t int64) int { return cmp.Compare(b.Time, t) })
	if i == len(w.pBlocks) {
		return 0, false
	}
	return w.pBlocks[i].Height, true
}

// setHeights fixes when each stake entered and left its validator set, and
// records the set changes per subnet.
func (w *World) setHeights() {
	enter := func(start, end int64) (add, rm uint64, in bool) {
		if start > w.genesis {
			if add, in = w.heightAt(start); !in {
				return 0, 0, false
			}
		}
		rm, _ = w.heightAt(end)
		return add, rm, true
	}
	for _, v := range w.validations {
		end := v.End
		if v.removed {
			end = v.RemoveTime
		}
		add, rm, in := enter(v.Start, end)
		if !in {
			continue
		}
		v.AddHeight, v.RemoveHeight = add, rm
		var pk []byte
		if v.SubnetID.IsEmpty() {
			if v.BLS != nil {
				pk = v.BLS.PublicKey
			}
		} else if n := w.nodeIdx[v.NodeID]; n != nil {
			pk = n.bls.PublicKey
		}
		w.changes[v.SubnetID] = append(w.changes[v.SubnetID], SetChange{Height: add, NodeID: v.NodeID, Weight: int64(v.Weight), PublicKey: pk})
		if rm != 0 {
			w.changes[v.SubnetID] = append(w.changes[v.SubnetID], SetChange{Height: rm, NodeID: v.NodeID, Weight: -int64(v.Weight), PublicKey: pk})
		}
	}
	for _, d := range w.delegations {
		add, rm, in := enter(d.Start, d.End)
		if !in {
			continue
		}
		d.AddHeight, d.RemoveHeight = add, rm
		var pk []byte
		if v := w.validationOf(d); v != nil && v.BLS != nil {
			pk = v.BLS.PublicKey
		}
		w.changes[PChainID] = append(w.changes[PChainID], SetChange{Height: add, NodeID: d.NodeID, Weight: int64(d.Weight), PublicKey: pk})
		if rm != 0 {
			w.changes[PChainID] = append(w.changes[PChainID], SetChange{Height: rm, NodeID: d.NodeID, Weight: -int64(d.Weight), PublicKey: pk})
		}
	}
	if w.conversion != nil {
		w.changes[w.conversion.SubnetID] = w.l1Changes
	}
	for id := range w.changes {
		slices.SortStableFunc(w.changes[id], func(a, b SetChange) int { return cmp.Compare(a.Height, b.Height) })
	}
}

// inSet reports whether a validation is in its validator set at height h.
func (w *World) inSet(v *Validation, h uint64) bool {
	entered := v.Start <= w.genesis || v.AddHeight > 0
	return entered && v.AddHeight <= h && (v.RemoveHeight == 0 || v.RemoveHeight > h)
}

// activeAt returns the primary validations in the validator set at height h,
// by node id.
func (w *World) activeAt(h uint64) []*Validation {
	var out []*Validation
	for _, v := range w.validations {
		if v.SubnetID.IsEmpty() && w.inSet(v, h) {
			out = append(out, v)
		}
	}
	slices.SortFunc(out, func(a, b *Validation) int { return bytes.Compare(a.NodeID[:], b.NodeID[:]) })
	return out
}

// pHeightAt returns the height of the last P block at or before t.
func (w *World) pHeightAt(t int64) uint64 {
	var h uint64
	for _, b := range w.pBlocks {
		if b.Time > t {
			break
		}
		h = b.Height
	}
	return h
}

// assignProposers picks each block's proposer among the primary network's
// validators at the P-Chain height it was built on.
func (w *World) assignProposers() {
	r := w.rng("pchain")
	var prev avax.ID
	for _, b := range w.pBlocks[1:] {
		set := w.activeAt(b.Height - 1)
		if len(set) == 0 {
			continue
		}
		b.HasProposer = true
		b.Proposer = set[r.IntN(len(set))].NodeID
		b.ProposerID = w.deriveID("pproposer", fmt.Sprint(b.Height))
		b.ProposerParentID = cmp.Or(prev, b.Parent)
		b.ProposerPChainHeight = b.Height - 1
		prev = b.ProposerID
	}
	r = w.rng("xproposers")
	prev = avax.ID{}
	for _, b := range w.xBlocks[1:] {
		ph := w.pHeightAt(b.Time)
		set := w.activeAt(ph)
		if len(set) == 0 {
			continue
		}
		b.HasProposer = true
		b.Proposer = set[r.IntN(len(set))].NodeID
		b.ProposerID = w.deriveID("xproposer", fmt.Sprint(b.Height))
		b.ProposerParentID = cmp.Or(prev, b.Parent)
		b.ProposerPChainHeight = ph
		prev = b.ProposerID
	}
}
