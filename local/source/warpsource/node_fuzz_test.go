package warpsource

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/avaedge/avaedge/local/vocab/avax"
)

// Fuzz targets for the node-mode warp Source's decoders of the followed
// node's answers; their seed corpora (testdata/fuzz) are avalanchego
// v1.14.2's answers.

// FuzzValidatorSet reads platform.getValidatorsAt answers: every validator
// accepted has a node id the answer named and a key it printed.
func FuzzValidatorSet(f *testing.F) {
	f.Add([]byte(`{"NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg":{"publicKey":null,"weight":"5"}}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		vs, err := validatorSet(raw)
		if err != nil {
			return
		}
		var names map[string]json.RawMessage
		if err := json.Unmarshal(raw, &names); err != nil || len(names) != len(vs) {
			t.Fatalf("%d validators from an answer of %d: %v", len(vs), len(names), err)
		}
		for _, v := range vs {
			if _, ok := names[avax.NodeID(v.NodeID).String()]; !ok {
				t.Fatalf("validator %s is not in the answer", avax.NodeID(v.NodeID))
			}
		}
	})
}

// FuzzPeerAddress reads info.peers answers.
func FuzzPeerAddress(f *testing.F) {
	f.Add([]byte(`{"numPeers":"1","peers":[{"ip":"10.0.0.3:9651","publicIP":"","nodeID":"NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg"}]}`),
		"NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg")
	f.Fuzz(func(t *testing.T, raw []byte, node string) {
		id, err := avax.ParseNodeID(node)
		if err != nil {
			return
		}
		peerAddress(raw, id)
	})
}

// FuzzParseVersion reads info.getNodeVersion's version: whatever is
// accepted reads the same once printed canonically.
func FuzzParseVersion(f *testing.F) {
	f.Add("avalanchego/1.14.2")
	f.Fuzz(func(t *testing.T, s string) {
		v, err := parseVersion(s)
		if err != nil {
			return
		}
		again, err := parseVersion(fmt.Sprintf("%s/%d.%d.%d", v.Name, v.Major, v.Minor, v.Patch))
		if err != nil || again != v {
			t.Fatalf("parseVersion(%q) = %+v; printed and read again: %+v, %v", s, v, again, err)
		}
	})
}
