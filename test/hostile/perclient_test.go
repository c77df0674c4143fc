package hostile

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// The dev chains' RPC paths: the C-Chain and the devnet's two chains.
var devChainPaths = []string{"/ext/bc/C/rpc", "/ext/bc/devsubnet/rpc", "/ext/bc/devl1/rpc"}

// loopbackClient is an HTTP client whose connections come from 127.0.0.n,
// so one process is many clients without trusted proxies.
func loopbackClient(n int) *http.Client {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, byte(n))}, Timeout: 5 * time.Second}
	return &http.Client{Timeout: 60 * time.Second, Transport: &http.Transport{DialContext: d.DialContext, MaxIdleConnsPerHost: 8}}
}

// rpcVia posts body to url through c, with key as x-glacier-api-key when
// set, and returns the status and the answers (one, or a batch's).
func rpcVia(t *testing.T, c *http.Client, url, key, body string) (int, []rpcAnswer) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if key != "" {
		req.Header.Set("x-glacier-api-key", key)
	}
	return doRPC(t, c, req)
}

// edgeCPU is the CPU time the edge's process has used so far (user and
// system, from /proc).
func edgeCPU(t *testing.T, e *Edge) time.Duration {
	t.Helper()
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", e.cmd.Process.Pid))
	if err != nil {
		t.Fatal(err)
	}
	// The fields after the command's closing parenthesis; utime and stime
	// are the 14th and 15th of the line, in clock ticks (USER_HZ, 100).
	f := strings.Fields(string(raw[strings.LastIndexByte(string(raw), ')')+2:]))
	utime, _ := strconv.ParseInt(f[11], 10, 64)
	stime, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(utime+stime) * 10 * time.Millisecond
}

// TestDevChainsCallsPerClient (issue 35 finding 4): one client runs at most
// calls_per_client (2) calls at once across all the dev chains, not two on
// each: of six calls that would run a second each, two on each chain, at
// most two run at first and the others wait or are refused with -32005;
// another client's call runs meanwhile. A client is its key when it sends
// one, whatever its address: one key from three addresses is one client.
func TestDevChainsCallsPerClient(t *testing.T) {
	const timeout = time.Second
	e := StartEdge(t, EdgeOptions{Config: "local:\n  evm:\n    call_gas_cap: 1000000000\n    call_timeout: 1s\n", Keys: keysFile(1, true)})
	loop := ecrecoverLoop(t)
	other := loopbackClient(9)
	for _, tc := range []struct {
		name    string
		clients []*http.Client
		key     string
	}{
		{"one address", []*http.Client{loopbackClient(2)}, ""},
		{"one key from three addresses", []*http.Client{loopbackClient(3), loopbackClient(4), loopbackClient(5)}, "key-0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			type result struct {
				a    rpcAnswer
				took time.Duration
			}
			results := make([]result, 7)
			var wg sync.WaitGroup
			start := time.Now()
			for i := range results {
				wg.Add(1)
				go func() {
					defer wg.Done()
					c, key := other, ""
					if i < 6 {
						c, key = tc.clients[i%len(tc.clients)], tc.key
					}
					_, as := rpcVia(t, c, e.URL+devChainPaths[i%3], key, overrideCall(i, "eth_call", loop))
					results[i] = result{as[0], time.Since(start)}
				}()
			}
			wg.Wait()
			ran, early, refused := 0, 0, 0
			for i, r := range results[:6] {
				t.Logf("call %d on %s: %s after %v", i, devChainPaths[i%3], r.a, r.took.Round(time.Millisecond))
				switch {
				case r.a.Error != nil && r.a.Error.Message == "execution aborted (timeout = 1s)":
					ran++
					if r.took < timeout*3/2 {
						early++
					}
				case r.a.Error != nil && r.a.Error.Code == -32005 && strings.Contains(r.a.Error.Message, "too many concurrent calls: at most 2"):
					refused++
				default:
					t.Fatalf("call %d: %s; want run to the timeout or refused", i, r.a)
				}
			}
			if early > 2 || refused < 2 {
				t.Fatalf("%d calls ran at once (%d in all), %d refused; want at most 2 at once across the chains, and so at least 2 refused", early, ran, refused)
			}
			if r := results[6]; r.a.Error == nil || r.a.Error.Message != "execution aborted (timeout = 1s)" || r.took >= timeout*3/2 {
				t.Fatalf("another client's call: %s after %v; want run at once", r.a, r.took)
			}
		})
	}
}

// TestDevChainBatchBudget (issue 35 finding 4): a 20-call batch of the
// ecrecover loop cost 8.3 s of CPU for 400 CU; its calls now share one
// call's budget (call_budget, call_timeout by default): the batch costs
// about what one call costs, and the calls past the budget are refused
// with -32005.
func TestDevChainBatchBudget(t *testing.T) {
	e := StartEdge(t, EdgeOptions{Keys: keysFile(0, true)})
	loop := ecrecoverLoop(t)
	calls := make([]string, 20)
	for i := range calls {
		calls[i] = overrideCall(i, "eth_call", loop)
	}
	c := loopbackClient(2)
	before, start := edgeCPU(t, e), time.Now()
	status, got := rpcVia(t, c, e.URL+"/ext/bc/C/rpc", "", "["+strings.Join(calls, ",")+"]")
	cpu, took := edgeCPU(t, e)-before, time.Since(start)
	t.Logf("20-call batch: %v of the edge's CPU, answered in %v", cpu, took.Round(time.Millisecond))
	if status != http.StatusOK || len(got) != 20 {
		t.Fatalf("batch: %d, %d answers; want 200 and 20", status, len(got))
	}
	refused := 0
	for _, a := range got {
		if a.Error != nil && a.Error.Code == -32005 && strings.Contains(a.Error.Message, "execution budget exhausted") {
			refused++
		}
	}
	if refused < 15 {
		t.Fatalf("%d of 20 calls refused past the budget; want all but the few that fit in 1s: %v", refused, got)
	}
	if cpu > 2500*time.Millisecond {
		t.Fatalf("the batch cost %v of CPU; want about the 1s one call may run", cpu)
	}
}

// TestDevChainsFilterShare (issue 35 finding 4): 64 loopback addresses
// installing 16 filters each (1,024) on devl1 filled its table, and every
// later client got "exceed max filters". The table is now one for all the
// dev chains, a newcomer evicts the filter idle the longest, and a client
// (an address, or a key from any address) holds at most its 16 across the
// chains.
func TestDevChainsFilterShare(t *testing.T) {
	e := StartEdge(t, EdgeOptions{Keys: keysFile(1, true)})
	devl1 := e.URL + "/ext/bc/devl1/rpc"
	filters := strings.TrimSuffix(strings.Repeat(`{"jsonrpc":"2.0","id":1,"method":"eth_newBlockFilter","params":[]},`, 16), ",")
	install := func(c *http.Client, url, key, body string) []rpcAnswer {
		t.Helper()
		_, as := rpcVia(t, c, url, key, body)
		return as
	}
	var first string // the first filter installed: the one idle the longest
	for n := 2; n < 2+64; n++ {
		for i, a := range install(loopbackClient(n), devl1, "", "["+filters+"]") {
			if a.Error != nil {
				t.Fatalf("filter %d of 127.0.0.%d: %s", i, n, a)
			}
			if first == "" {
				first = string(a.Result)
			}
		}
	}
	one := `{"jsonrpc":"2.0","id":1,"method":"eth_newBlockFilter","params":[]}`
	newcomer := loopbackClient(70)
	a := install(newcomer, devl1, "", one)[0]
	if a.Error != nil {
		t.Fatalf("a new client's filter after 1,024 others: %s; want installed", a)
	}
	if a := install(newcomer, devl1, "", `{"jsonrpc":"2.0","id":1,"method":"eth_getFilterChanges","params":[`+string(a.Result)+`]}`)[0]; a.Error != nil {
		t.Fatalf("polling the new client's filter: %s", a)
	}
	if a := install(newcomer, devl1, "", `{"jsonrpc":"2.0","id":1,"method":"eth_getFilterChanges","params":[`+first+`]}`)[0]; a.Error == nil || a.Error.Message != "filter not found" {
		t.Fatalf("polling the filter idle the longest after it was evicted: %s; want filter not found", a)
	}
	// 127.0.0.3 holds its 16 on devl1 (127.0.0.2 lost one): none more on
	// the other chains.
	for _, path := range devChainPaths[:2] {
		if a := install(loopbackClient(3), e.URL+path, "", one)[0]; a.Error == nil || a.Error.Message != "exceed max filters per client" {
			t.Fatalf("a 17th filter of 127.0.0.3 on %s: %s; want exceed max filters per client", path, a)
		}
	}
	// One key is one client from any address.
	for i, a := range install(loopbackClient(71), devl1, "key-0", "["+filters+"]") {
		if a.Error != nil {
			t.Fatalf("filter %d of key-0: %s", i, a)
		}
	}
	if a := install(loopbackClient(72), e.URL+"/ext/bc/C/rpc", "key-0", one)[0]; a.Error == nil || a.Error.Message != "exceed max filters per client" {
		t.Fatalf("a 17th filter of key-0 from another address: %s; want exceed max filters per client", a)
	}
}
