package warpmsg

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"reflect"
	"strings"
	"testing"
)

// seq returns n bytes counting up from start: seq(1, 3) = 01 02 03.
func seq(start byte, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = start + byte(i)
	}
	return b
}

// idOf is a 32-byte id derived from s.
func idOf(s string) [IDLen]byte { return sha256.Sum256([]byte(s)) }

func cat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

func h(s string) []byte {
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		panic(err)
	}
	return b
}

func TestCodecGolden(t *testing.T) {
	id := [32]byte(seq(1, 32))
	unsigned := cat(h("0000 00003039"), seq(1, 32), h("00000003 aabbcc"))
	sigBytes := seq(0x40, 96)
	tests := []struct {
		name  string
		value interface{ Bytes() []byte }
		want  []byte
		parse func([]byte) (any, error)
	}{
		{"unsigned message", &UnsignedMessage{NetworkID: 12345, SourceChainID: id, Payload: h("aabbcc")}, unsigned,
			func(b []byte) (any, error) { return ParseUnsignedMessage(b) }},
		{"signed message", &Message{
			UnsignedMessage: UnsignedMessage{NetworkID: 12345, SourceChainID: id, Payload: h("aabbcc")},
			Signature:       BitSetSignature{Signers: h("0100"), Signature: [96]byte(sigBytes)},
		}, cat(unsigned, h("00000000 00000002 0100"), sigBytes),
			func(b []byte) (any, error) { return ParseMessage(b) }},
		{"signed message without signers", &Message{
			UnsignedMessage: UnsignedMessage{NetworkID: 1, SourceChainID: id, Payload: []byte{}},
			Signature:       BitSetSignature{Signers: []byte{}, Signature: [96]byte(sigBytes)},
		}, cat(h("0000 00000001"), seq(1, 32), h("00000000 00000000 00000000"), sigBytes),
			func(b []byte) (any, error) { return ParseMessage(b) }},
		{"hash payload", &Hash{Hash: id}, cat(h("0000 00000000"), seq(1, 32)),
			func(b []byte) (any, error) { return ParsePayload(b) }},
		{"addressed call", &AddressedCall{SourceAddress: seq(0x21, 20), Payload: h("0102")},
			cat(h("0000 00000001 00000014"), seq(0x21, 20), h("00000002 0102")),
			func(b []byte) (any, error) { return ParsePayload(b) }},
		{"subnet to L1 conversion", &SubnetToL1Conversion{ID: id}, cat(h("0000 00000000"), seq(1, 32)),
			func(b []byte) (any, error) { return ParseL1Message(b) }},
		{"register L1 validator", &RegisterL1Validator{
			SubnetID:              id,
			NodeID:                seq(0x21, 20),
			BLSPublicKey:          [48]byte(seq(0x35, 48)),
			Expiry:                0x65666768696a6b6c,
			RemainingBalanceOwner: PChainOwner{Threshold: 0x6d6e6f70, Addresses: [][20]byte{[20]byte(seq(0x71, 20))}},
			DisableOwner:          PChainOwner{Threshold: 0x85868788, Addresses: [][20]byte{[20]byte(seq(0x89, 20))}},
			Weight:                0x9d9e9fa0a1a2a3a4,
		}, cat(h("0000 00000001"), seq(1, 32), h("00000014"), seq(0x21, 20), seq(0x35, 48), seq(0x65, 8),
			seq(0x6d, 4), h("00000001"), seq(0x71, 20), seq(0x85, 4), h("00000001"), seq(0x89, 20), seq(0x9d, 8)),
			func(b []byte) (any, error) { return ParseL1Message(b) }},
		{"L1 validator registration", &L1ValidatorRegistration{ValidationID: id, Registered: true},
			cat(h("0000 00000002"), seq(1, 32), h("01")),
			func(b []byte) (any, error) { return ParseL1Message(b) }},
		{"L1 validator weight", &L1ValidatorWeight{ValidationID: id, Nonce: 0x2122232425262728, Weight: 0x292a2b2c2d2e2f30},
			cat(h("0000 00000003"), seq(1, 32), seq(0x21, 8), seq(0x29, 8)),
			func(b []byte) (any, error) { return ParseL1Message(b) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.value.Bytes(); !bytes.Equal(got, tt.want) {
				t.Fatalf("Bytes() = %x; want %x", got, tt.want)
			}
			got, err := tt.parse(tt.want)
			if err != nil {
				t.Fatalf("parse: %v", err)
			}
			if !reflect.DeepEqual(got, tt.value) {
				t.Fatalf("parse = %+v; want %+v", got, tt.value)
			}
		})
	}
}

func TestParseRejects(t *testing.T) {
	id := seq(1, 32)
	unsigned := cat(h("0000 00000001"), id, h("00000000"))
	sig := seq(0x40, 96)
	tests := []struct {
		name  string
		parse func([]byte) error
		in    []byte
		want  error
	}{
		{"unsigned trailing", parseU, cat(unsigned, h("00")), ErrTrailingBytes},
		{"unsigned truncated", parseU, unsigned[:10], ErrTruncated},
		{"unsigned payload length past end", parseU, cat(h("0000 00000001"), id, h("00000005 0102")), ErrTruncated},
		{"unsigned codec version", parseU, cat(h("0001 00000001"), id, h("00000000")), ErrCodecVersion},
		{"empty", parseU, nil, ErrTruncated},
		{"message signature type", parseM, cat(unsigned, h("00000001 00000001 01"), sig), ErrUnknownType},
		{"message non-minimal signers", parseM, cat(unsigned, h("00000000 00000002 0001"), sig), ErrNonMinimalSigners},
		{"message zero signer byte", parseM, cat(unsigned, h("00000000 00000001 00"), sig), ErrNonMinimalSigners},
		{"message short signature", parseM, cat(unsigned, h("00000000 00000001 01"), sig[:95]), ErrTruncated},
		{"message trailing", parseM, cat(unsigned, h("00000000 00000001 01"), sig, h("00")), ErrTrailingBytes},
		{"payload type", parseP, cat(h("0000 00000002"), id), ErrUnknownType},
		{"hash trailing", parseP, cat(h("0000 00000000"), id, h("00")), ErrTrailingBytes},
		{"L1 type", parseL, cat(h("0000 00000004"), id), ErrUnknownType},
		{"L1 bool", parseL, cat(h("0000 00000002"), id, h("02")), ErrInvalidBool},
		{"L1 trailing", parseL, cat(h("0000 00000000"), id, h("00")), ErrTrailingBytes},
		{"L1 owner count past end", parseL, cat(h("0000 00000001"), id, h("00000000"), make([]byte, 48+8),
			h("00000001 ffffffff")), ErrTruncated},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.parse(tt.in); !errors.Is(err, tt.want) {
				t.Fatalf("err = %v; want %v", err, tt.want)
			}
		})
	}
}

func parseU(b []byte) error { _, err := ParseUnsignedMessage(b); return err }
func parseM(b []byte) error { _, err := ParseMessage(b); return err }
func parseP(b []byte) error { _, err := ParsePayload(b); return err }
func parseL(b []byte) error { _, err := ParseL1Message(b); return err }

func TestPayloadSizeLimit(t *testing.T) {
	call := &AddressedCall{Payload: make([]byte, MaxPayloadSize-14)}
	if len(call.Bytes()) != MaxPayloadSize {
		t.Fatalf("len = %d; want %d", len(call.Bytes()), MaxPayloadSize)
	}
	if _, err := ParsePayload(call.Bytes()); err != nil {
		t.Fatalf("payload of exactly MaxPayloadSize: %v", err)
	}
	call.Payload = append(call.Payload, 0)
	if _, err := ParsePayload(call.Bytes()); !errors.Is(err, ErrPayloadTooLarge) {
		t.Fatalf("err = %v; want ErrPayloadTooLarge", err)
	}
}

func TestSigners(t *testing.T) {
	tests := []struct {
		indices []int
		want    string
	}{
		{nil, ""},
		{[]int{0}, "01"},
		{[]int{0, 2}, "05"},
		{[]int{8}, "0100"},
		{[]int{1, 9, 15}, "8202"},
	}
	for _, tt := range tests {
		got := NewSigners(tt.indices...)
		if hex.EncodeToString(got) != tt.want {
			t.Errorf("NewSigners(%v) = %x; want %s", tt.indices, got, tt.want)
		}
		if back := SignerIndices(got); !reflect.DeepEqual(back, tt.indices) {
			t.Errorf("SignerIndices(%x) = %v; want %v", got, back, tt.indices)
		}
	}
}

func TestL1Unsigned(t *testing.T) {
	conv := &SubnetToL1Conversion{ID: idOf("conversion")}
	u := NewL1Unsigned(5, conv)
	want := cat(h("0000 00000005"), make([]byte, 32), h("00000034"), h("0000 00000001 00000000 00000026"), conv.Bytes())
	if got := u.Bytes(); !bytes.Equal(got, want) {
		t.Fatalf("Bytes() = %x; want %x", got, want)
	}
	got, err := L1MessageOf(u)
	if err != nil || !reflect.DeepEqual(got, conv) {
		t.Fatalf("L1MessageOf = %+v, %v; want %+v", got, err, conv)
	}
	tests := []struct {
		name string
		u    *UnsignedMessage
	}{
		{"other chain", &UnsignedMessage{SourceChainID: idOf("c-chain"), Payload: u.Payload}},
		{"hash payload", &UnsignedMessage{Payload: (&Hash{}).Bytes()}},
		{"source address", &UnsignedMessage{Payload: (&AddressedCall{SourceAddress: []byte{1}, Payload: conv.Bytes()}).Bytes()}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := L1MessageOf(tt.u); !errors.Is(err, ErrNotL1Message) {
				t.Fatalf("err = %v; want ErrNotL1Message", err)
			}
		})
	}
}

func TestRegisterL1ValidatorValidationID(t *testing.T) {
	m := &RegisterL1Validator{SubnetID: idOf("s"), NodeID: seq(1, 20), Weight: 1}
	if got, want := m.ValidationID(), idOf(string(m.Bytes())); got != want {
		t.Fatalf("ValidationID = %x; want %x", got, want)
	}
}
