package warpmsg

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
)

// codecVersion is the only codec version avalanchego registers for warp
// messages, payloads and P-chain L1 messages.
const codecVersion = 0

// Parse errors. Every parser wraps one of them, so callers classify with
// errors.Is.
var (
	// ErrTruncated means the input ended inside a field.
	ErrTruncated = errors.New("warp: input truncated")
	// ErrTrailingBytes means a complete value was followed by more bytes.
	ErrTrailingBytes = errors.New("warp: trailing bytes")
	// ErrCodecVersion means the leading u16 was not codec version 0.
	ErrCodecVersion = errors.New("warp: unknown codec version")
	// ErrUnknownType means an interface type id is not registered.
	ErrUnknownType = errors.New("warp: unknown type id")
	// ErrNonMinimalSigners means a signer bitset has a leading zero byte.
	ErrNonMinimalSigners = errors.New("warp: signer bitset is not minimal")
	// ErrPayloadTooLarge means a payload exceeds MaxPayloadSize.
	ErrPayloadTooLarge = errors.New("warp: payload too large")
	// ErrInvalidBool means a bool byte was neither 0 nor 1.
	ErrInvalidBool = errors.New("warp: invalid bool")
)

// Sizes of the fixed-width fields.
const (
	IDLen        = 32 // chain, subnet, validation and transaction ids
	ShortIDLen   = 20 // node ids and P-chain addresses
	PublicKeyLen = 48 // compressed G1 public key
	SignatureLen = 96 // compressed G2 signature
)

// UnsignedMessage is the part of a Warp message that validators sign.
type UnsignedMessage struct {
	NetworkID     uint32
	SourceChainID [IDLen]byte
	Payload       []byte
}

// Bytes returns the codec encoding that validators sign.
func (m *UnsignedMessage) Bytes() []byte {
	return m.appendTo(make([]byte, 0, 2+4+IDLen+4+len(m.Payload)))
}

func (m *UnsignedMessage) appendTo(b []byte) []byte {
	b = binary.BigEndian.AppendUint16(b, codecVersion)
	b = binary.BigEndian.AppendUint32(b, m.NetworkID)
	b = append(b, m.SourceChainID[:]...)
	return appendBytes(b, m.Payload)
}

// ID returns the message id: sha256 of Bytes.
func (m *UnsignedMessage) ID() [32]byte { return sha256.Sum256(m.Bytes()) }

// ParseUnsignedMessage decodes b, which must hold exactly one UnsignedMessage.
func ParseUnsignedMessage(b []byte) (*UnsignedMessage, error) {
	r := reader{b: b}
	r.version()
	m := r.unsigned()
	if err := r.finish(); err != nil {
		return nil, fmt.Errorf("parse unsigned message: %w", err)
	}
	return m, nil
}

// BitSetSignature is the only Warp signature type (type id 0): the canonical
// indices of the signers and their aggregate signature.
type BitSetSignature struct {
	// Signers is the big-endian minimal encoding of the signer bitset: bit i,
	// counted from the least significant bit of the last byte, marks canonical
	// validator i. See NewSigners.
	Signers   []byte
	Signature [SignatureLen]byte
}

// Message is a signed Warp message.
type Message struct {
	UnsignedMessage
	Signature BitSetSignature
}

// Bytes returns the codec encoding of the signed message.
func (m *Message) Bytes() []byte {
	b := make([]byte, 0, 2+4+IDLen+4+len(m.Payload)+4+4+len(m.Signature.Signers)+SignatureLen)
	b = m.UnsignedMessage.appendTo(b)
	b = binary.BigEndian.AppendUint32(b, 0) // BitSetSignature
	b = appendBytes(b, m.Signature.Signers)
	return append(b, m.Signature.Signature[:]...)
}

// ParseMessage decodes b, which must hold exactly one signed Message. A
// non-minimal signer bitset is rejected here, as avalanchego's verification
// would.
func ParseMessage(b []byte) (*Message, error) {
	r := reader{b: b}
	r.version()
	m := &Message{}
	if u := r.unsigned(); u != nil {
		m.UnsignedMessage = *u
	}
	if t := r.u32(); r.err == nil && t != 0 {
		r.err = fmt.Errorf("%w: signature type %d", ErrUnknownType, t)
	}
	m.Signature.Signers = r.bytes()
	copy(m.Signature.Signature[:], r.fixed(SignatureLen))
	if err := r.finish(); err != nil {
		return nil, fmt.Errorf("parse message: %w", err)
	}
	if s := m.Signature.Signers; len(s) > 0 && s[0] == 0 {
		return nil, fmt.Errorf("parse message: %w", ErrNonMinimalSigners)
	}
	return m, nil
}

// reader decodes linear-codec fields; the first failure sticks in err and
// every later read returns zero values.
type reader struct {
	b   []byte
	err error
}

func (r *reader) fixed(n int) []byte {
	if r.err != nil {
		return nil
	}
	if len(r.b) < n {
		r.err = ErrTruncated
		return nil
	}
	out := r.b[:n:n]
	r.b = r.b[n:]
	return out
}

func (r *reader) u16() uint16 {
	if b := r.fixed(2); b != nil {
		return binary.BigEndian.Uint16(b)
	}
	return 0
}

func (r *reader) u32() uint32 {
	if b := r.fixed(4); b != nil {
		return binary.BigEndian.Uint32(b)
	}
	return 0
}

func (r *reader) u64() uint64 {
	if b := r.fixed(8); b != nil {
		return binary.BigEndian.Uint64(b)
	}
	return 0
}

func (r *reader) bool() bool {
	b := r.fixed(1)
	if b == nil {
		return false
	}
	if b[0] > 1 {
		r.err = ErrInvalidBool
	}
	return b[0] == 1
}

// bytes reads a u32 length and that many bytes, copied so the result does not
// alias the input.
func (r *reader) bytes() []byte {
	n := r.u32()
	if r.err != nil {
		return nil
	}
	if uint64(n) > uint64(len(r.b)) {
		r.err = ErrTruncated
		return nil
	}
	return append([]byte{}, r.fixed(int(n))...)
}

func (r *reader) id() (id [IDLen]byte) {
	copy(id[:], r.fixed(IDLen))
	return id
}

// version reads the leading codec version.
func (r *reader) version() {
	if v := r.u16(); r.err == nil && v != codecVersion {
		r.err = fmt.Errorf("%w: %d", ErrCodecVersion, v)
	}
}

// typeID reads an interface type id and checks it is below n.
func (r *reader) typeID(n uint32) uint32 {
	t := r.u32()
	if r.err == nil && t >= n {
		r.err = fmt.Errorf("%w: %d", ErrUnknownType, t)
	}
	return t
}

func (r *reader) unsigned() *UnsignedMessage {
	m := &UnsignedMessage{NetworkID: r.u32(), SourceChainID: r.id(), Payload: r.bytes()}
	if r.err != nil {
		return nil
	}
	return m
}

// finish reports the sticky error or, failing that, leftover bytes.
func (r *reader) finish() error {
	if r.err != nil {
		return r.err
	}
	if len(r.b) != 0 {
		return fmt.Errorf("%w: %d", ErrTrailingBytes, len(r.b))
	}
	return nil
}

func appendBytes(b, v []byte) []byte {
	b = binary.BigEndian.AppendUint32(b, uint32(len(v)))
	return append(b, v...)
}
