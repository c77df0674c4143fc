package node

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/avaedge/avaedge/jsonrpc"
)

// maxServerTime bounds the server time of one request with a huge id: far
// above what a linear decoder needs, even under the race detector, and far
// below what the quadratic one took (avm.getTx with a 200,000-character txID
// once took 29 s). The 50 ms promise is checked against the built binary by
// test/hostile; a unit test does not time a speed.
const maxServerTime = time.Second

// TestHugeIDs sends ids, node ids and addresses of 200,000 characters to
// every method that reads one: each must answer a JSON-RPC error (HTTP 200)
// within maxServerTime.
func TestHugeIDs(t *testing.T) {
	srv := jsonrpc.NewServer(Methods(fakeView()))
	huge := strings.Repeat("z", 200_000) // valid base58: the decoder's worst case
	for _, tc := range []struct{ method, params string }{
		{"avm.getTx", `{"txID":"` + huge + `","encoding":"hex"}`},
		{"avm.getTxStatus", `{"txID":"` + huge + `"}`},
		{"avm.getBlock", `{"blockID":"` + huge + `"}`},
		{"avm.getAssetDescription", `{"assetID":"` + huge + `"}`},
		{"avm.getBalance", `{"address":"X-local1` + huge + `","assetID":"AVAX"}`},
		{"avm.getBalance", `{"address":"` + aliceX + `","assetID":"` + huge + `"}`},
		{"avm.getAllBalances", `{"address":"` + huge + `"}`},
		{"avm.getUTXOs", `{"addresses":["` + huge + `"]}`},
		{"avm.getUTXOs", `{"addresses":["` + aliceX + `"],"startIndex":{"address":"` + aliceX + `","utxo":"` + huge + `"}}`},
		{"info.peers", `{"nodeIDs":["NodeID-` + huge + `"]}`},
		{"info.isBootstrapped", `{"chain":"` + huge + `"}`},
		{"info.getBlockchainID", `{"alias":"` + huge + `"}`},
	} {
		t.Run(tc.method, func(t *testing.T) {
			body := `{"jsonrpc":"2.0","id":1,"method":"` + tc.method + `","params":` + tc.params + `}`
			var rec *httptest.ResponseRecorder
			var d time.Duration
			// Best of five: a run can lose its core to other processes (the
			// quadratic decoder this guards against took seconds every time).
			for range 5 {
				req := httptest.NewRequest(http.MethodPost, "/ext/bc/X", strings.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				rec = httptest.NewRecorder()
				start := time.Now()
				srv.ServeHTTP(rec, req)
				if d = time.Since(start); d <= maxServerTime {
					break
				}
			}
			t.Logf("%s with %d bytes of params: %v", tc.method, len(tc.params), d)
			if d > maxServerTime {
				t.Errorf("answered in %v; want at most %v", d, maxServerTime)
			}
			got := rec.Body.String()
			// A param that does not decode is -32600 (with the params as
			// data, as gorilla's json2 answers); a handler error -32000.
			if rec.Code != http.StatusOK || !(strings.Contains(got, `"error":{"code":-32000`) || strings.Contains(got, `"error":{"code":-32600`)) {
				t.Fatalf("got %d %.300s; want a JSON-RPC error", rec.Code, got)
			}
		})
	}
}
