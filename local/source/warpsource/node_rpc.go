package warpsource

import (
	"context"
	"errors"
	"fmt"

	"github.com/avaedge/avaedge/local/source/acp118"
	"github.com/avaedge/avaedge/local/source/nodeclient"
	"github.com/avaedge/avaedge/local/vocab/avax"
	"github.com/avaedge/avaedge/local/vocab/warpmsg"
)

// errNoAddress means the followed node is not connected to a validator, so
// its staking address is unknown.
var errNoAddress = errors.New("the node does not know the validator's address")

// nodeAPI reads the followed node's info and platform APIs for the warp
// Source; its errors say they are the node's. It is safe for concurrent
// use.
type nodeAPI struct{ c *nodeclient.Client }

// nodeErr marks err as the node's.
func nodeErr(err error) error {
	if err != nil {
		return fmt.Errorf("node %w", err)
	}
	return nil
}

// pHeight returns the node's P-Chain height.
func (n nodeAPI) pHeight(ctx context.Context) (uint64, error) {
	h, err := n.c.P().Height(ctx)
	return h, nodeErr(err)
}

// validatorsAt returns platform.getValidatorsAt's set: node ids, weights and
// BLS keys (absent for validators without one).
func (n nodeAPI) validatorsAt(ctx context.Context, subnetID [32]byte, height uint64) ([]warpmsg.Validator, error) {
	vs, err := n.c.P().ValidatorsAt(ctx, avax.ID(subnetID).String(), height)
	if err != nil {
		return nil, nodeErr(err)
	}
	out := make([]warpmsg.Validator, len(vs))
	for i, v := range vs {
		out[i] = warpmsg.Validator{NodeID: [20]byte(v.NodeID), Weight: v.Weight, PublicKey: v.PublicKey}
	}
	return out, nil
}

// version returns the node's software version (info.getNodeVersion).
func (n nodeAPI) version(ctx context.Context) (acp118.Version, error) {
	v, err := n.c.Info().NodeVersion(ctx)
	if err != nil {
		return acp118.Version{}, nodeErr(err)
	}
	return parseVersion(v)
}

// stakingAddress returns where nodeID accepts p2p connections: the followed
// node's own info.getNodeIP, or the address a peer of it signed (publicIP
// in info.peers; ip, the connection's address, when it has none).
func (n nodeAPI) stakingAddress(ctx context.Context, nodeID avax.NodeID) (string, error) {
	self, err := n.c.Info().NodeID(ctx)
	if err != nil {
		return "", nodeErr(err)
	}
	if self == nodeID.String() {
		ip, err := n.c.Info().NodeIP(ctx)
		return ip, nodeErr(err)
	}
	peers, err := n.c.Info().Peers(ctx, []string{nodeID.String()})
	if err != nil {
		return "", nodeErr(err)
	}
	return peerAddress(peers, nodeID)
}

// peerAddress reads nodeID's staking address from the node's peers: the
// address it signed (publicIP), or the connection's (ip) when it has none.
func peerAddress(peers []nodeclient.Peer, nodeID avax.NodeID) (string, error) {
	for _, p := range peers {
		if p.NodeID != nodeID.String() {
			continue
		}
		if p.PublicIP != "" {
			return p.PublicIP, nil
		}
		return p.IP, nil
	}
	return "", fmt.Errorf("%w: %s is not among info.peers", errNoAddress, nodeID)
}
