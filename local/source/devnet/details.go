package devnet

import (
	"github.com/avaedge/avaedge/avanet"
	"github.com/avaedge/avaedge/local/vocab/avax"
	"github.com/avaedge/avaedge/local/vocab/glacier"
)

// What only the devnet knows of its network, beyond what its index holds:
// where its nodes run and what they run, who proposed each block, and the
// P-Chain's supply and L1 validators after each block. The Data API reads
// it next to the index (local/api/dataapi's Nodes and Proposers).

// Node returns where a node runs and the avalanchego version it runs.
func (w *World) Node(id avax.NodeID) (glacier.Geolocation, string, bool) {
	n, ok := w.nodeIdx[id]
	if !ok {
		return glacier.Geolocation{}, "", false
	}
	g := n.geo
	return glacier.Geolocation{City: g.City, Country: g.Country, CountryCode: g.CountryCode, Latitude: g.Latitude, Longitude: g.Longitude}, n.version, true
}

// block returns chain's block with id.
func (w *World) block(chain avanet.Chain, id string) (*Block, bool) {
	b, ok := w.blockIDs[chain][id]
	return b, ok
}

// Proposer returns who proposed chain's block id (snowman++).
func (w *World) Proposer(chain avanet.Chain, id string) (glacier.ProposerDetails, bool) {
	b, ok := w.block(chain, id)
	if !ok || !b.HasProposer {
		return glacier.ProposerDetails{}, false
	}
	return glacier.ProposerDetails{ProposerID: b.ProposerID.String(), ProposerParentID: b.ProposerParentID.String(),
		ProposerNodeID: b.Proposer.String(), ProposerPChainHeight: b.ProposerPChainHeight, ProposerTimestamp: b.Time}, true
}

// Proposed returns the ids of chain's blocks node proposed, newest first;
// ok is false when node is none of the world's.
func (w *World) Proposed(chain avanet.Chain, node avax.NodeID) ([]string, bool) {
	if _, ok := w.nodeIdx[node]; !ok {
		return nil, false
	}
	bs := w.pBlocks
	switch chain {
	case avanet.ChainX:
		bs = w.xBlocks
	case avanet.ChainC: // the dev chain's blocks are not the primary network's
		bs = nil
	}
	var out []string
	for i := len(bs) - 1; i >= 0; i-- {
		if b := bs[i]; b.HasProposer && b.Proposer == node {
			out = append(out, b.ID.String())
		}
	}
	return out, true
}

// PChainState returns the supply and the active L1 validators and their
// accrued fees after the P-Chain block id.
func (w *World) PChainState(id string) (supply uint64, l1Validators int, l1Fees uint64, ok bool) {
	b, ok := w.block(avanet.ChainP, id)
	if !ok {
		return 0, 0, 0, false
	}
	return b.Supply, b.ActiveL1Validators, b.L1AccruedFees, true
}
