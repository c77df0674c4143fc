package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/api/info"
	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/formatting/address"
	"github.com/ava-labs/avalanchego/vms/avm"
)

// ewoqXLocal is ewoq's X-Chain address on a local network.
const ewoqXLocal = "X-local18jma8ppw3nhx5r4ap8clazz0dps7rv5u00z96u"

// rawResult posts one JSON-RPC call and decodes its result into v.
func rawResult(u, method, params string, v any) error {
	resp, err := http.Post(u, "application/json", bytes.NewReader(rpcBody(1, method, params)))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	var env struct {
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&env); err != nil {
		return fmt.Errorf("%s: %v", method, err)
	}
	if env.Result == nil {
		return fmt.Errorf("%s: %s", method, env.Error)
	}
	return json.Unmarshal(env.Result, v)
}

// wireCase is one raw request of the node's wire behaviour.
type wireCase struct {
	name, method, path, contentType, body string
}

// wireCases exercise the node's JSON-RPC envelope: errors, batches, ids,
// notifications, wrong HTTP method and content type, on both endpoints.
func wireCases(txID string) []wireCase {
	var out []wireCase
	for _, p := range []string{"/ext/info", "/ext/bc/X"} {
		method := "info.getNetworkID"
		if p == "/ext/bc/X" {
			method = "avm.getHeight"
		}
		ns := strings.SplitN(method, ".", 2)[0]
		j := "application/json"
		out = append(out,
			wireCase{"unknown method", "POST", p, j, `{"jsonrpc":"2.0","id":1,"method":"` + ns + `.noSuchMethod"}`},
			wireCase{"other service", "POST", p, j, `{"jsonrpc":"2.0","id":1,"method":"platform.getHeight"}`},
			wireCase{"no service", "POST", p, j, `{"jsonrpc":"2.0","id":1,"method":"getNetworkID"}`},
			wireCase{"string id", "POST", p, j, `{"jsonrpc":"2.0","id":"abc","method":"` + method + `"}`},
			wireCase{"fraction id", "POST", p, j, `{"jsonrpc":"2.0","id":1.5,"method":"` + method + `"}`},
			wireCase{"large id", "POST", p, j, `{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"` + method + `"}`},
			wireCase{"null id", "POST", p, j, `{"jsonrpc":"2.0","id":null,"method":"` + method + `"}`},
			wireCase{"object id", "POST", p, j, `{"jsonrpc":"2.0","id":{"a":1},"method":"` + method + `"}`},
			wireCase{"notification", "POST", p, j, `{"jsonrpc":"2.0","method":"` + method + `"}`},
			wireCase{"params array", "POST", p, j, `{"jsonrpc":"2.0","id":2,"method":"` + method + `","params":[]}`},
			wireCase{"params null", "POST", p, j, `{"jsonrpc":"2.0","id":2,"method":"` + method + `","params":null}`},
			// After the valid calls above: never an answer from their cache entry.
			wireCase{"upper-case method", "POST", p, j, `{"jsonrpc":"2.0","id":1,"method":"` + ns + `.` + strings.ToUpper(method[len(ns)+1:len(ns)+2]) + method[len(ns)+2:] + `"}`},
			wireCase{"jsonrpc 1.0", "POST", p, j, `{"jsonrpc":"1.0","id":3,"method":"` + method + `"}`},
			wireCase{"no jsonrpc", "POST", p, j, `{"id":3,"method":"` + method + `"}`},
			wireCase{"no method", "POST", p, j, `{"jsonrpc":"2.0","id":3}`},
			wireCase{"parse error", "POST", p, j, `{"jsonrpc":"2.0","id":`},
			wireCase{"empty body", "POST", p, j, ``},
			wireCase{"not an object", "POST", p, j, `42`},
			wireCase{"batch", "POST", p, j, `[{"jsonrpc":"2.0","id":1,"method":"` + method + `"},{"jsonrpc":"2.0","id":2,"method":"` + ns + `.noSuchMethod"}]`},
			wireCase{"empty batch", "POST", p, j, `[]`},
			wireCase{"batch with notification", "POST", p, j, `[{"jsonrpc":"2.0","method":"` + method + `"},{"jsonrpc":"2.0","id":5,"method":"` + method + `"}]`},
			wireCase{"trailing garbage", "POST", p, j, `{"jsonrpc":"2.0","id":1,"method":"` + method + `"} x`},
			// Members the node's reader takes case-insensitively, the last
			// winning: the edge forwards (and keys) the call it read.
			wireCase{"case-variant method", "POST", p, j, `{"jsonrpc":"2.0","id":1,"method":"` + ns + `.noSuchMethod","Method":"` + method + `"}`},
			wireCase{"case-variant method, last unknown", "POST", p, j, `{"jsonrpc":"2.0","id":1,"Method":"` + method + `","method":"` + ns + `.noSuchMethod"}`},
			wireCase{"case-variant id and params", "POST", p, j, `{"jsonrpc":"2.0","id":1,"ID":"two","method":"` + method + `","params":{"x":1},"PARAMS":{}}`},
			wireCase{"GET", "GET", p, "", ``},
			wireCase{"PUT", "PUT", p, j, `{"jsonrpc":"2.0","id":1,"method":"` + method + `"}`},
			wireCase{"text/plain", "POST", p, "text/plain", `{"jsonrpc":"2.0","id":1,"method":"` + method + `"}`},
			wireCase{"no content type", "POST", p, "", `{"jsonrpc":"2.0","id":1,"method":"` + method + `"}`},
			wireCase{"json with charset", "POST", p, "application/json; charset=utf-8", `{"jsonrpc":"2.0","id":1,"method":"` + method + `"}`},
		)
	}
	// The X-Chain's other paths.
	for _, p := range []string{"/ext/bc/avm", "/ext/X", "/ext/avm", "/ext/bc/2eNy1mUFdmaxXNj1eQHUe7Np4gju9sJsEtWQ4MX3ToiNKuADed"} {
		out = append(out, wireCase{"alias", "POST", p, "application/json", `{"jsonrpc":"2.0","id":4,"method":"avm.getTxFee"}`})
	}
	out = append(out,
		wireCase{"bad params", "POST", "/ext/bc/X", "application/json", `{"jsonrpc":"2.0","id":1,"method":"avm.getTx","params":{"txID":"not-an-id"}}`},
		wireCase{"unknown tx", "POST", "/ext/bc/X", "application/json", `{"jsonrpc":"2.0","id":1,"method":"avm.getTx","params":{"txID":"2Zd3qEVkpwYydun3nRaBgxRpsAyuoVFzgCZXoYU4AQdKDy4Ed8"}}`},
		wireCase{"wrong param type", "POST", "/ext/info", "application/json", `{"jsonrpc":"2.0","id":1,"method":"info.getBlockchainID","params":{"alias":7}}`},
		wireCase{"unknown alias", "POST", "/ext/info", "application/json", `{"jsonrpc":"2.0","id":1,"method":"info.getBlockchainID","params":{"alias":"Q"}}`},
		wireCase{"case-variant param", "POST", "/ext/info", "application/json", `{"jsonrpc":"2.0","id":1,"method":"info.getBlockchainID","params":{"alias":"Q","Alias":"X"}}`},
		wireCase{"case-variant params", "POST", "/ext/info", "application/json", `{"jsonrpc":"2.0","id":1,"method":"info.getBlockchainID","params":{"alias":"Q"},"Params":{"alias":"X"}}`},
		wireCase{"tx by id, hex", "POST", "/ext/bc/X", "application/json", `{"jsonrpc":"2.0","id":9,"method":"avm.getTx","params":{"txID":"` + txID + `","encoding":"hex"}}`},
	)
	return out
}

// send issues a wire case against base.
func (c wireCase) send(t testing.TB, base string) reply {
	t.Helper()
	var body []byte
	if c.method != "GET" {
		body = []byte(c.body)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, c.method, base+c.path, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if c.contentType != "" {
		req.Header.Set("Content-Type", c.contentType)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", c.method, c.path, err)
	}
	defer resp.Body.Close()
	var b bytes.Buffer
	b.ReadFrom(resp.Body)
	return reply{resp.StatusCode, resp.Header, b.Bytes()}
}

// sameAnswer requires the edge's answer to be the node's, byte for byte.
func sameAnswer(t testing.TB, what string, node, edge reply) {
	t.Helper()
	if node.Status != edge.Status || !bytes.Equal(node.Body, edge.Body) {
		t.Errorf("%s differs:\nnode: %d %q\nedge: %d %q", what, node.Status, node.Body, edge.Status, edge.Body)
	}
	if nc, ec := node.Header.Get("Content-Type"), edge.Header.Get("Content-Type"); nc != ec && len(node.Body) > 0 {
		t.Errorf("%s: Content-Type node %q, edge %q", what, nc, ec)
	}
}

// TestRealNodeMethods: avaedge in proxy mode in front of a real avalanchego
// node answers every catalogued info.* and avm.* method as the node does,
// byte for byte, on the first call and on the cached one.
func TestRealNodeMethods(t *testing.T) {
	n := startNode(t)
	e := startEdge(t, map[string]string{"AVAEDGE_NODE_UPSTREAM": n.URI})
	to, err := address.Format("X", "local", n.To[:])
	if err != nil {
		t.Fatal(err)
	}
	params := nodeParams(ewoqXLocal, n.BlockID, n.TxID.String())
	extra := map[string][]string{
		"avm.getBalance":     {fmt.Sprintf(`{"address":%q,"assetID":"AVAX"}`, to)},
		"avm.getAllBalances": {fmt.Sprintf(`{"address":%q}`, to)},
		"avm.getUTXOs":       {fmt.Sprintf(`{"addresses":[%q],"encoding":"hex"}`, to)},
		"avm.getTx":          {fmt.Sprintf(`{"txID":%q,"encoding":"hex"}`, n.TxID)},
		"avm.getBlock":       {fmt.Sprintf(`{"blockID":%q,"encoding":"json"}`, n.BlockID)},
	}
	seen := 0
	for _, r := range catalogue() {
		if r.Endpoint != "info" && r.Endpoint != "avm" {
			continue
		}
		seen++
		t.Run(r.Name, func(t *testing.T) {
			for i, p := range append([]string{params[r.Name]}, extra[r.Name]...) {
				body := rpcBody(11+i, r.Name, p)
				node := do(t, "POST", n.URI+r.Path, body, nil)
				// avm.issueTx, the one write, gets a transaction the node
				// refuses: its refusal must come through, every time.
				write := r.Cache == "never"
				if node.Status != 200 || !write && !bytes.Contains(node.Body, []byte(`"result"`)) || write && !bytes.Contains(node.Body, []byte(`"error"`)) {
					t.Fatalf("the node itself fails %s %s: %s", r.Name, p, node)
				}
				first := do(t, "POST", e.URL+r.Path, body, nil)
				sameAnswer(t, r.Name+" "+p+" (first call)", node, first)
				second := do(t, "POST", e.URL+r.Path, body, nil)
				sameAnswer(t, r.Name+" "+p+" (second call)", node, second)
				if hs := second.Header.Get("X-Cache-Status"); r.Cache != "never" && hs != "HIT" {
					t.Errorf("%s: second call X-Cache-Status %q; want HIT", r.Name, hs)
				}
				// A cached answer carries each request's own id.
				other := []byte(strings.Replace(string(body), fmt.Sprintf(`"id":%d`, 11+i), `"id":"e2e-other-id"`, 1))
				sameAnswer(t, r.Name+" "+p+" (cached, another id)", do(t, "POST", n.URI+r.Path, other, nil), do(t, "POST", e.URL+r.Path, other, nil))
			}
		})
	}
	if seen < 20 {
		t.Fatalf("only %d info/avm methods in the catalogue", seen)
	}
}

// TestRealNodeEVMAllowList: on the C-Chain endpoint the edge refuses what
// the catalogue does not publish with the node's own bytes (go-ethereum's
// -32601 and -32600 elements, newline and Content-Type included), and a
// batch mixing forwarded and refused calls gets the node's answer for each.
func TestRealNodeEVMAllowList(t *testing.T) {
	n := startNode(t)
	e := startEdge(t, map[string]string{"AVAEDGE_NODE_UPSTREAM": n.URI})
	const p = "/ext/bc/C/rpc"
	for _, body := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"debug_traceBlockByNumber","params":["latest",{}]}`,
		`{"jsonrpc":"2.0","id":"a","method":"admin_peers"}`,
		`{"jsonrpc":"2.0","id":2,"method":"personal_listAccounts","params":[]}`,
		`{"jsonrpc":"2.0","id":3,"method":"ETH_chainId"}`,
		`{"jsonrpc":"2.0","id":4,"method":"txpool_content"}`,
		`{"jsonrpc":"2.0","id":5,"method":"miner_start"}`,
		`[1,{"jsonrpc":"2.0","id":6,"method":"admin_addPeer","params":["enode://x"]},{"jsonrpc":"2.0","id":7}]`,
		`{"jsonrpc":"2.0","id":8,"method":""}`,
	} {
		node := do(t, "POST", n.URI+p, []byte(body), nil)
		if !bytes.Contains(node.Body, []byte(`-3260`)) {
			t.Errorf("the node serves %s (%s): the comparison needs a method it does not serve", body, node)
			continue
		}
		edge := do(t, "POST", e.URL+p, []byte(body), nil)
		sameAnswer(t, body, node, edge)
		if src := edge.Header.Get("X-Avaedge-Source"); src != "edge" {
			t.Errorf("%s: X-Avaedge-Source %q; want edge", body, src)
		}
	}
	// A batch: the node's answer for each call, by id (JSON-RPC batches
	// may be answered in any order).
	batch := `[{"jsonrpc":"2.0","id":1,"method":"eth_chainId"},{"jsonrpc":"2.0","id":2,"method":"debug_traceBlockByNumber","params":["latest"]},` +
		`{"jsonrpc":"2.0","id":3,"method":"eth_getBalance","params":["` + ewoqEVM + `","latest"]},{"jsonrpc":"2.0","id":4,"method":"admin_peers"}]`
	byID := func(r reply) map[string]string {
		var answers []json.RawMessage
		if err := json.Unmarshal(r.Body, &answers); err != nil {
			t.Fatalf("batch answer %s: %v", r, err)
		}
		out := map[string]string{}
		for _, a := range answers {
			var m struct{ ID json.RawMessage }
			json.Unmarshal(a, &m)
			out[string(m.ID)] = string(a)
		}
		return out
	}
	node, edge := byID(do(t, "POST", n.URI+p, []byte(batch), nil)), byID(do(t, "POST", e.URL+p, []byte(batch), nil))
	if fmt.Sprint(node) != fmt.Sprint(edge) || len(edge) != 4 {
		t.Errorf("batch answers differ:\nnode: %v\nedge: %v", node, edge)
	}
}

// TestRealNodeWire: the JSON-RPC envelope behaviour (errors, batches, ids,
// notifications, 405, 415) through avaedge is the node's, byte for byte,
// first call and second.
func TestRealNodeWire(t *testing.T) {
	n := startNode(t)
	e := startEdge(t, map[string]string{"AVAEDGE_NODE_UPSTREAM": n.URI})
	for _, c := range wireCases(n.TxID.String()) {
		t.Run(c.path+" "+c.name, func(t *testing.T) {
			node := c.send(t, n.URI)
			for _, call := range []string{"first", "second"} {
				sameAnswer(t, fmt.Sprintf("%s %s %q (%s call)", c.method, c.path, c.body, call), node, c.send(t, e.URL))
			}
		})
	}
}

// clientView calls every info and avm method with avalanchego's own
// clients against uri and renders the results, so the same client code can
// be compared against the node and the edge.
func clientView(t testing.TB, uri string, xAddr ids.ShortID, txID, blockID ids.ID) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	ic := info.NewClient(uri)
	xc := avm.NewClient(uri, "X")
	var b strings.Builder
	// add renders a call's results (the last is its error) as JSON.
	add := func(name string, v ...any) {
		if err, _ := v[len(v)-1].(error); err != nil {
			t.Errorf("%s at %s: %v", name, uri, err)
			fmt.Fprintf(&b, "%s: error %v\n", name, err)
			return
		}
		j, err := json.Marshal(v[:len(v)-1])
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		fmt.Fprintf(&b, "%s: %s\n", name, j)
	}
	v, err := ic.GetNodeVersion(ctx)
	add("GetNodeVersion", v, err)
	id, pop, err := ic.GetNodeID(ctx)
	add("GetNodeID", id, pop, err)
	ip, err := ic.GetNodeIP(ctx)
	add("GetNodeIP", ip, err)
	nid, err := ic.GetNetworkID(ctx)
	add("GetNetworkID", nid, err)
	name, err := ic.GetNetworkName(ctx)
	add("GetNetworkName", name, err)
	bc, err := ic.GetBlockchainID(ctx, "X")
	add("GetBlockchainID", bc, err)
	peers, err := ic.Peers(ctx, nil)
	add("Peers", peers, err)
	boot, err := ic.IsBootstrapped(ctx, "X")
	add("IsBootstrapped", boot, err)
	up, err := ic.Upgrades(ctx)
	add("Upgrades", up, err)
	upt, err := ic.Uptime(ctx)
	add("Uptime", upt, err)
	vms, err := ic.GetVMs(ctx)
	add("GetVMs", vms, err)
	h, err := xc.GetHeight(ctx)
	add("GetHeight", h, err)
	blk, err := xc.GetBlockByHeight(ctx, h)
	add("GetBlockByHeight", blk, err)
	if blockID != ids.Empty {
		blk, err = xc.GetBlock(ctx, blockID)
		add("GetBlock", blk, err)
	}
	if txID != ids.Empty {
		tx, err := xc.GetTx(ctx, txID)
		add("GetTx", tx, err)
		//lint:ignore SA1019 the edge serves this deprecated method too: the client must get the node's answer
		st, err := xc.GetTxStatus(ctx, txID)
		add("GetTxStatus", st, err)
	}
	utxos, end, endUTXO, err := xc.GetUTXOs(ctx, []ids.ShortID{xAddr}, 10, ids.ShortEmpty, ids.Empty)
	add("GetUTXOs", utxos, end, endUTXO, err)
	ad, err := xc.GetAssetDescription(ctx, "AVAX")
	add("GetAssetDescription", ad, err)
	//lint:ignore SA1019 the edge serves this deprecated method too: the client must get the node's answer
	bal, err := xc.GetBalance(ctx, xAddr, "AVAX", false)
	add("GetBalance", bal, err)
	//lint:ignore SA1019 the edge serves this deprecated method too: the client must get the node's answer
	all, err := xc.GetAllBalances(ctx, xAddr, false)
	add("GetAllBalances", all, err)
	fee, createFee, err := xc.GetTxFee(ctx)
	add("GetTxFee", fee, createFee, err)
	return b.String()
}

// TestRealNodeClients: avalanchego's info and avm clients get the same
// results from the edge (first and cached call) as from the node.
func TestRealNodeClients(t *testing.T) {
	n := startNode(t)
	e := startEdge(t, map[string]string{"AVAEDGE_NODE_UPSTREAM": n.URI})
	blockID, err := ids.FromString(n.BlockID)
	if err != nil {
		t.Fatal(err)
	}
	want := clientView(t, n.URI, n.To, n.TxID, blockID)
	for _, call := range []string{"first", "second"} {
		if got := clientView(t, e.URL, n.To, n.TxID, blockID); got != want {
			t.Errorf("%s call: the clients' view through avaedge differs from the node's:\nnode:\n%s\nedge:\n%s", call, want, got)
		}
	}
}

// TestLocalNodeClients: avalanchego's info and avm clients work against
// local mode's node world (ewoq's UTXOs and a block's transaction).
func TestLocalNodeClients(t *testing.T) {
	e := noKeysLocal(t)
	w := discover(t, "fuji")
	ewoq, err := address.ParseToID(ewoqXLocal)
	if err != nil {
		t.Fatal(err)
	}
	txID, err := ids.FromString(w.XTxID)
	if err != nil {
		t.Fatal(err)
	}
	blockID, err := ids.FromString(w.XBlockID)
	if err != nil {
		t.Fatal(err)
	}
	clientView(t, e.URL, ewoq, txID, blockID)
}

// TestRealNodeEthers: ethers v6 through avaedge's /ext/bc/C/rpc proxied to
// the real node's C-Chain: chain id, block number, a transfer from ewoq and
// the recipient's balance.
func TestRealNodeEthers(t *testing.T) {
	n := startNode(t)
	e := startEdge(t, map[string]string{"AVAEDGE_NODE_UPSTREAM": n.URI})
	out := nodeScript(t, "", "ethers.mjs", e.URL)
	var res struct {
		ChainID string `json:"chainId"`
		Status  int    `json:"status"`
		Value   string `json:"value"`
		Balance string `json:"balance"`
	}
	if err := json.Unmarshal(out, &res); err != nil || res.ChainID != "43112" || res.Status != 1 || res.Balance != res.Value {
		t.Fatalf("ethers through avaedge to the node: %s (%v)", out, err)
	}
}
