package warpsource

import (
	"fmt"
	"testing"
)

// Fuzz targets for the node-mode warp Source's readers of the followed
// node's answers beyond nodeclient's decoders (whose targets are
// nodeclient's); their seed corpora (testdata/fuzz) are avalanchego
// v1.14.2's answers.

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
