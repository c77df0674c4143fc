package primary

import (
	"fmt"
	"testing"

	"github.com/avaedge/avaedge/local/vocab/avax"
)

// TestAllValidatorsAtOverDevnet: getAllValidatorsAt at the genesis, a
// middle and the last height (and "proposed", the last) holds the
// primary network's and every subnet's set with a validator then, each the
// devnet's set at that height flattened (its total weight, its BLS-keyed
// validators by key); a future height gets the node's unfinalized height
// error.
func TestAllValidatorsAtOverDevnet(t *testing.T) {
	dw := testDevnet(t)
	methods, err := NodeMethods(dw, "local")
	if err != nil {
		t.Fatal(err)
	}
	h := dw.PHeight()
	subnets := []avax.ID{avax.EmptyID}
	for _, s := range dw.Subnets() {
		subnets = append(subnets, s.ID)
	}
	for _, height := range []string{"0", fmt.Sprint(h / 2), fmt.Sprint(h), "proposed"} {
		var got struct {
			ValidatorSets map[string]struct {
				Validators []struct {
					PublicKey string   `json:"publicKey"`
					Weight    string   `json:"weight"`
					NodeIDs   []string `json:"nodeIDs"`
				} `json:"validators"`
				TotalWeight string `json:"totalWeight"`
			} `json:"validatorSets"`
		}
		if err := callJSON(t, methods, "platform.getAllValidatorsAt", `{"height":"`+height+`"}`, &got); err != nil {
			t.Fatalf("getAllValidatorsAt(%s): %v", height, err)
		}
		at := h
		if height != "proposed" {
			fmt.Sscan(height, &at)
		}
		want := 0
		for _, sub := range subnets {
			set, err := dw.SetAt(sub, at)
			if err != nil {
				t.Fatal(err)
			}
			ws, ok := got.ValidatorSets[sub.String()]
			if len(set) == 0 {
				if ok {
					t.Errorf("getAllValidatorsAt(%s) has subnet %s, which has no validator then", height, sub)
				}
				continue
			}
			want++
			var total uint64
			keyed := map[string]string{}
			for _, m := range set {
				total += m.Weight
				if m.PublicKey != nil {
					keyed[m.NodeID.String()] = fmt.Sprintf("%s %d", avax.EncodeHexNC(m.PublicKey), m.Weight)
				}
			}
			gotKeyed := map[string]string{}
			for _, v := range ws.Validators {
				if len(v.NodeIDs) != 1 {
					t.Errorf("subnet %s at %s: validator %s has node ids %v; the devnet's keys are its own", sub, height, v.PublicKey, v.NodeIDs)
					continue
				}
				gotKeyed[v.NodeIDs[0]] = v.PublicKey + " " + v.Weight
			}
			if ws.TotalWeight != fmt.Sprint(total) || fmt.Sprint(gotKeyed) != fmt.Sprint(keyed) {
				t.Errorf("subnet %s at %s: %+v; the devnet's set weighs %d, keyed %v", sub, height, ws, total, keyed)
			}
		}
		if want == 0 || len(got.ValidatorSets) != want {
			t.Errorf("getAllValidatorsAt(%s) has %d sets; the devnet has %d with validators", height, len(got.ValidatorSets), want)
		}
	}
	var none any
	if err := callJSON(t, methods, "platform.getAllValidatorsAt", fmt.Sprintf(`{"height":"%d"}`, h+1), &none); err == nil ||
		err.Error() != fmt.Sprintf("failed to get validator sets at %d: failed to fetch validator set at unfinalized height: current P-chain height (%d) < requested P-Chain height (%d)", h+1, h, h+1) {
		t.Errorf("getAllValidatorsAt(%d): %v; want the node's unfinalized height error", h+1, err)
	}
}
