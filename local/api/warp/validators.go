package warp

import (
	"bytes"
	"errors"
	"fmt"
	"math/big"
	"slices"

	blst "github.com/supranational/blst/bindings/go"

	"github.com/avaedge/avaedge/local/vocab/warpmsg"
)

// CanonicalValidator is one distinct BLS key of a validator set, with the
// summed weight of every validator that registered it.
type CanonicalValidator struct {
	PublicKey []byte // 48-byte compressed
	Weight    uint64
	NodeIDs   [][warpmsg.ShortIDLen]byte // in the order the Source listed them

	key          *blst.P1Affine
	uncompressed []byte
}

// ValidatorSet is the canonical validator set of a subnet at a height: the
// order that Warp signer bitsets index. A ValidatorSet is immutable and safe
// for concurrent use.
type ValidatorSet struct {
	// Validators are sorted by their uncompressed 96-byte public key.
	Validators []CanonicalValidator
	// TotalWeight includes validators without a BLS key.
	TotalWeight uint64
}

// Verification errors of ValidatorSet.Verify.
var (
	// ErrWeightOverflow means weights sum past 2^64-1.
	ErrWeightOverflow = errors.New("warp: weight overflow")
	// ErrUnknownSigner means a bitset names an index past the set.
	ErrUnknownSigner = errors.New("warp: signer index out of range")
	// ErrInsufficientWeight means the signers do not reach the quorum.
	ErrInsufficientWeight = errors.New("warp: insufficient signing weight")
	// ErrWrongNetwork means the message names another network.
	ErrWrongNetwork = errors.New("warp: wrong network id")
)

// NewValidatorSet returns the canonical set of vdrs (avalanchego
// vms/platformvm/warp; docs/facts.md, section 6): validators
// without a BLS key are dropped but their weight counts in TotalWeight;
// validators sharing a key are merged with summed weights; the rest are
// sorted by uncompressed public key. A malformed key or a weight overflow is
// an error.
func NewValidatorSet(vdrs []warpmsg.Validator) (*ValidatorSet, error) {
	set := &ValidatorSet{}
	byKey := make(map[string]int, len(vdrs))
	for _, v := range vdrs {
		total := set.TotalWeight + v.Weight
		if total < set.TotalWeight {
			return nil, ErrWeightOverflow
		}
		set.TotalWeight = total
		if v.PublicKey == nil {
			continue
		}
		if i, ok := byKey[string(v.PublicKey)]; ok {
			cv := &set.Validators[i]
			cv.Weight += v.Weight // cannot overflow: bounded by TotalWeight
			cv.NodeIDs = append(cv.NodeIDs, v.NodeID)
			continue
		}
		key, err := parsePublicKey(v.PublicKey)
		if err != nil {
			return nil, fmt.Errorf("validator %x: %w", v.NodeID, err)
		}
		byKey[string(v.PublicKey)] = len(set.Validators)
		set.Validators = append(set.Validators, CanonicalValidator{
			PublicKey:    bytes.Clone(v.PublicKey),
			Weight:       v.Weight,
			NodeIDs:      [][warpmsg.ShortIDLen]byte{v.NodeID},
			key:          key,
			uncompressed: key.Serialize(),
		})
	}
	slices.SortFunc(set.Validators, func(a, b CanonicalValidator) int {
		return bytes.Compare(a.uncompressed, b.uncompressed)
	})
	return set, nil
}

// Verify checks m the way a Warp verifier does: the network id, the signer
// indices, the quorum quorumNum/quorumDen of TotalWeight with big integers,
// and the aggregate signature under the aggregate key of the signers. m's
// bitset must be minimal (ParseMessage guarantees it).
func (s *ValidatorSet) Verify(m *warpmsg.Message, networkID uint32, quorumNum, quorumDen uint64) error {
	if m.NetworkID != networkID {
		return fmt.Errorf("%w: %d, want %d", ErrWrongNetwork, m.NetworkID, networkID)
	}
	if sg := m.Signature.Signers; len(sg) > 0 && sg[0] == 0 {
		return warpmsg.ErrNonMinimalSigners
	}
	var bits big.Int
	bits.SetBytes(m.Signature.Signers)
	if bits.BitLen() > len(s.Validators) {
		return fmt.Errorf("%w: %d >= %d", ErrUnknownSigner, bits.BitLen()-1, len(s.Validators))
	}
	var (
		signed uint64
		keys   []*blst.P1Affine
	)
	for i := range s.Validators {
		if bits.Bit(i) == 0 {
			continue
		}
		signed += s.Validators[i].Weight // cannot overflow: bounded by TotalWeight
		keys = append(keys, s.Validators[i].key)
	}
	if !quorumMet(signed, s.TotalWeight, quorumNum, quorumDen) {
		return fmt.Errorf("%w: %d of %d", ErrInsufficientWeight, signed, s.TotalWeight)
	}
	if len(keys) == 0 {
		return fmt.Errorf("%w: no signers", ErrInvalidSignature)
	}
	sig, err := parseSignature(m.Signature.Signature[:])
	if err != nil {
		return err
	}
	var agg blst.P1Aggregate
	if !agg.Aggregate(keys, false) {
		return ErrInvalidPublicKey
	}
	if !verify(agg.ToAffine(), sig, m.UnsignedMessage.Bytes()) {
		return ErrInvalidSignature
	}
	return nil
}
