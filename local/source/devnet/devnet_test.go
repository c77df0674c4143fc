package devnet

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	blst "github.com/supranational/blst/bindings/go"

	"github.com/avaedge/avaedge/avanet"
	"github.com/avaedge/avaedge/local/vocab/avax"
)

func newWorld(t testing.TB, cfg Config) *World {
	t.Helper()
	w, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return w
}

// digest hashes everything a consumer can see of the world: its model, its
// blocks in the node's encodings and its nodes' signatures.
func digest(t testing.TB, w *World) [32]byte {
	h := sha256.New()
	enc := json.NewEncoder(h)
	for _, v := range []any{w.Validations(), w.Delegations(), w.Subnets(), w.PBlocks(), w.XBlocks(), w.L1Registrations(), w.L1Changes(),
		w.Blocks(avanet.ChainP), w.Blocks(avanet.ChainX)} {
		if err := enc.Encode(v); err != nil {
			t.Fatal(err)
		}
	}
	for _, id := range w.Nodes() {
		sig, err := w.Sign(id, []byte("digest"))
		if err != nil {
			t.Fatal(err)
		}
		h.Write(sig)
	}
	return [32]byte(h.Sum(nil))
}

func TestDeterministic(t *testing.T) {
	a, b := newWorld(t, Config{}), newWorld(t, Config{})
	if digest(t, a) != digest(t, b) {
		t.Fatal("two worlds from one seed differ")
	}
	if c := newWorld(t, Config{Seed: 2}); digest(t, c) == digest(t, a) {
		t.Fatal("seeds 1 and 2 give the same world")
	}
}

// BenchmarkNew measures the devnet's start: generating its history and
// storing it in its index.
func BenchmarkNew(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		w, err := New(Config{})
		if err != nil {
			b.Fatal(err)
		}
		w.Close()
	}
}

func TestConfig(t *testing.T) {
	w := newWorld(t, Config{Validators: 1, Days: 1})
	if got := len(w.Nodes()); got != 5+3 {
		t.Fatalf("nodes = %d; want 8 (5 primary raised from 1, 3 L1)", got)
	}
	if got, want := w.Now(), Genesis.Add(20*24*time.Hour); !got.Equal(want) {
		t.Fatalf("Now = %v; want %v", got, want)
	}
	if _, err := New(Config{Now: Genesis.Add(time.Hour)}); !errors.Is(err, ErrConfig) {
		t.Fatalf("New(early Now) = %v; want ErrConfig", err)
	}
}

func TestStatuses(t *testing.T) {
	for _, cfg := range []Config{{}, {Validators: 5, Days: 20}, {Seed: 7, Validators: 12, Days: 90}} {
		w := newWorld(t, cfg)
		now := w.Now().Unix()
		vs, ds := map[Status]int{}, map[Status]int{}
		primary := 0
		for _, v := range w.Validations() {
			vs[v.Status(now)]++
			if v.SubnetID.IsEmpty() {
				primary++
			}
		}
		for _, d := range w.Delegations() {
			ds[d.Status(now)]++
		}
		for _, s := range []Status{StatusActive, StatusPending, StatusCompleted, StatusRemoved} {
			if vs[s] == 0 {
				t.Errorf("%+v: no %s validation", cfg, s)
			}
		}
		for _, s := range []Status{StatusActive, StatusPending, StatusCompleted} {
			if ds[s] == 0 {
				t.Errorf("%+v: no %s delegation", cfg, s)
			}
		}
		if primary < 5 {
			t.Errorf("%+v: %d primary validations; want >= 5", cfg, primary)
		}
	}
}

// TestCrossCheck checks the world's invariants.
func TestCrossCheck(t *testing.T) {
	w := newWorld(t, Config{})
	now := w.Now().Unix()
	// Every delegator's node is a validator over the delegation's span.
	for _, d := range w.Delegations() {
		v := w.validationOf(d)
		ok := v != nil
		if !ok || !v.SubnetID.IsEmpty() {
			t.Errorf("delegation %s: node %s does not validate its span", d.TxID, d.NodeID)
			continue
		}
		if d.Status(now) == StatusActive && v.Status(now) != StatusActive {
			t.Errorf("active delegation %s to a %s validation", d.TxID, v.Status(now))
		}
	}
	// Every subnet validation runs while its node validates the primary network.
	for _, v := range w.Validations() {
		if v.SubnetID.IsEmpty() {
			continue
		}
		found := false
		for _, p := range w.NodeValidations(v.NodeID) {
			found = found || (p.SubnetID.IsEmpty() && p.Start <= v.Start && v.End <= p.End)
		}
		if !found {
			t.Errorf("subnet validation %s: node %s is not a primary validator then", v.TxID, v.NodeID)
		}
	}
	// Every block proposer is a validator in the set at the proposer height.
	check := func(chain string, bs []*Block) {
		n := 0
		for _, b := range bs {
			if !b.HasProposer {
				continue
			}
			n++
			set, err := w.Validators(PChainID, max(b.ProposerPChainHeight, 1))
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, m := range set {
				found = found || m.NodeID == b.Proposer
			}
			if !found {
				t.Errorf("%s block %d: proposer %s is not a validator at P height %d", chain, b.Height, b.Proposer, b.ProposerPChainHeight)
			}
		}
		if n == 0 {
			t.Errorf("no %s block has a proposer", chain)
		}
	}
	check("P", w.PBlocks())
	check("X", w.XBlocks())
	// Completed stakes were rewarded.
	for _, d := range w.Delegations() {
		if d.Status(now) == StatusCompleted && d.RewardTxID.IsEmpty() {
			t.Errorf("completed delegation %s has no RewardValidatorTx", d.TxID)
		}
	}
}

func TestBLS(t *testing.T) {
	w := newWorld(t, Config{})
	msg := []byte("warp message")
	for _, id := range w.Nodes() {
		b, _ := w.NodeBLS(id)
		pk := new(blst.P1Affine).Uncompress(b.PublicKey)
		if pk == nil || !pk.KeyValidate() {
			t.Fatalf("node %s: invalid public key", id)
		}
		pop := new(blst.P2Affine).Uncompress(b.ProofOfPossession)
		if pop == nil || !pop.Verify(true, pk, true, b.PublicKey, DSTPoP) {
			t.Fatalf("node %s: proof of possession does not verify", id)
		}
		sig, err := w.Sign(id, msg)
		if err != nil {
			t.Fatal(err)
		}
		s := new(blst.P2Affine).Uncompress(sig)
		if s == nil || !s.Verify(true, pk, true, msg, DSTSignature) {
			t.Fatalf("node %s: signature does not verify", id)
		}
	}
	if _, err := w.Sign(avax.NodeID{1}, msg); !errors.Is(err, ErrUnknownNode) {
		t.Fatalf("Sign(unknown) = %v; want ErrUnknownNode", err)
	}
}

func TestValidatorSets(t *testing.T) {
	w := newWorld(t, Config{})
	cur, err := w.Validators(PChainID, 0)
	if err != nil || len(cur) < 5 {
		t.Fatalf("current primary set: %d members, %v", len(cur), err)
	}
	for _, m := range cur {
		if m.PublicKey == nil {
			t.Errorf("current validator %s has no BLS key", m.NodeID)
		}
	}
	first, _ := w.Validators(PChainID, 1)
	if len(first) == len(cur) && fmt.Sprint(first) == fmt.Sprint(cur) {
		t.Error("the primary set never changed")
	}
	if _, err := w.Validators(PChainID, w.PHeight()+1); !errors.Is(err, ErrUnknownHeight) {
		t.Errorf("future height: %v", err)
	}
	if _, err := w.Validators(avax.ID{9}, 0); !errors.Is(err, ErrUnknownSubnet) {
		t.Errorf("unknown subnet: %v", err)
	}
	var l1 *Subnet
	for _, s := range w.Subnets() {
		if s.IsL1() {
			l1 = s
		}
	}
	if l1 == nil {
		t.Fatal("no L1")
	}
	set, err := w.Validators(l1.ID, 0)
	if err != nil || len(set) != 3 {
		t.Fatalf("L1 set = %d, %v; want 3", len(set), err)
	}
	before, _ := w.Validators(l1.ID, l1.Conversion.Height-1)
	if len(before) != 0 {
		t.Fatalf("L1 had validators before its conversion")
	}
	conv, ok := w.L1Conversion(l1.Conversion.TxID)
	if !ok || conv.ConversionID != avax.Hash256(conv.ConversionData) {
		t.Fatal("conversion lookup")
	}
	if reg := w.L1Registrations(); len(reg) != 1 {
		t.Fatal("no L1 registration")
	} else if r, ok := w.L1Registration(reg[0].TxID); !ok || r.Weight != 50 {
		t.Fatal("registration lookup")
	}
	// The registered validator's weight was set to 80 later.
	weights := map[avax.NodeID]uint64{}
	for _, m := range set {
		weights[m.NodeID] = m.Weight
	}
	if got := weights[w.L1Registrations()[0].NodeID]; got != 80 {
		t.Fatalf("the registered validator weighs %d; want 80 after its SetL1ValidatorWeightTx", got)
	}
	if sub, ok := w.SubnetOf(l1.Chains[0].ID); !ok || sub != l1.ID {
		t.Fatal("SubnetOf(L1 chain)")
	}
	if sub, ok := w.SubnetOf(avax.MustParseID(avanet.Mainnet.XChainID)); !ok || !sub.IsEmpty() {
		t.Fatal("SubnetOf(mainnet X)")
	}
}

func TestNetworks(t *testing.T) {
	w := newWorld(t, Config{})
	for name, hrp := range map[string]string{"mainnet": "avax", "fuji": "fuji", "testnet": "fuji", "local": "local"} {
		n, ok := w.Network(name)
		if !ok || n.HRP != hrp {
			t.Errorf("Network(%s) = %+v, %v", name, n, ok)
		}
	}
	if got := avax.FormatAddress("X", avanet.Local.HRP, w.Ewoq()); got != "X-local18jma8ppw3nhx5r4ap8clazz0dps7rv5u00z96u" {
		t.Errorf("ewoq = %s", got)
	}
	if !bytes.Equal(ValidatorManagerAddress[:2], []byte{0x0f, 0xee}) {
		t.Error("validator manager address")
	}
}
