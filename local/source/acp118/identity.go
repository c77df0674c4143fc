package acp118

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/binary"
	"fmt"
	"math/big"
	"net/netip"
	"time"

	blst "github.com/supranational/blst/bindings/go"

	"github.com/avaedge/avaedge/local/vocab/avax"
)

// popDST is the domain separation tag of BLS proofs of possession, with
// which avalanchego peers sign their IP (bls.Signer.SignProofOfPossession).
var popDST = []byte("BLS_POP_BLS12381G2_XMD:SHA-256_SSWU_RO_POP_")

// Identity is this client's staking identity on the p2p network: a
// self-generated TLS certificate (its NodeID) and a BLS key. It is not a
// validator's; peers accept it as an ordinary non-validating peer. It is safe
// for concurrent use.
type Identity struct {
	cert   tls.Certificate
	key    *ecdsa.PrivateKey
	bls    *blst.SecretKey
	nodeID avax.NodeID
}

// NewIdentity generates a fresh identity: an ECDSA P-256 certificate (one of
// the two key types avalanchego's staking.ParseCertificate accepts) and a BLS
// secret key.
func NewIdentity() (*Identity, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("staking key: %w", err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(0),
		Subject:               pkix.Name{CommonName: "avaedge"},
		NotBefore:             time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC),
		NotAfter:              time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC),
		KeyUsage:              x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, fmt.Errorf("staking certificate: %w", err)
	}
	var ikm [32]byte
	if _, err := rand.Read(ikm[:]); err != nil {
		return nil, err
	}
	sk := blst.KeyGen(ikm[:])
	if sk == nil {
		return nil, fmt.Errorf("bls key: blst refused")
	}
	return &Identity{
		cert:   tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key},
		key:    key,
		bls:    sk,
		nodeID: NodeIDOf(der),
	}, nil
}

// NodeID returns the identity's node id.
func (id *Identity) NodeID() avax.NodeID { return id.nodeID }

// BLSPublicKey returns the identity's compressed 48-byte BLS public key, the
// key its IP signature verifies under.
func (id *Identity) BLSPublicKey() []byte { return new(blst.P1Affine).From(id.bls).Compress() }

// NodeIDOf returns the node id of a staking certificate (DER):
// ripemd160(sha256(der)).
func NodeIDOf(der []byte) avax.NodeID { return avax.NodeID(avax.PublicKeyAddress(der)) }

// ipBytes is avalanchego's UnsignedIP encoding: the 16-byte address, the
// port and the signing time, big-endian.
func ipBytes(ip netip.AddrPort, timestamp uint64) []byte {
	a := ip.Addr().As16()
	b := append([]byte(nil), a[:]...)
	b = binary.BigEndian.AppendUint16(b, ip.Port())
	return binary.BigEndian.AppendUint64(b, timestamp)
}

// signIP returns the TLS-key signature (ASN.1 ECDSA over sha256) and the
// BLS proof-of-possession signature of the claimed IP, as a Handshake
// carries them.
func (id *Identity) signIP(ip netip.AddrPort, timestamp uint64) (tlsSig, blsSig []byte, err error) {
	msg := ipBytes(ip, timestamp)
	h := sha256.Sum256(msg)
	tlsSig, err = id.key.Sign(rand.Reader, h[:], crypto.SHA256)
	if err != nil {
		return nil, nil, err
	}
	blsSig = new(blst.P2Affine).Sign(id.bls, msg, popDST).Compress()
	return tlsSig, blsSig, nil
}
