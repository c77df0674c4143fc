package warp

import (
	"errors"
	"fmt"
	"math/big"

	blst "github.com/supranational/blst/bindings/go"

	"github.com/avaedge/avaedge/local/vocab/warpmsg"
)

// SignatureDST is the hash-to-curve domain separation tag of Warp signatures
// (min-pk BLS12-381 with proof of possession).
const SignatureDST = "BLS_SIG_BLS12381G2_XMD:SHA-256_SSWU_RO_POP_"

var sigDST = []byte(SignatureDST)

// BLS errors.
var (
	// ErrInvalidPublicKey means bytes are not a valid compressed G1 key.
	ErrInvalidPublicKey = errors.New("warp: invalid BLS public key")
	// ErrInvalidSignature means bytes are not a valid compressed G2 point or
	// the signature does not verify.
	ErrInvalidSignature = errors.New("warp: invalid BLS signature")
)

// parsePublicKey decompresses a 48-byte key and checks it is in G1 and not
// the identity.
func parsePublicKey(b []byte) (*blst.P1Affine, error) {
	if len(b) != warpmsg.PublicKeyLen {
		return nil, fmt.Errorf("%w: %d bytes", ErrInvalidPublicKey, len(b))
	}
	pk := new(blst.P1Affine).Uncompress(b)
	if pk == nil || !pk.KeyValidate() {
		return nil, ErrInvalidPublicKey
	}
	return pk, nil
}

// parseSignature decompresses a 96-byte signature and checks it is in G2.
func parseSignature(b []byte) (*blst.P2Affine, error) {
	if len(b) != warpmsg.SignatureLen {
		return nil, fmt.Errorf("%w: %d bytes", ErrInvalidSignature, len(b))
	}
	sig := new(blst.P2Affine).Uncompress(b)
	if sig == nil || !sig.SigValidate(false) {
		return nil, ErrInvalidSignature
	}
	return sig, nil
}

// verify reports whether sig signs msg under pk; both are already validated.
func verify(pk *blst.P1Affine, sig *blst.P2Affine, msg []byte) bool {
	return sig.Verify(false, pk, false, msg, sigDST)
}

// quorumMet reports num*total <= den*signed with big integers, the Warp
// quorum rule.
func quorumMet(signed, total, num, den uint64) bool {
	var lhs, rhs big.Int
	lhs.Mul(new(big.Int).SetUint64(num), new(big.Int).SetUint64(total))
	rhs.Mul(new(big.Int).SetUint64(den), new(big.Int).SetUint64(signed))
	return lhs.Cmp(&rhs) <= 0
}

// percentOf formats signed/total as a percentage with two decimals, rounded
// down so that a shortfall never prints as the quorum itself.
func percentOf(signed, total uint64) string {
	if total == 0 {
		return "0.00"
	}
	var q big.Int
	q.Mul(new(big.Int).SetUint64(signed), big.NewInt(10000))
	q.Quo(&q, new(big.Int).SetUint64(total))
	c := q.Uint64()
	return fmt.Sprintf("%d.%02d", c/100, c%100)
}
