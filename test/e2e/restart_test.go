package e2e

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// devChainPaths are the devnet's three embedded chains by EVM chain id, at
// the JSON-RPC path a developer uses.
var devChainPaths = map[string]string{"43112": "/ext/bc/C/rpc", "787878": "/ext/bc/devsubnet/rpc", "898989": "/ext/bc/devl1/rpc"}

// chainState is what a restart must keep of one dev chain and of what
// avaedge says about it.
type chainState struct {
	Head         uint64
	Balance      string   // the activity's recipient's native balance
	TokenBalance string   // its balance of the activity's ERC-20 (balanceOf)
	Code         string   // the ERC-20's code
	Listed       []string // listTransactions of ewoq: the hashes, newest first
	AllTime      int      // the Metrics API's all-time txCount
}

// readChainState reads chain id's state at e, with a the activity made on it.
func readChainState(t *testing.T, e *edge, id string, a *evmActivity) chainState {
	t.Helper()
	rpc := e.URL + devChainPaths[id]
	var s chainState
	var head string
	if err := rawResult(rpc, "eth_blockNumber", "[]", &head); err != nil {
		t.Fatal(err)
	}
	n, err := strconv.ParseUint(strings.TrimPrefix(head, "0x"), 16, 64)
	if err != nil {
		t.Fatal(err)
	}
	s.Head = n
	if err := rawResult(rpc, "eth_getBalance", fmt.Sprintf("[%q,\"latest\"]", a.To), &s.Balance); err != nil {
		t.Fatal(err)
	}
	call := fmt.Sprintf(`[{"to":%q,"data":"0x70a08231%064s"},"latest"]`, a.Token, strings.TrimPrefix(strings.ToLower(a.To), "0x"))
	if err := rawResult(rpc, "eth_call", call, &s.TokenBalance); err != nil {
		t.Fatal(err)
	}
	if err := rawResult(rpc, "eth_getCode", fmt.Sprintf("[%q,\"latest\"]", a.Token), &s.Code); err != nil {
		t.Fatal(err)
	}
	s.Listed = listedHashes(t, e, id, a.From)
	s.AllTime = rollingTxCount(t, e.URL, id).AllTime
	return s
}

// listedHashes are the hashes listTransactions gives for addr on chain id.
func listedHashes(t *testing.T, e *edge, id, addr string) []string {
	t.Helper()
	rep := do(t, "GET", e.URL+"/v1/chains/"+id+"/addresses/"+addr+"/transactions?pageSize=100", nil, nil)
	var v struct {
		Transactions []listed `json:"transactions"`
	}
	if err := json.Unmarshal(rep.Body, &v); err != nil || rep.Status != 200 {
		t.Fatalf("listTransactions: %s", rep)
	}
	var out []string
	for _, tx := range v.Transactions {
		out = append(out, tx.NativeTransaction.TxHash)
	}
	return out
}

// sendOnTop sends ewoq's transfer on chain id with ethers and checks that it
// is mined right on top of head; it returns the transaction's hash.
func sendOnTop(t *testing.T, e *edge, id string, head uint64) string {
	t.Helper()
	out := nodeScript(t, "", "ethers.mjs", e.URL, devChainPaths[id])
	var r struct {
		ChainID      string `json:"chainId"`
		TxHash       string `json:"txHash"`
		Status       int    `json:"status"`
		ReceiptBlock uint64 `json:"receiptBlock"`
	}
	if err := json.Unmarshal(out, &r); err != nil || r.Status != 1 || r.ChainID != id {
		t.Fatalf("ethers.mjs printed %s: %v", out, err)
	}
	if r.ReceiptBlock != head+1 {
		t.Errorf("chain %s: the transfer after the restart is in block %d; want %d, on top of the kept head", id, r.ReceiptBlock, head+1)
	}
	waitIndexed(t, e.URL, &evmActivity{ChainID: id, Txs: map[string]struct {
		Hash  string `json:"hash"`
		Block uint64 `json:"block"`
	}{"transfer": {Hash: r.TxHash, Block: r.ReceiptBlock}}})
	return r.TxHash
}

// TestDevChainsRestart: with a data directory, what ethers did on the three
// dev chains (an ERC-20 deployed, minted and transferred, a native
// transfer, an NFT, a factory's creations) survives a restart: after
// SIGTERM the heights, balances, balanceOf, the contract's code, the Data
// API's listTransactions and the Metrics API's all-time txCount are the
// same, and a new transfer is mined on top. After SIGKILL nothing is listed
// that the chain does not have, and once the index has caught up everything
// the chain has is listed. With AVAEDGE_RESET_DEV_CHAINS=true the chains are
// back at their seed, the index drops what they no longer have, and the log
// says both.
func TestDevChainsRestart(t *testing.T) {
	env := map[string]string{"AVAEDGE_KEYS_FILE": bulkKeysFile(t), "AVAEDGE_DATA_DIR": t.TempDir()}
	e := startEdge(t, env)
	ids := []string{"43112", "787878", "898989"}
	acts := map[string]*evmActivity{}
	before := map[string]chainState{}
	for _, id := range ids {
		a := makeEVMActivity(t, e.URL+devChainPaths[id])
		if a.ChainID != id {
			t.Fatalf("ethers saw chain %s; want %s", a.ChainID, id)
		}
		waitIndexed(t, e.URL, a)
		acts[id] = a
		before[id] = readChainState(t, e, id, a)
	}
	e.stop(t)

	start := time.Now()
	e = startEdge(t, env)
	t.Logf("restarted (SIGTERM) in %s", time.Since(start).Round(time.Millisecond))
	if strings.Contains(e.log.String(), "re-org") {
		t.Errorf("the index re-orged after a clean restart:\n%s", tail(e.log.String(), 2048))
	}
	heads := map[string]uint64{}
	for _, id := range ids {
		waitIndexed(t, e.URL, acts[id])
		got := readChainState(t, e, id, acts[id])
		if fmt.Sprint(got) != fmt.Sprint(before[id]) {
			t.Errorf("chain %s after SIGTERM and a restart:\n got %+v\nwant %+v", id, got, before[id])
		}
		hash := sendOnTop(t, e, id, got.Head)
		if l := listedHashes(t, e, id, acts[id].From); len(l) == 0 || l[0] != hash {
			t.Errorf("chain %s: the new transfer %s is not listed first: %v", id, hash, l)
		}
		heads[id] = got.Head + 1
		before[id] = readChainState(t, e, id, acts[id])
	}
	e.kill()

	e = startEdge(t, env)
	for _, id := range ids {
		got := readChainState(t, e, id, acts[id])
		if got.Head != heads[id] {
			t.Errorf("chain %s after SIGKILL: head %d; want %d, the last block mined", id, got.Head, heads[id])
		}
		for _, h := range got.Listed {
			var tx map[string]any
			if err := rawResult(e.URL+devChainPaths[id], "eth_getTransactionByHash", fmt.Sprintf("[%q]", h), &tx); err != nil || tx == nil {
				t.Errorf("chain %s after SIGKILL: %s is listed, the chain does not have it (%v)", id, h, err)
			}
		}
		deadline := time.Now().Add(time.Minute)
		for !slices.Equal(got.Listed, before[id].Listed) && time.Now().Before(deadline) {
			time.Sleep(200 * time.Millisecond)
			got.Listed = listedHashes(t, e, id, acts[id].From)
		}
		got.AllTime = rollingTxCount(t, e.URL, id).AllTime
		if fmt.Sprint(got) != fmt.Sprint(before[id]) {
			t.Errorf("chain %s after SIGKILL and a restart, the index caught up:\n got %+v\nwant %+v", id, got, before[id])
		}
	}

	e.stop(t)

	env["AVAEDGE_RESET_DEV_CHAINS"] = "true"
	e = startEdge(t, env)
	log := e.log.String()
	for _, want := range []string{"dev chains reset to their seed", "the index is ahead of the chain"} {
		if !strings.Contains(log, want) {
			t.Errorf("after a reset the log does not say %q", want)
		}
	}
	for _, id := range ids {
		a := acts[id]
		got := readChainState(t, e, id, a)
		if got.Head >= heads[id] || got.Code != "0x" {
			t.Errorf("chain %s after a reset: head %d (was %d), the ERC-20's code %.20s; want the seed's head, no code", id, got.Head, heads[id], got.Code)
		}
		for _, tx := range a.Txs {
			deadline := time.Now().Add(time.Minute)
			for do(t, "GET", e.URL+"/v1/chains/"+id+"/transactions/"+tx.Hash, nil, nil).Status != 404 {
				if time.Now().After(deadline) {
					t.Fatalf("chain %s after a reset: %s is still indexed", id, tx.Hash)
				}
				time.Sleep(200 * time.Millisecond)
			}
		}
		for _, h := range listedHashes(t, e, id, a.From) {
			var tx map[string]any
			if err := rawResult(e.URL+devChainPaths[id], "eth_getTransactionByHash", fmt.Sprintf("[%q]", h), &tx); err != nil || tx == nil {
				t.Errorf("chain %s after a reset: %s is listed, the chain does not have it (%v)", id, h, err)
			}
		}
	}
}
