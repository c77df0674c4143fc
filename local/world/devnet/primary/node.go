// Package primary is the devnet's primary network as its node and its
// validators present it: the node one of its validators runs (NodeView) and
// their signatures (Signer). It is the devnet world's (local/world/devnet),
// apart from the embedded EVM chains so that it links without go-ethereum:
// test/avalanchego drives it with avalanchego's own clients.
package primary

import (
	"errors"
	"fmt"
	"math"
	"net/netip"
	"time"

	"github.com/avaedge/avaedge/avanet"
	"github.com/avaedge/avaedge/local/api/node"
	gen "github.com/avaedge/avaedge/local/source/devnet"
	"github.com/avaedge/avaedge/local/vocab/avax"
)

// ErrNoValidator means a devnet has no current primary-network validator
// with a BLS key to answer as.
var ErrNoValidator = errors.New("primary: the devnet has no BLS-keyed primary validator")

// NodeView returns the node.View of a devnet as seen by its first current
// primary-network validator with a BLS key (by node id), presented as the
// network named network ("local", or "mainnet", "fuji", "testnet" to
// impersonate those; empty means "local"). Its X-Chain (blocks,
// transactions, UTXOs, assets) is the devnet's index, read as
// node.IndexMethods reads a followed node's; its node, peers and validator
// weights are the devnet's own, which no index holds.
//
// Impersonating a network changes what the methods print and accept: the
// network id and name, the address HRP, the chain and AVAX asset ids, the
// upgrade schedule and the fees. Block, transaction and UTXO bytes stay the
// devnet's own (network id 12345, the devnet's chain and asset ids), since
// their ids are hashes of those bytes; the devnet's ids are accepted as
// aliases too.
func NodeView(w *gen.World, network string) (*node.View, error) {
	if network == "" {
		network = avanet.Local.Name
	}
	n, ok := avanet.ByName(network)
	if !ok {
		return nil, fmt.Errorf("primary: unknown network %q", network)
	}
	net := presentedAs{ID: n.ID, PChain: avax.EmptyID, XChain: avax.MustParseID(n.XChainID), CChain: avax.MustParseID(n.CChainID), AVAX: avax.MustParseID(n.AVAXAssetID)}
	out := &node.View{
		NetworkID: net.ID,
		Assets: []node.Asset{{ID: net.AVAX, Raw: gen.AVAXAssetID, Alias: "AVAX",
			Name: gen.AVAXName, Symbol: gen.AVAXSymbol, Denomination: gen.AVAXDenomination}},
		Now: w.Now,
	}
	var subnets []avax.ID
	out.Chains, subnets = chainsOf(w, net)
	weights, err := weightsOf(w, subnets)
	if err != nil {
		return nil, err
	}
	selfID, err := selfOf(w)
	if err != nil {
		return nil, err
	}
	bls, _ := w.NodeBLS(selfID)
	version, _ := w.NodeVersion(selfID)
	out.Node = node.Node{ID: selfID, PublicKey: bls.PublicKey, ProofOfPossession: bls.ProofOfPossession,
		Version: version, Weights: weights[selfID]}
	out.Node.IP, out.Peers = peersOf(w, selfID, weights, subnets)
	up := node.UpgradesFor(net.ID)
	out.Upgrades = &up
	out.Staking = staking{w}

	// The X-Chain's blocks, transactions and UTXOs are the devnet's index,
	// read as a followed node's are. Presented as the local network, the
	// index's JSON is the node's; impersonating another network, the JSON
	// is printed from the bytes with that network's addresses.
	out.ReadIndex(w.Index(), map[avax.ID]avanet.Chain{
		net.XChain: avanet.ChainX, gen.XChainID: avanet.ChainX, avax.EmptyID: avanet.ChainP,
		net.CChain: avanet.ChainC, gen.CChainID: avanet.ChainC,
	}, net.ID == avanet.Local.ID)
	return out, nil
}

// chainsOf are the chains the node runs, the primary network's under net's
// ids (the devnet's own as aliases too) and every subnet's, and the subnets,
// the primary network first.
func chainsOf(w *gen.World, net presentedAs) ([]node.Chain, []avax.ID) {
	xAliases := []string{"X", "avm"}
	if net.XChain != gen.XChainID {
		xAliases = append(xAliases, gen.XChainID.String())
	}
	cAliases := []string{"C", "evm"}
	if net.CChain != gen.CChainID {
		cAliases = append(cAliases, gen.CChainID.String())
	}
	chains := []node.Chain{
		{ID: net.PChain, Aliases: []string{"P", "platform"}},
		{ID: net.XChain, Aliases: xAliases},
		{ID: net.CChain, Aliases: cAliases},
	}
	subnets := []avax.ID{avax.EmptyID}
	for _, s := range w.Subnets() {
		subnets = append(subnets, s.ID)
		for _, c := range s.Chains {
			chains = append(chains, node.Chain{ID: c.ID})
		}
	}
	return chains, subnets
}

// weightsOf are the current weights of every node on every subnet.
func weightsOf(w *gen.World, subnets []avax.ID) (map[avax.NodeID]map[avax.ID]uint64, error) {
	weights := map[avax.NodeID]map[avax.ID]uint64{}
	for _, sub := range subnets {
		members, err := w.Validators(sub, 0)
		if err != nil {
			return nil, fmt.Errorf("primary: validators of %s: %w", sub, err)
		}
		for _, m := range members {
			if weights[m.NodeID] == nil {
				weights[m.NodeID] = map[avax.ID]uint64{}
			}
			weights[m.NodeID][sub] = m.Weight
		}
	}
	return weights, nil
}

// selfOf is the node that answers: the first current primary-network
// validator with a BLS key, by node id.
func selfOf(w *gen.World) (avax.NodeID, error) {
	primary, _ := w.Validators(avax.EmptyID, 0)
	for _, m := range primary {
		if m.PublicKey != nil {
			return m.NodeID, nil
		}
	}
	return avax.NodeID{}, ErrNoValidator
}

// peersOf are self's staking address and its connected peers: the devnet's
// nodes validating something now. Peers observe self's uptime near what the
// devnet records for its current primary validation.
func peersOf(w *gen.World, self avax.NodeID, weights map[avax.NodeID]map[avax.ID]uint64, subnets []avax.ID) (netip.AddrPort, []node.Peer) {
	uptime := 100.0
	for _, v := range w.NodeValidations(self) {
		if v.SubnetID.IsEmpty() && v.Status(w.Now().Unix()) == gen.StatusActive {
			uptime = v.Uptime
		}
	}
	now := w.Now()
	var selfIP netip.AddrPort
	var peers []node.Peer
	for i, id := range w.Nodes() {
		ip := netip.AddrPortFrom(netip.AddrFrom4([4]byte{127, 0, 0, 1}), uint16(9651+2*i))
		if id == self {
			selfIP = ip
			continue
		}
		if len(weights[id]) == 0 {
			continue // not validating anything now: not connected
		}
		p := node.Peer{NodeID: id, IP: ip, Weights: weights[id],
			LastSent:       now.Add(-time.Duration(1+i%7) * time.Second),
			LastReceived:   now.Add(-time.Duration(1+i%5) * time.Second),
			ObservedUptime: uint32(max(0, min(100, math.Floor(uptime)-float64(i%3)))),
		}
		p.Version, _ = w.NodeVersion(id)
		for _, sub := range subnets[1:] {
			if weights[id][sub] > 0 {
				p.TrackedSubnets = append(p.TrackedSubnets, sub)
			}
		}
		// A deterministic spread of votes on ACP-194 (streaming
		// asynchronous execution).
		switch {
		case i%5 == 4:
			p.ObjectedACPs = []uint32{194}
		case i%2 == 0:
			p.SupportedACPs = []uint32{194}
		}
		peers = append(peers, p)
	}
	return selfIP, peers
}

// presentedAs are the ids of the network the devnet presents itself as.
type presentedAs struct {
	ID                           uint32
	PChain, XChain, CChain, AVAX avax.ID
}
