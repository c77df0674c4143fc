package warp

import (
	"bytes"
	"cmp"
	"github.com/avaedge/avaedge/catalog"
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

func FuzzParseBody(f *testing.F) {
	f.Add([]byte(`{"message":"0x00","quorumPercentage":67,"quorumPercentageBuffer":10,"pChainHeight":5}`))
	f.Add([]byte(`{"justification":"abcd","signingSubnetId":"11111111111111111111111111111111LpoYY"}`))
	f.Add([]byte(`{"quorumPercentage":1e400,"pChainHeight":-0.5}`))
	f.Add([]byte(`null`))
	var rt catalog.Route
	for _, r := range catalog.Catalogue() {
		if r.Name == "aggregateSignatures" {
			rt = r
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		v, msgs := rt.Validate(catalog.PathFunc(func(string) string { return "fuji" }), nil, b)
		if msgs != nil {
			return
		}
		req, msgs := requestOf(v)
		if msgs != nil {
			return
		}
		if req.Message == nil && req.Justification == nil {
			t.Fatalf("accepted a body with nothing to sign: %s", b)
		}
		if q := cmp.Or(req.QuorumPercentage, DefaultQuorumPercentage); q > 100 || q+req.QuorumPercentageBuffer > 100 {
			t.Fatalf("accepted quorum %d + buffer %d", q, req.QuorumPercentageBuffer)
		}
	})
}

func FuzzParseID(f *testing.F) {
	f.Add("11111111111111111111111111111111LpoYY")
	f.Add("0x0000000000000000000000000000000000000000000000000000000000000000")
	f.Add("1WByTYt3")
	f.Fuzz(func(t *testing.T, s string) {
		id, err := parseID(s)
		if err != nil {
			return
		}
		if back, err := parseID(encodeCB58(id[:])); err != nil || back != id {
			t.Fatalf("cb58 round trip of %x = %x, %v", id, back, err)
		}
	})
}
