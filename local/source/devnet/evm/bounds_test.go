package evm

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
)

// ecrecoverLoop is EVM code that calls the ecrecover precompile with a
// valid signature forever: PUSH1 128, PUSH1 24, PUSH1 0, CODECOPY (the
// 128 bytes after the code: hash, v, r, s), then JUMPDEST; STATICCALL(gas,
// 1, 0, 128, 128, 32); POP; JUMP back.
func ecrecoverLoop(t testing.TB) []byte {
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
	code = append(code, hash...)
	code = append(code, v...)
	return append(code, sig[:64]...)
}

// spinLoop is EVM code that jumps to itself forever: JUMPDEST, PUSH1 0, JUMP.
var spinLoop = []byte{0x5b, 0x60, 0x00, 0x56}

// callsLoop is init code that calls the identity precompile n times with the
// first size bytes of memory as input, then stops.
func callsLoop(n, size uint16) []byte {
	var nb, sb [2]byte
	binary.BigEndian.PutUint16(nb[:], n)
	binary.BigEndian.PutUint16(sb[:], size)
	return []byte{0x61, nb[0], nb[1], 0x5b, 0x80, 0x15, 0x60, 0x20, 0x57,
		0x60, 0x00, 0x60, 0x00, 0x61, sb[0], sb[1], 0x60, 0x00, 0x60, 0x00, 0x60, 0x04, 0x5a, 0xf1, 0x50,
		0x60, 0x01, 0x90, 0x03, 0x60, 0x03, 0x56, 0x5b, 0x00}
}

// loopAt is the address the tests' state overrides put code at.
var loopAt = common.HexToAddress("0x00000000000000000000000000000000000a11ce")

// overrideCall is an eth_call-shaped call of code placed at loopAt by a
// state override, with extra params (a method's other arguments) between
// the call and the override.
func overrideCall(method string, id int, code []byte, between ...string) string {
	params := append([]string{fmt.Sprintf(`{"to":%q}`, loopAt.Hex())}, between...)
	params = append(params, fmt.Sprintf(`{%q:{"code":%q}}`, loopAt.Hex(), hexutil.Encode(code)))
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":[%s]}`, id, method, strings.Join(params, ","))
}

// post sends body to url as client and returns the status and the raw
// answer.
func post(t testing.TB, url, client, body string) (int, []byte) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Client", client)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, raw
}

type answer struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func (a answer) String() string {
	if a.Error != nil {
		return fmt.Sprintf("error %d %q", a.Error.Code, a.Error.Message)
	}
	return "result " + string(a.Result)
}

// byClient names the client of a request by its X-Client header.
func byClient(r *http.Request) string { return "client:" + r.Header.Get("X-Client") }

// TestCallBounds: a call that would run forever is cut off at CallTimeout
// with go-ethereum's words, whichever method runs it, every call of a batch
// is cut off on its own, and CallGasCap bounds the gas.
func TestCallBounds(t *testing.T) {
	c := newTestChain(t, Options{CallTimeout: 25 * time.Millisecond, NoSeed: true, Client: byClient})
	srv := httptest.NewServer(c.Handler())
	defer srv.Close()
	loop := ecrecoverLoop(t)
	aborted := "execution aborted (timeout = 25ms)"
	for _, call := range []string{
		overrideCall("eth_call", 1, loop, `"latest"`),
		overrideCall("eth_estimateGas", 1, loop, `"latest"`),
		overrideCall("eth_createAccessList", 1, loop, `"latest"`),
		fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"eth_fillTransaction","params":[{"from":%q,"data":%q}]}`, c.accounts[0].Address.Hex(), hexutil.Encode(loop)),
	} {
		var a answer
		_, raw := post(t, srv.URL, "a", call)
		if json.Unmarshal(raw, &a) != nil || a.Error == nil || !strings.Contains(a.Error.Message, aborted) {
			t.Errorf("%.60s...: %s; want %q", call, raw, aborted)
		}
	}
	_, raw := post(t, srv.URL, "a", fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"eth_simulateV1","params":[{"blockStateCalls":[{"stateOverrides":{%q:{"code":%q}},"calls":[{"to":%q}]}]},"latest"]}`,
		loopAt.Hex(), hexutil.Encode(loop), loopAt.Hex()))
	if !strings.Contains(string(raw), "timeout") {
		t.Errorf("eth_simulateV1: %s; want it cut off at the timeout", raw)
	}

	// A batch of 100: the calls share one budget, CallTimeout by default:
	// the first is cut off at it, the others are refused.
	calls := make([]string, 100)
	for i := range calls {
		calls[i] = overrideCall("eth_call", i, loop, `"latest"`)
	}
	_, raw = post(t, srv.URL, "a", "["+strings.Join(calls, ",")+"]")
	var batch []answer
	if err := json.Unmarshal(raw, &batch); err != nil || len(batch) != 100 {
		t.Fatalf("batch: %d answers (%v); want 100", len(batch), err)
	}
	const spent = "execution budget exhausted: the calls of one request run the EVM at most 25ms in all"
	for i, a := range batch {
		want := spent
		if i == 0 {
			want = aborted
		}
		if a.Error == nil || a.Error.Message != want || i > 0 && a.Error.Code != -32005 {
			t.Fatalf("batch call %d: %s; want %q", i, a, want)
		}
	}

	// The gas cap: a loop that never ends needs more than the cap.
	g := newTestChain(t, Options{CallGasCap: 1_000_000, NoSeed: true})
	gsrv := httptest.NewServer(g.Handler())
	defer gsrv.Close()
	_, raw = post(t, gsrv.URL, "a", overrideCall("eth_estimateGas", 1, spinLoop, `"latest"`))
	if !strings.Contains(string(raw), "gas required exceeds allowance (1000000)") {
		t.Fatalf("eth_estimateGas of an endless loop: %s; want the cap of 1000000", raw)
	}
}

// TestCallBudget: a batch's calls share Options.CallBudget: each is cut
// off at CallTimeout or at what is left, and once it is spent the others
// are refused with -32005 without running; calls that do not run the EVM
// are not counted.
func TestCallBudget(t *testing.T) {
	c := newTestChain(t, Options{CallTimeout: 40 * time.Millisecond, CallBudget: 100 * time.Millisecond, NoSeed: true, Client: byClient})
	srv := httptest.NewServer(c.Handler())
	defer srv.Close()
	loop := ecrecoverLoop(t)
	calls := []string{`{"jsonrpc":"2.0","id":0,"method":"eth_blockNumber","params":[]}`}
	for i := 1; i <= 10; i++ {
		calls = append(calls, overrideCall("eth_call", i, loop, `"latest"`))
	}
	_, raw := post(t, srv.URL, "a", "["+strings.Join(calls, ",")+"]")
	var batch []answer
	if err := json.Unmarshal(raw, &batch); err != nil || len(batch) != len(calls) {
		t.Fatalf("batch: %d answers (%v); want %d", len(batch), err, len(calls))
	}
	if batch[0].Error != nil {
		t.Fatalf("eth_blockNumber: %s", batch[0])
	}
	// 40ms, 40ms, then the ~20ms left (none, on a loaded machine): at most
	// three calls ran, seven or more were refused.
	for i, a := range batch[1:] {
		refused := a.Error != nil && a.Error.Code == -32005 && strings.Contains(a.Error.Message, "budget exhausted")
		switch {
		case i < 2 && (a.Error == nil || a.Error.Message != "execution aborted (timeout = 40ms)"):
			t.Fatalf("call %d: %s; want cut off at 40ms", i+1, a)
		case i == 2 && !refused && (a.Error == nil || !strings.HasPrefix(a.Error.Message, "execution aborted (timeout = ")):
			t.Fatalf("call %d: %s; want cut off at what is left of the budget, or refused", i+1, a)
		case i > 2 && !refused:
			t.Fatalf("call %d: %s; want -32005 budget exhausted", i+1, a)
		}
	}
	// Another request has a budget of its own.
	_, raw = post(t, srv.URL, "a", overrideCall("eth_call", 1, loop, `"latest"`))
	if !strings.Contains(string(raw), "execution aborted (timeout = 40ms)") {
		t.Fatalf("the next request's call: %s; want cut off at 40ms", raw)
	}
}

// TestCallSlotsShared: chains with one Shares count a client's running
// calls across them: with its slots held on one chain, its call on
// another waits, then is refused; another client's runs.
func TestCallSlotsShared(t *testing.T) {
	shares := NewShares(Options{CallsPerClient: 2})
	c := newTestChain(t, Options{NoSeed: true, Client: byClient, CallTimeout: 30 * time.Millisecond, Shares: shares})
	srv := httptest.NewServer(c.Handler())
	defer srv.Close()
	ctx := context.Background()
	for range 2 { // a's two calls running on another chain of the shares
		release, err := shares.slots.acquire(ctx, "client:a", time.Millisecond)
		if err != nil {
			t.Fatal(err)
		}
		defer release()
	}
	call := overrideCall("eth_call", 1, ecrecoverLoop(t), `"latest"`)
	if _, raw := post(t, srv.URL, "a", call); !strings.Contains(string(raw), "too many concurrent calls: at most 2") {
		t.Fatalf("a's third call: %s; want refused", raw)
	}
	if _, raw := post(t, srv.URL, "b", call); !strings.Contains(string(raw), "execution aborted (timeout = 30ms)") {
		t.Fatalf("b's call: %s; want run", raw)
	}
}

// TestCallSlots: a client runs at most its slots of calls at once; the next
// waits up to the wait, then is refused with -32005, while other clients
// run; a client without calls is forgotten.
func TestCallSlots(t *testing.T) {
	s := newCallSlots(2)
	ctx := context.Background()
	r1, err1 := s.acquire(ctx, "a", time.Millisecond)
	r2, err2 := s.acquire(ctx, "a", time.Millisecond)
	if err1 != nil || err2 != nil {
		t.Fatalf("two slots of a: %v, %v", err1, err2)
	}
	_, err := s.acquire(ctx, "a", 10*time.Millisecond)
	if le, ok := err.(*limitError); !ok || le.ErrorCode() != -32005 || !strings.Contains(le.Error(), "at most 2") {
		t.Fatalf("third slot of a: %v; want -32005 too many concurrent calls", err)
	}
	rb, err := s.acquire(ctx, "b", time.Millisecond)
	if err != nil {
		t.Fatalf("slot of b while a is full: %v", err)
	}
	rb()
	got := make(chan error, 1)
	go func() {
		r, err := s.acquire(ctx, "a", 10*time.Second)
		if err == nil {
			r()
		}
		got <- err
	}()
	r1()
	if err := <-got; err != nil {
		t.Fatalf("a waiting call did not get the slot given back: %v", err)
	}
	r2()
	if len(s.clients) != 0 {
		t.Fatalf("%d clients remembered after all calls ended; want 0", len(s.clients))
	}
}

// TestGuardUncounted: a transaction Handler did not count is refused at
// dispatch, whatever reached go-ethereum.
func TestGuardUncounted(t *testing.T) {
	c := newTestChain(t, Options{NoSeed: true})
	srv := c.public
	req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(write))
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	srv.ServeHTTP(rec, req.WithContext(withRequest(context.Background(), &request{client: "x"})))
	var a answer
	if json.Unmarshal(rec.Body.Bytes(), &a) != nil || a.Error == nil || a.Error.Code != -32005 {
		t.Fatalf("an uncounted eth_sendRawTransaction: %s; want -32005", rec.Body.Bytes())
	}
}
