package primary

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/avaedge/avaedge/avanet"
	"github.com/avaedge/avaedge/jsonrpc"
	"github.com/avaedge/avaedge/local/vocab/avax"
)

// callJSON calls name with params among methods and decodes its result
// into out; it returns the method's error.
func callJSON(t *testing.T, methods map[string]jsonrpc.Method, name, params string, out any) error {
	t.Helper()
	m, ok := methods[name]
	if !ok {
		t.Fatalf("no method %s", name)
	}
	r, err := m(context.Background(), json.RawMessage(params))
	if err != nil {
		return err
	}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, out); err != nil {
		t.Fatalf("%s: %v\n%s", name, err, b)
	}
	return nil
}

// TestPlatformMethodsOverDevnet: the devnet's P-Chain methods page every
// address's UTXOs two at a time to the UTXOs getBalance counts, list its
// subnets and chains as its index holds them, list the C-Chain's shared
// memory, refuse 1,025 addresses as the node does, and answer every
// P-Chain read themselves: none says that only a node answers it.
func TestPlatformMethodsOverDevnet(t *testing.T) {
	dw := testDevnet(t)
	methods, err := NodeMethods(dw, "local")
	if err != nil {
		t.Fatal(err)
	}
	var quoted []string
	for _, a := range dw.Addresses() {
		quoted = append(quoted, fmt.Sprintf("%q", avax.FormatAddress("P", avanet.Local.HRP, a)))
	}
	addrs := "[" + strings.Join(quoted, ",") + "]"
	var bal struct {
		UTXOIDs []struct {
			TxID        string `json:"txID"`
			OutputIndex uint32 `json:"outputIndex"`
		} `json:"utxoIDs"`
	}
	if err := callJSON(t, methods, "platform.getBalance", `{"addresses":`+addrs+`}`, &bal); err != nil || len(bal.UTXOIDs) == 0 {
		t.Fatalf("getBalance: %v, %d UTXOs", err, len(bal.UTXOIDs))
	}
	paged := 0
	start := `{"address":"","utxo":""}`
	for pages := 0; ; pages++ {
		if pages > 1000 {
			t.Fatal("pagination does not end")
		}
		var page struct {
			UTXOs    []string        `json:"utxos"`
			EndIndex json.RawMessage `json:"endIndex"`
		}
		if err := callJSON(t, methods, "platform.getUTXOs", `{"addresses":`+addrs+`,"limit":2,"startIndex":`+start+`}`, &page); err != nil {
			t.Fatal(err)
		}
		paged += len(page.UTXOs)
		if len(page.UTXOs) < 2 {
			break
		}
		start = string(page.EndIndex)
	}
	if paged != len(bal.UTXOIDs) {
		t.Errorf("paged %d UTXOs two at a time; getBalance counts %d", paged, len(bal.UTXOIDs))
	}

	var subnets struct{ Subnets []json.RawMessage }
	if err := callJSON(t, methods, "platform.getSubnets", `{}`, &subnets); err != nil || len(subnets.Subnets) != len(dw.Subnets())+1 {
		t.Errorf("getSubnets: %v, %d; want the devnet's %d and the primary network", err, len(subnets.Subnets), len(dw.Subnets()))
	}
	chains, err := dw.Index().Blockchains(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var bcs struct{ Blockchains []json.RawMessage }
	if err := callJSON(t, methods, "platform.getBlockchains", `{}`, &bcs); err != nil || len(bcs.Blockchains) != len(chains) {
		t.Errorf("getBlockchains: %v, %d; want the index's %d", err, len(bcs.Blockchains), len(chains))
	}
	var atomic struct{ UTXOs []string }
	ewoqC := avax.FormatAddress("C", avanet.Local.HRP, dw.Ewoq())
	if err := callJSON(t, methods, "avax.getUTXOs", `{"addresses":["`+ewoqC+`"],"sourceChain":"X"}`, &atomic); err != nil || len(atomic.UTXOs) == 0 {
		t.Errorf("avax.getUTXOs of ewoq from X: %v, %d UTXOs; want the devnet's export", err, len(atomic.UTXOs))
	}
	many := strings.Repeat(`"P-local18jma8ppw3nhx5r4ap8clazz0dps7rv5u00z96u",`, 1025)
	if err := callJSON(t, methods, "platform.getUTXOs", `{"addresses":[`+many[:len(many)-1]+`]}`, &atomic); err == nil ||
		err.Error() != "number of addresses given, 1025, exceeds maximum, 1024" {
		t.Errorf("getUTXOs of 1,025 addresses: %v", err)
	}
	for name, m := range methods {
		if _, err := m(context.Background(), json.RawMessage(`{}`)); err != nil && strings.Contains(err.Error(), "answered by the node only") {
			t.Errorf("%s: %v; the devnet answers every read", name, err)
		}
	}
}

// TestFeeStateOverDevnet: the devnet's fee states are an idle chain's under
// the local network's fee configuration, at its last P-Chain block's time
// (getTimestamp's), and its proposed height is its P-Chain height.
func TestFeeStateOverDevnet(t *testing.T) {
	dw := testDevnet(t)
	methods, err := NodeMethods(dw, "local")
	if err != nil {
		t.Fatal(err)
	}
	var ts struct{ Timestamp string }
	var height, proposed struct{ Height string }
	var state, vstate map[string]any
	for name, out := range map[string]any{"platform.getTimestamp": &ts, "platform.getHeight": &height, "platform.getProposedHeight": &proposed,
		"platform.getFeeState": &state, "platform.getValidatorFeeState": &vstate} {
		if err := callJSON(t, methods, name, `{}`, out); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	if proposed.Height == "" || proposed != height {
		t.Errorf("getProposedHeight = %q; getHeight %q", proposed.Height, height.Height)
	}
	want := map[string]any{"capacity": 1e6, "excess": 0.0, "price": 1.0, "timestamp": ts.Timestamp}
	if fmt.Sprint(state) != fmt.Sprint(want) {
		t.Errorf("getFeeState = %v; want %v", state, want)
	}
	delete(want, "capacity")
	if fmt.Sprint(vstate) != fmt.Sprint(want) {
		t.Errorf("getValidatorFeeState = %v; want %v", vstate, want)
	}
	tip := dw.PBlocks()[len(dw.PBlocks())-1]
	if tip.ActiveL1Validators == 0 {
		t.Errorf("the devnet has no active L1 validator: the validator fee state is not exercised")
	}
	above := *tip
	above.ActiveL1Validators = 10_001
	if _, _, err := idleFeeState(&above); err == nil || !strings.Contains(err.Error(), "exceed the fee target") {
		t.Errorf("idleFeeState above the target: %v; want an error", err)
	}
}
