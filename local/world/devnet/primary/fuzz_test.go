package primary

import (
	"context"
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"
)

// FuzzDevnetNodeMethods feeds arbitrary params to every P-Chain and
// C-Chain atomic method of the devnet (answered from its index): none may
// panic, and every answer must encode as JSON.
func FuzzDevnetNodeMethods(f *testing.F) {
	for _, seed := range []string{
		``, `null`, `[]`, `{}`, `{"subnetID":"11111111111111111111111111111111LpoYY"}`, `{"height":"1","encoding":"json"}`,
		`{"height":"1","encoding":"hex"}`, `{"height":18446744073709551615}`, `{"blockchainID":"X"}`, `{"blockchainID":"nope"}`,
		`{"ids":["11111111111111111111111111111111LpoYY","11111111111111111111111111111111LpoYY"]}`,
		`{"nodeIDs":["NodeID-BaMPFdqMUQ46BV8iRcwbVfsam55kMqcp"]}`, `{"txID":"11111111111111111111111111111111LpoYY","encoding":"json"}`,
		`{"addresses":["P-local18jma8ppw3nhx5r4ap8clazz0dps7rv5u00z96u"],"limit":"1","startIndex":{"address":"P-local18jma8ppw3nhx5r4ap8clazz0dps7rv5u00z96u","utxo":"11111111111111111111111111111111LpoYY"}}`,
		`{"addresses":["P-local18jma8ppw3nhx5r4ap8clazz0dps7rv5u00z96u"],"sourceChain":"X","encoding":"hexnc"}`,
		`{"addresses":["C-local18jma8ppw3nhx5r4ap8clazz0dps7rv5u00z96u"],"sourceChain":"X"}`, `{"addresses":["X-local1"]}`,
	} {
		f.Add(seed)
	}
	methods, err := NodeMethods(benchDevnet(f), "local")
	if err != nil {
		f.Fatal(err)
	}
	names := slices.DeleteFunc(slices.Sorted(maps.Keys(methods)), func(n string) bool {
		return !strings.HasPrefix(n, "platform.") && !strings.HasPrefix(n, "avax.")
	})
	f.Fuzz(func(t *testing.T, params string) {
		var p json.RawMessage
		if params != "" {
			p = json.RawMessage(params)
		}
		for _, name := range names {
			r, err := methods[name](context.Background(), p)
			if err != nil {
				continue
			}
			if _, err := json.Marshal(r); err != nil {
				t.Errorf("%s(%s): result does not encode: %v", name, params, err)
			}
		}
	})
}
