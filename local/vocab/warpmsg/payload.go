package warpmsg

import (
	"encoding/binary"
	"fmt"
)

// MaxPayloadSize bounds an encoded payload (avalanchego's payload codec limit).
const MaxPayloadSize = 24 * 1024

// Payload is the content of an UnsignedMessage's Payload field: *Hash or
// *AddressedCall.
type Payload interface {
	// Bytes returns the payload's codec encoding.
	Bytes() []byte
}

var (
	_ Payload = (*Hash)(nil)
	_ Payload = (*AddressedCall)(nil)
)

// Hash is the payload type 0: a 32-byte hash.
type Hash struct {
	Hash [32]byte
}

// Bytes returns 0000 ‖ u32 0 ‖ hash.
func (h *Hash) Bytes() []byte {
	b := make([]byte, 0, 2+4+32)
	b = binary.BigEndian.AppendUint16(b, codecVersion)
	b = binary.BigEndian.AppendUint32(b, 0)
	return append(b, h.Hash[:]...)
}

// AddressedCall is the payload type 1: a sender address on the source chain
// and an opaque payload. P-chain L1 messages travel in one with an empty
// SourceAddress.
type AddressedCall struct {
	SourceAddress []byte
	Payload       []byte
}

// Bytes returns 0000 ‖ u32 1 ‖ sourceAddress ‖ payload. It does not enforce
// MaxPayloadSize; ParsePayload does.
func (c *AddressedCall) Bytes() []byte {
	b := make([]byte, 0, 2+4+4+len(c.SourceAddress)+4+len(c.Payload))
	b = binary.BigEndian.AppendUint16(b, codecVersion)
	b = binary.BigEndian.AppendUint32(b, 1)
	b = appendBytes(b, c.SourceAddress)
	return appendBytes(b, c.Payload)
}

// ParsePayload decodes b, which must hold exactly one payload of at most
// MaxPayloadSize bytes.
func ParsePayload(b []byte) (Payload, error) {
	if len(b) > MaxPayloadSize {
		return nil, fmt.Errorf("parse payload: %w: %d bytes", ErrPayloadTooLarge, len(b))
	}
	r := newReader(b)
	r.version()
	var p Payload
	switch r.typeID(2) {
	case 0:
		h := &Hash{}
		r.Fixed(h.Hash[:])
		p = h
	case 1:
		p = &AddressedCall{SourceAddress: r.bytes(), Payload: r.bytes()}
	}
	if err := r.finish(); err != nil {
		return nil, fmt.Errorf("parse payload: %w", err)
	}
	return p, nil
}
