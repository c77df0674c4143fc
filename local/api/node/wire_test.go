package node

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/avaedge/avaedge/jsonrpc"
)

// TestWire checks the node's wire behaviour for the local methods, over
// HTTP through jsonrpc.NewServer: every JSON-RPC error is HTTP 200, ids are
// echoed raw, integers are quoted, params may be an object or [object] with
// case-insensitive names, and notifications get an empty body.
func TestWire(t *testing.T) {
	srv := httptest.NewServer(jsonrpc.NewServer(Methods(fakeView())))
	defer srv.Close()

	const ct = "application/json"
	for _, tc := range []struct {
		name        string
		httpMethod  string
		contentType string
		body        string
		status      int
		// want is the exact body, or when it starts with "~" a substring.
		want string
	}{
		{"GET is 405", http.MethodGet, ct, "", 405, "rpc: POST method required, received GET"},
		{"PUT is 405", http.MethodPut, ct, `{}`, 405, "rpc: POST method required, received PUT"},
		{"no content type is 415", http.MethodPost, "", `{}`, 415, "rpc: unrecognized Content-Type: "},
		{"text/plain is 415", http.MethodPost, "text/plain", `{}`, 415, "rpc: unrecognized Content-Type: text/plain"},
		{"content type parameters and case", http.MethodPost, "Application/JSON; charset=utf-8",
			`{"jsonrpc":"2.0","id":1,"method":"info.getNetworkID"}`, 200,
			`{"jsonrpc":"2.0","result":{"networkID":"12345"},"id":1}` + "\n"},
		{"id echoed raw: string", http.MethodPost, ct, `{"jsonrpc":"2.0","id":"abc","method":"info.getNetworkName"}`, 200,
			`{"jsonrpc":"2.0","result":{"networkName":"local"},"id":"abc"}` + "\n"},
		{"id echoed raw: float", http.MethodPost, ct, `{"jsonrpc":"2.0","id":1.50,"method":"info.getNetworkName"}`, 200,
			`{"jsonrpc":"2.0","result":{"networkName":"local"},"id":1.50}` + "\n"},
		{"id echoed raw: object", http.MethodPost, ct, `{"jsonrpc":"2.0","id":{"a":[1]},"method":"info.getNetworkName"}`, 200,
			`{"jsonrpc":"2.0","result":{"networkName":"local"},"id":{"a":[1]}}` + "\n"},
		{"quoted uint64", http.MethodPost, ct, `{"jsonrpc":"2.0","id":1,"method":"avm.getHeight","params":{}}`, 200,
			`{"jsonrpc":"2.0","result":{"height":"2"},"id":1}` + "\n"},
		{"quoted fees", http.MethodPost, ct, `{"jsonrpc":"2.0","id":1,"method":"avm.getTxFee"}`, 200,
			`{"jsonrpc":"2.0","result":{"txFee":"1000000","createAssetTxFee":"1000000"},"id":1}` + "\n"},
		{"4-decimal floats", http.MethodPost, ct, `{"jsonrpc":"2.0","id":1,"method":"info.uptime"}`, 200,
			`{"jsonrpc":"2.0","result":{"rewardingStakePercentage":"80.0000","weightedAveragePercentage":"84.0000"},"id":1}` + "\n"},
		{"params null", http.MethodPost, ct, `{"jsonrpc":"2.0","id":1,"method":"info.getNetworkID","params":null}`, 200,
			`~"networkID":"12345"`},
		{"params []", http.MethodPost, ct, `{"jsonrpc":"2.0","id":1,"method":"info.getNetworkID","params":[]}`, 200,
			`~"networkID":"12345"`},
		{"params [object]", http.MethodPost, ct, `{"jsonrpc":"2.0","id":1,"method":"info.isBootstrapped","params":[{"chain":"X"}]}`, 200,
			`{"jsonrpc":"2.0","result":{"isBootstrapped":true},"id":1}` + "\n"},
		{"param names case-insensitive", http.MethodPost, ct, `{"jsonrpc":"2.0","id":1,"method":"info.isBootstrapped","params":{"CHAIN":"X"}}`, 200,
			`~"isBootstrapped":true`},
		{"unknown params ignored", http.MethodPost, ct, `{"jsonrpc":"2.0","id":1,"method":"info.getBlockchainID","params":{"alias":"P","extra":1}}`, 200,
			`~"blockchainID":"11111111111111111111111111111111LpoYY"`},
		{"method's first letter must be lower-case", http.MethodPost, ct, `{"jsonrpc":"2.0","id":1,"method":"info.GetNetworkID"}`, 200,
			`{"jsonrpc":"2.0","error":{"code":-32000,"message":"method must start with a non-uppercase letter","data":null},"id":1}` + "\n"},
		{"handler error is -32000", http.MethodPost, ct, `{"jsonrpc":"2.0","id":7,"method":"info.isBootstrapped","params":{"chain":"Q"}}`, 200,
			`{"jsonrpc":"2.0","error":{"code":-32000,"message":"there is no chain with alias/ID 'Q'","data":null},"id":7}` + "\n"},
		{"unknown method is -32000", http.MethodPost, ct, `{"jsonrpc":"2.0","id":1,"method":"info.nope"}`, 200,
			`{"jsonrpc":"2.0","error":{"code":-32000,"message":"rpc: can't find method \"info.Nope\"","data":null},"id":1}` + "\n"},
		{"unknown service is -32000", http.MethodPost, ct, `{"jsonrpc":"2.0","id":1,"method":"platform.getHeight"}`, 200,
			`~"code":-32000,"message":"rpc: can't find service \"platform.GetHeight\""`},
		{"bad JSON is -32700 with id null", http.MethodPost, ct, `{"jsonrpc":"2.0","id":1,`, 200,
			`~"code":-32700`},
		{"batch is -32700", http.MethodPost, ct, `[{"jsonrpc":"2.0","id":1,"method":"info.getNetworkID"}]`, 200,
			`~"code":-32700`},
		{"wrong version is -32600", http.MethodPost, ct, `{"jsonrpc":"1.0","id":3,"method":"info.getNetworkID"}`, 200,
			`~"code":-32600`},
		{"missing version is -32600", http.MethodPost, ct, `{"id":3,"method":"info.getNetworkID"}`, 200,
			`~"code":-32600`},
		{"params of the wrong type is -32600", http.MethodPost, ct, `{"jsonrpc":"2.0","id":1,"method":"avm.getBlockByHeight","params":{"height":"x"}}`, 200,
			`~"code":-32600`},
		{"bad encoding is -32600", http.MethodPost, ct, `{"jsonrpc":"2.0","id":1,"method":"avm.getBlockByHeight","params":{"height":"1","encoding":"cb58"}}`, 200,
			`~"code":-32600`},
		{"notification gets an empty body", http.MethodPost, ct, `{"jsonrpc":"2.0","method":"info.getNetworkID"}`, 200, ""},
		{"failing notification gets an empty body", http.MethodPost, ct, `{"jsonrpc":"2.0","method":"info.isBootstrapped","params":{"chain":"Q"}}`, 200, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, err := http.NewRequest(tc.httpMethod, srv.URL, strings.NewReader(tc.body))
			if err != nil {
				t.Fatal(err)
			}
			if tc.contentType != "" {
				req.Header.Set("Content-Type", tc.contentType)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tc.status {
				t.Errorf("got status %d; want %d", resp.StatusCode, tc.status)
			}
			got := string(body)
			if sub, ok := strings.CutPrefix(tc.want, "~"); ok {
				if !strings.Contains(got, sub) {
					t.Errorf("got body %s; want it to contain %s", got, sub)
				}
			} else if got != tc.want {
				t.Errorf("got body %q; want %q", got, tc.want)
			}
			if tc.status == 200 && tc.want != "" && !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
				t.Errorf("got content type %q", resp.Header.Get("Content-Type"))
			}
		})
	}
}
