package node

import (
	"context"
	"encoding/json"
	"maps"
	"slices"
	"testing"
)

// FuzzMethods feeds arbitrary params to every method: none may panic, and
// every answer must encode as JSON.
func FuzzMethods(f *testing.F) {
	for _, seed := range []string{
		``, `null`, `[]`, `{}`, `[{"chain":"X"}]`, `{"alias":"X"}`, `{"nodeIDs":["NodeID-BaMPFdqMUQ46BV8iRcwbVfsam55kMqcp"]}`,
		`{"subnetID":"11111111111111111111111111111111LpoYY"}`, `{"height":"1","encoding":"json"}`, `{"height":18446744073709551615}`,
		`{"blockID":"11111111111111111111111111111111LpoYY","encoding":"hexc"}`, `{"txID":"nope"}`,
		`{"addresses":["` + aliceX + `"],"limit":"1","startIndex":{"address":"111111111111111111116DBWJs","utxo":"11111111111111111111111111111111LpoYY"}}`,
		`{"addresses":["` + aliceX + `"],"sourceChain":"P","encoding":"json"}`, `{"address":"` + aliceX + `","assetID":"AVAX","includePartial":true}`,
		`{"assetID":"AVAX"}`,
	} {
		f.Add(seed)
	}
	m := Methods(fakeView())
	names := slices.Sorted(maps.Keys(m))
	f.Fuzz(func(t *testing.T, params string) {
		var p json.RawMessage
		if params != "" {
			p = json.RawMessage(params)
		}
		for _, name := range names {
			r, err := m[name](context.Background(), p)
			if err != nil {
				continue
			}
			if _, err := json.Marshal(r); err != nil {
				t.Errorf("%s(%s): result does not encode: %v", name, params, err)
			}
		}
	})
}
