package primary

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/avaedge/avaedge/avanet"
	gen "github.com/avaedge/avaedge/local/source/devnet"
	"github.com/avaedge/avaedge/local/vocab/avax"
)

// TestStakingOverDevnet: in devnet mode getMinStake answers the devnet's
// minimums, getStake the outputs every running and pending stake staked
// (their sum the weights of those stakes), getValidatorsAt the devnet's
// validator sets at the genesis, a middle and the last height (an unknown
// subnet's empty, a future height the node's error), and getSubnet of the
// L1 its conversion id, manager chain and address.
func TestStakingOverDevnet(t *testing.T) {
	dw := testDevnet(t)
	methods, err := NodeMethods(dw, "local")
	if err != nil {
		t.Fatal(err)
	}
	var minStake struct{ MinValidatorStake, MinDelegatorStake string }
	if err := callJSON(t, methods, "platform.getMinStake", `{}`, &minStake); err != nil ||
		minStake.MinValidatorStake != fmt.Sprint(gen.MinValidatorStake) || minStake.MinDelegatorStake != fmt.Sprint(gen.MinDelegatorStake) {
		t.Errorf("getMinStake = %+v, %v; want %d and %d", minStake, err, gen.MinValidatorStake, gen.MinDelegatorStake)
	}

	var quoted []string
	for _, a := range dw.Addresses() {
		quoted = append(quoted, fmt.Sprintf("%q", avax.FormatAddress("P", avanet.Local.HRP, a)))
	}
	now := dw.Now().Unix()
	var want uint64
	stakes := 0
	for _, v := range dw.Validations() {
		if s := v.Status(now); v.SubnetID.IsEmpty() && (s == gen.StatusActive || s == gen.StatusPending) {
			want += v.Weight
			stakes++
		}
	}
	for _, d := range dw.Delegations() {
		if s := d.Status(now); s == gen.StatusActive || s == gen.StatusPending {
			want += d.Weight
			stakes++
		}
	}
	var stake struct {
		Staked   string            `json:"staked"`
		Stakeds  map[string]string `json:"stakeds"`
		Outputs  []string          `json:"stakedOutputs"`
		Encoding string            `json:"encoding"`
	}
	if err := callJSON(t, methods, "platform.getStake", `{"addresses":[`+strings.Join(quoted, ",")+`]}`, &stake); err != nil {
		t.Fatal(err)
	}
	if stake.Staked != fmt.Sprint(want) || stake.Stakeds[gen.AVAXAssetID.String()] != stake.Staked || len(stake.Outputs) != stakes || stake.Encoding != "hex" {
		t.Errorf("getStake of every address: %s in %d outputs (%v); the devnet's running and pending stakes are %d in %d", stake.Staked, len(stake.Outputs), stake.Stakeds, want, stakes)
	}
	for _, o := range stake.Outputs {
		if _, err := avax.DecodeHex(o); err != nil {
			t.Errorf("staked output %s: %v", o, err)
		}
	}

	h := dw.PHeight()
	for _, height := range []uint64{0, h / 2, h} {
		var got map[string]struct {
			PublicKey *string `json:"publicKey"`
			Weight    string  `json:"weight"`
		}
		if err := callJSON(t, methods, "platform.getValidatorsAt", fmt.Sprintf(`{"height":"%d"}`, height), &got); err != nil {
			t.Fatal(err)
		}
		set, err := dw.SetAt(avax.EmptyID, height)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(set) || len(set) == 0 {
			t.Fatalf("getValidatorsAt(%d): %d validators; the devnet's set has %d", height, len(got), len(set))
		}
		for _, m := range set {
			g, ok := got[m.NodeID.String()]
			if !ok || g.Weight != fmt.Sprint(m.Weight) || (g.PublicKey == nil) != (m.PublicKey == nil) ||
				g.PublicKey != nil && *g.PublicKey != avax.EncodeHexNC(m.PublicKey) {
				t.Errorf("getValidatorsAt(%d) of %s: %+v; the devnet's %+v", height, m.NodeID, g, m)
			}
		}
	}
	var none map[string]json.RawMessage
	if err := callJSON(t, methods, "platform.getValidatorsAt", `{"height":"1","subnetID":"2oYMBNV4eNHyqk2fjjV5nVQLDbtmNJzq5s3qs3Lo6ftnC6FByM"}`, &none); err != nil || len(none) != 0 {
		t.Errorf("getValidatorsAt of an unknown subnet: %v, %v; want an empty set", none, err)
	}
	future := fmt.Sprintf(`{"height":"%d"}`, h+1)
	if err := callJSON(t, methods, "platform.getValidatorsAt", future, &none); err == nil || !strings.Contains(err.Error(), "unfinalized height") {
		t.Errorf("getValidatorsAt(%d): %v; want the node's unfinalized height error", h+1, err)
	}

	for _, s := range dw.Subnets() {
		if !s.IsL1() {
			continue
		}
		var sub struct {
			IsPermissioned bool   `json:"isPermissioned"`
			ConversionID   string `json:"conversionID"`
			ManagerChainID string `json:"managerChainID"`
			ManagerAddress string `json:"managerAddress"`
		}
		if err := callJSON(t, methods, "platform.getSubnet", `{"subnetID":"`+s.ID.String()+`"}`, &sub); err != nil {
			t.Fatalf("getSubnet of the L1 %s: %v", s.ID, err)
		}
		c := s.Conversion
		if sub.IsPermissioned || sub.ConversionID != c.ConversionID.String() || sub.ManagerChainID != c.ChainID.String() || sub.ManagerAddress != avax.EncodeHexNC(c.Address) {
			t.Errorf("getSubnet of the L1 %s = %+v; the devnet's conversion %s on %s at %x", s.ID, sub, c.ConversionID, c.ChainID, c.Address)
		}
	}
}

// TestSampleValidatorsOverDevnet: sampleValidators draws distinct current
// validators of the devnet, by node id; all of them when asked for as many,
// none for 0, and the node's errors for more than there are and for a
// subnet with none.
func TestSampleValidatorsOverDevnet(t *testing.T) {
	dw := testDevnet(t)
	methods, err := NodeMethods(dw, "local")
	if err != nil {
		t.Fatal(err)
	}
	set, err := dw.SetAt(avax.EmptyID, dw.PHeight())
	if err != nil {
		t.Fatal(err)
	}
	var all []string
	for _, m := range set {
		all = append(all, m.NodeID.String())
	}
	var got struct{ Validators []string }
	for _, size := range []int{0, 1, 2, len(set)} {
		if err := callJSON(t, methods, "platform.sampleValidators", fmt.Sprintf(`{"size":"%d"}`, size), &got); err != nil || len(got.Validators) != size {
			t.Fatalf("sampleValidators(%d) = %v, %v", size, got.Validators, err)
		}
		seen := map[string]bool{}
		for i, id := range got.Validators {
			if !slices.Contains(all, id) || seen[id] || i > 0 && slices.Index(all, got.Validators[i-1]) > slices.Index(all, id) {
				t.Errorf("sampleValidators(%d) = %v: not distinct current validators by node id (%v)", size, got.Validators, all)
			}
			seen[id] = true
		}
	}
	if !slices.Equal(got.Validators, all) {
		t.Errorf("sampleValidators(%d) = %v; want every validator %v", len(set), got.Validators, all)
	}
	if err := callJSON(t, methods, "platform.sampleValidators", fmt.Sprintf(`{"size":%d}`, len(set)+1), &got); err == nil || !strings.HasSuffix(err.Error(), "errored with insufficient weight") {
		t.Errorf("sampleValidators(%d): %v; want the node's insufficient weight", len(set)+1, err)
	}
	unknown := `{"size":1,"subnetID":"2oYMBNV4eNHyqk2fjjV5nVQLDbtmNJzq5s3qs3Lo6ftnC6FByM"}`
	if err := callJSON(t, methods, "platform.sampleValidators", unknown, &got); err == nil || !strings.HasSuffix(err.Error(), "errored with missing validators") {
		t.Errorf("sampleValidators of an unknown subnet: %v; want the node's missing validators", err)
	}
}
