package proxy

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/avaedge/avaedge/cache"
)

// TestPChainAndAtomicEndpoints checks the P-Chain endpoint (and its
// aliases) and the C-Chain's atomic endpoint at the edge: catalogued methods
// forwarded re-encoded, blocks and transactions cached, the writes never;
// any other method the node's own error with no upstream call; a getUTXOs
// over the node's 1,024 addresses refused as the node does, at the edge,
// and 1,024 forwarded.
func TestPChainAndAtomicEndpoints(t *testing.T) {
	te := newTestEdge(t, Options{Cache: &mapCache{m: map[string]*cache.Entry{}}})
	te.node.answer = func(w http.ResponseWriter, r *http.Request, body []byte) {
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		json.Unmarshal(body, &req)
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"jsonrpc":"2.0","result":{"m":"` + req.Method + `","path":"` + r.URL.Path + `"},"id":` + string(req.ID) + "}\n"))
	}
	addrs := func(n int) string {
		a := make([]string, n)
		for i := range a {
			a[i] = `"P-fuji1` + strconv.Itoa(i) + `"`
		}
		return `{"addresses":[` + strings.Join(a, ",") + `]}`
	}
	tests := []struct {
		name, path, method, params string
		want                       string // the body must contain it
		calls                      int64  // upstream calls it makes
	}{
		{"getHeight", "/ext/bc/P", "platform.getHeight", `{}`, `"m":"platform.getHeight","path":"/ext/bc/P"`, 1},
		{"alias P", "/ext/P", "platform.getHeight", `{}`, `"path":"/ext/P"`, 1},
		{"alias id", "/ext/bc/11111111111111111111111111111111LpoYY", "platform.getTimestamp", `{}`, `"m":"platform.getTimestamp"`, 1},
		{"alias platform", "/ext/bc/platform", "platform.getHeight", `{}`, `"path":"/ext/bc/platform"`, 1},
		{"getTx cached", "/ext/bc/P", "platform.getTx", `{"txID":"2Q3","encoding":"json"}`, `"m":"platform.getTx"`, 1},
		{"getTx again", "/ext/bc/P", "platform.getTx", `{ "encoding":"json", "txID":"2Q3" }`, `"m":"platform.getTx"`, 0},
		{"issueTx", "/ext/bc/P", "platform.issueTx", `{"tx":"0x00"}`, `"m":"platform.issueTx"`, 1},
		{"issueTx never cached", "/ext/bc/P", "platform.issueTx", `{"tx":"0x00"}`, `"m":"platform.issueTx"`, 1},
		{"unknown method", "/ext/bc/P", "platform.getAllBalances", `{}`, `{"code":-32000,"message":"rpc: can't find method \"platform.GetAllBalances\"","data":null},"id":5}`, 0},
		{"keystore method", "/ext/bc/P", "platform.exportKey", `{}`, `can't find method \"platform.ExportKey\"`, 0},
		{"other service", "/ext/bc/P", "avm.getHeight", `{}`, `rpc: can't find service \"avm.GetHeight\"`, 0},
		{"1,024 addresses", "/ext/bc/P", "platform.getUTXOs", addrs(1024), `"m":"platform.getUTXOs"`, 1},
		{"1,025 addresses", "/ext/bc/P", "platform.getUTXOs", addrs(1025), `{"code":-32000,"message":"number of addresses given, 1025, exceeds maximum, 1024","data":null},"id":5}`, 0},
		{"avax getUTXOs", "/ext/bc/C/avax", "avax.getUTXOs", `{"addresses":["C-fuji1"],"sourceChain":"P"}`, `"m":"avax.getUTXOs","path":"/ext/bc/C/avax"`, 1},
		{"avax 1,025 addresses", "/ext/bc/C/avax", "avax.getUTXOs", addrs(1025), `exceeds maximum, 1024`, 0},
		{"avax getAtomicTx", "/ext/bc/C/avax", "avax.getAtomicTx", `{"txID":"2Q3"}`, `"m":"avax.getAtomicTx"`, 1},
		{"avax issueTx", "/ext/bc/C/avax", "avax.issueTx", `{"tx":"0x00"}`, `"m":"avax.issueTx"`, 1},
		{"avax unknown", "/ext/bc/C/avax", "avax.export", `{}`, `can't find method \"avax.Export\"`, 0},
		{"avax eth", "/ext/bc/C/avax", "eth_chainId", `[]`, `rpc: service/method request ill-formed: \"eth_chainId\"`, 0},
	}
	for _, tt := range tests {
		before := te.node.count.Load()
		r := httptest.NewRequest("POST", tt.path, strings.NewReader(`{"jsonrpc":"2.0","id":5,"method":"`+tt.method+`","params":`+tt.params+`}`))
		r.Header.Set("Content-Type", "application/json")
		w := httptest.NewRecorder()
		te.srv.ServeHTTP(w, r)
		if w.Code != 200 || !strings.Contains(w.Body.String(), tt.want) {
			t.Errorf("%s: %d %s; want %s", tt.name, w.Code, w.Body, tt.want)
		}
		if n := te.node.count.Load() - before; n != tt.calls {
			t.Errorf("%s: upstream calls %d; want %d", tt.name, n, tt.calls)
		}
		if tt.calls == 1 {
			var fwd map[string]json.RawMessage
			if err := json.Unmarshal(te.node.last().Body, &fwd); err != nil || string(fwd["method"]) != `"`+tt.method+`"` {
				t.Errorf("%s: forwarded %s", tt.name, te.node.last().Body)
			}
		}
	}
}
