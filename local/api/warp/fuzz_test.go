package warp

import (
	"cmp"
	"testing"

	"github.com/avaedge/avaedge/catalog"
	"github.com/avaedge/avaedge/local/vocab/avax"
)

func FuzzParseBody(f *testing.F) {
	f.Add([]byte(`{"message":"0x00","quorumPercentage":67,"quorumPercentageBuffer":10,"pChainHeight":5}`))
	f.Add([]byte(`{"justification":"abcd","signingSubnetId":"11111111111111111111111111111111LpoYY"}`))
	f.Add([]byte(`{"quorumPercentage":1e400,"pChainHeight":-0.5}`))
	f.Add([]byte(`null`))
	var rt catalog.Route
	for _, r := range catalog.Catalogue() {
		if r.Name == "aggregateSignatures" {
			rt = r
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		v, msgs := rt.Validate(catalog.PathFunc(func(string) string { return "fuji" }), nil, b)
		if msgs != nil {
			return
		}
		req, msgs := requestOf(v)
		if msgs != nil {
			return
		}
		if req.Message == nil && req.Justification == nil {
			t.Fatalf("accepted a body with nothing to sign: %s", b)
		}
		if q := cmp.Or(req.QuorumPercentage, DefaultQuorumPercentage); q > 100 || q+req.QuorumPercentageBuffer > 100 {
			t.Fatalf("accepted quorum %d + buffer %d", q, req.QuorumPercentageBuffer)
		}
	})
}

func FuzzParseID(f *testing.F) {
	f.Add("11111111111111111111111111111111LpoYY")
	f.Add("0x0000000000000000000000000000000000000000000000000000000000000000")
	f.Add("1WByTYt3")
	f.Fuzz(func(t *testing.T, s string) {
		id, err := parseID(s)
		if err != nil {
			return
		}
		if back, err := parseID(avax.CB58Encode(id[:])); err != nil || back != id {
			t.Fatalf("cb58 round trip of %x = %x, %v", id, back, err)
		}
	})
}
