package hostile

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"strconv"
	"strings"
	"testing"
)

// rpcUpstream answers every JSON-RPC call it gets (single or batch) with a
// result naming its method, so a test can see what reached it; a
// notification gets no answer.
func rpcUpstream(t *testing.T) *Upstream {
	return NewUpstream(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		answer := func(raw json.RawMessage) string {
			var c struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
			}
			json.Unmarshal(raw, &c)
			if c.ID == nil {
				return "" // a notification
			}
			if c.Method == "info.getNetworkID" {
				return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"networkID":"1"}}`, c.ID)
			}
			return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%q}`, c.ID, "ran "+c.Method)
		}
		w.Header().Set("Content-Type", "application/json")
		var batch []json.RawMessage
		if json.Unmarshal(body, &batch) == nil {
			var out []string
			for _, e := range batch {
				if a := answer(e); a != "" {
					out = append(out, a)
				}
			}
			fmt.Fprintf(w, "[%s]\n", strings.Join(out, ","))
			return
		}
		fmt.Fprintln(w, answer(body))
	}))
}

// rpcPost posts body to path with key and returns the status, the
// ratelimit-remaining header and the body.
func rpcPost(t *testing.T, base, path, key, body string) (int, int64, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, base+path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if key != "" {
		req.Header.Set("x-glacier-api-key", key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	left, _ := strconv.ParseInt(resp.Header.Get("ratelimit-remaining"), 10, 64)
	return resp.StatusCode, left, string(b)
}

// TestRPCAllowList (issue 28, finding 4): the node endpoints are
// allow-lists. A method the catalogue does not name gets the node's own
// "method not found" answer (gorilla/rpc json2 on /ext/info and /ext/bc/X,
// go-ethereum on /ext/bc/C/rpc) at the edge with no upstream call;
// avm.issueTx is catalogued, priced and never cached; a C-Chain batch
// forwards only its eth_/net_/web3_ calls, re-encoded, gets an error element
// for each refused call, and costs the sum of its calls' prices; methods the
// operator publishes reach the upstream for their keys only.
func TestRPCAllowList(t *testing.T) {
	up := rpcUpstream(t)
	keys := "plans:\n  day: {cu_per_day: 1000000}\nkeys:\n  - {id: k0, key: key-0, plan: day}\n  - {id: k1, key: key-1, plan: day}\nanonymous: day\n"
	config := `publish:
  - {method: POST, path: "/ext/bc/C/rpc", rpc_methods: ["debug_traceTransaction", "trace_*"], keys: [k0], cost: 100}
  - {method: POST, path: "/ext/bc/X", rpc_methods: ["avm.getAddressTxs"], keys: [k0], cost: 30}
`
	e := StartEdge(t, EdgeOptions{Env: proxyEnv(up), Keys: keys, Config: config})
	before := len(up.Received())
	refused := []struct{ path, body, want string }{
		{"/ext/bc/X", `{"jsonrpc":"2.0","id":1,"method":"avm.getAddressTxs","params":{"address":"X-avax1x","assetID":"AVAX","pageSize":1024}}`,
			`{"jsonrpc":"2.0","error":{"code":-32000,"message":"rpc: can't find method \"avm.GetAddressTxs\"","data":null},"id":1}` + "\n"},
		{"/ext/bc/X", `{"jsonrpc":"2.0","id":2,"method":"debug_traceBlockByNumber","params":["latest"]}`,
			`{"jsonrpc":"2.0","error":{"code":-32000,"message":"rpc: service/method request ill-formed: \"debug_traceBlockByNumber\"","data":null},"id":2}` + "\n"},
		{"/ext/info", `{"jsonrpc":"2.0","id":3,"method":"admin.lockProfile"}`,
			`{"jsonrpc":"2.0","error":{"code":-32000,"message":"rpc: can't find service \"admin.LockProfile\"","data":null},"id":3}` + "\n"},
		{"/ext/bc/2oYMBNV4eNHyqk2fjjV5nVQLDbtmNJzq5s3qs3Lo6ftnC6FByM", `{"jsonrpc":"2.0","id":4,"method":"wallet.send"}`,
			`{"jsonrpc":"2.0","error":{"code":-32000,"message":"rpc: can't find service \"wallet.Send\"","data":null},"id":4}` + "\n"},
		{"/ext/info", `{"jsonrpc":"2.0","method":"info.nope"}`, ""}, // a notification: no body, as the node
	}
	for _, m := range []string{"debug_traceBlockByNumber", "debug_traceTransaction", "txpool_content", "admin_peers", "admin_addPeer",
		"personal_listAccounts", "personal_unlockAccount", "trace_block", "miner_start", "ETH_call", "Eth_chainId", "eth", "eth_"} {
		refused = append(refused, struct{ path, body, want string }{"/ext/bc/C/rpc",
			`{"jsonrpc":"2.0","id":"x","method":"` + m + `","params":[]}`,
			`{"jsonrpc":"2.0","id":"x","error":{"code":-32601,"message":"the method ` + m + ` does not exist/is not available"}}` + "\n"})
	}
	refused = append(refused,
		// Read as go-ethereum reads it: the last method wins; one that is
		// not a string makes an invalid request.
		struct{ path, body, want string }{"/ext/bc/C/rpc", `{"jsonrpc":"2.0","id":6,"method":"eth_chainId","method":"txpool_content"}`,
			`{"jsonrpc":"2.0","id":6,"error":{"code":-32601,"message":"the method txpool_content does not exist/is not available"}}` + "\n"},
		struct{ path, body, want string }{"/ext/bc/C/rpc", `{"jsonrpc":"2.0","id":5,"method":"debug_x","method":1}`,
			`{"jsonrpc":"2.0","id":5,"error":{"code":-32600,"message":"invalid request"}}` + "\n"},
		struct{ path, body, want string }{"/ext/bc/C/rpc", `[{"jsonrpc":"2.0","id":7,"method":"admin_peers"},{"method":1},{"jsonrpc":"2.0","method":"debug_x"}]`,
			`[{"jsonrpc":"2.0","id":7,"error":{"code":-32601,"message":"the method admin_peers does not exist/is not available"}},` +
				`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request"}}]` + "\n"},
	)
	for _, key := range []string{"key-1", ""} { // key-1: the published methods are k0's only
		for _, c := range refused {
			status, _, body := rpcPost(t, e.URL, c.path, key, c.body)
			if status != 200 || body != c.want {
				t.Errorf("key %q %s %s = %d %q; want 200 %q", key, c.path, c.body, status, body, c.want)
			}
		}
	}
	// A batch over the limit is refused whole, before its elements are read.
	big := "[" + strings.TrimSuffix(strings.Repeat(`{"jsonrpc":"2.0","id":1,"method":"eth_chainId"},`, 101), ",") + "]"
	if status, _, body := rpcPost(t, e.URL, "/ext/bc/C/rpc", "key-1", big); status != http.StatusRequestEntityTooLarge || !strings.Contains(body, "batch of more than 100 calls exceeds the limit") {
		t.Errorf("batch of 101 = %d %s; want 413", status, body)
	}
	if got := up.Received()[before:]; len(got) != 0 {
		t.Fatalf("the upstream received %d requests, first %s %s; want none", len(got), got[0].URI, got[0].Body)
	}

	// avm.issueTx: forwarded each time (never cached) at its price.
	issue := `{"jsonrpc":"2.0","id":8,"method":"avm.issueTx","params":{"tx":"0x00","encoding":"hex"}}`
	_, left0, _ := rpcPost(t, e.URL, "/ext/bc/X", "key-1", issue)
	_, left1, body := rpcPost(t, e.URL, "/ext/bc/X", "key-1", issue)
	if got := up.Received()[before:]; len(got) != 2 || left0-left1 != 20 || !strings.Contains(body, `"ran avm.issueTx"`) {
		t.Errorf("avm.issueTx twice: %d upstream calls, charged %d, %s; want 2 calls at 20 CU", len(got), left0-left1, body)
	}

	// A member go-ethereum ignores but a case-folding reader (the
	// C-Chain's encoding/json-based one, as this upstream) would take as the
	// method never reaches the upstream: the call is re-encoded.
	n0 := len(up.Received())
	_, _, body = rpcPost(t, e.URL, "/ext/bc/C/rpc", "key-1", `{"jsonrpc":"2.0","id":5,"method":"eth_chainId","Method":"debug_traceTransaction"}`)
	if got := up.Received()[n0:]; len(got) != 1 || string(got[0].Body) != `{"jsonrpc":"2.0","id":5,"method":"eth_chainId"}` || !strings.Contains(body, "ran eth_chainId") {
		t.Errorf("eth_chainId with a \"Method\" member: upstream got %v, client %s; want eth_chainId re-encoded", got, body)
	}

	// A batch: the upstream gets only the allowed calls, re-encoded; the
	// client gets every answer; the price is the sum of the calls'.
	n := len(up.Received())
	batch := `[{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber"},` +
		`{"jsonrpc":"2.0","id":2,"method":"debug_traceBlockByNumber","params":["latest",{}]},` +
		`{"jsonrpc":"2.0","id":3,"method":"eth_call","params":[{"to":"0x0000000000000000000000000000000000000001"},"latest"],"Method":"x"},` +
		`{"jsonrpc":"2.0","id":4,"method":"eth_call","params":[{"to":"0x0000000000000000000000000000000000000001"},"latest"],"extra":1},` +
		`{"jsonrpc":"2.0","id":5,"method":"txpool_content"},` +
		`{"jsonrpc":"2.0","id":6,"method":"eth_getLogs","params":[{}]},` +
		`{"jsonrpc":"2.0","method":"eth_chainId"}]`
	_, before1, _ := rpcPost(t, e.URL, "/ext/info", "key-1", `{"jsonrpc":"2.0","id":1,"method":"info.getNetworkID"}`)
	_, after1, body := rpcPost(t, e.URL, "/ext/bc/C/rpc", "key-1", batch)
	got := up.Received()[n:]
	// Re-encoded: a member go-ethereum ignores ("Method", "extra") is
	// never forwarded, so no parser upstream can read another method.
	wantFwd := `[{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber"},` +
		`{"jsonrpc":"2.0","id":3,"method":"eth_call","params":[{"to":"0x0000000000000000000000000000000000000001"},"latest"]},` +
		`{"jsonrpc":"2.0","id":4,"method":"eth_call","params":[{"to":"0x0000000000000000000000000000000000000001"},"latest"]},` +
		`{"jsonrpc":"2.0","id":6,"method":"eth_getLogs","params":[{}]},{"jsonrpc":"2.0","method":"eth_chainId"}]`
	if len(got) != 2 || string(got[1].Body) != wantFwd {
		t.Errorf("the upstream received %d requests, the batch as %s; want\n%s", len(got), got[len(got)-1].Body, wantFwd)
	}
	// 1 (eth_blockNumber) + 1 (refused) + 20 (eth_call) + 20 (eth_call) + 1
	// (refused) + 50 (eth_getLogs) + 1 (eth_chainId).
	if cost := before1 - after1; cost != 94 {
		t.Errorf("the batch cost %d CU; want 94", cost)
	}
	var answers []struct {
		ID     json.RawMessage `json:"id"`
		Result string          `json:"result"`
		Error  *struct{ Code int }
	}
	if err := json.Unmarshal([]byte(body), &answers); err != nil {
		t.Fatalf("batch answer %q: %v", body, err)
	}
	byID := map[string]string{}
	for _, a := range answers {
		if a.Error != nil {
			byID[string(a.ID)] = strconv.Itoa(a.Error.Code)
		} else {
			byID[string(a.ID)] = a.Result
		}
	}
	want := map[string]string{"1": "ran eth_blockNumber", "2": "-32601", "3": "ran eth_call", "4": "ran eth_call", "5": "-32601", "6": "ran eth_getLogs"}
	if len(answers) != len(want) || !maps.Equal(byID, want) {
		t.Errorf("batch answers %s; want one per call with an id: %v", body, want)
	}
	// In the batch's order, as go-ethereum answers.
	for i, id := range []string{"1", "2", "3", "4", "5", "6"} {
		if i < len(answers) && string(answers[i].ID) != id {
			t.Errorf("answer %d has id %s; want %s (the batch's order): %s", i, answers[i].ID, id, body)
		}
	}

	// Published methods, for their key only, at their price.
	for _, c := range []struct{ path, body, method string }{
		{"/ext/bc/C/rpc", `{"jsonrpc":"2.0","id":9,"method":"debug_traceTransaction","params":["0x1"]}`, "debug_traceTransaction"},
		{"/ext/bc/C/rpc", `{"jsonrpc":"2.0","id":9,"method":"trace_block","params":["latest"]}`, "trace_block"},
		{"/ext/bc/X", `{"jsonrpc":"2.0","id":9,"method":"avm.getAddressTxs","params":{}}`, "avm.getAddressTxs"},
		{"/ext/bc/avm", `{"jsonrpc":"2.0","id":9,"method":"avm.getAddressTxs","params":{}}`, "avm.getAddressTxs"},
	} {
		n := len(up.Received())
		_, l0, _ := rpcPost(t, e.URL, "/ext/info", "key-0", `{"jsonrpc":"2.0","id":1,"method":"info.getNetworkID"}`)
		status, l1, body := rpcPost(t, e.URL, c.path, "key-0", c.body)
		price := int64(100)
		if strings.HasPrefix(c.method, "avm.") {
			price = 30
		}
		if status != 200 || !strings.Contains(body, "ran "+c.method) || len(up.Received())-n != 1 || l0-l1 != price {
			t.Errorf("k0 %s %s = %d %s, charged %d; want it forwarded at %d CU", c.path, c.method, status, body, l0-l1, price)
		}
	}
}

// TestRPCAllowListLocal (issue 28, finding 4): in local mode the same
// allow-list stands in front of the embedded dev chain: refused calls are
// answered by the edge, and a batch mixing both gets the dev chain's answers
// and the edge's; with local.evm.debug the debug_ namespace is served.
func TestRPCAllowListLocal(t *testing.T) {
	e := StartEdge(t, EdgeOptions{})
	status, _, body := rpcPost(t, e.URL, "/ext/bc/C/rpc", "", `{"jsonrpc":"2.0","id":1,"method":"debug_traceBlockByNumber","params":["latest",{}]}`)
	if want := `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"the method debug_traceBlockByNumber does not exist/is not available"}}` + "\n"; status != 200 || body != want {
		t.Errorf("debug_traceBlockByNumber = %d %q; want %q", status, body, want)
	}
	status, _, body = rpcPost(t, e.URL, "/ext/bc/C/rpc", "", `[{"jsonrpc":"2.0","id":1,"method":"eth_chainId"},{"jsonrpc":"2.0","id":2,"method":"txpool_content"},{"jsonrpc":"2.0","id":3,"method":"net_version"}]`)
	var answers []struct {
		ID     int
		Result string
		Error  *struct{ Code int }
	}
	if err := json.Unmarshal([]byte(body), &answers); err != nil || status != 200 || len(answers) != 3 {
		t.Fatalf("batch = %d %q (%v); want 3 answers", status, body, err)
	}
	for _, a := range answers {
		switch {
		case a.ID == 1 && a.Result == "0xa868", a.ID == 3 && a.Result == "43112", a.ID == 2 && a.Error != nil && a.Error.Code == -32601:
		default:
			t.Errorf("batch answer %+v in %s", a, body)
		}
	}

	e = StartEdge(t, EdgeOptions{Config: "local:\n  evm: {debug: true}\n"})
	status, _, body = rpcPost(t, e.URL, "/ext/bc/C/rpc", "", `{"jsonrpc":"2.0","id":1,"method":"debug_getRawHeader","params":["0x0"]}`)
	if status != 200 || !strings.Contains(body, `"result":"0x`) {
		t.Errorf("debug_getRawHeader with local.evm.debug = %d %s; want the dev chain's result", status, body)
	}
}

// TestNodeCallsReencoded (issue 35, finding 6): a node call is forwarded
// re-encoded from what the edge decoded, as EVM calls are. Before, a call
// carrying both "method" and "Method" was keyed by the one the node's
// case-folding reader takes (the last) while the client's bytes went to a
// case-sensitive upstream, which ran the other: its answer then served every
// client of the keyed method. Now the upstream gets one method, the keyed
// one, and params in the canonical form the key hashes.
func TestNodeCallsReencoded(t *testing.T) {
	// A case-sensitive upstream: exact keys, the last of a repeated one.
	up := NewUpstream(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var m map[string]json.RawMessage
		json.Unmarshal(body, &m)
		var method string
		json.Unmarshal(m["method"], &method)
		w.Header().Set("Content-Type", "application/json")
		if method == "info.getNetworkID" {
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"networkID":"1"}}`, m["id"])
			return
		}
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":%q}`, m["id"], "ran "+method)
	}))
	e := StartEdge(t, EdgeOptions{Env: proxyEnv(up)})
	n := len(up.Received())
	_, _, body := rpcPost(t, e.URL, "/ext/info", "", `{"jsonrpc":"2.0","id":1,"method":"info.getNodeVersion","Method":"info.getVMs"}`)
	got := up.Received()[n:]
	if len(got) != 1 || string(got[0].Body) != `{"jsonrpc":"2.0","id":1,"method":"info.getVMs"}` || !strings.Contains(body, "ran info.getVMs") {
		t.Fatalf("the upstream got %d requests (%q), the client %s; want info.getVMs re-encoded", len(got), got, body)
	}
	// The next client of info.getVMs gets info.getVMs's answer.
	if _, _, body := rpcPost(t, e.URL, "/ext/info", "", `{"jsonrpc":"2.0","id":2,"method":"info.getVMs"}`); !strings.Contains(body, `"ran info.getVMs"`) {
		t.Errorf("info.getVMs after the ambiguous call = %s; want info.getVMs's answer", body)
	}
	// Params are sent in the form the key hashes: members a reader could
	// take in another order or case are never forwarded as the client wrote them.
	n = len(up.Received())
	rpcPost(t, e.URL, "/ext/bc/X", "", `{"jsonrpc":"2.0","id":3,"method":"avm.getTx","params":{"txID":"b","TxID":"a", "encoding":"hex"},"Params":{"txID":"c"}}`)
	if got := up.Received()[n:]; len(got) != 1 || string(got[0].Body) != `{"jsonrpc":"2.0","id":3,"method":"avm.getTx","params":{"txID":"c"}}` {
		t.Errorf("the upstream got %q; want the canonical call", got)
	}
}
