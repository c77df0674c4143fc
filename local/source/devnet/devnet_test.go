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

	"github.com/avaedge/avaedge/local/avax"
)

func newWorld(t testing.TB, cfg Config) *World {
	t.Helper()
	w, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// digest hashes everything a consumer can see of the world.
func digest(t testing.TB, w *World) [32]byte {
	h := sha256.New()
	enc := json.NewEncoder(h)
	for _, v := range []any{w.Validations(), w.Delegations(), w.PendingRewards(), w.Subnets(), w.PBlocks(), w.L1Registrations()} {
		if err := enc.Encode(v); err != nil {
			t.Fatal(err)
		}
	}
	for _, u := range append(append([]*UTXO{}, w.PUTXOs()...), w.XUTXOs()...) {
		h.Write(u.Bytes())
		fmt.Fprint(h, u.Spent, u.ConsumingTxID, u.Created, u.CreatedHeight, u.Staked, u.Reward)
	}
	for _, v := range w.Vertices() {
		h.Write(v.Bytes)
	}
	for _, b := range w.XBlocks() {
		h.Write(b.Bytes)
		fmt.Fprint(h, b.Proposer)
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
		v, ok := w.ValidationOf(d)
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
	// Pending rewards belong to active stakes.
	stakes := map[avax.ID]Status{}
	for _, v := range w.Validations() {
		stakes[v.TxID] = v.Status(now)
	}
	for _, d := range w.Delegations() {
		stakes[d.TxID] = d.Status(now)
	}
	rewards := w.PendingRewards()
	if len(rewards) == 0 {
		t.Fatal("no pending rewards")
	}
	for _, r := range rewards {
		if stakes[r.TxID] != StatusActive {
			t.Errorf("pending reward for %s, a %q stake", r.TxID, stakes[r.TxID])
		}
		if r.Amount == 0 {
			t.Errorf("pending reward %s %s is zero", r.TxID, r.Kind)
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
	// Completed stakes were paid: a reward UTXO exists for each.
	paid := map[avax.ID]bool{}
	for _, u := range w.PUTXOs() {
		if u.Reward != "" {
			paid[u.TxID] = true
		}
	}
	for _, d := range w.Delegations() {
		if d.Status(now) == StatusCompleted && !paid[d.TxID] {
			t.Errorf("completed delegation %s has no reward UTXO", d.TxID)
		}
	}
}

// TestXBalances replays the X-chain from its transaction bytes and checks
// that the UTXOs add up to the balances.
func TestXBalances(t *testing.T) {
	w := newWorld(t, Config{})
	bal := map[avax.ShortID]uint64{}
	utxos := map[avax.ID]*avax.UTXO{}
	for _, u := range w.XUTXOs() {
		if u.TxID == AVAXAssetID { // genesis
			bal[u.Out.Owners().Addrs[0]] += u.Out.Amount()
			utxos[u.ID()] = &u.UTXO
		}
	}
	if len(w.XTxs()) < 20 {
		t.Fatalf("%d X txs; want a rich history", len(w.XTxs()))
	}
	for _, xt := range w.XTxs() {
		tx, err := avax.ParseTx(xt.Bytes)
		if err != nil {
			t.Fatalf("tx %s: %v", xt.ID, err)
		}
		if tx.ID() != xt.ID {
			t.Fatalf("tx id mismatch")
		}
		hash := sha256.Sum256(tx.Unsigned.UnsignedBytes())
		var in, out uint64
		for i, inp := range tx.Unsigned.Ins {
			u := utxos[inp.TxID.Prefix(uint64(inp.OutputIndex))]
			if u == nil || u.Out.Amount() != inp.Amount {
				t.Fatalf("tx %s spends an unknown UTXO", xt.ID)
			}
			owner := u.Out.Owners().Addrs[0]
			signer, err := avax.RecoverAddress(hash[:], tx.Creds[i][0])
			if err != nil || signer != owner {
				t.Fatalf("tx %s input %d signed by %v, %v; want %v", xt.ID, i, signer, err, owner)
			}
			bal[owner] -= inp.Amount
			in += inp.Amount
			delete(utxos, inp.TxID.Prefix(uint64(inp.OutputIndex)))
		}
		for i, o := range tx.Unsigned.Outs {
			bal[o.Out.Addrs[0]] += o.Out.Amt
			out += o.Out.Amt
			oc := o.Out
			u := &avax.UTXO{TxID: xt.ID, OutputIndex: uint32(i), AssetID: o.AssetID, Out: &oc}
			utxos[u.ID()] = u
		}
		if in != out+txFee {
			t.Fatalf("tx %s: in %d, out %d", xt.ID, in, out)
		}
	}
	for _, a := range w.Addresses() {
		if got := w.Balance(XChainID, a, AVAXAssetID); got != bal[a] {
			t.Errorf("balance of %s = %d; replay says %d", a, got, bal[a])
		}
	}
	// Blocks and vertices parse back.
	for _, b := range w.XBlocks() {
		raw, err := avax.ParseStandardBlock(b.Bytes)
		if err != nil || raw.ID() != b.ID {
			t.Fatalf("block %d: %v", b.Height, err)
		}
	}
	for _, v := range w.Vertices() {
		raw, err := avax.ParseVertex(v.Bytes)
		if err != nil || raw.ID() != v.ID {
			t.Fatalf("vertex %d: %v", v.Height, err)
		}
	}
}

func TestPUTXOChain(t *testing.T) {
	w := newWorld(t, Config{})
	seen := map[avax.ID]bool{}
	staked, spent, lock := 0, 0, 0
	for _, u := range w.PUTXOs() {
		if seen[u.ID()] {
			t.Fatalf("duplicate UTXO id %s", u.ID())
		}
		seen[u.ID()] = true
		if u.Staked {
			staked++
		}
		if u.Spent {
			spent++
		}
		if u.Out.TypeID() == avax.TypeStakeableLockOut {
			lock++
		}
	}
	if staked == 0 || spent == 0 || lock == 0 {
		t.Fatalf("staked %d, spent %d, locked %d; want each > 0", staked, spent, lock)
	}
	if got := w.ChainsOf(w.Ewoq()); len(got) != 3 {
		t.Fatalf("ewoq chains = %v; want P, X, C", got)
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
	if sub, ok := w.SubnetOf(l1.Chains[0].ID); !ok || sub != l1.ID {
		t.Fatal("SubnetOf(L1 chain)")
	}
	if sub, ok := w.SubnetOf(mainnetNet.XChain); !ok || !sub.IsEmpty() {
		t.Fatal("SubnetOf(mainnet X)")
	}
}

func TestResolve(t *testing.T) {
	tests := []struct {
		ref  string
		want Chain
		ok   bool
	}{
		{"X", ChainX, true}, {"x-chain", ChainX, true}, {"p-chain", ChainP, true}, {"C", ChainC, true},
		{"11111111111111111111111111111111LpoYY", ChainP, true},
		{"2oYMBNV4eNHyqk2fjjV5nVQLDbtmNJzq5s3qs3Lo6ftnC6FByM", ChainX, true},
		{"yH8D7ThNJkxmtkuv2jgBa4P1Rn3Qpr4pPr7QYNfcdoS6k6HWp", ChainC, true},
		{"2eNy1mUFdmaxXNj1eQHUe7Np4gju9sJsEtWQ4MX3ToiNKuADed", ChainX, true},
		{"d-chain", 0, false}, {"", 0, false},
	}
	for _, tt := range tests {
		got, ok := ResolveChain(tt.ref)
		if got != tt.want || ok != tt.ok {
			t.Errorf("ResolveChain(%q) = %v, %v; want %v, %v", tt.ref, got, ok, tt.want, tt.ok)
		}
	}
	w := newWorld(t, Config{})
	for name, hrp := range map[string]string{"mainnet": "avax", "fuji": "fuji", "testnet": "fuji", "local": "local"} {
		n, ok := w.Network(name)
		if !ok || n.HRP != hrp {
			t.Errorf("Network(%s) = %+v, %v", name, n, ok)
		}
	}
	if got := avax.FormatAddress("X", localNet.HRP, w.Ewoq()); got != "X-local18jma8ppw3nhx5r4ap8clazz0dps7rv5u00z96u" {
		t.Errorf("ewoq = %s", got)
	}
	if !bytes.Equal(ValidatorManagerAddress[:2], []byte{0x0f, 0xee}) {
		t.Error("validator manager address")
	}
}
