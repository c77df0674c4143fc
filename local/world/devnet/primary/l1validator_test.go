package primary

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/avaedge/avaedge/avanet"
	"github.com/avaedge/avaedge/local/vocab/avax"
)

// TestL1ValidatorOverDevnet: getL1Validator of every validator of the
// devnet's L1s' getCurrentValidators answers is that validator's JSON
// (platformvm's field order) with its L1 and the current height; an
// unknown id gets the node's "not found".
func TestL1ValidatorOverDevnet(t *testing.T) {
	dw := testDevnet(t)
	methods, err := NodeMethods(dw, "local")
	if err != nil {
		t.Fatal(err)
	}
	h, _ := dw.Index().Head(avanet.ChainP)
	n := 0
	for _, s := range dw.Subnets() {
		if !s.IsL1() {
			continue
		}
		body, _, ok, err := dw.Index().CurrentValidators(context.Background(), s.ID.String())
		if err != nil || !ok {
			t.Fatalf("current validators of %s: %v, %v", s.ID, ok, err)
		}
		var current struct{ Validators []json.RawMessage }
		if err := json.Unmarshal(body, &current); err != nil {
			t.Fatal(err)
		}
		for _, v := range current.Validators {
			var id struct{ ValidationID string }
			if err := json.Unmarshal(v, &id); err != nil {
				t.Fatal(err)
			}
			m := methods["platform.getL1Validator"]
			got, err := m(context.Background(), json.RawMessage(`{"validationID":"`+id.ValidationID+`"}`))
			if err != nil {
				t.Fatalf("getL1Validator(%s): %v", id.ValidationID, err)
			}
			b, _ := json.Marshal(got)
			want := fmt.Sprintf(`%s,"subnetID":"%s","height":"%d"}`, v[:len(v)-1], s.ID, h)
			if string(b) != want {
				t.Errorf("getL1Validator(%s) =\n%s\nwant\n%s", id.ValidationID, b, want)
			}
			n++
		}
	}
	if n == 0 {
		t.Fatal("the devnet has no L1 validator")
	}
	unknown := avax.ID{7}
	var none any
	if err := callJSON(t, methods, "platform.getL1Validator", `{"validationID":"`+unknown.String()+`"}`, &none); err == nil ||
		err.Error() != fmt.Sprintf("fetching L1 validator %q failed: not found", unknown.String()) {
		t.Errorf("getL1Validator of an unknown id: %v; want the node's not found", err)
	}
}
