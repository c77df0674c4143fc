package hostile

import (
	"crypto/ecdsa"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
)

// The dev chain as the tests reach it: avalanchego's well-known ewoq key,
// funded with 50,000,000 AVAX on chain 43112.
const ewoqHex = "56289e99c94b6912bfc12adc093c9b51124f0dc54ac7a766b2bc5ccf558d8027"

var (
	devChainID  = big.NewInt(43112)
	ewoqGenesis = new(big.Int).Mul(big.NewInt(50_000_000), big.NewInt(1e18))
)

// devChainConfig trusts loopback's X-Forwarded-For, so one process can be
// many clients, and bounds calls to 50ms and filters to 2 per client and 3
// in all.
const devChainConfig = `
trusted_proxies: [127.0.0.1/32]
local:
  evm:
    call_timeout: 50ms
    filters_per_client: 2
    max_filters: 3
`

// rpcAnswer is one JSON-RPC answer.
type rpcAnswer struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func (a rpcAnswer) String() string {
	if a.Error != nil {
		return fmt.Sprintf("error %d %q", a.Error.Code, a.Error.Message)
	}
	return "result " + string(a.Result)
}

// devRPC posts body to the edge's /ext/bc/C/rpc as the client at address
// from (X-Forwarded-For) and returns the status and the answers (one, or a
// batch's).
func devRPC(t *testing.T, e *Edge, from, body string) (int, []rpcAnswer) {
	t.Helper()
	return devRPCAt(t, e, "/ext/bc/C/rpc", from, body)
}

// devRPCAt is devRPC on the chain at path.
func devRPCAt(t *testing.T, e *Edge, path, from, body string) (int, []rpcAnswer) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, e.URL+path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Forwarded-For", from)
	return doRPC(t, &http.Client{Timeout: 60 * time.Second}, req)
}

// doRPC sends req through c and returns the status and the answers.
func doRPC(t *testing.T, c *http.Client, req *http.Request) (int, []rpcAnswer) {
	t.Helper()
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var many []rpcAnswer
	if json.Unmarshal(raw, &many) == nil {
		return resp.StatusCode, many
	}
	var one rpcAnswer
	if err := json.Unmarshal(raw, &one); err != nil {
		t.Fatalf("%d %.300s: not JSON-RPC", resp.StatusCode, raw)
	}
	return resp.StatusCode, []rpcAnswer{one}
}

// devCall makes one call and returns its answer.
func devCall(t *testing.T, e *Edge, from, method, params string) rpcAnswer {
	t.Helper()
	_, a := devRPC(t, e, from, fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":%q,"params":%s}`, method, params))
	return a[0]
}

// wallet signs the dev chain's transactions of one key.
type wallet struct {
	key   *ecdsa.PrivateKey
	addr  common.Address
	nonce uint64
}

func ewoqWallet(t *testing.T, e *Edge) *wallet {
	t.Helper()
	key, _ := crypto.HexToECDSA(ewoqHex)
	w := &wallet{key: key, addr: crypto.PubkeyToAddress(key.PublicKey)}
	w.nonce = w.txCount(t, e, "pending")
	return w
}

// txCount is the key's eth_getTransactionCount at block.
func (w *wallet) txCount(t *testing.T, e *Edge, block string) uint64 {
	t.Helper()
	a := devCall(t, e, "192.0.2.1", "eth_getTransactionCount", fmt.Sprintf(`[%q,%q]`, w.addr.Hex(), block))
	var n hexutil.Uint64
	if a.Error != nil || json.Unmarshal(a.Result, &n) != nil {
		t.Fatalf("eth_getTransactionCount: %s", a)
	}
	return uint64(n)
}

// send returns the eth_sendRawTransaction call (id id, with extra members)
// of the next transaction: value to to (a creation running data when to is
// nil).
func (w *wallet) send(t *testing.T, id int, extra string, to *common.Address, value *big.Int, data []byte, gas uint64) string {
	t.Helper()
	tx := types.MustSignNewTx(w.key, types.LatestSignerForChainID(devChainID), &types.DynamicFeeTx{ChainID: devChainID, Nonce: w.nonce,
		GasTipCap: big.NewInt(1e9), GasFeeCap: big.NewInt(50e9), Gas: gas, To: to, Value: value, Data: data})
	w.nonce++
	raw, err := tx.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,%s"method":"eth_sendRawTransaction","params":[%q]}`, id, extra, hexutil.Encode(raw))
}

// transfers returns n calls sending 1 wei each, from nonce on (the wallet's
// nonce is left as it was: refused transactions never use theirs).
func (w *wallet) transfers(t *testing.T, n int, extra string) []string {
	t.Helper()
	to := common.HexToAddress("0x00000000000000000000000000000000000000b0")
	start := w.nonce
	out := make([]string, n)
	for i := range out {
		out[i] = w.send(t, i, extra, &to, big.NewInt(1), nil, 21_000)
	}
	w.nonce = start
	return out
}

// ecrecoverLoop is EVM code that calls the ecrecover precompile with a
// valid signature forever (CODECOPY of the 128 bytes after the code, then
// STATICCALL(gas, 1, 0, 128, 128, 32) in a loop).
func ecrecoverLoop(t *testing.T) []byte {
	t.Helper()
	key, _ := crypto.GenerateKey()
	hash := crypto.Keccak256([]byte("avaedge"))
	sig, err := crypto.Sign(hash, key)
	if err != nil {
		t.Fatal(err)
	}
	code := []byte{0x60, 0x80, 0x60, 0x18, 0x60, 0x00, 0x39, 0x5b,
		0x60, 0x20, 0x60, 0x80, 0x60, 0x80, 0x60, 0x00, 0x60, 0x01, 0x5a, 0xfa, 0x50, 0x60, 0x07, 0x56}
	v := make([]byte, 32)
	v[31] = 27 + sig[64]
	return append(append(append(code, hash...), v...), sig[:64]...)
}

// overrideCall is a call of method to code put at an address by a state
// override (the finding's eth_call).
func overrideCall(id int, method string, code []byte) string {
	at := "0x00000000000000000000000000000000000a11ce"
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":[{"to":%q},"latest",{%q:{"code":%q}}]}`, id, method, at, at, hexutil.Encode(code))
}

// TestDevChainCallBounded (issue 28 finding 5): one eth_call with a state
// override running an ecrecover loop is cut off at local.evm.call_timeout
// with go-ethereum's words; a 100-call batch of it shares one budget (issue
// 35: call_budget, call_timeout by default), so its first call is cut off
// and the others are refused; with the defaults a call stops at 25,000,000
// gas or 1s.
func TestDevChainCallBounded(t *testing.T) {
	e := StartEdge(t, EdgeOptions{Config: devChainConfig, Keys: keysFile(0, true)})
	loop := ecrecoverLoop(t)
	const aborted = "execution aborted (timeout = 50ms)"
	for _, method := range []string{"eth_call", "eth_estimateGas", "eth_createAccessList"} {
		if _, a := devRPC(t, e, "192.0.2.10", overrideCall(1, method, loop)); a[0].Error == nil || a[0].Error.Message != aborted {
			t.Errorf("%s of the loop: %s; want %q", method, a[0], aborted)
		}
	}
	calls := make([]string, 100)
	for i := range calls {
		calls[i] = overrideCall(i, "eth_call", loop)
	}
	start := time.Now()
	status, got := devRPC(t, e, "192.0.2.10", "["+strings.Join(calls, ",")+"]")
	t.Logf("100-call batch answered in %v", time.Since(start).Round(time.Millisecond))
	if status != http.StatusOK || len(got) != 100 {
		t.Fatalf("batch: %d, %d answers; want 200 and 100", status, len(got))
	}
	for i, a := range got {
		want := "execution budget exhausted: the calls of one request run the EVM at most 50ms in all"
		if i == 0 {
			want = aborted
		}
		if a.Error == nil || a.Error.Message != want {
			t.Fatalf("batch call %d: %s; want %q", i, a, want)
		}
	}

	d := StartEdge(t, EdgeOptions{Keys: keysFile(0, true)})
	start = time.Now()
	_, got = devRPC(t, d, "192.0.2.11", overrideCall(1, "eth_estimateGas", loop))
	a, took := got[0], time.Since(start)
	t.Logf("with the defaults, eth_estimateGas of the loop: %s in %v", a, took.Round(time.Millisecond))
	if a.Error == nil || (a.Error.Message != "gas required exceeds allowance (25000000)" && a.Error.Message != "execution aborted (timeout = 1s)") {
		t.Fatalf("eth_estimateGas of the loop with the defaults: %s; want the 25,000,000 gas cap or the 1s timeout", a)
	}
	if took > 5*time.Second {
		t.Fatalf("eth_estimateGas of the loop took %v; want about a second at most", took)
	}
}

// TestDevChainWriteTricks (issue 28 finding 5): the batches that got 61
// writes past a limit of 60 are refused whole with 429 and -32005 for each
// call, nothing of them is mined, and two addresses of one IPv6 /64 share
// one allowance.
func TestDevChainWriteTricks(t *testing.T) {
	e := StartEdge(t, EdgeOptions{Config: devChainConfig, Keys: keysFile(0, true)})
	w := ewoqWallet(t, e)
	mined := w.txCount(t, e, "latest")
	for _, tc := range []struct {
		name, from string
		calls      []string
	}{
		{"non-string method first", "2001:db8:a::1", append([]string{`{"method":1}`}, w.transfers(t, 61, "")...)},
		{"extra Method member", "2001:db8:b::1", w.transfers(t, 61, `"Method":"eth_blockNumber",`)},
		{"61 writes", "2001:db8:c::1", w.transfers(t, 61, "")},
	} {
		status, got := devRPC(t, e, tc.from, "["+strings.Join(tc.calls, ",")+"]")
		if status != http.StatusTooManyRequests || len(got) != len(tc.calls) {
			t.Fatalf("%s: %d with %d answers; want 429 and one answer per call", tc.name, status, len(got))
		}
		for i, a := range got {
			// The writes get -32005; the element without a method may be
			// answered as an invalid request by whoever reads it first.
			if a.Error == nil || (a.Error.Code != -32005 && strings.Contains(tc.calls[i], "eth_sendRawTransaction")) {
				t.Fatalf("%s: call %d: %s; want -32005", tc.name, i, a)
			}
		}
	}
	if n := w.txCount(t, e, "latest"); n != mined {
		t.Fatalf("ewoq's transaction count went from %d to %d: refused writes were mined", mined, n)
	}
	// One address of a /64 spends the allowance; another of the same /64
	// is refused, one of another /64 is not.
	status, got := devRPC(t, e, "2001:db8:d::1", "["+strings.Join(w.transfers(t, 60, ""), ",")+"]")
	if status != http.StatusOK || len(got) != 60 || got[59].Error != nil {
		t.Fatalf("60 writes from 2001:db8:d::1: %d, %d answers, last %v; want 200", status, len(got), got[len(got)-1])
	}
	w.nonce += 60
	if status, got := devRPC(t, e, "2001:db8:d::ffff:2", w.transfers(t, 1, "")[0]); status != http.StatusTooManyRequests || got[0].Error == nil || got[0].Error.Code != -32005 {
		t.Fatalf("a write from 2001:db8:d::ffff:2 after its /64 spent 60: %d %s; want 429 -32005", status, got[0])
	}
	if status, got := devRPC(t, e, "2001:db8:e::1", w.transfers(t, 1, "")[0]); status != http.StatusOK || got[0].Error != nil {
		t.Fatalf("a write from another /64: %d %s; want accepted", status, got[0])
	}
}

// TestDevChainFilterCap (issue 28 finding 5): filters are capped per client
// with go-ethereum's kind of error, and in all (issue 35: a newcomer past
// the cap evicts the filter idle the longest).
func TestDevChainFilterCap(t *testing.T) {
	e := StartEdge(t, EdgeOptions{Config: devChainConfig, Keys: keysFile(0, true)})
	checkFilterCap(t, e, "/ext/bc/C/rpc", "198.51.100.")
}

// checkFilterCap installs filters on the chain at path from three clients
// of the network prefix (fresh ones: the caps count across the chains):
// devChainConfig's caps (2 per client, 3 in all) refuse the third of one
// client with go-ethereum's kind of error, and the fourth in all evicts the
// first; a method outside the public namespaces is refused at the edge.
func checkFilterCap(t *testing.T, e *Edge, path, prefix string) {
	t.Helper()
	var first string
	for i, tc := range []struct {
		from, method, want string
	}{
		{"1", "eth_newBlockFilter", ""},
		{"1", "eth_newPendingTransactionFilter", ""},
		{"1", "eth_newBlockFilter", "exceed max filters per client"},
		{"2", "eth_newBlockFilter", ""},
		{"3", "eth_newBlockFilter", ""},
		{"3", "eth_getFilterChanges", "filter not found"},
		{"4", "admin_peers", "the method admin_peers does not exist/is not available"},
	} {
		params := "[]"
		if tc.method == "eth_getFilterChanges" {
			params = "[" + first + "]"
		}
		_, as := devRPCAt(t, e, path, prefix+tc.from, fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":%q,"params":%s}`, tc.method, params))
		if a := as[0]; tc.want == "" && a.Error != nil || tc.want != "" && (a.Error == nil || a.Error.Message != tc.want) {
			t.Fatalf("%s call %d (%s from %s): %s; want %q", path, i, tc.method, prefix+tc.from, a, tc.want)
		}
		if i == 0 {
			first = string(as[0].Result)
		}
	}
}

// TestDevnetChainsBounded (issue 27): the devnet's subnet chains, at their
// aliases, have the dev chain's per-client bounds (issue 35: counted across
// the chains); methods outside the public namespaces are refused at the
// edge as on /ext/bc/C/rpc.
func TestDevnetChainsBounded(t *testing.T) {
	e := StartEdge(t, EdgeOptions{Config: devChainConfig, Keys: keysFile(0, true)})
	for i, chain := range []string{"devsubnet", "devl1"} {
		t.Run(chain, func(t *testing.T) { checkFilterCap(t, e, "/ext/bc/"+chain+"/rpc", fmt.Sprintf("198.51.10%d.", i+1)) })
	}
}

// TestDevChainDrain (issue 28 finding 5): a client moving 49,000,000 AVAX
// out of ewoq gets them, and ewoq holds its genesis balance again when the
// answer arrives; the next client's transfer from ewoq goes through.
func TestDevChainDrain(t *testing.T) {
	e := StartEdge(t, EdgeOptions{Config: devChainConfig, Keys: keysFile(0, true)})
	w := ewoqWallet(t, e)
	thief := common.HexToAddress("0x00000000000000000000000000000000000000c0")
	drain := new(big.Int).Mul(big.NewInt(49_000_000), big.NewInt(1e18))
	balance := func(a common.Address) *big.Int {
		t.Helper()
		r := devCall(t, e, "192.0.2.1", "eth_getBalance", fmt.Sprintf(`[%q,"latest"]`, a.Hex()))
		var b hexutil.Big
		if r.Error != nil || json.Unmarshal(r.Result, &b) != nil {
			t.Fatalf("eth_getBalance: %s", r)
		}
		return b.ToInt()
	}
	if _, got := devRPC(t, e, "203.0.113.66", w.send(t, 1, "", &thief, drain, nil, 21_000)); got[0].Error != nil {
		t.Fatalf("the drain: %s", got[0])
	}
	if got := balance(thief); got.Cmp(drain) != 0 {
		t.Fatalf("the thief holds %v; want %v", got, drain)
	}
	floor := new(big.Int).Sub(ewoqGenesis, big.NewInt(1e9))
	if got := balance(w.addr); got.Cmp(floor) <= 0 || got.Cmp(ewoqGenesis) > 0 {
		t.Fatalf("ewoq holds %v after the drain's answer; want its genesis %v (to the gwei)", got, ewoqGenesis)
	}
	to := common.HexToAddress("0x00000000000000000000000000000000000000c1")
	if _, got := devRPC(t, e, "203.0.113.67", w.send(t, 1, "", &to, big.NewInt(1e16), nil, 21_000)); got[0].Error != nil {
		t.Fatalf("another client's transfer from ewoq: %s", got[0])
	}
	if got := balance(to); got.Cmp(big.NewInt(1e16)) != 0 {
		t.Fatalf("the transfer's recipient holds %v; want 0.01 AVAX", got)
	}
}

// TestDevChainOversizedTrace (issue 28 finding 5): a transaction making
// more call frames than the indexer's tracer keeps is indexed without
// internal transactions: the Data API answers it with none, the block is
// logged and counted.
func TestDevChainOversizedTrace(t *testing.T) {
	e := StartEdge(t, EdgeOptions{Config: devChainConfig, Keys: keysFile(0, true)})
	w := ewoqWallet(t, e)
	// 10,000 calls of the identity precompile in a contract creation.
	code := []byte{0x61, 10_000 >> 8, 10_000 & 0xff, 0x5b, 0x80, 0x15, 0x60, 0x1c, 0x57,
		0x60, 0x00, 0x60, 0x00, 0x60, 0x00, 0x60, 0x00, 0x60, 0x00, 0x60, 0x04, 0x5a, 0xf1, 0x50,
		0x60, 0x01, 0x90, 0x03, 0x60, 0x03, 0x56, 0x5b, 0x00}
	_, got := devRPC(t, e, "192.0.2.20", w.send(t, 1, "", nil, nil, code, 5_000_000))
	var hash string
	if got[0].Error != nil || json.Unmarshal(got[0].Result, &hash) != nil {
		t.Fatalf("the transaction: %s", got[0])
	}
	var tx struct {
		InternalTransactions []json.RawMessage `json:"internalTransactions"`
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get(e.URL + "/v1/chains/43112/transactions/" + hash)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			if err := json.Unmarshal(body, &tx); err != nil {
				t.Fatal(err)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("getTransaction %s: %d %.300s", hash, resp.StatusCode, body)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if len(tx.InternalTransactions) != 0 {
		t.Fatalf("%d internal transactions; want none for a block indexed without them", len(tx.InternalTransactions))
	}
	if n := e.Metric(t, `avaedge_evmindex_untraced_blocks_total{chain_id="43112"}`); n != 1 {
		t.Fatalf("avaedge_evmindex_untraced_blocks_total %v; want 1", n)
	}
	if n := e.LogCount("trace exceeds 10000 call frames"); n != 1 {
		t.Fatalf("%d log lines naming the trace's bound; want 1", n)
	}
}
