package evm

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
)

// rpcCall posts body to url and returns the status, the Retry-After header
// and the decoded answer (one object or the first of a batch).
func rpcCall(t *testing.T, url, body string, header ...string) (int, string, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var one map[string]any
	if json.Unmarshal(raw, &one) != nil {
		var many []map[string]any
		if err := json.Unmarshal(raw, &many); err != nil || len(many) == 0 {
			t.Fatalf("answer %s is not JSON-RPC: %v", raw, err)
		}
		one = many[0]
	}
	return resp.StatusCode, resp.Header.Get("Retry-After"), one
}

func errCode(m map[string]any) float64 {
	e, _ := m["error"].(map[string]any)
	c, _ := e["code"].(float64)
	return c
}

// TestDebugNamespaceOff: by default Handler answers the debug namespace (and
// admin and miner) "method not found" and the chain keeps its head, while
// Client still traces blocks for the indexer; Options.Debug serves it.
func TestDebugNamespaceOff(t *testing.T) {
	c := newTestChain(t, Options{})
	srv := httptest.NewServer(c.Handler())
	defer srv.Close()
	head := c.Head().NumberU64()
	for _, call := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"debug_setHead","params":["0x1"]}`,
		`{"jsonrpc":"2.0","id":1,"method":"debug_traceBlockByNumber","params":["0x6",{"tracer":"callTracer"}]}`,
		`{"jsonrpc":"2.0","id":1,"method":"debug_standardTraceBlockToFile","params":["` + c.Head().Hash().Hex() + `"]}`,
		`{"jsonrpc":"2.0","id":1,"method":"debug_chaindbCompact","params":[]}`,
		`{"jsonrpc":"2.0","id":1,"method":"admin_exportChain","params":["/tmp/chain"]}`,
		`{"jsonrpc":"2.0","id":1,"method":"miner_setGasLimit","params":["0x1"]}`,
		`[{"jsonrpc":"2.0","id":1,"method":"debug_setHead","params":["0x1"]}]`,
	} {
		status, _, got := rpcCall(t, srv.URL, call)
		if status != http.StatusOK || errCode(got) != -32601 {
			t.Errorf("%s: %d %v; want 200 and -32601 method not found", call, status, got)
		}
	}
	if got := c.Head().NumberU64(); got != head {
		t.Fatalf("head %d after the calls; want %d", got, head)
	}
	var traces []json.RawMessage
	if err := c.Client().CallContext(context.Background(), &traces, "debug_traceBlockByNumber", "0x6", map[string]string{"tracer": "callTracer"}); err != nil || len(traces) != 2 {
		t.Fatalf("Client trace: %d traces, %v; want 2", len(traces), err)
	}

	d := newTestChain(t, Options{Debug: true})
	dsrv := httptest.NewServer(d.Handler())
	defer dsrv.Close()
	if status, _, got := rpcCall(t, dsrv.URL, `{"jsonrpc":"2.0","id":1,"method":"debug_getRawHeader","params":["0x1"]}`); status != http.StatusOK || got["error"] != nil {
		t.Fatalf("with Debug: debug_getRawHeader: %d %v; want served", status, got)
	}
	if status, _, got := rpcCall(t, dsrv.URL, `{"jsonrpc":"2.0","id":1,"method":"debug_setHead","params":["0x99"]}`); status != http.StatusOK || errCode(got) == -32601 {
		t.Fatalf("with Debug: debug_setHead: %d %v; want served (an error of the method, not -32601)", status, got)
	}
}

// TestWriteRate: each client gets WritesPerMinute transactions a minute
// through Handler, batches count every write, a refusal is 429 with
// Retry-After and JSON-RPC -32005 (for each call of a batch), and another
// client keeps its own allowance.
func TestWriteRate(t *testing.T) {
	c := newTestChain(t, Options{WritesPerMinute: 2, WriteKeys: func(r *http.Request) []string {
		return []string{"client:" + r.Header.Get("X-Client")}
	}})
	srv := httptest.NewServer(c.Handler())
	defer srv.Close()
	s := &seeder{c: c, signer: latestSigner(c), nonces: map[common.Address]uint64{}}
	from, to := c.accounts[3], c.accounts[4].Address
	n, err := c.eth.APIBackend.GetPoolNonce(context.Background(), from.Address)
	if err != nil {
		t.Fatal(err)
	}
	s.nonces[from.Address] = n
	send := func(client string) string {
		raw, err := s.tx(from, &to, ether(1), nil, 21000).MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":7,"method":"eth_sendRawTransaction","params":["%s"]}`, hexutil.Encode(raw))
	}
	for i := range 2 {
		if status, _, got := rpcCall(t, srv.URL, send("a"), "X-Client", "a"); status != http.StatusOK || got["error"] != nil {
			t.Fatalf("write %d of client a: %d %v; want accepted", i+1, status, got)
		}
	}
	before := c.Head().NumberU64()
	s.nonces[from.Address]-- // the refused transaction never reaches the pool
	status, retry, got := rpcCall(t, srv.URL, send("a"), "X-Client", "a")
	if status != http.StatusTooManyRequests || errCode(got) != -32005 || got["id"] != float64(7) || retry == "" {
		t.Fatalf("third write of client a: %d Retry-After %q %v; want 429, Retry-After, -32005 with id 7", status, retry, got)
	}
	if c.Head().NumberU64() != before {
		t.Fatal("a refused write was mined")
	}
	// Reads are not writes.
	if status, _, got := rpcCall(t, srv.URL, `{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}`, "X-Client", "a"); status != http.StatusOK || got["error"] != nil {
		t.Fatalf("read of client a: %d %v", status, got)
	}
	// A batch of three writes is over any allowance of two.
	s.nonces[from.Address]++
	batch := "[" + send("b") + "," + send("b") + "," + send("b") + "]"
	if status, _, got := rpcCall(t, srv.URL, batch, "X-Client", "b"); status != http.StatusTooManyRequests || errCode(got) != -32005 || got["id"] != float64(7) {
		t.Fatalf("batch of 3 writes: %d %v; want 429, -32005 for each call with its id", status, got)
	}
	s.nonces[from.Address] -= 3
	if status, _, got := rpcCall(t, srv.URL, send("b"), "X-Client", "b"); status != http.StatusOK || got["error"] != nil {
		t.Fatalf("write of client b: %d %v; want its own allowance", status, got)
	}
}

func TestWriteLimiter(t *testing.T) {
	t0 := time.Unix(1_800_000_000, 0)
	l := newWriteLimiter(2)
	for i, tc := range []struct {
		keys []string
		n    int
		at   time.Duration
		ok   bool
	}{
		{[]string{"ip"}, 2, 0, true},
		{[]string{"ip"}, 1, 0, false},
		{[]string{"ip"}, 1, 30 * time.Second, true}, // 2 a minute: one back every 30 s
		{[]string{"ip"}, 1, 31 * time.Second, false},
		{[]string{"ip2", "key"}, 2, 0, true},
		// key is empty: ip3 must keep its tokens.
		{[]string{"ip3", "key"}, 1, 0, false},
		{[]string{"ip3"}, 2, 0, true},
		{[]string{"ip4"}, 3, 0, false}, // more than the burst
	} {
		ok, wait := l.allow(tc.keys, tc.n, t0.Add(tc.at))
		if ok != tc.ok || (!ok && wait <= 0) {
			t.Fatalf("step %d: allow(%v, %d) = %v, %v; want %v and a wait when refused", i, tc.keys, tc.n, ok, wait, tc.ok)
		}
	}
	// A full table drops idle clients, and shares one bucket when all are
	// busy.
	full := newWriteLimiter(1)
	for i := range maxWriteClients {
		full.allow([]string{fmt.Sprint("busy", i)}, 1, t0)
	}
	if ok, _ := full.allow([]string{"new1"}, 1, t0); !ok {
		t.Fatal("a new client was refused by the overflow bucket's first token")
	}
	if ok, _ := full.allow([]string{"new2"}, 1, t0); ok {
		t.Fatal("the overflow bucket gave a second token")
	}
	if len(full.buckets) > maxWriteClients {
		t.Fatalf("%d buckets; want at most %d", len(full.buckets), maxWriteClients)
	}
	if ok, _ := full.allow([]string{"new3"}, 1, t0.Add(2*time.Minute)); !ok || full.buckets["new3"] == nil {
		t.Fatal("idle clients were not dropped for a new one")
	}
}

// signedTransfers returns n signed transfers of 1 wei from dev3 to dev4,
// each as an eth_sendRawTransaction call with id i, with extra members
// added to each call.
func signedTransfers(t *testing.T, c *Chain, n int, extra string) []string {
	t.Helper()
	s := &seeder{c: c, signer: latestSigner(c), nonces: map[common.Address]uint64{}}
	from, to := c.accounts[3], c.accounts[4].Address
	nonce, err := c.eth.APIBackend.GetPoolNonce(context.Background(), from.Address)
	if err != nil {
		t.Fatal(err)
	}
	s.nonces[from.Address] = nonce
	out := make([]string, n)
	for i := range out {
		raw, err := s.tx(from, &to, big.NewInt(1), nil, 21000).MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		out[i] = fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,%s"method":"eth_sendRawTransaction","params":["%s"]}`, i, extra, hexutil.Encode(raw))
	}
	return out
}

// TestWriteTricks (issue 28 finding 5): the batches that got 61 writes past
// a limit of 60 when writes were counted with encoding/json are refused
// whole, with an error for each call, and nothing of them is mined; 60
// writes pass.
func TestWriteTricks(t *testing.T) {
	c := newTestChain(t, Options{WritesPerMinute: 60, Client: byClient})
	srv := httptest.NewServer(c.Handler())
	defer srv.Close()
	for _, tc := range []struct {
		name   string
		calls  []string
		status int
		code   int
	}{
		{"non-string method first", append([]string{`{"method":1}`}, signedTransfers(t, c, 61, "")...), http.StatusTooManyRequests, -32005},
		{"extra Method member", signedTransfers(t, c, 61, `"Method":"eth_blockNumber",`), http.StatusTooManyRequests, -32005},
		{"61 writes", signedTransfers(t, c, 61, ""), http.StatusTooManyRequests, -32005},
		{"5 with an extra Method member", signedTransfers(t, c, 5, `"Method":"eth_blockNumber",`), http.StatusBadRequest, -32600},
	} {
		t.Run(tc.name, func(t *testing.T) {
			head := c.Head().NumberU64()
			status, raw := post(t, srv.URL, tc.name, "["+strings.Join(tc.calls, ",")+"]")
			var got []answer
			if err := json.Unmarshal(raw, &got); err != nil || status != tc.status || len(got) != len(tc.calls) {
				t.Fatalf("%d, %d answers (%v); want %d and one answer per call: %.300s", status, len(got), err, tc.status, raw)
			}
			for i, a := range got {
				if a.Error == nil || a.Error.Code != tc.code {
					t.Fatalf("call %d: %s; want error %d", i, a, tc.code)
				}
			}
			if h := c.Head().NumberU64(); h != head {
				t.Fatalf("head moved from %d to %d: a refused write was mined", head, h)
			}
		})
	}
	status, raw := post(t, srv.URL, "honest", "["+strings.Join(signedTransfers(t, c, 60, ""), ",")+"]")
	var got []answer
	if err := json.Unmarshal(raw, &got); err != nil || status != http.StatusOK || len(got) != 60 {
		t.Fatalf("60 writes: %d (%v) %.300s; want 200", status, err, raw)
	}
	for i, a := range got {
		if a.Error != nil {
			t.Fatalf("write %d of 60: %s; want accepted", i, a)
		}
	}
}

// TestWriteLimitPer64: by default two addresses of one IPv6 /64 share one
// write allowance; another /64 and an IPv4 address have their own.
func TestWriteLimitPer64(t *testing.T) {
	c := newTestChain(t, Options{WritesPerMinute: 1})
	h := c.Handler()
	txs := signedTransfers(t, c, 3, "")
	for _, tc := range []struct {
		remote string
		body   string
		status int
	}{
		{"[2001:db8:1:2::1]:4000", txs[0], http.StatusOK},
		{"[2001:db8:1:2:ffff::9]:4001", txs[1], http.StatusTooManyRequests},
		{"[2001:db8:1:3::1]:4000", txs[1], http.StatusOK},
		{"198.51.100.7:4000", txs[2], http.StatusOK},
	} {
		r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(tc.body))
		r.Header.Set("Content-Type", "application/json")
		r.RemoteAddr = tc.remote
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != tc.status {
			t.Fatalf("write from %s: %d %s; want %d", tc.remote, w.Code, w.Body.Bytes(), tc.status)
		}
	}
}
