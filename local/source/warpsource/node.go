// Package warpsource is the signature aggregator's source over a followed
// avalanchego network: validator sets from the node's platform API, L1
// messages from the network's index, and signatures asked of each validator
// over the p2p protocol (ACP-118). The devnet's source is the devnet world's
// own (local/world/devnet).
package warpsource

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/avaedge/avaedge/jsonrpc"
	"github.com/avaedge/avaedge/local/source/acp118"
	"github.com/avaedge/avaedge/local/source/nodeclient"
	"github.com/avaedge/avaedge/local/source/pindex"
	"github.com/avaedge/avaedge/local/vocab/avax"
	"github.com/avaedge/avaedge/local/vocab/warpmsg"
)

// NodeOptions configures NewNode.
type NodeOptions struct {
	// Index is the followed network's index: its chains, subnets and
	// conversions.
	Index *pindex.Index
	// Node is the followed avalanchego node's base URL. Its platform API
	// gives validator sets; its info API the validators' staking addresses.
	Node string
	// Timeout bounds one call to the node's APIs. Zero means 10s.
	Timeout time.Duration
	// Backoff is how long a validator that timed out (the aggregator's
	// SignerTimeout) is not asked again: its connection is closed and its
	// signature requests fail at once until the period ends, then it is
	// dialled again. Each further timeout doubles the period up to
	// MaxBackoff; an answer resets it. Zero means 30s.
	Backoff time.Duration
	// MaxBackoff caps Backoff. Zero means 10 min.
	MaxBackoff time.Duration
	// Now is the clock of the backoff. Nil means time.Now.
	Now func() time.Time
}

// Node is the signature aggregator's Source over a followed avalanchego
// network: validator sets from the node's platform.getValidatorsAt, L1
// messages from the index, signatures asked of each validator over the p2p
// protocol (ACP-118). It is safe for concurrent use.
type Node struct {
	ix     *pindex.Index
	node   nodeAPI
	client *acp118.Client

	// mu guards conversions (conversion id → subnet id), the justification
	// the P-Chain needs to sign a SubnetToL1Conversion message.
	mu          sync.Mutex
	conversions map[[32]byte][32]byte
}

// NewNode returns the Source over the followed network, with a fresh
// p2p identity (a non-validating peer's).
func NewNode(opts NodeOptions) (*Node, error) {
	id, err := acp118.NewIdentity()
	if err != nil {
		return nil, err
	}
	timeout := opts.Timeout
	if timeout <= 0 {
		timeout = 10 * time.Second
	}
	s := &Node{ix: opts.Index, node: nodeAPI{nodeclient.New(opts.Node, jsonrpc.ClientOptions{Timeout: timeout, MaxAnswerBytes: 16 << 20})}, conversions: map[[32]byte][32]byte{}}
	s.client = acp118.NewClient(id, acp118.ClientOptions{Peer: s.peerOptions, Resolve: s.node.stakingAddress,
		Backoff: opts.Backoff, MaxBackoff: opts.MaxBackoff, Now: opts.Now})
	return s, nil
}

// Close closes the p2p connections and the node API's.
func (s *Node) Close() error {
	s.node.c.Close()
	return s.client.Close()
}

// Network answers the followed network's id for every name: the local world
// is that one network.
func (s *Node) Network(string) (uint32, bool) { return s.ix.Network().ID, true }

// SubnetOf maps the P-, X- and C-Chain to the primary network and every other
// chain to the subnet its CreateChainTx named.
func (s *Node) SubnetOf(chainID [32]byte) ([32]byte, bool) {
	if _, primary := s.ix.Network().ChainOf(avax.ID(chainID).String()); primary {
		return [32]byte{}, true
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	subnets, err := s.ix.Subnets(ctx)
	if err != nil {
		return [32]byte{}, false
	}
	want := avax.ID(chainID).String()
	for _, sn := range subnets {
		for _, c := range sn.Chains {
			if c.ID == want {
				id, err := avax.ParseID(sn.ID)
				return [32]byte(id), err == nil
			}
		}
	}
	return [32]byte{}, false
}

// Validators returns the subnet's validator set at a P-Chain height (0: the
// node's current height) from platform.getValidatorsAt, which for an L1 is
// its L1 validators.
func (s *Node) Validators(ctx context.Context, subnetID [32]byte, height uint64) ([]warpmsg.Validator, error) {
	if subnetID != ([32]byte{}) {
		_, ok, err := s.ix.Subnet(ctx, avax.ID(subnetID).String())
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, fmt.Errorf("%w: %s is not indexed", warpmsg.ErrUnknownSubnet, avax.ID(subnetID))
		}
	}
	current, err := s.node.pHeight(ctx)
	if err != nil {
		return nil, err
	}
	if height == 0 {
		height = current
	} else if height > current {
		return nil, fmt.Errorf("%w: %d > %d", warpmsg.ErrUnknownHeight, height, current)
	}
	return s.node.validatorsAt(ctx, subnetID, height)
}

// Sign asks the validator over the p2p protocol, on the message's source
// chain, with the justification the P-Chain needs for a conversion message.
func (s *Node) Sign(ctx context.Context, nodeID [20]byte, msg []byte) ([]byte, error) {
	u, err := warpmsg.ParseUnsignedMessage(msg)
	if err != nil {
		return nil, err
	}
	var justification []byte
	if m, err := warpmsg.L1MessageOf(u); err == nil {
		if conv, ok := m.(*warpmsg.SubnetToL1Conversion); ok {
			subnet, ok := s.subnetOfConversion(ctx, conv.ID)
			if !ok {
				return nil, fmt.Errorf("conversion %s: %w", avax.ID(conv.ID), warpmsg.ErrL1MessageNotFound)
			}
			justification = subnet[:]
		}
	}
	return s.client.Sign(ctx, avax.NodeID(nodeID), u.SourceChainID, msg, justification)
}

// L1Message builds the SubnetToL1Conversion message that a ConvertSubnetToL1
// transaction id or a converted subnet's id (the justification the P-Chain
// takes) stands for, with the conversion id computed from the indexed
// transaction.
func (s *Node) L1Message(networkID uint32, ref []byte) ([]byte, bool) {
	if len(ref) != 32 {
		return nil, false
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	txID := avax.ID(ref).String()
	if sn, ok, err := s.ix.Subnet(ctx, txID); err == nil && ok && sn.Conversion != nil {
		txID = sn.Conversion.TxID
	}
	tx, ok, err := s.ix.Tx(ctx, txID)
	if err != nil || !ok || tx.Type != pindex.TxConvertSubnetToL1 {
		return nil, false
	}
	subnet, convID, err := conversionID(tx.Body)
	if err != nil {
		return nil, false
	}
	s.mu.Lock()
	s.conversions[convID] = subnet
	s.mu.Unlock()
	return warpmsg.NewL1Unsigned(networkID, &warpmsg.SubnetToL1Conversion{ID: convID}).Bytes(), true
}

// subnetOfConversion returns the subnet whose conversion id is id, looking
// through the index's conversions when L1Message has not met it.
func (s *Node) subnetOfConversion(ctx context.Context, id [32]byte) ([32]byte, bool) {
	s.mu.Lock()
	subnet, ok := s.conversions[id]
	s.mu.Unlock()
	if ok {
		return subnet, true
	}
	subnets, err := s.ix.Subnets(ctx)
	if err != nil {
		return [32]byte{}, false
	}
	for _, sn := range subnets {
		if sn.Conversion == nil {
			continue
		}
		tx, ok, err := s.ix.Tx(ctx, sn.Conversion.TxID)
		if err != nil || !ok {
			continue
		}
		sub, cid, err := conversionID(tx.Body)
		if err != nil {
			continue
		}
		s.mu.Lock()
		s.conversions[cid] = sub
		s.mu.Unlock()
		if cid == id {
			return sub, true
		}
	}
	return [32]byte{}, false
}

// conversionID reads a ConvertSubnetToL1Tx (the node's JSON, as indexed) and
// returns its subnet and conversion id (warpmsg.ConversionOfTx).
func conversionID(body json.RawMessage) (subnet, id [32]byte, err error) {
	d, err := warpmsg.ConversionOfTx(body)
	if err != nil {
		return subnet, id, err
	}
	return d.SubnetID, d.ID(), nil
}

// peerOptions is what the p2p client announces: the followed network's id
// and the followed node's own version, which its peers accept.
func (s *Node) peerOptions(ctx context.Context) (acp118.PeerOptions, error) {
	v, err := s.node.version(ctx)
	if err != nil {
		return acp118.PeerOptions{}, err
	}
	return acp118.PeerOptions{NetworkID: s.ix.Network().ID, Client: v}, nil
}

// parseVersion reads "avalanchego/1.14.2".
func parseVersion(s string) (acp118.Version, error) {
	name, num, ok := strings.Cut(s, "/")
	parts := strings.Split(num, ".")
	if !ok || len(parts) != 3 {
		return acp118.Version{}, fmt.Errorf("node version %q is not name/major.minor.patch", s)
	}
	v := acp118.Version{Name: name}
	for i, p := range []*uint32{&v.Major, &v.Minor, &v.Patch} {
		n, err := strconv.ParseUint(parts[i], 10, 32)
		if err != nil {
			return acp118.Version{}, fmt.Errorf("node version %q: %w", s, err)
		}
		*p = uint32(n)
	}
	return v, nil
}
