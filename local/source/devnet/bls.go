package devnet

import (
	"errors"
	"fmt"

	blst "github.com/supranational/blst/bindings/go"

	"github.com/avaedge/avaedge/local/vocab/avax"
)

// BLS domain separation tags of avalanchego's min-pk scheme (utils/crypto/bls):
// signatures and proofs of possession.
var (
	DSTSignature = []byte("BLS_SIG_BLS12381G2_XMD:SHA-256_SSWU_RO_POP_")
	DSTPoP       = []byte("BLS_POP_BLS12381G2_XMD:SHA-256_SSWU_RO_POP_")
)

// ErrUnknownNode means a node id is not one of the world's nodes.
var ErrUnknownNode = errors.New("devnet: unknown node")

// node is one node of the world with its BLS secret key, which never leaves
// the package except as signatures.
type node struct {
	id      avax.NodeID
	sk      *blst.SecretKey
	bls     BLS
	l1      bool // validates the L1 only
	version string
	geo     Geolocation
}

var cities = []Geolocation{
	{"Frankfurt am Main", "Germany", "DE", 50.1109, 8.6821},
	{"Ashburn", "United States", "US", 39.0438, -77.4874},
	{"Singapore", "Singapore", "SG", 1.3521, 103.8198},
	{"Tokyo", "Japan", "JP", 35.6762, 139.6503},
	{"Amsterdam", "Netherlands", "NL", 52.3676, 4.9041},
	{"Montreal", "Canada", "CA", 45.5019, -73.5674},
	{"Sao Paulo", "Brazil", "BR", -23.5558, -46.6396},
	{"Sydney", "Australia", "AU", -33.8688, 151.2093},
}

func (w *World) newNode(label string, i int, l1 bool) (*node, error) {
	idSeed := w.derive("node id", label, fmt.Sprint(i))
	ikm := w.derive("bls", label, fmt.Sprint(i))
	sk := blst.KeyGen(ikm[:])
	if sk == nil {
		return nil, fmt.Errorf("devnet: bls keygen for %s %d", label, i)
	}
	pk := new(blst.P1Affine).From(sk).Compress()
	pop := new(blst.P2Affine).Sign(sk, pk, DSTPoP).Compress()
	n := &node{
		id:      avax.NodeID(idSeed[:20]),
		sk:      sk,
		bls:     BLS{PublicKey: pk, ProofOfPossession: pop},
		l1:      l1,
		version: fmt.Sprintf("avalanchego/1.14.%d", i%3),
		geo:     cities[i%len(cities)],
	}
	w.nodes = append(w.nodes, n)
	w.nodeIdx[n.id] = n
	return n, nil
}

func (w *World) makeNodes() error {
	for i := range w.cfg.Validators {
		if _, err := w.newNode("primary", i, false); err != nil {
			return err
		}
	}
	for i := range 3 {
		if _, err := w.newNode("l1", i, true); err != nil {
			return err
		}
	}
	return nil
}

// Nodes returns every node id of the world: the primary-network validators'
// nodes first, then the L1's.
func (w *World) Nodes() []avax.NodeID {
	out := make([]avax.NodeID, len(w.nodes))
	for i, n := range w.nodes {
		out[i] = n.id
	}
	return out
}

// NodeBLS returns a node's BLS public key and proof of possession.
func (w *World) NodeBLS(id avax.NodeID) (BLS, bool) {
	n, ok := w.nodeIdx[id]
	if !ok {
		return BLS{}, false
	}
	return n.bls, true
}

// NodeVersion returns the avalanchego version a node runs.
func (w *World) NodeVersion(id avax.NodeID) (string, bool) {
	n, ok := w.nodeIdx[id]
	if !ok {
		return "", false
	}
	return n.version, true
}

// Sign returns the node's 96-byte compressed BLS signature of msg (for Warp,
// the UnsignedMessage bytes) under the signature DST.
func (w *World) Sign(id avax.NodeID, msg []byte) ([]byte, error) {
	n, ok := w.nodeIdx[id]
	if !ok {
		return nil, fmt.Errorf("%w: %s", ErrUnknownNode, id)
	}
	return new(blst.P2Affine).Sign(n.sk, msg, DSTSignature).Compress(), nil
}
