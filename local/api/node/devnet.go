package node

import (
	"errors"
	"fmt"
	"math"
	"net/netip"
	"time"

	"github.com/avaedge/avaedge/avanet"
	"github.com/avaedge/avaedge/local/avax"
	"github.com/avaedge/avaedge/local/source/devnet"
)

// ErrNoValidator means a devnet has no current primary-network validator
// with a BLS key to answer as.
var ErrNoValidator = errors.New("node: the devnet has no BLS-keyed primary validator")

// FromDevnet returns the View of a devnet as seen by its first current
// primary-network validator with a BLS key (by node id), presented as the
// network named network ("local", or "mainnet", "fuji", "testnet" to
// impersonate those; empty means "local").
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
	net, ok := devnet.LookupNetwork(network)
	if !ok {
		return nil, fmt.Errorf("node: unknown network %q", network)
	}
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
	if net.ID == avanet.Local.ID {
		if b, ok := w.XBlock(0); ok {
			up.CortinaXChainStopVertexID = b.Parent
		}
	}
	out.Upgrades = &up

	blocks := &devnetBlocks{w: w, byID: map[avax.ID]*devnet.Block{}}
	for _, b := range w.XBlocks() {
		blocks.byID[b.ID] = b
	}
	out.Blocks = blocks
	out.Txs = devnetTxs{w}
	out.UTXOs = devnetUTXOs{w: w, x: net.XChain}
	return out, nil
}

// devnetBlocks serves the devnet's post-Cortina X blocks. It is read-only
// and so safe for concurrent use.
type devnetBlocks struct {
	w    *devnet.World
	byID map[avax.ID]*devnet.Block
}

func (d *devnetBlocks) Block(id avax.ID) ([]byte, bool) {
	b, ok := d.byID[id]
	if !ok {
		return nil, false
	}
	return b.Bytes, true
}

func (d *devnetBlocks) BlockAt(height uint64) ([]byte, bool) {
	b, ok := d.w.XBlock(height)
	if !ok {
		return nil, false
	}
	return b.Bytes, true
}

func (d *devnetBlocks) Height() (uint64, bool) {
	bs := d.w.XBlocks()
	if len(bs) == 0 {
		return 0, false
	}
	return bs[len(bs)-1].Height, true
}

// devnetTxs serves every X-chain transaction, in vertices and blocks.
type devnetTxs struct{ w *devnet.World }

func (d devnetTxs) Tx(id avax.ID) ([]byte, bool) {
	tx, ok := d.w.XTx(id)
	if !ok {
		return nil, false
	}
	return tx.Bytes, true
}

// devnetUTXOs serves the devnet's unspent X UTXOs. The devnet makes no
// import or export transactions, so no chain has atomic UTXOs for it.
type devnetUTXOs struct {
	w *devnet.World
	x avax.ID // the X-Chain's id as presented
}

func (d devnetUTXOs) UTXOs(source avax.ID, addr avax.ShortID) []*avax.UTXO {
	if source != d.x && source != devnet.XChainID {
		return nil
	}
	// The devnet lists them in the order they were made; the node, newest
	// first.
	us := d.w.UTXOs(devnet.XChainID, []avax.ShortID{addr}, false)
	out := make([]*avax.UTXO, len(us))
	for i, u := range us {
		out[len(us)-1-i] = &u.UTXO
	}
	return out
}

var (
	_ Blocks = (*devnetBlocks)(nil)
	_ Txs    = devnetTxs{}
	_ UTXOs  = devnetUTXOs{}
)
