package nodeclient

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/avaedge/avaedge/jsonrpc"
)

// Info is the node's info API (info.*). Its methods are safe for concurrent
// use.
type Info struct{ rpc *jsonrpc.Client }

// NetworkID returns the id of the node's network (info.getNetworkID).
func (i Info) NetworkID(ctx context.Context) (uint32, error) {
	raw, err := call(ctx, i.rpc, pathInfo, "info.getNetworkID", nil)
	if err != nil {
		return 0, err
	}
	return decodeNetworkID(raw)
}

// decodeNetworkID reads info.getNetworkID's answer, {"networkID":"1"}.
func decodeNetworkID(raw json.RawMessage) (uint32, error) {
	var r struct {
		NetworkID string `json:"networkID"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return 0, fmt.Errorf("info.getNetworkID: %w", err)
	}
	id, err := strconv.ParseUint(r.NetworkID, 10, 32)
	if err != nil {
		return 0, fmt.Errorf("info.getNetworkID: %q: %w", r.NetworkID, err)
	}
	return uint32(id), nil
}

// BlockchainID returns the blockchain id of the chain with alias ("X", "C")
// (info.getBlockchainID).
func (i Info) BlockchainID(ctx context.Context, alias string) (string, error) {
	return i.field(ctx, "info.getBlockchainID", map[string]string{"alias": alias}, "blockchainID")
}

// NodeID returns the node's id, "NodeID-…" (info.getNodeID).
func (i Info) NodeID(ctx context.Context) (string, error) {
	return i.field(ctx, "info.getNodeID", nil, "nodeID")
}

// NodeIP returns the address where the node accepts p2p connections
// (info.getNodeIP).
func (i Info) NodeIP(ctx context.Context) (string, error) {
	return i.field(ctx, "info.getNodeIP", nil, "ip")
}

// NodeVersion returns the node's software version, e.g.
// "avalanchego/1.14.2" (info.getNodeVersion).
func (i Info) NodeVersion(ctx context.Context) (string, error) {
	return i.field(ctx, "info.getNodeVersion", nil, "version")
}

// field calls method with params and returns the string field name of its
// answer ("" when the answer has none).
func (i Info) field(ctx context.Context, method string, params any, name string) (string, error) {
	var r map[string]json.RawMessage
	if err := i.rpc.Call(ctx, pathInfo, method, params, &r); err != nil {
		return "", err
	}
	var s string
	if v, ok := r[name]; ok {
		if err := json.Unmarshal(v, &s); err != nil {
			return "", fmt.Errorf("%s: %s: %w", method, name, err)
		}
	}
	return s, nil
}

// Peer is a peer of the node: its id, the address of its connection (IP)
// and the address it signed as its own (PublicIP, "" when it has none).
type Peer struct {
	NodeID, IP, PublicIP string
}

// Peers returns the node's peers among nodeIDs (info.peers).
func (i Info) Peers(ctx context.Context, nodeIDs []string) ([]Peer, error) {
	raw, err := call(ctx, i.rpc, pathInfo, "info.peers", map[string][]string{"nodeIDs": nodeIDs})
	if err != nil {
		return nil, err
	}
	return decodePeers(raw)
}

// decodePeers reads info.peers' answer.
func decodePeers(raw json.RawMessage) ([]Peer, error) {
	var r struct {
		Peers []struct {
			IP       string `json:"ip"`
			PublicIP string `json:"publicIP"`
			NodeID   string `json:"nodeID"`
		} `json:"peers"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, fmt.Errorf("info.peers: %w", err)
	}
	out := make([]Peer, len(r.Peers))
	for i, p := range r.Peers {
		out[i] = Peer{NodeID: p.NodeID, IP: p.IP, PublicIP: p.PublicIP}
	}
	return out, nil
}
