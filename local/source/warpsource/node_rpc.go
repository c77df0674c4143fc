package warpsource

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/avaedge/avaedge/jsonrpc"
	"github.com/avaedge/avaedge/local/source/acp118"
	"github.com/avaedge/avaedge/local/vocab/avax"
	"github.com/avaedge/avaedge/local/vocab/warpmsg"
)

// errNoAddress means the followed node is not connected to a validator, so
// its staking address is unknown.
var errNoAddress = errors.New("the node does not know the validator's address")

// nodeRPC calls the followed node's info and platform APIs for the warp
// Source. It is safe for concurrent use.
type nodeRPC struct{ c *jsonrpc.Client }

// call posts one JSON-RPC request to path and decodes its result into out.
func (n *nodeRPC) call(ctx context.Context, path, method string, params, out any) error {
	if err := n.c.Call(ctx, path, method, params, out); err != nil {
		return fmt.Errorf("node %w", err)
	}
	return nil
}

// pHeight returns the node's P-Chain height.
func (n *nodeRPC) pHeight(ctx context.Context) (uint64, error) {
	var r struct {
		Height string `json:"height"`
	}
	if err := n.call(ctx, "/ext/bc/P", "platform.getHeight", struct{}{}, &r); err != nil {
		return 0, err
	}
	return strconv.ParseUint(r.Height, 10, 64)
}

// validatorsAt returns platform.getValidatorsAt's set: node ids, weights and
// BLS keys (absent for validators without one).
func (n *nodeRPC) validatorsAt(ctx context.Context, subnetID [32]byte, height uint64) ([]warpmsg.Validator, error) {
	var r json.RawMessage
	params := map[string]string{"height": strconv.FormatUint(height, 10), "subnetID": avax.ID(subnetID).String()}
	if err := n.call(ctx, "/ext/bc/P", "platform.getValidatorsAt", params, &r); err != nil {
		return nil, err
	}
	return validatorSet(r)
}

// validatorSet reads platform.getValidatorsAt's answer: node id → weight and
// BLS key (null for a validator without one).
func validatorSet(raw json.RawMessage) ([]warpmsg.Validator, error) {
	var r map[string]struct {
		PublicKey *string `json:"publicKey"`
		Weight    string  `json:"weight"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, fmt.Errorf("platform.getValidatorsAt: %w", err)
	}
	out := make([]warpmsg.Validator, 0, len(r))
	for node, v := range r {
		id, err := avax.ParseNodeID(node)
		if err != nil {
			return nil, fmt.Errorf("platform.getValidatorsAt: %w", err)
		}
		w, err := strconv.ParseUint(v.Weight, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("platform.getValidatorsAt: weight of %s: %w", node, err)
		}
		val := warpmsg.Validator{NodeID: [20]byte(id), Weight: w}
		if v.PublicKey != nil {
			if val.PublicKey, err = decodeHexNC(*v.PublicKey); err != nil {
				return nil, fmt.Errorf("platform.getValidatorsAt: key of %s: %w", node, err)
			}
		}
		out = append(out, val)
	}
	return out, nil
}

// version returns the node's software version (info.getNodeVersion).
func (n *nodeRPC) version(ctx context.Context) (acp118.Version, error) {
	var r struct {
		Version string `json:"version"`
	}
	if err := n.call(ctx, "/ext/info", "info.getNodeVersion", struct{}{}, &r); err != nil {
		return acp118.Version{}, err
	}
	return parseVersion(r.Version)
}

// stakingAddress returns where nodeID accepts p2p connections: the followed
// node's own info.getNodeIP, or the address a peer of it signed (publicIP
// in info.peers; ip, the connection's address, when it has none).
func (n *nodeRPC) stakingAddress(ctx context.Context, nodeID avax.NodeID) (string, error) {
	var self struct {
		NodeID string `json:"nodeID"`
	}
	if err := n.call(ctx, "/ext/info", "info.getNodeID", struct{}{}, &self); err != nil {
		return "", err
	}
	if self.NodeID == nodeID.String() {
		var ip struct {
			IP string `json:"ip"`
		}
		if err := n.call(ctx, "/ext/info", "info.getNodeIP", struct{}{}, &ip); err != nil {
			return "", err
		}
		return ip.IP, nil
	}
	var peers json.RawMessage
	if err := n.call(ctx, "/ext/info", "info.peers", map[string][]string{"nodeIDs": {nodeID.String()}}, &peers); err != nil {
		return "", err
	}
	return peerAddress(peers, nodeID)
}

// peerAddress reads nodeID's staking address from an info.peers answer: the
// address it signed (publicIP), or the connection's (ip) when it has none.
func peerAddress(raw json.RawMessage, nodeID avax.NodeID) (string, error) {
	var peers struct {
		Peers []struct {
			IP       string `json:"ip"`
			PublicIP string `json:"publicIP"`
			NodeID   string `json:"nodeID"`
		} `json:"peers"`
	}
	if err := json.Unmarshal(raw, &peers); err != nil {
		return "", fmt.Errorf("info.peers: %w", err)
	}
	for _, p := range peers.Peers {
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
