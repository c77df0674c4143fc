package node

import (
	"errors"
	"fmt"
	"math"
	"net/netip"
	"time"

	"github.com/avaedge/avaedge/avanet"
	"github.com/avaedge/avaedge/local/source/devnet"
	"github.com/avaedge/avaedge/local/vocab/avax"
)

// ErrNoValidator means a devnet has no current primary-network validator
// with a BLS key to answer as.
var ErrNoValidator = errors.New("node: the devnet has no BLS-keyed primary validator")

// FromDevnet returns the View of a devnet as seen by its first current
// primary-network validator with a BLS key (by node id), presented as the
// network named network ("local", or "mainnet", "fuji", "testnet" to
// impersonate those; empty means "local"). Its X-Chain (blocks,
// transactions, UTXOs, assets) is the devnet's index, read as IndexMethods
// reads a followed node's; its node, peers and validator weights are the
// devnet's own, which no index holds.
//
// Impersonating a network changes what the methods print and accept: the
// network id and name, the address HRP, the chain and AVAX asset ids, the
// upgrade schedule and the fees. Block, transaction and UTXO bytes stay the
// devnet's own (network id 12345, the devnet's chain and asset ids), since
// their ids are hashes of those bytes; the devnet's ids are accepted as
// aliases too.
func FromDevnet(w *devnet.World, network string) (*View, error) {
	if network == "" {
		network = avanet.Local.Name
	}
	n, ok := avanet.ByName(network)
	if !ok {
		return nil, fmt.Errorf("node: unknown network %q", network)
	}
	net := presentedAs{ID: n.ID, PChain: avax.EmptyID, XChain: avax.MustParseID(n.XChainID), CChain: avax.MustParseID(n.CChainID), AVAX: avax.MustParseID(n.AVAXAssetID)}
	out := &View{
		NetworkID: net.ID,
		Assets: []Asset{{ID: net.AVAX, Raw: devnet.AVAXAssetID, Alias: "AVAX",
			Name: devnet.AVAXName, Symbol: devnet.AVAXSymbol, Denomination: devnet.AVAXDenomination}},
		Now: w.Now,
	}

	xAliases := []string{"X", "avm"}
	if net.XChain != devnet.XChainID {
		xAliases = append(xAliases, devnet.XChainID.String())
	}
	cAliases := []string{"C", "evm"}
	if net.CChain != devnet.CChainID {
		cAliases = append(cAliases, devnet.CChainID.String())
	}
	out.Chains = []Chain{
		{ID: net.PChain, Aliases: []string{"P", "platform"}},
		{ID: net.XChain, Aliases: xAliases},
		{ID: net.CChain, Aliases: cAliases},
	}
	subnets := []avax.ID{avax.EmptyID}
	for _, s := range w.Subnets() {
		subnets = append(subnets, s.ID)
		for _, c := range s.Chains {
			out.Chains = append(out.Chains, Chain{ID: c.ID})
		}
	}

	// Current weights of every node on every subnet.
	weights := map[avax.NodeID]map[avax.ID]uint64{}
	for _, sub := range subnets {
		members, err := w.Validators(sub, 0)
		if err != nil {
			return nil, fmt.Errorf("node: validators of %s: %w", sub, err)
		}
		for _, m := range members {
			if weights[m.NodeID] == nil {
				weights[m.NodeID] = map[avax.ID]uint64{}
			}
			weights[m.NodeID][sub] = m.Weight
		}
	}
	primary, _ := w.Validators(avax.EmptyID, 0)
	self := -1
	for i, m := range primary {
		if m.PublicKey != nil {
			self = i
			break
		}
	}
	if self < 0 {
		return nil, ErrNoValidator
	}
	selfID := primary[self].NodeID
	bls, _ := w.NodeBLS(selfID)
	version, _ := w.NodeVersion(selfID)
	nodes := w.Nodes()
	out.Node = Node{ID: selfID, PublicKey: bls.PublicKey, ProofOfPossession: bls.ProofOfPossession,
		Version: version, Weights: weights[selfID]}

	// Peers observe the node's uptime near what the devnet records for its
	// current primary validation.
	uptime := 100.0
	for _, v := range w.NodeValidations(selfID) {
		if v.SubnetID.IsEmpty() && v.Status(w.Now().Unix()) == devnet.StatusActive {
			uptime = v.Uptime
		}
	}
	now := w.Now()
	for i, id := range nodes {
		ip := netip.AddrPortFrom(netip.AddrFrom4([4]byte{127, 0, 0, 1}), uint16(9651+2*i))
		if id == selfID {
			out.Node.IP = ip
			continue
		}
		if len(weights[id]) == 0 {
			continue // not validating anything now: not connected
		}
		p := Peer{NodeID: id, IP: ip, Weights: weights[id],
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
		out.Peers = append(out.Peers, p)
	}

	up := UpgradesFor(net.ID)
	out.Upgrades = &up

	// The X-Chain's blocks, transactions and UTXOs are the devnet's index,
	// read as a followed node's are. Presented as the local network, the
	// index's JSON is the node's; impersonating another network, the JSON
	// is printed from the bytes with that network's addresses.
	ix := w.Index()
	out.AssetLookup = assetLookup(ix)
	out.Blocks, out.Txs = indexBlocks{ix}, indexTxs{ix}
	if net.ID == avanet.Local.ID {
		out.Blocks, out.Txs = indexJSONBlocks{indexBlocks{ix}}, indexJSONTxs{indexTxs{ix}}
	}
	out.UTXOs = indexUTXOs{ix: ix, chains: map[avax.ID]avanet.Chain{
		net.XChain: avanet.ChainX, devnet.XChainID: avanet.ChainX, avax.EmptyID: avanet.ChainP,
		net.CChain: avanet.ChainC, devnet.CChainID: avanet.ChainC,
	}}
	return out, nil
}

// presentedAs are the ids of the network the devnet presents itself as.
type presentedAs struct {
	ID                           uint32
	PChain, XChain, CChain, AVAX avax.ID
}
