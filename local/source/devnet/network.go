package devnet

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/avaedge/avaedge/avanet"
	"github.com/avaedge/avaedge/local/vocab/avax"
)

// Network is how the devnet presents itself under one network name: the
// HRP of its addresses and the ids its chains and AVAX asset take, so that an
// application written for mainnet or fuji works unchanged offline.
type Network struct {
	Name   string // "mainnet", "fuji" (also for "testnet") or "local"
	ID     uint32 // 1, 5 or 12345
	HRP    string
	PChain avax.ID
	XChain avax.ID
	CChain avax.ID
	AVAX   avax.ID
}

// The networks the devnet presents itself as, with their ids (avanet).
var (
	mainnetNet = networkOf(avanet.Mainnet)
	fujiNet    = networkOf(avanet.Fuji)
	localNet   = networkOf(avanet.Local)
)

func networkOf(n avanet.Network) Network {
	return Network{Name: n.Name, ID: n.ID, HRP: n.HRP, PChain: mustID(avanet.PChainID),
		XChain: mustID(n.XChainID), CChain: mustID(n.CChainID), AVAX: mustID(n.AVAXAssetID)}
}

// Network resolves a network name: "mainnet", "fuji", "testnet" (fuji),
// "local" or "network-12345". The devnet answers for all of them.
func (w *World) Network(name string) (Network, bool) { return LookupNetwork(name) }

// LookupNetwork is World.Network without a world.
func LookupNetwork(name string) (Network, bool) {
	n, ok := avanet.ByName(name)
	switch {
	case !ok:
		return Network{}, false
	case n.ID == mainnetNet.ID:
		return mainnetNet, true
	case n.ID == fujiNet.ID:
		return fujiNet, true
	}
	return localNet, true
}

// Chain names the three primary-network chains.
type Chain byte

// The primary-network chains.
const (
	ChainP Chain = 'P'
	ChainX Chain = 'X'
	ChainC Chain = 'C'
)

// String returns "P", "X" or "C".
func (c Chain) String() string { return string(rune(c)) }

// Alias returns "p-chain", "x-chain" or "c-chain".
func (c Chain) Alias() string { return strings.ToLower(c.String()) + "-chain" }

// LocalID returns the chain's id on the devnet.
func (c Chain) LocalID() avax.ID {
	switch c {
	case ChainX:
		return XChainID
	case ChainC:
		return CChainID
	}
	return PChainID
}

// ChainID returns the chain's id as network n presents it.
func (n Network) ChainID(c Chain) avax.ID {
	switch c {
	case ChainX:
		return n.XChain
	case ChainC:
		return n.CChain
	}
	return n.PChain
}

// ResolveChain maps a chain reference onto a devnet chain: the aliases P, X,
// C, platform, avm, evm, p-chain, x-chain, c-chain (any case), the devnet's
// own ids and the mainnet and fuji ids of the primary-network chains.
func ResolveChain(ref string) (Chain, bool) {
	switch strings.ToLower(ref) {
	case "p", "p-chain", "platform":
		return ChainP, true
	case "x", "x-chain", "avm":
		return ChainX, true
	case "c", "c-chain", "evm":
		return ChainC, true
	}
	id, err := avax.ParseID(ref)
	if err != nil {
		return 0, false
	}
	for _, n := range []Network{localNet, mainnetNet, fujiNet} {
		for _, c := range []Chain{ChainP, ChainX, ChainC} {
			if n.ChainID(c) == id {
				return c, true
			}
		}
	}
	return 0, false
}

// SubnetOf returns the subnet that validates chainID: the primary network
// (the empty id) for P, X and C under any network's ids, or the subnet of a
// subnet chain.
func (w *World) SubnetOf(chainID avax.ID) (avax.ID, bool) {
	if _, ok := ResolveChain(chainID.String()); ok {
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
	if _, ok := w.changes[subnetID]; !ok {
		if _, known := w.Subnet(subnetID); !known && !subnetID.IsEmpty() {
			return nil, fmt.Errorf("%w: %s", ErrUnknownSubnet, subnetID)
		}
	}
	if height == 0 {
		height = w.PHeight()
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
