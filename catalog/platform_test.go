package catalog

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/avaedge/avaedge/cache"
)

// TestPlatformSpec checks that the P-Chain endpoint's methods are exactly the
// methods of platformvm.yaml (testdata/platformvm-methods.txt) and the one
// read avalanchego v1.14.2 serves beyond it (getAllValidatorsAt), and the
// C-Chain's atomic endpoint's the four avax.* methods, each priced, with
// the writes never cached and blocks and transactions by id immutable.
func TestPlatformSpec(t *testing.T) {
	b, err := os.ReadFile("testdata/platformvm-methods.txt")
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, line := range strings.Split(string(b), "\n") {
		if line != "" && !strings.HasPrefix(line, "#") {
			want = append(want, line)
		}
	}
	if len(want) != 30 {
		t.Fatalf("platformvm.yaml lists %d methods; want 30", len(want))
	}
	// What avalanchego v1.14.2's platformvm Service serves beyond the yaml.
	want = append(want, "platform.getAllValidatorsAt")
	got := map[string][]string{}
	classes := map[string]cache.Class{}
	for _, rt := range Catalogue() {
		if rt.Endpoint != "platform" && rt.Endpoint != "avax" {
			continue
		}
		if rt.Cost <= 0 {
			t.Errorf("%s costs %d", rt.Name, rt.Cost)
		}
		if rt.Service != Node || rt.Path != NodeEndpoints[rt.Endpoint][0] {
			t.Errorf("%s: service %s path %s", rt.Name, rt.Service, rt.Path)
		}
		got[rt.Endpoint] = append(got[rt.Endpoint], rt.Name)
		classes[rt.Name] = rt.Cache
	}
	slices.Sort(want)
	slices.Sort(got["platform"])
	if !slices.Equal(got["platform"], want) {
		t.Errorf("platform methods:\n got %v\nwant %v", got["platform"], want)
	}
	avax := []string{"avax.getAtomicTx", "avax.getAtomicTxStatus", "avax.getUTXOs", "avax.issueTx"}
	if slices.Sort(got["avax"]); !slices.Equal(got["avax"], avax) {
		t.Errorf("avax methods = %v; want %v", got["avax"], avax)
	}
	for name, want := range map[string]cache.Class{
		"platform.issueTx": cache.Never, "avax.issueTx": cache.Never, "platform.sampleValidators": cache.Never,
		"platform.getTx": cache.Immutable, "platform.getBlock": cache.Immutable, "platform.getBlockByHeight": cache.Immutable,
		"avax.getAtomicTx": cache.Immutable, "platform.getHeight": cache.Short, "platform.getUTXOs": cache.Short,
	} {
		if classes[name] != want {
			t.Errorf("%s cache class %v; want %v", name, classes[name], want)
		}
	}
}
