package warpmsg

import (
	"bytes"
	"testing"
)

// Every parser must never panic, and whatever it accepts must serialize back
// to exactly the input (the encodings are canonical).

func FuzzParseUnsignedMessage(f *testing.F) {
	f.Add((&UnsignedMessage{NetworkID: 1, Payload: []byte{1, 2, 3}}).Bytes())
	f.Add(NewL1Unsigned(5, &SubnetToL1Conversion{}).Bytes())
	f.Add([]byte{0, 0, 0, 0, 0, 1})
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := ParseUnsignedMessage(b)
		if err != nil {
			return
		}
		if got := m.Bytes(); !bytes.Equal(got, b) {
			t.Fatalf("round trip = %x; want %x", got, b)
		}
		L1MessageOf(m) // must not panic
	})
}

func FuzzParseMessage(f *testing.F) {
	m := &Message{UnsignedMessage: UnsignedMessage{NetworkID: 5, Payload: []byte{9}}}
	m.Signature.Signers = NewSigners(0, 2, 9)
	f.Add(m.Bytes())
	m.Signature.Signers = nil
	f.Add(m.Bytes())
	f.Add(append((&UnsignedMessage{}).Bytes(), 0, 0, 0, 0, 0, 0, 0, 2, 0, 1))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := ParseMessage(b)
		if err != nil {
			return
		}
		if got := m.Bytes(); !bytes.Equal(got, b) {
			t.Fatalf("round trip = %x; want %x", got, b)
		}
		if s := m.Signature.Signers; len(s) > 0 && s[0] == 0 {
			t.Fatalf("accepted non-minimal signers %x", s)
		}
		if got := NewSigners(SignerIndices(m.Signature.Signers)...); !bytes.Equal(got, m.Signature.Signers) {
			t.Fatalf("signers round trip = %x; want %x", got, m.Signature.Signers)
		}
	})
}

func FuzzParsePayload(f *testing.F) {
	f.Add((&Hash{Hash: [32]byte{1}}).Bytes())
	f.Add((&AddressedCall{SourceAddress: []byte{1, 2}, Payload: []byte{3}}).Bytes())
	f.Add((&AddressedCall{}).Bytes())
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := ParsePayload(b)
		if err != nil {
			return
		}
		if got := p.Bytes(); !bytes.Equal(got, b) {
			t.Fatalf("round trip = %x; want %x", got, b)
		}
	})
}

func FuzzParseL1Message(f *testing.F) {
	f.Add((&SubnetToL1Conversion{ID: [32]byte{1}}).Bytes())
	f.Add((&RegisterL1Validator{NodeID: make([]byte, 20), Weight: 1,
		RemainingBalanceOwner: PChainOwner{Threshold: 1, Addresses: [][20]byte{{1}}}}).Bytes())
	f.Add((&L1ValidatorRegistration{Registered: true}).Bytes())
	f.Add((&L1ValidatorWeight{Nonce: 1, Weight: 2}).Bytes())
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := ParseL1Message(b)
		if err != nil {
			return
		}
		if got := m.Bytes(); !bytes.Equal(got, b) {
			t.Fatalf("round trip = %x; want %x", got, b)
		}
	})
}
