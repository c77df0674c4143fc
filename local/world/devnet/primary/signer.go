package primary

import (
	"context"
	"errors"

	gen "github.com/avaedge/avaedge/local/source/devnet"
	"github.com/avaedge/avaedge/local/vocab/avax"
	"github.com/avaedge/avaedge/local/vocab/warpmsg"
)

// Signer is the devnet's signature source (local/api/warp's Source): its
// validators sign with their own BLS keys, and its L1 transactions are the
// P-chain messages that justifications and transaction hashes stand for. It
// is safe for concurrent use.
type Signer struct{ w *gen.World }

// NewSigner returns the signature source of the devnet w.
func NewSigner(w *gen.World) Signer { return Signer{w} }

// Network resolves a network name the devnet answers for to its id.
func (s Signer) Network(name string) (uint32, bool) {
	n, ok := s.w.Network(name)
	return n.ID, ok
}

// AcceptsNetwork signs, under every network name the devnet answers for,
// messages carrying the devnet's own network id (12345): the one its node
// reports (info.getNetworkID), with which tools such as the ICM relayer
// build their messages.
func (s Signer) AcceptsNetwork(name string, networkID uint32) bool {
	_, ok := s.w.Network(name)
	return ok && networkID == gen.NetworkID
}

// SubnetOf returns the subnet that validates chainID.
func (s Signer) SubnetOf(chainID [32]byte) ([32]byte, bool) {
	id, ok := s.w.SubnetOf(avax.ID(chainID))
	return [32]byte(id), ok
}

// Validators returns a subnet's validators at a P-chain height, 0 meaning
// the current one.
func (s Signer) Validators(_ context.Context, subnetID [32]byte, height uint64) ([]warpmsg.Validator, error) {
	members, err := s.w.Validators(avax.ID(subnetID), height)
	switch {
	case errors.Is(err, gen.ErrUnknownSubnet):
		return nil, errors.Join(warpmsg.ErrUnknownSubnet, err)
	case errors.Is(err, gen.ErrUnknownHeight):
		return nil, errors.Join(warpmsg.ErrUnknownHeight, err)
	case err != nil:
		return nil, err
	}
	out := make([]warpmsg.Validator, len(members))
	for i, m := range members {
		out[i] = warpmsg.Validator{NodeID: [20]byte(m.NodeID), Weight: m.Weight, PublicKey: m.PublicKey}
	}
	return out, nil
}

// Sign signs msg with the BLS key of the validator nodeID.
func (s Signer) Sign(ctx context.Context, nodeID [20]byte, msg []byte) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return s.w.Sign(avax.NodeID(nodeID), msg)
}

// L1Message builds the unsigned P-chain message a 32-byte reference stands
// for: a conversion transaction or the converted subnet's id (a
// SubnetToL1Conversion justification), or a RegisterL1ValidatorTx.
func (s Signer) L1Message(networkID uint32, ref []byte) ([]byte, bool) {
	if len(ref) != 32 {
		return nil, false
	}
	id := avax.ID(ref)
	conv, ok := s.w.L1Conversion(id)
	if !ok {
		conv, ok = s.w.L1ConversionOfSubnet(id)
	}
	if ok {
		return warpmsg.NewL1Unsigned(networkID, &warpmsg.SubnetToL1Conversion{ID: [32]byte(conv.ConversionID)}).Bytes(), true
	}
	if reg, ok := s.w.L1Registration(id); ok {
		return warpmsg.NewL1Unsigned(networkID, reg.Message()).Bytes(), true
	}
	return nil, false
}
