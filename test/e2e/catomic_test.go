package e2e

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/constants"
	"github.com/ava-labs/avalanchego/utils/formatting/address"
)

// cChainAtomic checks, after TestWalletThroughEdge's transactions, the
// C-Chain's atomic side of a followed node: the Data API lists the C→P
// export exp and the C-Chain's import imp from the P-Chain in glacier.json's
// shapes; while the node runs, the avax.* reads through an edge following
// it equal the node's; then, with the node stopped, avax.getUTXOs (the C-Chain's shared
// memory: key's UTXO from the P-Chain imported, other's not),
// avax.getAtomicTx and avax.getAtomicTxStatus answer from the index what
// the node answered, byte for byte.
func cChainAtomic(t *testing.T, e *edge, n *ownNode, exp, imp ids.ID, key, other ids.ShortID) {
	t.Helper()
	base := e.URL + "/v1/networks/testnet/blockchains/c-chain/transactions"
	list := do(t, "GET", base+"?pageSize=10", nil, nil)
	if list.Status != 200 || !strings.Contains(string(list.Body), exp.String()) || !strings.Contains(string(list.Body), imp.String()) {
		t.Fatalf("the C-Chain's atomic transactions: %s; want the export %s and the import %s", list, exp, imp)
	}
	if err := validateComponent(t, "ListCChainAtomicTransactionsResponse", list.Body); err != nil {
		t.Error(err)
	}
	for id, schema := range map[ids.ID]string{exp: "CChainExportTransaction", imp: "CChainImportTransaction"} {
		r := do(t, "GET", base+"/"+id.String(), nil, nil)
		if r.Status != 200 {
			t.Errorf("getTxByHash %s on the C-Chain: %s", id, r)
			continue
		}
		if err := validateComponent(t, schema, r.Body); err != nil {
			t.Errorf("%s: %v", id, err)
		}
	}
	cAddr := func(a ids.ShortID) string {
		s, err := address.Format("C", constants.LocalHRP, a[:])
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	calls := []struct{ method, params string }{
		{"avax.getUTXOs", fmt.Sprintf(`{"addresses":[%q],"sourceChain":"P"}`, cAddr(other))},
		{"avax.getUTXOs", fmt.Sprintf(`{"addresses":[%q],"sourceChain":"P","encoding":"hexnc"}`, cAddr(other))},
		{"avax.getUTXOs", fmt.Sprintf(`{"addresses":[%q,%q],"sourceChain":"11111111111111111111111111111111LpoYY"}`, cAddr(key), cAddr(other))},
		{"avax.getUTXOs", fmt.Sprintf(`{"addresses":[%q],"sourceChain":"X"}`, cAddr(key))},
		{"avax.getAtomicTx", fmt.Sprintf(`{"txID":%q}`, exp)},
		{"avax.getAtomicTx", fmt.Sprintf(`{"txID":%q,"encoding":"hexnc"}`, imp)},
		{"avax.getAtomicTx", fmt.Sprintf(`{"txID":%q,"encoding":"json"}`, imp)},
		{"avax.getAtomicTxStatus", fmt.Sprintf(`{"txID":%q}`, exp)},
		{"avax.getAtomicTxStatus", fmt.Sprintf(`{"txID":%q}`, imp)},
		{"avax.getAtomicTxStatus", fmt.Sprintf(`{"txID":%q}`, ids.GenerateTestID())},
	}
	// The node's own answers, taken directly from it (never through the
	// edge, whose cache would otherwise answer later instead of the index).
	want := make([]reply, len(calls))
	for i, c := range calls {
		want[i] = do(t, "POST", n.URI+"/ext/bc/C/avax", rpcBody(i+1, c.method, c.params), nil)
		if want[i].Status != 200 {
			t.Fatalf("the node itself fails %s %s: %s", c.method, c.params, want[i])
		}
	}
	if strings.Contains(string(want[0].Body), `"numFetched":"0"`) || !strings.Contains(string(want[3].Body), `"numFetched":"0"`) {
		t.Fatalf("the node's shared memory: %s, %s; want the other's UTXO from P, none from X", want[0], want[3])
	}
	// While the node runs, an edge following it (another one, whose cache
	// the stopped-node answers below do not share) gives the node's bytes.
	live := startEdge(t, map[string]string{"AVAEDGE_LOCAL_NODE": n.URI, "AVAEDGE_DATA_DIR": t.TempDir()})
	for i, c := range calls {
		got := do(t, "POST", live.URL+"/ext/bc/C/avax", rpcBody(i+1, c.method, c.params), nil)
		sameAnswer(t, fmt.Sprintf("%s %s through an edge following the running node", c.method, c.params), want[i], got)
	}
	n.stop()
	for i, c := range calls {
		got := do(t, "POST", e.URL+"/ext/bc/C/avax", rpcBody(i+1, c.method, c.params), nil)
		sameAnswer(t, fmt.Sprintf("%s %s with the node stopped", c.method, c.params), want[i], got)
	}
}
