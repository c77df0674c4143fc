package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// shortStateCChain returns the node flag that makes the C-Chain keep the
// state of its last accepted block only (coreth's "state-history": 1, with
// its default pruning): the states of older blocks are gone, as on a
// pruning node some blocks later.
func shortStateCChain(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "C"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "C", "config.json"), []byte(`{"state-history":1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	return "--chain-config-dir=" + dir
}

// TestNodeModePrunedState: following a node that prunes state and offers
// no call tracer (avalanchego's default C-Chain APIs), a contract
// creation's "to" is the contract it created in getTransaction as in
// listTransactions; getNativeBalance at block 1, whose state the node no
// longer keeps, answers 404 saying so, and, once the node is stopped, 503
// saying it does not answer.
func TestNodeModePrunedState(t *testing.T) {
	n := startOwnNode(t, shortStateCChain(t))
	a := makeEVMActivity(t, n.URI+"/ext/bc/C/rpc")
	e := startEdge(t, map[string]string{"AVAEDGE_LOCAL_NODE": n.URI, "AVAEDGE_DATA_DIR": t.TempDir()})
	waitIndexed(t, e.URL, a)

	// The creation's recipient, in both answers.
	deploy := a.Txs["deployAvaToken"].Hash
	var got struct {
		NativeTransaction struct {
			To struct{ Address string } `json:"to"`
		} `json:"nativeTransaction"`
	}
	r := do(t, "GET", e.URL+"/v1/chains/43112/transactions/"+deploy, nil, nil)
	if r.Status != 200 || json.Unmarshal(r.Body, &got) != nil || !strings.EqualFold(got.NativeTransaction.To.Address, a.Token) {
		t.Errorf("getTransaction of the token's creation: %s; want to = the token %s", r, a.Token)
	}
	var list struct {
		Transactions []struct {
			NativeTransaction struct {
				TxHash string
				To     struct{ Address string } `json:"to"`
			} `json:"nativeTransaction"`
		} `json:"transactions"`
	}
	r = do(t, "GET", e.URL+"/v1/chains/43112/addresses/"+a.From+"/transactions?pageSize=100", nil, nil)
	found := false
	if r.Status == 200 && json.Unmarshal(r.Body, &list) == nil {
		for _, tx := range list.Transactions {
			if tx.NativeTransaction.TxHash == deploy {
				found = strings.EqualFold(tx.NativeTransaction.To.Address, a.Token)
			}
		}
	}
	if !found {
		t.Errorf("listTransactions of the deployer: %s; want the token's creation with to = %s", r, a.Token)
	}

	// The node itself no longer keeps block 1's state.
	const stranger = "0x00000000000000000000000000000000000000aa"
	node := do(t, "POST", n.URI+"/ext/bc/C/rpc", rpcBody(1, "eth_getBalance", `["`+stranger+`","0x1"]`), nil)
	if !strings.Contains(string(node.Body), "missing trie node") {
		t.Fatalf("the node's eth_getBalance at block 1: %s; want its missing trie node error (the test needs a pruned state)", node)
	}
	path := e.URL + "/v1/chains/43112/addresses/" + stranger + "/balances:getNative?blockNumber=1"
	if r := do(t, "GET", path, nil, nil); r.Status != 404 || !strings.Contains(string(r.Body), "no longer keeps the state") {
		t.Errorf("getNativeBalance at a pruned block: %s; want 404 saying the node no longer keeps the state", r)
	}
	n.stop()
	if r := do(t, "GET", path, nil, nil); r.Status != 503 || !strings.Contains(string(r.Body), "does not answer") {
		t.Errorf("getNativeBalance at block 1 with the node stopped: %s; want 503 saying the node does not answer", r)
	}
}
