package devnet

import (
	"bytes"
	"fmt"
	"slices"

	blst "github.com/supranational/blst/bindings/go"

	"github.com/avaedge/avaedge/local/vocab/avax"
	"github.com/avaedge/avaedge/local/vocab/warpmsg"
)

// fromManager returns the signed Warp message the L1's validator manager
// sends the P-Chain with payload (a RegisterL1Validator or
// L1ValidatorWeight message): an AddressedCall from the manager's contract
// on its chain, signed by every node of signers, the L1's validators then.
func (w *World) fromManager(payload []byte, signers []avax.NodeID) ([]byte, error) {
	c := w.conversion
	call := &warpmsg.AddressedCall{SourceAddress: c.Address, Payload: payload}
	u := warpmsg.UnsignedMessage{NetworkID: NetworkID, SourceChainID: [32]byte(c.ChainID), Payload: call.Bytes()}
	msg := u.Bytes()
	// The canonical order: by uncompressed public key.
	nodes := make([]*node, 0, len(signers))
	for _, id := range signers {
		n, ok := w.nodeIdx[id]
		if !ok {
			return nil, fmt.Errorf("%w: %s", ErrUnknownNode, id)
		}
		nodes = append(nodes, n)
	}
	uncompressed := func(n *node) []byte { return new(blst.P1Affine).Uncompress(n.bls.PublicKey).Serialize() }
	slices.SortFunc(nodes, func(a, b *node) int { return bytes.Compare(uncompressed(a), uncompressed(b)) })
	agg := new(blst.P2Aggregate)
	indices := make([]int, len(nodes))
	for i, n := range nodes {
		if !agg.Add(new(blst.P2Affine).Sign(n.sk, msg, DSTSignature), false) {
			return nil, fmt.Errorf("devnet: aggregating the signature of %s", n.id)
		}
		indices[i] = i
	}
	m := warpmsg.Message{UnsignedMessage: u, Signature: warpmsg.BitSetSignature{Signers: warpmsg.NewSigners(indices...)}}
	copy(m.Signature.Signature[:], agg.ToAffine().Compress())
	return m.Bytes(), nil
}
