package warp

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/avaedge/avaedge/local/vocab/warpmsg"
)

const fujiID = 5

// testMessage returns the bytes of an unsigned message from chain on fuji.
func testMessage(chain [warpmsg.IDLen]byte, body string) []byte {
	call := &warpmsg.AddressedCall{SourceAddress: seq(0x10, 20), Payload: []byte(body)}
	return (&warpmsg.UnsignedMessage{NetworkID: fujiID, SourceChainID: chain, Payload: call.Bytes()}).Bytes()
}

func TestAggregateQuorum(t *testing.T) {
	tests := []struct {
		name           string
		weights        []uint64
		mutate         func(vs []*fakeValidator)
		quorum, buffer uint64
		concurrency    int
		wantMinPct     uint64 // checked independently on success
		wantSigned     uint64 // exact signed weight when non-zero
		wantCalls      int    // exact Sign calls when non-zero
		wantErr        string // substring of a *QuorumError
	}{
		{name: "quorum 67", weights: equalWeights(10, 100), quorum: 67, wantMinPct: 67},
		{name: "default quorum is 67", weights: equalWeights(10, 100), wantMinPct: 67},
		{name: "quorum 67 stops at the target", weights: equalWeights(10, 100), quorum: 67, concurrency: 1,
			wantMinPct: 67, wantSigned: 700, wantCalls: 7},
		{name: "quorum 100", weights: equalWeights(10, 100), quorum: 100, wantMinPct: 100, wantSigned: 1000},
		{name: "buffer reached", weights: equalWeights(10, 100), quorum: 67, buffer: 20, concurrency: 1,
			wantMinPct: 87, wantSigned: 900, wantCalls: 9},
		{name: "buffer unreachable falls back to quorum", weights: equalWeights(10, 100), quorum: 67, buffer: 30,
			mutate:     func(vs []*fakeValidator) { vs[0].offline, vs[5].offline = true, true },
			wantMinPct: 67, wantSigned: 800, wantCalls: 10},
		{name: "offline validators below quorum", weights: equalWeights(10, 100), quorum: 67,
			mutate: func(vs []*fakeValidator) {
				for _, v := range vs[:4] {
					v.offline = true
				}
			},
			wantErr: "60.00% of the weight", wantCalls: 10},
		{name: "offline validators above quorum", weights: equalWeights(10, 100), quorum: 67,
			mutate: func(vs []*fakeValidator) {
				for _, v := range vs[:3] {
					v.offline = true
				}
			},
			wantMinPct: 67, wantSigned: 700},
		{name: "invalid signatures are not counted", weights: equalWeights(10, 100), quorum: 67,
			mutate: func(vs []*fakeValidator) {
				for _, v := range vs[:4] {
					v.wrong = true
				}
			},
			wantErr: "60.00% of the weight"},
		{name: "heaviest validator first", weights: []uint64{10, 10, 60, 10, 10}, quorum: 50, concurrency: 1,
			wantMinPct: 50, wantSigned: 60, wantCalls: 1},
		{name: "BLS-less weight counts in the total", weights: []uint64{30, 30, 40}, quorum: 67,
			mutate:  func(vs []*fakeValidator) { vs[2].sk, vs[2].pk = nil, nil },
			wantErr: "60.00% of the weight"},
		{name: "BLS-less weight with a reachable quorum", weights: []uint64{30, 30, 40}, quorum: 60,
			mutate:     func(vs []*fakeValidator) { vs[2].sk, vs[2].pk = nil, nil },
			wantMinPct: 60, wantSigned: 60},
		{name: "shared keys merged", weights: []uint64{100, 100, 100, 100}, quorum: 100,
			mutate: func(vs []*fakeValidator) {
				vs[1].sk, vs[1].pk = vs[0].sk, vs[0].pk
				vs[0].offline = true // the shared key still signs through vs[1]
			},
			wantMinPct: 100, wantSigned: 400, wantCalls: 4},
		{name: "no validators", weights: nil, quorum: 67, wantErr: "0.00% of the weight"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			vs := newFakeValidators(0, tt.weights...)
			if tt.mutate != nil {
				tt.mutate(vs)
			}
			src := newFakeSource(vs)
			a := NewAggregator(src, Options{Concurrency: tt.concurrency})
			msg := testMessage(cChainID, tt.name)
			signed, err := a.Aggregate(context.Background(), Request{
				Network: "fuji", Message: msg, QuorumPercentage: tt.quorum, QuorumPercentageBuffer: tt.buffer,
			})
			if tt.wantCalls != 0 {
				if got := src.totalCalls(); got != tt.wantCalls {
					t.Errorf("Sign calls = %d; want %d", got, tt.wantCalls)
				}
			}
			if tt.wantErr != "" {
				var qe *QuorumError
				if !errors.As(err, &qe) || !errors.Is(err, ErrQuorumNotReached) {
					t.Fatalf("err = %v; want a *QuorumError", err)
				}
				if !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %q; want it to contain %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Aggregate: %v", err)
			}
			got, _ := checkSigned(t, signed, msg, vs, tt.wantMinPct)
			if tt.wantSigned != 0 && got != tt.wantSigned {
				t.Errorf("signed weight = %d; want %d", got, tt.wantSigned)
			}
		})
	}
}

func TestAggregateL1SigningSubnet(t *testing.T) {
	primary := newFakeValidators(0, equalWeights(5, 1000)...)
	l1 := newFakeValidators(100, 7, 3, 5, 5, 1)
	src := newFakeSource(primary)
	src.chains[l1ChainID] = l1SubnetID
	src.subnets[l1SubnetID] = l1
	a := NewAggregator(src, Options{})

	t.Run("source chain on the L1", func(t *testing.T) {
		msg := testMessage(l1ChainID, "from the L1")
		signed, err := a.Aggregate(context.Background(), Request{Network: "fuji", Message: msg})
		if err != nil {
			t.Fatal(err)
		}
		checkSigned(t, signed, msg, l1, 67)
	})
	t.Run("explicit signingSubnetId", func(t *testing.T) {
		msg := testMessage(cChainID, "C-chain message for the L1")
		signed, err := a.Aggregate(context.Background(), Request{Network: "fuji", Message: msg,
			SigningSubnetID: l1SubnetID, QuorumPercentage: 100})
		if err != nil {
			t.Fatal(err)
		}
		checkSigned(t, signed, msg, l1, 100)
	})
}

func TestAggregatePChainHeight(t *testing.T) {
	current := newFakeValidators(0, equalWeights(4, 10)...)
	old := newFakeValidators(50, equalWeights(3, 10)...)
	src := newFakeSource(current)
	src.history[40] = map[[warpmsg.IDLen]byte][]*fakeValidator{primaryID: old}
	a := NewAggregator(src, Options{})
	msg := testMessage(cChainID, "height")

	signed, err := a.Aggregate(context.Background(), Request{Network: "fuji", Message: msg, PChainHeight: 40, QuorumPercentage: 100})
	if err != nil {
		t.Fatal(err)
	}
	checkSigned(t, signed, msg, old, 100)

	_, err = a.Aggregate(context.Background(), Request{Network: "fuji", Message: msg, PChainHeight: 101})
	if !errors.Is(err, ErrUnknownHeight) {
		t.Fatalf("err = %v; want ErrUnknownHeight", err)
	}
}

func TestAggregateJustification(t *testing.T) {
	primary := newFakeValidators(0, equalWeights(5, 20)...)
	src := newFakeSource(primary)
	subnet := idOf("converted subnet")
	conv := warpmsg.NewL1Unsigned(fujiID, &warpmsg.SubnetToL1Conversion{ID: idOf("conversion id")}).Bytes()
	src.l1[string(subnet[:])] = conv
	txHash := idOf("register tx")
	reg := warpmsg.NewL1Unsigned(fujiID, &warpmsg.RegisterL1Validator{SubnetID: subnet, NodeID: seq(1, 20), Weight: 5,
		RemainingBalanceOwner: warpmsg.PChainOwner{Threshold: 1, Addresses: [][20]byte{[20]byte(seq(2, 20))}}}).Bytes()
	src.l1[string(txHash[:])] = reg
	a := NewAggregator(src, Options{})

	for _, tt := range []struct {
		name string
		key  []byte
		want []byte
	}{
		{"conversion by subnet id", subnet[:], conv},
		{"registration by tx hash", txHash[:], reg},
	} {
		t.Run(tt.name, func(t *testing.T) {
			signed, err := a.Aggregate(context.Background(), Request{Network: "fuji", Justification: tt.key})
			if err != nil {
				t.Fatal(err)
			}
			checkSigned(t, signed, tt.want, primary, 67)
			m, err := warpmsg.ParseMessage(signed)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := warpmsg.L1MessageOf(&m.UnsignedMessage); err != nil {
				t.Fatalf("signed message carries no L1 message: %v", err)
			}
		})
	}
	t.Run("other network", func(t *testing.T) {
		_, err := a.Aggregate(context.Background(), Request{Network: "mainnet", Justification: subnet[:]})
		if !errors.Is(err, ErrL1MessageNotFound) {
			t.Fatalf("err = %v; want ErrL1MessageNotFound", err)
		}
	})
}

func TestAggregateErrors(t *testing.T) {
	src := newFakeSource(newFakeValidators(0, equalWeights(3, 1)...))
	src.subnets[idOf("broken")] = []*fakeValidator{{weight: 1, pk: seq(1, 48)}}
	a := NewAggregator(src, Options{})
	msg := testMessage(cChainID, "errors")
	tests := []struct {
		name string
		req  Request
		want error
	}{
		{"unknown network", Request{Network: "devnet", Message: msg}, ErrUnknownNetwork},
		{"network mismatch", Request{Network: "mainnet", Message: msg}, ErrNetworkMismatch},
		{"unknown source chain", Request{Network: "fuji", Message: testMessage(idOf("nowhere"), "x")}, ErrUnknownChain},
		{"unknown signing subnet", Request{Network: "fuji", Message: msg, SigningSubnetID: idOf("nowhere")}, ErrUnknownSubnet},
		{"unknown justification", Request{Network: "fuji", Justification: []byte{1, 2}}, ErrL1MessageNotFound},
		{"malformed message", Request{Network: "fuji", Message: msg[:20]}, ErrInvalidRequest},
		{"nothing to sign", Request{Network: "fuji"}, ErrInvalidRequest},
		{"quorum above 100", Request{Network: "fuji", Message: msg, QuorumPercentage: 101}, ErrInvalidRequest},
		{"quorum plus buffer above 100", Request{Network: "fuji", Message: msg, QuorumPercentage: 67, QuorumPercentageBuffer: 34}, ErrInvalidRequest},
		{"default quorum plus buffer above 100", Request{Network: "fuji", Message: msg, QuorumPercentageBuffer: 34}, ErrInvalidRequest},
		{"malformed validator key", Request{Network: "fuji", Message: msg, SigningSubnetID: idOf("broken")}, ErrInvalidPublicKey},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := a.Aggregate(context.Background(), tt.req); !errors.Is(err, tt.want) {
				t.Fatalf("err = %v; want %v", err, tt.want)
			}
		})
	}
}

func TestAggregateCache(t *testing.T) {
	vs := newFakeValidators(0, equalWeights(6, 10)...)
	src := newFakeSource(vs)
	reg := prometheus.NewRegistry()
	a := NewAggregator(src, Options{Registerer: reg, Concurrency: 1})
	msg := testMessage(cChainID, "cached")

	if _, err := a.Aggregate(context.Background(), Request{Network: "fuji", Message: msg, QuorumPercentage: 50}); err != nil {
		t.Fatal(err)
	}
	if got := src.totalCalls(); got != 3 {
		t.Fatalf("first aggregation: Sign calls = %d; want 3", got)
	}
	signed, err := a.Aggregate(context.Background(), Request{Network: "fuji", Message: msg, QuorumPercentage: 50})
	if err != nil {
		t.Fatal(err)
	}
	checkSigned(t, signed, msg, vs, 50)
	if got := src.totalCalls(); got != 3 {
		t.Fatalf("second aggregation: Sign calls = %d; want still 3", got)
	}
	// A larger quorum reuses the three cached signatures and asks three more.
	signed, err = a.Aggregate(context.Background(), Request{Network: "fuji", Message: msg, QuorumPercentage: 100})
	if err != nil {
		t.Fatal(err)
	}
	checkSigned(t, signed, msg, vs, 100)
	if got := src.totalCalls(); got != 6 {
		t.Fatalf("third aggregation: Sign calls = %d; want 6", got)
	}
	for name, want := range map[string]float64{
		"avaedge_warp_signature_cache_hits_total": 6,
		"avaedge_warp_signatures_requested_total": 6,
		"avaedge_warp_aggregate_duration_seconds": 3,
		"avaedge_warp_signature_failures_total":   0,
	} {
		if got := metricValue(t, reg, name); got != want {
			t.Errorf("%s = %v; want %v", name, got, want)
		}
	}
}

func TestAggregateFailureMetrics(t *testing.T) {
	vs := newFakeValidators(0, equalWeights(4, 10)...)
	vs[0].offline, vs[1].wrong = true, true
	reg := prometheus.NewRegistry()
	a := NewAggregator(newFakeSource(vs), Options{Registerer: reg})
	// A second aggregator on the same registry shares the collectors.
	NewAggregator(newFakeSource(vs), Options{Registerer: reg})
	_, err := a.Aggregate(context.Background(), Request{Network: "fuji", Message: testMessage(cChainID, "m"), QuorumPercentage: 100})
	if !errors.Is(err, ErrQuorumNotReached) {
		t.Fatalf("err = %v; want ErrQuorumNotReached", err)
	}
	if got := metricValue(t, reg, "avaedge_warp_signature_failures_total"); got != 2 {
		t.Errorf("failures = %v; want 2", got)
	}
}

// metricValue sums the counter values, or histogram sample counts, of name.
func metricValue(t *testing.T, reg *prometheus.Registry, name string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var sum float64
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			if c := m.GetCounter(); c != nil {
				sum += c.GetValue()
			}
			if h := m.GetHistogram(); h != nil {
				sum += float64(h.GetSampleCount())
			}
		}
	}
	return sum
}

func TestAggregateSharesSignCalls(t *testing.T) {
	vs := newFakeValidators(0, equalWeights(3, 10)...)
	for _, v := range vs {
		v.delay = 50 * time.Millisecond
	}
	src := newFakeSource(vs)
	a := NewAggregator(src, Options{})
	msg := testMessage(cChainID, "shared")
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for range 4 {
		wg.Go(func() {
			signed, err := a.Aggregate(context.Background(), Request{Network: "fuji", Message: msg, QuorumPercentage: 100})
			if err == nil {
				checkSigned(t, signed, msg, vs, 100)
			}
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if got := src.totalCalls(); got != 3 {
		t.Fatalf("Sign calls = %d; want 3 (one per validator)", got)
	}
}

func TestAggregateSignerTimeout(t *testing.T) {
	vs := newFakeValidators(0, equalWeights(3, 10)...)
	vs[0].delay = time.Hour
	a := NewAggregator(newFakeSource(vs), Options{SignerTimeout: 20 * time.Millisecond})
	msg := testMessage(cChainID, "slow")
	signed, err := a.Aggregate(context.Background(), Request{Network: "fuji", Message: msg, QuorumPercentage: 66})
	if err != nil {
		t.Fatal(err)
	}
	checkSigned(t, signed, msg, vs, 66)
	_, err = a.Aggregate(context.Background(), Request{Network: "fuji", Message: msg, QuorumPercentage: 100})
	if !errors.Is(err, ErrQuorumNotReached) || !strings.Contains(err.Error(), "66.66%") {
		t.Fatalf("err = %v; want a quorum error at 66.66%%", err)
	}
}

func TestAggregateCanceled(t *testing.T) {
	vs := newFakeValidators(0, equalWeights(3, 10)...)
	for _, v := range vs {
		v.delay = time.Hour
	}
	a := NewAggregator(newFakeSource(vs), Options{SignerTimeout: 100 * time.Millisecond})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := a.Aggregate(ctx, Request{Network: "fuji", Message: testMessage(cChainID, "gone")})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v; want context.Canceled", err)
	}
}

// networksSource is a fakeSource that also signs, under every network name,
// messages carrying the local network's id, as the devnet does.
type networksSource struct{ *fakeSource }

func (s networksSource) AcceptsNetwork(name string, id uint32) bool {
	_, ok := s.networks[name]
	return ok && id == localNetwork
}

var _ MessageNetworks = networksSource{}

// TestAggregateMessageNetworks: a Source with MessageNetworks gets messages
// carrying its extra network id signed under every name, verified against
// that id; a message carrying any other id is still refused, and a Source
// without the ability refuses the extra id.
func TestAggregateMessageNetworks(t *testing.T) {
	vs := newFakeValidators(0, equalWeights(4, 10)...)
	message := func(networkID uint32) []byte {
		call := &warpmsg.AddressedCall{SourceAddress: seq(0x10, 20), Payload: []byte("networks")}
		return (&warpmsg.UnsignedMessage{NetworkID: networkID, SourceChainID: cChainID, Payload: call.Bytes()}).Bytes()
	}
	with := NewAggregator(networksSource{newFakeSource(vs)}, Options{})
	without := NewAggregator(newFakeSource(vs), Options{})
	tests := []struct {
		name      string
		a         *Aggregator
		network   string
		networkID uint32
		want      error
	}{
		{"own id under fuji", with, "fuji", localNetwork, nil},
		{"own id under mainnet", with, "mainnet", localNetwork, nil},
		{"own id under testnet", with, "testnet", localNetwork, nil},
		{"path network's id", with, "mainnet", 1, nil},
		{"another network's id", with, "fuji", 1, ErrNetworkMismatch},
		{"an unknown id", with, "fuji", 99, ErrNetworkMismatch},
		{"own id without the ability", without, "fuji", localNetwork, ErrNetworkMismatch},
	}
	set, err := NewValidatorSet(func() []warpmsg.Validator {
		out, _ := newFakeSource(vs).Validators(context.Background(), primaryID, 0)
		return out
	}())
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			signed, err := tt.a.Aggregate(context.Background(), Request{Network: tt.network, Message: message(tt.networkID)})
			if !errors.Is(err, tt.want) {
				t.Fatalf("err = %v; want %v", err, tt.want)
			}
			if tt.want != nil {
				return
			}
			m, err := warpmsg.ParseMessage(signed)
			if err != nil {
				t.Fatal(err)
			}
			if err := set.Verify(m, tt.networkID, DefaultQuorumPercentage, 100); err != nil {
				t.Fatalf("the signed message does not verify for network %d: %v", tt.networkID, err)
			}
		})
	}
}
