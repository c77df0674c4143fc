package proxy

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/avaedge/avaedge/apierror"
	"github.com/avaedge/avaedge/catalog"
)

// TestBadInputNeverReachesUpstream checks every published parameter rule at the edge:
// the right status and body in the service's format, and no upstream call.
func TestBadInputNeverReachesUpstream(t *testing.T) {
	te := newTestEdge(t, Options{MaxBodyBytes: 1024})
	const nid = "NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg"
	tests := []struct {
		name, method, target, body string
		status                     int
		want                       string // a message the body must contain
		list                       bool   // message is an array
	}{
		{"subnets pageSize max", "GET", "/v1/networks/fuji/subnets?pageSize=10001", "", 400, "pageSize must not be greater than 10000", true},
		{"utxos pageSize", "GET", "/v1/networks/fuji/blockchains/p-chain/utxos?pageSize=101", "", 400, "pageSize must not be greater than 100", true},
		{"erc1155 transfers pageSize", "GET", "/v1/chains/43114/addresses/0xa/transactions:listErc1155?pageSize=0", "", 400, "pageSize must not be less than 1", true},
		{"transfers pageSize", "GET", "/v1/chains/43114/tokens/0xa/transfers?pageSize=101", "", 400, "pageSize must not be greater than 100", true},
		{"erc1155 balances pageSize", "GET", "/v1/chains/43114/addresses/0xa/balances:listErc1155?pageSize=501", "", 400, "pageSize must not be greater than 500", true},
		{"erc721 balances pageSize", "GET", "/v1/chains/43114/addresses/0xa/balances:listErc721?pageSize=501", "", 400, "pageSize must not be greater than 500", true},
		{"rewards pageSize", "GET", "/v1/networks/fuji/rewards:listPending?nodeIds=" + nid + "&pageSize=101", "", 400, "pageSize must not be greater than 100", true},
		{"validator pageSize", "GET", "/v1/networks/fuji/validators/" + nid + "?pageSize=101", "", 400, "pageSize must not be greater than 100", true},
		{"delegators pageSize", "GET", "/v1/networks/fuji/delegators?pageSize=101", "", 400, "pageSize must not be greater than 100", true},
		{"vertices pageSize", "GET", "/v1/networks/fuji/blockchains/x-chain/vertices:listByHeight?vertexHeight=1&pageSize=101", "", 400, "pageSize must not be greater than 100", true},
		{"blocks pageSize", "GET", "/v1/chains/43114/blocks?pageSize=101", "", 400, "pageSize must not be greater than 100", true},
		{"node blocks pageSize", "GET", "/v1/networks/fuji/blockchains/p-chain/nodes/" + nid + "/blocks?pageSize=101", "", 400, "pageSize must not be greater than 100", true},
		{"validators pageSize", "GET", "/v1/networks/fuji/validators?pageSize=101", "", 400, "pageSize must not be greater than 100", true},
		{"metrics pageSize", "GET", "/v2/chains/43114/metrics/txCount?pageSize=2161", "", 400, "pageSize must not be greater than 2160", true},
		{"contracts day only", "GET", "/v2/chains/43114/metrics/contracts?timeInterval=hour", "", 400, "timeInterval must be day for metric contracts", true},
		{"deployers day only", "GET", "/v2/chains/43114/metrics/deployers?timeInterval=hour", "", 400, "timeInterval must be day for metric deployers", true},
		{"quorum 0 means 67", "POST", "/v1/signatureAggregator/fuji/aggregateSignatures", `{"message":"00","quorumPercentage":0,"quorumPercentageBuffer":50}`, 400, "quorumPercentage + quorumPercentageBuffer must not be greater than 100", true},
		{"network", "GET", "/v1/networks/devnet/subnets", "", 400, "network must be one of the following values: mainnet, fuji, testnet", true},
		{"sortOrder", "GET", "/v1/networks/fuji/subnets?sortOrder=sideways", "", 400, "sortOrder must be one of the following values: asc, desc", true},
		{"validationStatus", "GET", "/v1/networks/fuji/validators/" + nid + "?validationStatus=gone", "", 400, "validationStatus must be one of", true},
		{"delegationStatus", "GET", "/v1/networks/fuji/delegators?delegationStatus=removed", "", 400, "delegationStatus must be one of", true},
		{"utxo blockchainId", "GET", "/v1/networks/fuji/blockchains/d-chain/utxos", "", 400, "blockchainId must be one of", true},
		{"vertex blockchainId", "GET", "/v1/networks/fuji/blockchains/p-chain/vertices:listByHeight?vertexHeight=1", "", 400, "blockchainId must be one of", true},
		{"currency", "GET", "/v1/chains/43114/addresses/0xa/balances:getNative?currency=btc", "", 400, "currency must be one of", true},
		{"timeInterval", "GET", "/v2/chains/43114/metrics/txCount?timeInterval=year", "", 400, "timeInterval must be one of", true},
		{"metric", "GET", "/v2/chains/43114/metrics/tps", "", 400, "metric must be one of", true},
		{"cumulative hour", "GET", "/v2/chains/43114/metrics/cumulativeTxCount?timeInterval=hour", "", 400, "timeInterval must be day", true},
		{"avg week", "GET", "/v2/chains/43114/metrics/avgGps?timeInterval=week", "", 400, "timeInterval must be day", true},
		{"max month", "GET", "/v2/chains/43114/metrics/maxTps?timeInterval=month", "", 400, "timeInterval must be day", true},
		{"vertexHeight missing", "GET", "/v1/networks/fuji/blockchains/x-chain/vertices:listByHeight", "", 400, "vertexHeight should not be empty", true},
		{"vertexHeight not integer", "GET", "/v1/networks/fuji/blockchains/x-chain/vertices:listByHeight?vertexHeight=1.5", "", 400, "vertexHeight must be an integer number", true},
		{"listChainIds addresses", "GET", "/v1/networks/fuji/addresses:listChainIds", "", 400, "addresses should not be empty", true},
		{"rewards neither", "GET", "/v1/networks/fuji/rewards:listPending", "", 400, "at least one of addresses, nodeIds must be provided", true},
		{"startTimestamp", "GET", "/v2/chains/43114/metrics/txCount?startTimestamp=-1", "", 400, "startTimestamp must not be less than 0", true},
		{"startBlock number", "GET", "/v1/chains/43114/tokens/0xa/transfers?startBlock=ten", "", 400, "startBlock must be a number", true},
		{"quorum sum", "POST", "/v1/signatureAggregator/fuji/aggregateSignatures", `{"message":"00","quorumPercentage":90,"quorumPercentageBuffer":11}`, 400, "quorumPercentage + quorumPercentageBuffer must not be greater than 100", true},
		{"neither message nor justification", "POST", "/v1/signatureAggregator/fuji/aggregateSignatures", `{"quorumPercentage":50}`, 400, "Must provide either message or justification", true},
		{"non-hex", "POST", "/v1/signatureAggregator/fuji/aggregateSignatures", `{"justification":"0xg0"}`, 400, "justification must be a hexadecimal number", true},
		{"malformed JSON", "POST", "/v1/signatureAggregator/fuji/aggregateSignatures", `{"message":`, 400, "body must be a JSON object", true},
		{"oversized", "POST", "/v1/signatureAggregator/fuji/aggregateSignatures", `{"message":"` + strings.Repeat("00", 1024) + `"}`, 413, "request entity too large", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := te.data.count.Load() + te.metrics.count.Load()
			r := httptest.NewRequest(tt.method, tt.target, strings.NewReader(tt.body))
			w := httptest.NewRecorder()
			te.srv.ServeHTTP(w, r)
			if w.Code != tt.status {
				t.Fatalf("status = %d; want %d (%s)", w.Code, tt.status, w.Body)
			}
			var b apierror.Body
			if err := json.Unmarshal(w.Body.Bytes(), &b); err != nil {
				t.Fatalf("body %s: %v", w.Body, err)
			}
			if b.StatusCode != tt.status || b.Error != apierror.Text(tt.status) {
				t.Fatalf("body = %s", w.Body)
			}
			msgs, isList := b.Message.([]any)
			metrics := strings.HasPrefix(tt.target, "/v2/")
			if (tt.list || metrics) != isList {
				t.Fatalf("message list = %v; want %v: %s", isList, tt.list || metrics, w.Body)
			}
			if !strings.Contains(w.Body.String(), tt.want) {
				t.Fatalf("body %s does not say %q", w.Body, tt.want)
			}
			_ = msgs
			if n := te.data.count.Load() + te.metrics.count.Load(); n != before {
				t.Fatalf("bad input reached the upstream")
			}
		})
	}
}

// TestRPCWire checks the node's envelope rules at the edge (never reaching the
// upstream) and batch splitting.
func TestRPCWire(t *testing.T) {
	te := newTestEdge(t, Options{MaxBodyBytes: 1 << 10})
	te.node.answer = func(w http.ResponseWriter, r *http.Request, body []byte) {
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		json.Unmarshal(body, &req)
		if req.ID == nil {
			return // notification
		}
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.Write([]byte(`{"jsonrpc":"2.0","result":{"m":"` + req.Method + `"},"id":` + string(req.ID) + "}\n"))
	}
	tests := []struct {
		name, method, ctype, body string
		status                    int
		want                      string
		upstreamCalls             int64
	}{
		{"get", "GET", "", "", 405, "rpc: POST method required, received GET", 0},
		{"no content type", "POST", "", `{}`, 415, "rpc: unrecognized Content-Type: ", 0},
		{"parse error", "POST", "application/json", `{"jsonrpc"`, 200, `{"jsonrpc":"2.0","error":{"code":-32700,"message":"unexpected EOF","data":{"jsonrpc":"","method":"","params":null,"id":null}},"id":null}` + "\n", 0},
		{"bad version", "POST", "application/json", `{"jsonrpc":"1.0","method":"info.getNetworkID","id":"x"}`, 200, `{"jsonrpc":"2.0","error":{"code":-32600,"message":"jsonrpc must be 2.0","data":{"jsonrpc":"1.0","method":"info.getNetworkID","params":null,"id":"x"}},"id":"x"}` + "\n", 0},
		{"too large", "POST", "application/json", `{"jsonrpc":"2.0","method":"info.getNetworkID","id":1,"params":{"x":"` + strings.Repeat("a", 2000) + `"}}`, 413, `"code":-32000`, 0},
		{"single", "POST", "application/json", `{"jsonrpc":"2.0","method":"info.getNetworkID","id":1}`, 200, `{"jsonrpc":"2.0","result":{"m":"info.getNetworkID"},"id":1}` + "\n", 1},
		// The node supports no batches: an array is its -32700.
		{"batch", "POST", "application/json", `[{"jsonrpc":"2.0","method":"info.getNetworkID","id":1},{"jsonrpc":"2.0","method":"info.peers","id":"b"}]`, 200,
			`{"jsonrpc":"2.0","error":{"code":-32700,"message":"json: cannot unmarshal array into Go value of type json2.serverRequest","data":{"jsonrpc":"","method":"","params":null,"id":null}},"id":null}` + "\n", 0},
		{"notification", "POST", "application/json", `{"jsonrpc":"2.0","method":"info.getNetworkID"}`, 200, "", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := te.node.count.Load()
			r := httptest.NewRequest(tt.method, "/ext/info", strings.NewReader(tt.body))
			if tt.ctype != "" {
				r.Header.Set("Content-Type", tt.ctype)
			}
			w := httptest.NewRecorder()
			te.srv.ServeHTTP(w, r)
			if w.Code != tt.status {
				t.Fatalf("status = %d; want %d (%s)", w.Code, tt.status, w.Body)
			}
			if tt.status == 413 {
				if !strings.Contains(w.Body.String(), tt.want) {
					t.Fatalf("body %s", w.Body)
				}
			} else if got := w.Body.String(); got != tt.want {
				t.Fatalf("body = %s; want %s", got, tt.want)
			}
			if n := te.node.count.Load() - before; n != tt.upstreamCalls {
				t.Fatalf("upstream calls = %d; want %d", n, tt.upstreamCalls)
			}
		})
	}
}

// TestXChainAliases checks that every alias of the X-Chain endpoint is the avm
// endpoint and that other /ext/ paths never reach the node upstream.
func TestXChainAliases(t *testing.T) {
	te := newTestEdge(t, Options{})
	for _, p := range []string{"/ext/bc/X", "/ext/bc/avm", "/ext/X", "/ext/avm", "/ext/bc/2JVSBoinj9C2J33VntvzYtVJNZdN2NKiwwKjcumHUWEb5DbBrm"} {
		r := httptest.NewRequest("GET", p, nil)
		w := httptest.NewRecorder()
		te.srv.ServeHTTP(w, r)
		if w.Code != 405 {
			t.Fatalf("GET %s = %d; want the node's 405", p, w.Code)
		}
	}
	for _, p := range []string{"/ext/bc/Q", "/ext/admin", "/ext/keystore", "/ext/metrics", "/ext/health", "/ext/bc/2q9e4r6Mu3U68nU1fYjgbR6JvwrRx36CohpAX5UQxse55x1Q5/rpc"} {
		for _, m := range []string{"GET", "POST"} {
			r := httptest.NewRequest(m, p, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"admin.stopCPUProfiler"}`))
			r.Header.Set("Content-Type", "application/json")
			w := httptest.NewRecorder()
			te.srv.ServeHTTP(w, r)
			if w.Code != 404 || te.node.count.Load() != 0 {
				t.Fatalf("%s %s = %d, upstream calls %d; want 404 at the edge", m, p, w.Code, te.node.count.Load())
			}
			// A JSON-RPC error in the node's envelope, never a plain-text 404.
			var resp struct {
				Version string `json:"jsonrpc"`
				Error   struct{ Code int }
			}
			if json.Unmarshal(w.Body.Bytes(), &resp) != nil || resp.Version != "2.0" || resp.Error.Code != -32601 || !strings.Contains(w.Body.String(), `"id":null`) {
				t.Fatalf("%s %s body %s; want a -32601 JSON-RPC error", m, p, w.Body)
			}
		}
	}
}

func TestNoUpstreamNoLocal(t *testing.T) {
	srv, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ target, want string }{
		{"/v1/chains", `"statusCode":503`},
		{"/v2/chains", `"message":["no upstream`},
	} {
		w := httptest.NewRecorder()
		srv.ServeHTTP(w, httptest.NewRequest("GET", tc.target, nil))
		if w.Code != 503 || !strings.Contains(w.Body.String(), tc.want) {
			t.Fatalf("%s = %d %s", tc.target, w.Code, w.Body)
		}
	}
	w := httptest.NewRecorder()
	r := httptest.NewRequest("POST", "/ext/info", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"info.getNetworkID"}`))
	r.Header.Set("Content-Type", "application/json")
	srv.ServeHTTP(w, r)
	if w.Code != 503 || !strings.Contains(w.Body.String(), `"code":-32000`) {
		t.Fatalf("node = %d %s", w.Code, w.Body)
	}
	_ = catalog.Data
	_ = bytes.MinRead
}

func BenchmarkPassthrough(b *testing.B) {
	body := bytes.Repeat([]byte("x"), 4096)
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write(body)
	}))
	defer origin.Close()
	srv, err := New(Options{Upstreams: map[catalog.Service]*Upstream{catalog.Data: upstreamFor(b, catalog.Data, origin.URL)}})
	if err != nil {
		b.Fatal(err)
	}
	r := httptest.NewRequest("GET", "/v1/chains/43114/blocks?pageSize=10", nil)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		w := httptest.NewRecorder()
		srv.ServeHTTP(w, r)
		if w.Code != 200 {
			b.Fatal(w.Code)
		}
	}
}
