package avax

import (
	"crypto/sha256"
	"errors"

	"github.com/decred/dcrd/dcrec/secp256k1/v4"
	"github.com/decred/dcrd/dcrec/secp256k1/v4/ecdsa"
	//lint:ignore SA1019 Avalanche addresses are ripemd160(sha256(pk)): the protocol fixes the hash.
	"golang.org/x/crypto/ripemd160"
)

// PrivateKey is a secp256k1 key of the kind that owns UTXOs. It is safe for
// concurrent use.
type PrivateKey struct {
	k *secp256k1.PrivateKey
}

// NewPrivateKey returns the key with the 32-byte scalar b.
func NewPrivateKey(b []byte) (*PrivateKey, error) {
	if len(b) != 32 {
		return nil, ErrLength
	}
	var s secp256k1.ModNScalar
	if overflow := s.SetByteSlice(b); overflow || s.IsZero() {
		return nil, errors.New("avax: private key out of range")
	}
	return &PrivateKey{k: secp256k1.NewPrivateKey(&s)}, nil
}

// PublicKey returns the 33-byte compressed public key.
func (p *PrivateKey) PublicKey() []byte { return p.k.PubKey().SerializeCompressed() }

// Address returns ripemd160(sha256(compressed public key)).
func (p *PrivateKey) Address() ShortID { return PublicKeyAddress(p.PublicKey()) }

// PublicKeyAddress returns ripemd160(sha256(pk)) of a compressed public key.
func PublicKeyAddress(pk []byte) ShortID {
	h := sha256.Sum256(pk)
	r := ripemd160.New()
	r.Write(h[:])
	return ShortID(r.Sum(nil))
}

// SignHash returns the recoverable signature r ‖ s ‖ v of a 32-byte hash
// (RFC 6979, so deterministic), the form of secp256k1fx credentials.
func (p *PrivateKey) SignHash(hash []byte) [SigLen]byte {
	compact := ecdsa.SignCompact(p.k, hash, true) // v ‖ r ‖ s, v = 27 + 4 + recid
	var sig [SigLen]byte
	copy(sig[:64], compact[1:])
	sig[64] = compact[0] - 27 - 4
	return sig
}

// RecoverAddress returns the address whose key made sig over hash.
func RecoverAddress(hash []byte, sig [SigLen]byte) (ShortID, error) {
	pk, err := RecoverPublicKey(hash, sig)
	if err != nil {
		return ShortID{}, err
	}
	return PublicKeyAddress(pk), nil
}

// RecoverPublicKey returns the compressed public key whose key made sig
// over hash.
func RecoverPublicKey(hash []byte, sig [SigLen]byte) ([]byte, error) {
	var compact [SigLen]byte
	compact[0] = sig[64] + 27 + 4
	copy(compact[1:], sig[:64])
	pk, _, err := ecdsa.RecoverCompact(compact[:], hash)
	if err != nil {
		return nil, err
	}
	return pk.SerializeCompressed(), nil
}
