package primary

import (
	"fmt"
	"strings"
	"testing"

	"github.com/avaedge/avaedge/local/vocab/avax"
)

// TestRewardUTXOsOverDevnet: getRewardUTXOs of every completed primary
// validation and delegation lists the reward the devnet paid (for a
// validation its reward, then its delegation fees, each when not zero), as
// UTXOs of the staking tx owned by its reward owner, by output index; a
// running stake and an unknown transaction have none, as on a node; json
// is refused as the node refuses it.
func TestRewardUTXOsOverDevnet(t *testing.T) {
	dw := testDevnet(t)
	methods, err := NodeMethods(dw, "local")
	if err != nil {
		t.Fatal(err)
	}
	type reply struct {
		NumFetched string   `json:"numFetched"`
		UTXOs      []string `json:"utxos"`
		Encoding   string   `json:"encoding"`
	}
	check := func(txID avax.ID, owner avax.ShortID, amounts ...uint64) {
		t.Helper()
		var want []uint64
		for _, a := range amounts {
			if a > 0 {
				want = append(want, a)
			}
		}
		var r reply
		if err := callJSON(t, methods, "platform.getRewardUTXOs", `{"txID":"`+txID.String()+`","encoding":"hexnc"}`, &r); err != nil {
			t.Fatalf("getRewardUTXOs(%s): %v", txID, err)
		}
		if r.NumFetched != fmt.Sprint(len(want)) || len(r.UTXOs) != len(want) || r.Encoding != "hexnc" {
			t.Fatalf("getRewardUTXOs(%s) = %+v; want %d UTXOs (%v)", txID, r, len(want), want)
		}
		last := int64(-1)
		for i, s := range r.UTXOs {
			b, err := avax.DecodeHexNC(s)
			if err != nil {
				t.Fatal(err)
			}
			u, err := avax.ParseUTXO(b)
			if err != nil {
				t.Fatal(err)
			}
			if u.TxID != txID || int64(u.OutputIndex) <= last || u.Out.Amount() != want[i] || u.Out.Owners().Addrs[0] != owner {
				t.Errorf("getRewardUTXOs(%s)[%d] = %+v; want %d to %s after output %d", txID, i, u, want[i], owner, last)
			}
			last = int64(u.OutputIndex)
		}
	}
	rewarded := 0
	var paid avax.ID
	for _, v := range dw.Validations() {
		if v.SubnetID.IsEmpty() && !v.RewardTxID.IsEmpty() {
			check(v.TxID, v.RewardOwner[0], v.Reward, v.DelegationReward)
			rewarded, paid = rewarded+1, v.TxID
		}
	}
	for _, d := range dw.Delegations() {
		if !d.RewardTxID.IsEmpty() {
			check(d.TxID, d.RewardOwner[0], d.NetReward)
			rewarded++
		}
	}
	if rewarded == 0 {
		t.Fatal("the devnet rewarded no stake")
	}
	now := dw.Now().Unix()
	for _, v := range dw.Validations() {
		if v.SubnetID.IsEmpty() && v.End > now {
			check(v.TxID, avax.ShortID{})
			break
		}
	}
	check(avax.ID{1, 2, 3}, avax.ShortID{})
	var r reply
	if err := callJSON(t, methods, "platform.getRewardUTXOs", `{"txID":"`+paid.String()+`","encoding":"json"}`, &r); err == nil ||
		!strings.Contains(err.Error(), "couldn't encode utxo as json") {
		t.Errorf("getRewardUTXOs in json: %v; want the node's encoding error", err)
	}
}
