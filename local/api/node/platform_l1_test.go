package node

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/avaedge/avaedge/local/source/pindex"
	"github.com/avaedge/avaedge/local/vocab/avax"
)

// fakeL1Index is fakePIndex with one L1 (l1) of two validators, the second
// removed (its weight set to 0), and one subnet that is not an L1.
type fakeL1Index struct{ fakePIndex }

var l1 = avax.ID{9}

func (fakeL1Index) Subnets(context.Context) ([]*pindex.Subnet, error) {
	return []*pindex.Subnet{{ID: avax.ID{8}.String()}, {ID: l1.String(), Conversion: &pindex.Conversion{}}}, nil
}

func (fakeL1Index) CurrentValidators(_ context.Context, subnet string) (json.RawMessage, int64, bool, error) {
	if subnet != l1.String() {
		return nil, 0, false, nil
	}
	return json.RawMessage(`{"validators":[` +
		`{"nodeID":"NodeID-111111111111111111116DBWJs","weight":"5","startTime":"10","validationID":"` + avax.ID{1}.String() + `","publicKey":"0x01","remainingBalanceOwner":{"locktime":"0","threshold":"0","addresses":[]},"deactivationOwner":{"locktime":"0","threshold":"0","addresses":[]},"minNonce":"0","balance":"3"},` +
		`{"nodeID":"NodeID-111111111111111111116DBWJs","weight":"0","startTime":"10","validationID":"` + avax.ID{2}.String() + `","publicKey":"0x01","minNonce":"2","balance":"0"}]}`), 1, true, nil
}

// TestGetL1Validator: with a node of its own, getL1Validator answers an
// L1 validator from the index's current validators with its L1 and the
// head's height, and the node's "not found" for a removed validator and an
// unknown id; without, only the node answers it.
func TestGetL1Validator(t *testing.T) {
	v := pView(avax.ID{3})
	v.Node.ID = avax.NodeID{4}
	m := PlatformMethods(fakeL1Index{}, v)["platform.getL1Validator"]
	got, err := m(context.Background(), json.RawMessage(`{"validationID":"`+avax.ID{1}.String()+`"}`))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(got)
	want := `{"nodeID":"NodeID-111111111111111111116DBWJs","weight":"5","startTime":"10","validationID":"` + avax.ID{1}.String() +
		`","publicKey":"0x01","remainingBalanceOwner":{"locktime":"0","threshold":"0","addresses":[]},"deactivationOwner":{"locktime":"0","threshold":"0","addresses":[]},"minNonce":"0","balance":"3","subnetID":"` +
		l1.String() + `","height":"7"}`
	if string(b) != want {
		t.Errorf("getL1Validator =\n%s\nwant\n%s", b, want)
	}
	for _, id := range []avax.ID{{2}, {5}} {
		_, err := m(context.Background(), json.RawMessage(`{"validationID":"`+id.String()+`"}`))
		if err == nil || err.Error() != `fetching L1 validator "`+id.String()+`" failed: not found` {
			t.Errorf("getL1Validator(%s): %v; want the node's not found", id, err)
		}
	}
	m = PlatformMethods(fakeL1Index{}, pView(avax.ID{3}))["platform.getL1Validator"]
	if _, err := m(context.Background(), json.RawMessage(`{"validationID":"`+avax.ID{1}.String()+`"}`)); err == nil || !strings.Contains(err.Error(), "answered by the node only") {
		t.Errorf("getL1Validator without a node of its own: %v; want the node-only error", err)
	}
}
