// Package warpsource provides the signature aggregator's sources
// (warp.Source): the devnet, whose validators sign with their own BLS keys,
// and a followed avalanchego network, whose validators are asked over the p2p
// protocol (ACP-118).
package warpsource

import (
	"context"
	"errors"

	"github.com/avaedge/avaedge/local/api/warp"
	"github.com/avaedge/avaedge/local/source/devnet"
	"github.com/avaedge/avaedge/local/vocab/avax"
)

// Devnet adapts the devnet world to the signature aggregator: its
// validators sign with their own BLS keys, and its L1 transactions are the
// P-chain messages that justifications and transaction hashes stand for.
func Devnet(w *devnet.World) warp.Source { return devnetSource{w} }

type devnetSource struct{ w *devnet.World }

var (
	_ warp.Source          = devnetSource{}
	_ warp.MessageNetworks = devnetSource{}
)

func (s devnetSource) Network(name string) (uint32, bool) {
	n, ok := s.w.Network(name)
	return n.ID, ok
}

// AcceptsNetwork signs, under every network name the devnet answers for,
// messages carrying the devnet's own network id (12345): the one its node
// reports (info.getNetworkID), with which tools such as the ICM relayer
// build their messages.
func (s devnetSource) AcceptsNetwork(name string, networkID uint32) bool {
	_, ok := s.w.Network(name)
	return ok && networkID == devnet.NetworkID
}

func (s devnetSource) SubnetOf(chainID [32]byte) ([32]byte, bool) {
	id, ok := s.w.SubnetOf(avax.ID(chainID))
	return [32]byte(id), ok
}

func (s devnetSource) Validators(_ context.Context, subnetID [32]byte, height uint64) ([]warp.Validator, error) {
	members, err := s.w.Validators(avax.ID(subnetID), height)
	switch {
	case errors.Is(err, devnet.ErrUnknownSubnet):
		return nil, errors.Join(warp.ErrUnknownSubnet, err)
	case errors.Is(err, devnet.ErrUnknownHeight):
		return nil, errors.Join(warp.ErrUnknownHeight, err)
	case err != nil:
		return nil, err
	}
	out := make([]warp.Validator, len(members))
	for i, m := range members {
		out[i] = warp.Validator{NodeID: [20]byte(m.NodeID), Weight: m.Weight, PublicKey: m.PublicKey}
	}
	return out, nil
}

func (s devnetSource) Sign(ctx context.Context, nodeID [20]byte, msg []byte) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return s.w.Sign(avax.NodeID(nodeID), msg)
}

// L1Message builds the unsigned P-chain message a 32-byte reference stands
// for: a conversion transaction or the converted subnet's id (a
// SubnetToL1Conversion justification), or a RegisterL1ValidatorTx.
func (s devnetSource) L1Message(networkID uint32, ref []byte) ([]byte, bool) {
	if len(ref) != 32 {
		return nil, false
	}
	id := avax.ID(ref)
	conv, ok := s.w.L1Conversion(id)
	if !ok {
		conv, ok = s.w.L1ConversionOfSubnet(id)
	}
	if ok {
		return warp.NewL1Unsigned(networkID, &warp.SubnetToL1Conversion{ID: [32]byte(conv.ConversionID)}).Bytes(), true
	}
	if reg, ok := s.w.L1Registration(id); ok {
		return warp.NewL1Unsigned(networkID, reg.Message()).Bytes(), true
	}
	return nil, false
}
