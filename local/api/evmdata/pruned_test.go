package evmdata

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/rpc"

	"github.com/avaedge/avaedge/local/source/devnet/evm"
	"github.com/avaedge/avaedge/local/source/evmindex"
)

// TestNativeBalancePruned: getNativeBalance at a block whose state the
// followed node no longer keeps (it answers coreth's "missing trie node")
// says so in a 404 of the Data API's format, not the 503 of a node that
// does not answer; a later block's balance answers.
func TestNativeBalancePruned(t *testing.T) {
	w := newWorld(t, func(c *evm.Chain, co *evmindex.ChainOptions) {
		h := c.Handler()
		srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(r.Body)
			var call struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
				Params []any           `json:"params"`
			}
			if json.Unmarshal(body, &call) == nil && call.Method == "eth_getBalance" && len(call.Params) == 2 && call.Params[1] == "0x1" {
				rw.Header().Set("Content-Type", "application/json")
				fmt.Fprintf(rw, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32000,"message":"missing trie node `+
					`2a0b8c5a1bd5e1b9d8bd0e3a5f3b0f1c8d2e4a6b7c9d0e1f2a3b4c5d6e7f8091 (path ) state `+
					`0x2a0b8c5a1bd5e1b9d8bd0e3a5f3b0f1c8d2e4a6b7c9d0e1f2a3b4c5d6e7f8091 is not available, not found"}}`, call.ID)
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
			h.ServeHTTP(rw, r)
		}))
		t.Cleanup(srv.Close)
		cl, err := rpc.Dial(srv.URL)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(cl.Close)
		co.Client = cl
	})
	const stranger = "0x00000000000000000000000000000000000000aa"
	got := w.get(t, "/v1/chains/43112/addresses/"+stranger+"/balances:getNative?blockNumber=1", http.StatusNotFound)
	msg := fmt.Sprint(got["message"])
	if got["statusCode"] != float64(404) || got["error"] != "Not Found" || !strings.Contains(msg, "no longer keeps the state") {
		t.Errorf("block 1's state pruned: %v; want a 404 saying the node no longer keeps it", got)
	}
	w.get(t, "/v1/chains/43112/addresses/"+stranger+"/balances:getNative?blockNumber=2", http.StatusOK)
}
