package warpmsg

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/avaedge/avaedge/local/vocab/avax"
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
	r := newReader(b)
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
	r := newReader(b)
	r.version()
	m := &Message{}
	if u := r.unsigned(); u != nil {
		m.UnsignedMessage = *u
	}
	if t := r.u32(); r.Err() == nil && t != 0 {
		r.Fail(fmt.Errorf("%w: signature type %d", ErrUnknownType, t))
	}
	m.Signature.Signers = r.bytes()
	r.Fixed(m.Signature.Signature[:])
	if err := r.finish(); err != nil {
		return nil, fmt.Errorf("parse message: %w", err)
	}
	if s := m.Signature.Signers; len(s) > 0 && s[0] == 0 {
		return nil, fmt.Errorf("parse message: %w", ErrNonMinimalSigners)
	}
	return m, nil
}

// reader decodes linear-codec fields with avax.Reader: the first failure
// sticks and every later read returns zero values; finish reports it as this
// package's error.
type reader struct{ *avax.Reader }

func newReader(b []byte) reader { return reader{avax.NewReader(b)} }

func (r reader) u32() uint32 { return r.U32() }
func (r reader) u64() uint64 { return r.U64() }

func (r reader) bool() bool {
	v := r.U8()
	if v > 1 {
		r.Fail(ErrInvalidBool)
	}
	return v == 1
}

// bytes reads a u32 length and that many bytes, copied so the result does not
// alias the input.
func (r reader) bytes() []byte { return r.Var() }

func (r reader) id() (id [IDLen]byte) {
	r.Fixed(id[:])
	return id
}

// version reads the leading codec version.
func (r reader) version() {
	if v := r.U16(); r.Err() == nil && v != codecVersion {
		r.Fail(fmt.Errorf("%w: %d", ErrCodecVersion, v))
	}
}

// typeID reads an interface type id and checks it is below n.
func (r reader) typeID(n uint32) uint32 {
	t := r.U32()
	if r.Err() == nil && t >= n {
		r.Fail(fmt.Errorf("%w: %d", ErrUnknownType, t))
	}
	return t
}

func (r reader) unsigned() *UnsignedMessage {
	m := &UnsignedMessage{NetworkID: r.u32(), SourceChainID: r.id(), Payload: r.bytes()}
	if r.Err() != nil {
		return nil
	}
	return m
}

// finish reports the sticky error or, failing that, leftover bytes.
func (r reader) finish() error {
	err := r.Done()
	switch {
	case errors.Is(err, avax.ErrShort), errors.Is(err, avax.ErrTooLong):
		return ErrTruncated
	case errors.Is(err, avax.ErrTrailing):
		return fmt.Errorf("%w: %d", ErrTrailingBytes, r.Remaining())
	}
	return err
}

func appendBytes(b, v []byte) []byte {
	b = binary.BigEndian.AppendUint32(b, uint32(len(v)))
	return append(b, v...)
}
