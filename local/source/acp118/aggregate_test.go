package acp118

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	blst "github.com/supranational/blst/bindings/go"

	"github.com/avaedge/avaedge/local/api/warp"
	"github.com/avaedge/avaedge/local/vocab/avax"
	"github.com/avaedge/avaedge/local/vocab/warpmsg"
)

// clientSource is a warp.Source whose validators are asked through a
// Client; it counts how the Sign calls ended.
type clientSource struct {
	c                  *Client
	vals               []warpmsg.Validator
	timeouts, backoffs atomic.Int32
}

func (s *clientSource) Network(string) (uint32, bool)      { return 7, true }
func (s *clientSource) SubnetOf([32]byte) ([32]byte, bool) { return [32]byte{}, true }
func (s *clientSource) L1Message(uint32, []byte) ([]byte, bool) {
	return nil, false
}

func (s *clientSource) Validators(context.Context, [32]byte, uint64) ([]warpmsg.Validator, error) {
	return s.vals, nil
}

func (s *clientSource) Sign(ctx context.Context, nodeID [20]byte, msg []byte) ([]byte, error) {
	sig, err := s.c.Sign(ctx, avax.NodeID(nodeID), [32]byte{}, msg, nil)
	switch {
	case errors.Is(err, ErrTimeout):
		s.timeouts.Add(1)
	case errors.Is(err, ErrBackoff):
		s.backoffs.Add(1)
	}
	return sig, err
}

// blsNode is a node that signs with a BLS key of its own, as a validator.
func blsNode(t *testing.T, weight uint64) (*node, warpmsg.Validator) {
	t.Helper()
	var ikm [32]byte
	rand.Read(ikm[:])
	sk := blst.KeyGen(ikm[:])
	n := newNode(t, 7)
	n.sign = func(msg []byte) []byte {
		return new(blst.P2Affine).Sign(sk, msg, []byte(warp.SignatureDST)).Compress()
	}
	return n, warpmsg.Validator{NodeID: n.id.NodeID(), Weight: weight, PublicKey: new(blst.P1Affine).From(sk).Compress()}
}

// TestAggregationWithHungValidator: validators of 40, 30 and 30, the last
// hung (handshakes, never answers). Ten aggregations at 100% within the
// backoff period wait for it once: every one reports the quorum error with
// the 70% that signed, and the hung validator gets one connection and one
// request. At 67% the others' signatures make the message. After the period
// it is asked again; once it answers, all three sign.
func TestAggregationWithHungValidator(t *testing.T) {
	a, va := blsNode(t, 40)
	b, vb := blsNode(t, 30)
	h, vh := blsNode(t, 30)
	h.hang.Store(true)
	clock := newFakeClock()
	src := &clientSource{c: newClient(t, 7, ClientOptions{Backoff: 30 * time.Second, Now: clock.Now}, a, b, h),
		vals: []warpmsg.Validator{va, vb, vh}}
	agg := warp.NewAggregator(src, warp.Options{SignerTimeout: 250 * time.Millisecond})
	ctx := context.Background()
	seq := 0
	aggregate := func(quorum uint64) ([]byte, error) {
		seq++
		msg := &warpmsg.UnsignedMessage{NetworkID: 7, SourceChainID: [32]byte{9}, Payload: []byte(fmt.Sprint("message ", seq))}
		return agg.Aggregate(ctx, warp.Request{Network: "local", Message: msg.Bytes(), QuorumPercentage: quorum})
	}
	signers := func(t *testing.T, signed []byte) int {
		t.Helper()
		m, err := warpmsg.ParseMessage(signed)
		if err != nil {
			t.Fatal(err)
		}
		return len(warpmsg.SignerIndices(m.Signature.Signers))
	}

	for i := range 10 {
		_, err := aggregate(100)
		var qe *warp.QuorumError
		if !errors.As(err, &qe) || qe.SignedWeight != 70 || qe.TotalWeight != 100 {
			t.Fatalf("aggregation %d at 100%%: %v; want the quorum error of 70/100", i, err)
		}
	}
	if got := src.timeouts.Load(); got != 1 {
		t.Fatalf("%d of 10 aggregations waited for the hung validator; want 1", got)
	}
	if a, r := h.accepts.Load(), h.requests.Load(); a != 1 || r != 1 {
		t.Fatalf("the hung validator got %d connections and %d requests; want 1 and 1", a, r)
	}
	if got := src.backoffs.Load(); got != 9 {
		t.Fatalf("%d aggregations skipped the backed-off validator; want 9", got)
	}
	signed, err := aggregate(67)
	if err != nil {
		t.Fatalf("at 67%% without the hung validator: %v", err)
	}
	if n := signers(t, signed); n != 2 {
		t.Fatalf("%d signers; want 2", n)
	}

	clock.Add(30 * time.Second)
	if _, err := aggregate(100); !errors.Is(err, warp.ErrQuorumNotReached) {
		t.Fatalf("after the period, still hung: %v", err)
	}
	if a, r, w := h.accepts.Load(), h.requests.Load(), src.timeouts.Load(); a != 2 || r != 2 || w != 2 {
		t.Fatalf("after the period: %d connections, %d requests, %d waits; want 2, 2, 2", a, r, w)
	}
	h.hang.Store(false)
	clock.Add(time.Minute)
	signed, err = aggregate(100)
	if err != nil {
		t.Fatalf("once it answers: %v", err)
	}
	if n := signers(t, signed); n != 3 {
		t.Fatalf("%d signers; want 3", n)
	}
}
