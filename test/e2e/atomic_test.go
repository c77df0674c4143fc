package e2e

import (
	"bytes"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// TestCChainAtomicListing: the built binary in devnet mode lists the
// C-Chain's atomic transactions (listLatestPrimaryNetworkTransactions with
// blockchainId c-chain, or the C-Chain's id): the devnet's C-Chain takes
// none, so the list is empty, in glacier.json's
// ListCChainAtomicTransactionsResponse shape; it is no longer refused as
// an invalid chain.
func TestCChainAtomicListing(t *testing.T) {
	base := localEdge(t).URL
	for _, chain := range []string{"c-chain", "yH8D7ThNJkxmtkuv2jgBa4P1Rn3Qpr4pPr7QYNfcdoS6k6HWp"} {
		r := do(t, "GET", base+"/v1/networks/fuji/blockchains/"+chain+"/transactions?pageSize=10", nil, nil)
		if r.Status != 200 || !strings.Contains(string(r.Body), `"transactions":[]`) {
			t.Fatalf("the C-Chain's atomic transactions (%s): %s; want the devnet's empty list", chain, r)
		}
		if err := validateComponent(t, "ListCChainAtomicTransactionsResponse", r.Body); err != nil {
			t.Errorf("%s: %v", chain, err)
		}
	}
}

// validateComponent checks body against glacier.json's schema name (an
// operation's oneOf cannot tell an empty list of one chain from another's).
func validateComponent(t *testing.T, name string, body []byte) error {
	t.Helper()
	s := glacierSpec
	s.once.Do(s.load)
	if s.err != nil {
		t.Fatal(s.err)
	}
	s.mu.Lock()
	sch, err := s.c.Compile("file:///spec.json#/components/schemas/" + name)
	s.mu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
	if err != nil {
		return err
	}
	return sch.Validate(inst)
}
