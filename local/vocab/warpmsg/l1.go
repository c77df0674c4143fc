package warpmsg

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
)

// PChainID is the P-chain's blockchain id, the source chain of every P-chain
// L1 message: the empty id on every network.
var PChainID [IDLen]byte

// ErrNotL1Message means an unsigned message does not carry a P-chain L1
// message (wrong source chain, payload type or a non-empty source address).
var ErrNotL1Message = errors.New("warp: not a P-chain L1 message")

// L1Message is a P-chain message about L1 validators (avalanchego
// vms/platformvm/warp/message): *SubnetToL1Conversion, *RegisterL1Validator,
// *L1ValidatorRegistration or *L1ValidatorWeight.
type L1Message interface {
	// Bytes returns 0000 ‖ u32 type id ‖ fields.
	Bytes() []byte
}

var (
	_ L1Message = (*SubnetToL1Conversion)(nil)
	_ L1Message = (*RegisterL1Validator)(nil)
	_ L1Message = (*L1ValidatorRegistration)(nil)
	_ L1Message = (*L1ValidatorWeight)(nil)
)

// SubnetToL1Conversion (type 0) reports that a subnet became an L1. ID is the
// conversion id; the justification that asks for it is the subnet id.
type SubnetToL1Conversion struct {
	ID [IDLen]byte
}

// Bytes returns the codec encoding.
func (m *SubnetToL1Conversion) Bytes() []byte {
	return append(l1Header(0), m.ID[:]...)
}

// PChainOwner is a threshold of P-chain addresses.
type PChainOwner struct {
	Threshold uint32
	Addresses [][ShortIDLen]byte
}

func (o *PChainOwner) appendTo(b []byte) []byte {
	b = binary.BigEndian.AppendUint32(b, o.Threshold)
	b = binary.BigEndian.AppendUint32(b, uint32(len(o.Addresses)))
	for _, a := range o.Addresses {
		b = append(b, a[:]...)
	}
	return b
}

func (r reader) owner() PChainOwner {
	o := PChainOwner{Threshold: r.u32()}
	n := r.Len(ShortIDLen)
	if r.Err() != nil {
		return o
	}
	o.Addresses = make([][ShortIDLen]byte, n)
	for i := range o.Addresses {
		r.Fixed(o.Addresses[i][:])
	}
	return o
}

// RegisterL1Validator (type 1) adds a validator to an L1. Its validation id is
// sha256 of Bytes.
type RegisterL1Validator struct {
	SubnetID              [IDLen]byte
	NodeID                []byte // length-prefixed; a real node id is 20 bytes
	BLSPublicKey          [PublicKeyLen]byte
	Expiry                uint64
	RemainingBalanceOwner PChainOwner
	DisableOwner          PChainOwner
	Weight                uint64
}

// Bytes returns the codec encoding.
func (m *RegisterL1Validator) Bytes() []byte {
	b := append(l1Header(1), m.SubnetID[:]...)
	b = appendBytes(b, m.NodeID)
	b = append(b, m.BLSPublicKey[:]...)
	b = binary.BigEndian.AppendUint64(b, m.Expiry)
	b = m.RemainingBalanceOwner.appendTo(b)
	b = m.DisableOwner.appendTo(b)
	return binary.BigEndian.AppendUint64(b, m.Weight)
}

// ValidationID returns the id of the validation this message registers.
func (m *RegisterL1Validator) ValidationID() [IDLen]byte { return sha256.Sum256(m.Bytes()) }

// L1ValidatorRegistration (type 2) reports whether a validation id is (or,
// with Registered false, will never again be) registered.
type L1ValidatorRegistration struct {
	ValidationID [IDLen]byte
	Registered   bool
}

// Bytes returns the codec encoding.
func (m *L1ValidatorRegistration) Bytes() []byte {
	b := append(l1Header(2), m.ValidationID[:]...)
	if m.Registered {
		return append(b, 1)
	}
	return append(b, 0)
}

// L1ValidatorWeight (type 3) sets the weight of a validation; Nonce orders
// updates.
type L1ValidatorWeight struct {
	ValidationID [IDLen]byte
	Nonce        uint64
	Weight       uint64
}

// Bytes returns the codec encoding.
func (m *L1ValidatorWeight) Bytes() []byte {
	b := append(l1Header(3), m.ValidationID[:]...)
	b = binary.BigEndian.AppendUint64(b, m.Nonce)
	return binary.BigEndian.AppendUint64(b, m.Weight)
}

func l1Header(typeID uint32) []byte {
	b := make([]byte, 0, 128)
	b = binary.BigEndian.AppendUint16(b, codecVersion)
	return binary.BigEndian.AppendUint32(b, typeID)
}

// ParseL1Message decodes b, which must hold exactly one P-chain L1 message.
func ParseL1Message(b []byte) (L1Message, error) {
	r := newReader(b)
	r.version()
	var m L1Message
	switch r.typeID(4) {
	case 0:
		m = &SubnetToL1Conversion{ID: r.id()}
	case 1:
		v := &RegisterL1Validator{SubnetID: r.id(), NodeID: r.bytes()}
		r.Fixed(v.BLSPublicKey[:])
		v.Expiry = r.u64()
		v.RemainingBalanceOwner = r.owner()
		v.DisableOwner = r.owner()
		v.Weight = r.u64()
		m = v
	case 2:
		m = &L1ValidatorRegistration{ValidationID: r.id(), Registered: r.bool()}
	case 3:
		m = &L1ValidatorWeight{ValidationID: r.id(), Nonce: r.u64(), Weight: r.u64()}
	}
	if err := r.finish(); err != nil {
		return nil, fmt.Errorf("parse L1 message: %w", err)
	}
	return m, nil
}

// NewL1Unsigned wraps m the way the P-chain does: an AddressedCall with an
// empty source address, sent from the P-chain on networkID.
func NewL1Unsigned(networkID uint32, m L1Message) *UnsignedMessage {
	call := &AddressedCall{Payload: m.Bytes()}
	return &UnsignedMessage{NetworkID: networkID, SourceChainID: PChainID, Payload: call.Bytes()}
}

// L1MessageOf returns the P-chain L1 message that u carries, or an error
// wrapping ErrNotL1Message or a parse error.
func L1MessageOf(u *UnsignedMessage) (L1Message, error) {
	if u.SourceChainID != PChainID {
		return nil, fmt.Errorf("%w: source chain is not the P-chain", ErrNotL1Message)
	}
	p, err := ParsePayload(u.Payload)
	if err != nil {
		return nil, err
	}
	call, ok := p.(*AddressedCall)
	if !ok {
		return nil, fmt.Errorf("%w: payload is not an AddressedCall", ErrNotL1Message)
	}
	if len(call.SourceAddress) != 0 {
		return nil, fmt.Errorf("%w: source address is not empty", ErrNotL1Message)
	}
	return ParseL1Message(call.Payload)
}
