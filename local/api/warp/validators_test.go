package warp

import (
	"bytes"
	"context"
	"errors"
	"math"
	"testing"

	blst "github.com/supranational/blst/bindings/go"

	"github.com/avaedge/avaedge/local/vocab/warpmsg"
)

func TestNewValidatorSet(t *testing.T) {
	vs := newFakeValidators(0, 5, 7, 11, 13, 17, 19)
	vs[3].pk = vs[1].pk // shares vs[1]'s key
	vs[5].pk = nil      // no BLS key
	in := make([]warpmsg.Validator, len(vs))
	for i, v := range vs {
		in[i] = warpmsg.Validator{NodeID: v.nodeID, Weight: v.weight, PublicKey: v.pk}
	}
	set, err := NewValidatorSet(in)
	if err != nil {
		t.Fatal(err)
	}
	if set.TotalWeight != 72 {
		t.Fatalf("TotalWeight = %d; want 72", set.TotalWeight)
	}
	if len(set.Validators) != 4 {
		t.Fatalf("len(Validators) = %d; want 4", len(set.Validators))
	}
	var prev []byte
	for i, cv := range set.Validators {
		raw := new(blst.P1Affine).Uncompress(cv.PublicKey).Serialize()
		if prev != nil && bytes.Compare(prev, raw) >= 0 {
			t.Fatalf("validator %d is not sorted by uncompressed key", i)
		}
		prev = raw
		if bytes.Equal(cv.PublicKey, vs[1].pk) {
			if cv.Weight != 20 || len(cv.NodeIDs) != 2 || cv.NodeIDs[0] != vs[1].nodeID || cv.NodeIDs[1] != vs[3].nodeID {
				t.Fatalf("merged validator = weight %d, nodes %x; want 20 from vs[1], vs[3]", cv.Weight, cv.NodeIDs)
			}
		}
	}

	t.Run("overflow", func(t *testing.T) {
		_, err := NewValidatorSet([]warpmsg.Validator{{Weight: math.MaxUint64}, {Weight: 1}})
		if !errors.Is(err, ErrWeightOverflow) {
			t.Fatalf("err = %v; want ErrWeightOverflow", err)
		}
	})
	t.Run("malformed key", func(t *testing.T) {
		for _, pk := range [][]byte{seq(1, 48), seq(1, 47), make([]byte, 48)} {
			if _, err := NewValidatorSet([]warpmsg.Validator{{Weight: 1, PublicKey: pk}}); !errors.Is(err, ErrInvalidPublicKey) {
				t.Errorf("key %x: err = %v; want ErrInvalidPublicKey", pk, err)
			}
		}
	})
}

func TestValidatorSetVerify(t *testing.T) {
	vs := newFakeValidators(0, 10, 10, 10)
	a := NewAggregator(newFakeSource(vs), Options{})
	msg := testMessage(cChainID, "verify")
	signed, err := a.Aggregate(context.Background(), Request{Network: "fuji", Message: msg, QuorumPercentage: 100})
	if err != nil {
		t.Fatal(err)
	}
	in := make([]warpmsg.Validator, len(vs))
	for i, v := range vs {
		in[i] = warpmsg.Validator{NodeID: v.nodeID, Weight: v.weight, PublicKey: v.pk}
	}
	set, err := NewValidatorSet(in)
	if err != nil {
		t.Fatal(err)
	}
	parse := func() *warpmsg.Message {
		m, err := warpmsg.ParseMessage(signed)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	if err := set.Verify(parse(), fujiID, 67, 100); err != nil {
		t.Fatalf("Verify: %v", err)
	}
	tests := []struct {
		name    string
		mutate  func(m *warpmsg.Message)
		network uint32
		want    error
	}{
		{"wrong network", func(*warpmsg.Message) {}, 1, ErrWrongNetwork},
		{"unknown signer", func(m *warpmsg.Message) { m.Signature.Signers = warpmsg.NewSigners(0, 1, 2, 3) }, fujiID, ErrUnknownSigner},
		{"too few signers", func(m *warpmsg.Message) { m.Signature.Signers = warpmsg.NewSigners(0) }, fujiID, ErrInsufficientWeight}, // 33% < 50%
		{"signature of other signers", func(m *warpmsg.Message) { m.Signature.Signers = warpmsg.NewSigners(0, 1) }, fujiID, ErrInvalidSignature},
		{"other payload", func(m *warpmsg.Message) { m.Payload = append(m.Payload, 0) }, fujiID, ErrInvalidSignature},
		{"garbage signature", func(m *warpmsg.Message) { m.Signature.Signature = [96]byte{1} }, fujiID, ErrInvalidSignature},
		{"non-minimal signers", func(m *warpmsg.Message) { m.Signature.Signers = []byte{0, 7} }, fujiID, warpmsg.ErrNonMinimalSigners},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := parse()
			tt.mutate(m)
			if err := set.Verify(m, tt.network, 50, 100); !errors.Is(err, tt.want) {
				t.Fatalf("err = %v; want %v", err, tt.want)
			}
		})
	}
}

func TestSigCacheEvicts(t *testing.T) {
	c := newSigCache(2)
	sig := new(blst.P2Affine)
	k := func(b byte) sigKey { return newSigKey([32]byte{b}, seq(b, 48)) }
	c.add(k(1), sig)
	c.add(k(2), sig)
	c.get(k(1)) // k(2) is now the least recent
	c.add(k(3), sig)
	for b, want := range map[byte]bool{1: true, 2: false, 3: true} {
		if _, ok := c.get(k(b)); ok != want {
			t.Errorf("get(%d) ok = %v; want %v", b, ok, want)
		}
	}
}

func TestQuorumMet(t *testing.T) {
	tests := []struct {
		signed, total, num, den uint64
		want                    bool
	}{
		{67, 100, 67, 100, true},
		{66, 100, 67, 100, false},
		{math.MaxUint64, math.MaxUint64, 100, 100, true},
		{math.MaxUint64 - 1, math.MaxUint64, 100, 100, false},
		{2, 3, 67, 100, false}, // 66.67% < 67%
		{0, 0, 67, 100, true},
	}
	for _, tt := range tests {
		if got := quorumMet(tt.signed, tt.total, tt.num, tt.den); got != tt.want {
			t.Errorf("quorumMet(%d, %d, %d/%d) = %v; want %v", tt.signed, tt.total, tt.num, tt.den, got, tt.want)
		}
	}
}
