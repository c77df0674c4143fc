package hostile

import (
	"strconv"
	"strings"
	"testing"
)

// TestPChainAllowList (issue 37): the P-Chain endpoint and the C-Chain's
// atomic endpoint are allow-lists like the other node endpoints. A method
// outside them gets the node's own "can't find method" (gorilla/rpc json2)
// at the edge with no upstream call; a getUTXOs naming more than the node's
// 1,024 addresses gets the node's refusal at the edge, at the method's
// price; one naming 1,024 is forwarded once, at 50 CU; issueTx is forwarded
// each time.
func TestPChainAllowList(t *testing.T) {
	up := rpcUpstream(t)
	keys := "plans:\n  day: {cu_per_day: 1000000}\nkeys:\n  - {id: k1, key: key-1, plan: day}\nanonymous: day\n"
	e := StartEdge(t, EdgeOptions{Env: proxyEnv(up), Keys: keys})
	before := len(up.Received())
	addrs := func(n int) string {
		a := make([]string, n)
		for i := range a {
			a[i] = `"P-avax1` + strconv.Itoa(i) + `"`
		}
		return `{"jsonrpc":"2.0","id":9,"method":"platform.getUTXOs","params":{"addresses":[` + strings.Join(a, ",") + `],"limit":1024}}`
	}
	refused := []struct{ path, body, want string }{
		{"/ext/bc/P", `{"jsonrpc":"2.0","id":1,"method":"platform.getAllBalances","params":{}}`,
			`{"jsonrpc":"2.0","error":{"code":-32000,"message":"rpc: can't find method \"platform.GetAllBalances\"","data":null},"id":1}` + "\n"},
		{"/ext/bc/11111111111111111111111111111111LpoYY", `{"jsonrpc":"2.0","id":2,"method":"platform.exportKey","params":{}}`,
			`{"jsonrpc":"2.0","error":{"code":-32000,"message":"rpc: can't find method \"platform.ExportKey\"","data":null},"id":2}` + "\n"},
		{"/ext/P", `{"jsonrpc":"2.0","id":3,"method":"admin.lockProfile"}`,
			`{"jsonrpc":"2.0","error":{"code":-32000,"message":"rpc: can't find service \"admin.LockProfile\"","data":null},"id":3}` + "\n"},
		{"/ext/bc/C/avax", `{"jsonrpc":"2.0","id":4,"method":"avax.export","params":{}}`,
			`{"jsonrpc":"2.0","error":{"code":-32000,"message":"rpc: can't find method \"avax.Export\"","data":null},"id":4}` + "\n"},
		{"/ext/bc/C/avax", `{"jsonrpc":"2.0","id":5,"method":"eth_chainId","params":[]}`,
			`{"jsonrpc":"2.0","error":{"code":-32000,"message":"rpc: service/method request ill-formed: \"eth_chainId\"","data":null},"id":5}` + "\n"},
		{"/ext/bc/P", addrs(1025),
			`{"jsonrpc":"2.0","error":{"code":-32000,"message":"number of addresses given, 1025, exceeds maximum, 1024","data":null},"id":9}` + "\n"},
	}
	for _, c := range refused {
		status, _, body := rpcPost(t, e.URL, c.path, "key-1", c.body)
		if status != 200 || body != c.want {
			t.Errorf("%s %.80s = %d %q; want 200 %q", c.path, c.body, status, body, c.want)
		}
	}
	if got := up.Received()[before:]; len(got) != 0 {
		t.Fatalf("the upstream received %d requests, first %s %.200s; want none", len(got), got[0].URI, got[0].Body)
	}
	// A node path that is no endpoint: a JSON-RPC error, never plain text.
	for _, p := range []string{"/ext/bc/Q", "/ext/bc/P/x", "/ext/bc/C/avax/", "/ext/keystore"} {
		status, _, body := rpcPost(t, e.URL, p, "key-1", `{"jsonrpc":"2.0","id":1,"method":"platform.getHeight"}`)
		if status != 404 || !strings.HasPrefix(body, `{"jsonrpc":"2.0","error":{"code":-32601,"message":"method not found: `) {
			t.Errorf("%s = %d %q; want 404 with a -32601 JSON-RPC error", p, status, body)
		}
	}
	if got := up.Received()[before:]; len(got) != 0 {
		t.Fatalf("the upstream received %d requests; want none", len(got))
	}
	// 1,025 addresses cost the method's 50 CU, refused; 1,024 are forwarded
	// once at 50 CU.
	_, left0, _ := rpcPost(t, e.URL, "/ext/bc/P", "key-1", addrs(1025))
	_, left1, body := rpcPost(t, e.URL, "/ext/bc/P", "key-1", addrs(1024))
	if got := up.Received()[before:]; len(got) != 1 || !strings.Contains(body, `"ran platform.getUTXOs"`) {
		t.Errorf("getUTXOs of 1,024 addresses: %d upstream calls, %s; want 1 forwarded", len(got), body)
	}
	_, left2, _ := rpcPost(t, e.URL, "/ext/bc/P", "key-1", `{"jsonrpc":"2.0","id":8,"method":"platform.getHeight"}`)
	if left1-left2 != 1 {
		t.Errorf("platform.getHeight charged %d; want 1", left1-left2)
	}
	if _, left3, _ := rpcPost(t, e.URL, "/ext/bc/P", "key-1", addrs(1024)); left2-left3 != 50 || left0 <= left1 {
		t.Errorf("getUTXOs of 1,024 addresses charged %d (remaining %d, %d); want 50", left2-left3, left0, left1)
	}
	// The writes: forwarded each time, never cached, at 20 CU.
	for _, c := range []struct{ path, method string }{{"/ext/bc/P", "platform.issueTx"}, {"/ext/bc/C/avax", "avax.issueTx"}} {
		n := len(up.Received())
		issue := `{"jsonrpc":"2.0","id":8,"method":"` + c.method + `","params":{"tx":"0x00","encoding":"hex"}}`
		_, l0, _ := rpcPost(t, e.URL, c.path, "key-1", issue)
		_, l1, body := rpcPost(t, e.URL, c.path, "key-1", issue)
		if got := len(up.Received()) - n; got != 2 || l0-l1 != 20 || !strings.Contains(body, `"ran `+c.method+`"`) {
			t.Errorf("%s twice: %d upstream calls, charged %d, %s; want 2 calls at 20 CU", c.method, got, l0-l1, body)
		}
	}
}
