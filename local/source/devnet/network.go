package devnet

import (
	"bytes"
	"errors"
	"fmt"
	"slices"

	"github.com/avaedge/avaedge/avanet"
	"github.com/avaedge/avaedge/local/vocab/avax"
)

// Network resolves a network name: "mainnet", "fuji", "testnet" (fuji),
// "local" or "network-12345". The devnet answers for all of them, presenting
// itself as that network (its HRP, chain and AVAX ids), so that an
// application written for mainnet or fuji works unchanged offline.
func (w *World) Network(name string) (avanet.Network, bool) { return avanet.ByName(name) }

// SubnetOf returns the subnet that validates chainID: the primary network
// (the empty id) for P, X and C under any network's ids, or the subnet of a
// subnet chain.
func (w *World) SubnetOf(chainID avax.ID) (avax.ID, bool) {
	if _, ok := avanet.ResolveChain(chainID.String()); ok {
		return PChainID, true
	}
	for _, s := range w.subnets {
		for _, c := range s.Chains {
			if c.ID == chainID {
				return s.ID, true
			}
		}
	}
	return avax.ID{}, false
}

// Blockchain returns a subnet chain by id.
func (w *World) Blockchain(id avax.ID) (*Blockchain, bool) {
	for _, s := range w.subnets {
		for _, c := range s.Chains {
			if c.ID == id {
				return c, true
			}
		}
	}
	return nil, false
}

// EVMChains returns the subnet chains that run an EVM (an EVM chain id in
// their genesis), in the order they were created.
func (w *World) EVMChains() []*Blockchain {
	var out []*Blockchain
	for _, s := range w.subnets {
		for _, c := range s.Chains {
			if c.EVMChainID != 0 {
				out = append(out, c)
			}
		}
	}
	return out
}

// Errors of Validators.
var (
	ErrUnknownSubnet = errors.New("devnet: unknown subnet")
	ErrUnknownHeight = errors.New("devnet: unknown P-chain height")
)

// Member is one validator of a subnet at a height. PublicKey is the 48-byte
// compressed BLS key, nil if the validator registered none.
type Member struct {
	NodeID    avax.NodeID
	Weight    uint64
	PublicKey []byte
}

// PHeight returns the P-chain's current height.
func (w *World) PHeight() uint64 { return w.pBlocks[len(w.pBlocks)-1].Height }

// Validators returns the validator set of a subnet (the empty id: the
// primary network, whose weights include delegations) at a P-chain height, 0
// meaning the current height. Members are sorted by node id.
func (w *World) Validators(subnetID avax.ID, height uint64) ([]Member, error) {
	if height == 0 {
		height = w.PHeight()
	}
	return w.SetAt(subnetID, height)
}

// SetAt returns the validator set of a subnet at exactly a P-chain height
// (0 is the genesis set), as Validators does.
func (w *World) SetAt(subnetID avax.ID, height uint64) ([]Member, error) {
	if _, ok := w.changes[subnetID]; !ok {
		if _, known := w.Subnet(subnetID); !known && !subnetID.IsEmpty() {
			return nil, fmt.Errorf("%w: %s", ErrUnknownSubnet, subnetID)
		}
	}
	if height > w.PHeight() {
		return nil, fmt.Errorf("%w: %d > %d", ErrUnknownHeight, height, w.PHeight())
	}
	weights := map[avax.NodeID]int64{}
	keys := map[avax.NodeID][]byte{}
	for _, c := range w.changes[subnetID] {
		if c.Height > height {
			break
		}
		weights[c.NodeID] += c.Weight
		if c.Weight > 0 && c.PublicKey != nil {
			keys[c.NodeID] = c.PublicKey
		}
	}
	var out []Member
	for id, wt := range weights {
		if wt > 0 {
			out = append(out, Member{NodeID: id, Weight: uint64(wt), PublicKey: keys[id]})
		}
	}
	slices.SortFunc(out, func(a, b Member) int { return bytes.Compare(a.NodeID[:], b.NodeID[:]) })
	return out, nil
}

// SetChanges returns the history of a subnet's validator set, by height.
func (w *World) SetChanges(subnetID avax.ID) []SetChange {
	return slices.Clone(w.changes[subnetID])
}
