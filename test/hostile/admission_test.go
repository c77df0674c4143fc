package hostile

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// cpuTime is the edge process's CPU time so far (user and system, from
// /proc/PID/stat, in clock ticks of 10 ms).
func (e *Edge) cpuTime(t *testing.T) time.Duration {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", e.cmd.Process.Pid))
	if err != nil {
		t.Fatalf("reading the edge's CPU time: %v", err)
	}
	// The fields after the command name, which is in parentheses.
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+2:]))
	utime, _ := strconv.ParseInt(f[11], 10, 64)
	stime, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(utime+stime) * 10 * time.Millisecond
}

// post sends body to url with key (none when "") and returns the status,
// the ratelimit-remaining header (-1 when absent) and the body. A client
// refused before its body was read may see the connection closed while it
// still writes: the answer it got is what counts.
func post(t *testing.T, url, key, body string) (int, int64, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if key != "" {
		req.Header.Set("x-glacier-api-key", key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("POST %s (%d bytes): %v", url, len(body), err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	left := int64(-1)
	if v := resp.Header.Get("ratelimit-remaining"); v != "" {
		left, _ = strconv.ParseInt(v, 10, 64)
	}
	return resp.StatusCode, left, string(b)
}

// hugeBatch is the batch of issue 35, finding 1: [1,1,...] of 499,999
// elements, just under the 1 MiB body limit.
var hugeBatch = "[" + strings.Repeat("1,", 499_998) + "1]"

// TestAdmissionFirst (issue 35, finding 1): every endpoint admits before it
// parses. An address already at 429 gets 429 for the 499,999-element batch,
// whose elements are never read: 100 of them cost the edge under 0.5 s of
// CPU in all (13.65 s before); garbage, empty and oversized bodies are
// charged (1 CU each) and counted in usage; a key whose plan allows only the
// Metrics API gets 403 at the node endpoints whatever it sends.
func TestAdmissionFirst(t *testing.T) {
	up := rpcUpstream(t)
	keys := `plans:
  tight: {cu_per_day: 3}
  day: {cu_per_day: 1000000}
  metrics: {routes: [getEvmChainMetrics, listChains]}
keys:
  - {id: k, key: key-k, plan: day}
  - {id: m, key: key-m, plan: metrics}
anonymous: tight
`
	env := proxyEnv(up)
	env["AVAEDGE_USAGE_FLUSH_INTERVAL"] = "100ms"
	env["AVAEDGE_ADMIN_TOKEN"] = "admin-token"
	e := StartEdge(t, EdgeOptions{Env: env, Keys: keys})

	// The address spends its day, then sends the batch.
	for i := 0; ; i++ {
		if resp, _ := getWithKey(t, e.URL+"/v1/chains", ""); resp.StatusCode == http.StatusTooManyRequests {
			break
		} else if i == 10 {
			t.Fatalf("the anonymous address was never refused: %d", resp.StatusCode)
		}
	}
	before := len(up.Received())
	cpu0 := e.cpuTime(t)
	start := time.Now()
	codes := map[int]int{}
	for range 100 {
		status, _, _ := post(t, e.URL+"/ext/bc/C/rpc", "", hugeBatch)
		codes[status]++
	}
	cpu, wall := e.cpuTime(t)-cpu0, time.Since(start)
	t.Logf("100 batches of 499,999 elements from an address at 429: %v, edge CPU %v in %v", codes, cpu, wall)
	if codes[http.StatusTooManyRequests] != 100 {
		t.Errorf("answers %v; want 100 429s", codes)
	}
	if cpu >= 500*time.Millisecond {
		t.Errorf("the edge spent %v of CPU on them; want under 0.5 s", cpu)
	}
	for _, c := range []struct{ path, body string }{
		{"/ext/bc/C/rpc", "{"}, {"/ext/bc/C/rpc", "[]"}, {"/ext/info", "garbage"}, {"/ext/info", `{"jsonrpc":"2.0","id":1,"method":"info.getNetworkID"}`},
	} {
		if status, _, body := post(t, e.URL+c.path, "", c.body); status != http.StatusTooManyRequests {
			t.Errorf("address at 429: %s %s = %d %s; want 429", c.path, c.body, status, body)
		}
	}

	// A key allowed only the Metrics API: 403 at the node endpoints.
	for _, c := range []struct{ path, body string }{
		{"/ext/info", "garbage"}, {"/ext/info", `{"jsonrpc":"2.0","id":1,"method":"info.getNetworkID"}`},
		{"/ext/bc/X", "[]"}, {"/ext/bc/C/rpc", "{"}, {"/ext/bc/C/rpc", hugeBatch},
	} {
		if status, _, body := post(t, e.URL+c.path, "key-m", c.body); status != http.StatusForbidden {
			t.Errorf("metrics-only key: %s %.40s = %d %s; want 403", c.path, c.body, status, body)
		}
	}
	if got := up.Received()[before:]; len(got) != 0 {
		t.Errorf("the upstream received %d requests; want none", len(got))
	}

	// A key within its limits: each body that names no call costs 1 CU.
	_, prev, _ := post(t, e.URL+"/ext/info", "key-k", `{"jsonrpc":"2.0","id":1,"method":"info.getNetworkID"}`)
	for _, c := range []struct {
		path, body string
		status     int
	}{
		{"/ext/bc/C/rpc", "{", 200},
		{"/ext/bc/C/rpc", "[]", 200},
		{"/ext/bc/C/rpc", hugeBatch, http.StatusRequestEntityTooLarge},
		{"/ext/bc/C/rpc", strings.Repeat(" ", 2<<20), http.StatusRequestEntityTooLarge},
		{"/ext/info", "garbage", 200},
		{"/ext/info", "", 200},
	} {
		status, left, body := post(t, e.URL+c.path, "key-k", c.body)
		if status != c.status || prev-left != 1 {
			t.Errorf("%s %.40q = %d %.120s, charged %d CU; want %d, 1 CU", c.path, c.body, status, body, prev-left, c.status)
		}
		prev = left
	}
	// Counted in usage with what they were charged: the seven calls above.
	want := func(k keyUsage) bool {
		return k.APICreditsUsed == 7 && k.ByStatus["200"] == 5 && k.ByStatus["413"] == 2
	}
	if k := waitUsage(t, e, "k", want); !want(k) {
		t.Errorf("key k's usage = %+v; want 7 CU, 5 200s and 2 413s", k)
	}
}

// keyUsage is one key's line of the admin usage view (GET /admin/usage).
type keyUsage struct {
	Key            string           `json:"key"`
	APICreditsUsed int64            `json:"apiCreditsUsed"`
	ByStatus       map[string]int64 `json:"byStatus"`
}

// waitUsage polls the admin usage view (the edge started with admin token
// "admin-token") until ok holds for key's line, for at most 10 s, and
// returns that line.
func waitUsage(t *testing.T, e *Edge, key string, ok func(keyUsage) bool) keyUsage {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		var got struct {
			Keys []keyUsage `json:"keys"`
		}
		req, _ := http.NewRequest(http.MethodGet, e.Admin+"/admin/usage", nil)
		req.Header.Set("Authorization", "Bearer admin-token")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		json.NewDecoder(resp.Body).Decode(&got)
		resp.Body.Close()
		var k keyUsage
		for _, l := range got.Keys {
			if l.Key == key {
				k = l
			}
		}
		if ok(k) || time.Now().After(deadline) {
			return k
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestRefusedEVMCallsCharged (issue 35, finding 7): a call the EVM
// endpoint refuses at the edge (a method it does not serve, an invalid
// element) costs evm.rpc's 1 CU, as docs/routes.md says, and usage records
// that (it recorded 0).
func TestRefusedEVMCallsCharged(t *testing.T) {
	up := rpcUpstream(t)
	env := proxyEnv(up)
	env["AVAEDGE_USAGE_FLUSH_INTERVAL"] = "100ms"
	env["AVAEDGE_ADMIN_TOKEN"] = "admin-token"
	e := StartEdge(t, EdgeOptions{Env: env, Keys: "plans:\n  day: {cu_per_day: 1000000}\nkeys:\n  - {id: k0, key: key-0, plan: day}\n"})
	_, l0, _ := post(t, e.URL+"/ext/bc/C/rpc", "key-0", `{"jsonrpc":"2.0","id":1,"method":"admin_peers"}`)
	_, l1, body := post(t, e.URL+"/ext/bc/C/rpc", "key-0", `[{"jsonrpc":"2.0","id":2,"method":"txpool_content"},{"method":1},{"jsonrpc":"2.0","id":3,"method":"debug_x"}]`)
	if !strings.Contains(body, "-32601") {
		t.Fatalf("refused batch = %s", body)
	}
	want := func(k keyUsage) bool { return k.APICreditsUsed == 4 && k.ByStatus["200"] == 2 }
	if k := waitUsage(t, e, "k0", want); !want(k) || l0-l1 != 3 {
		t.Errorf("key k0's usage = %+v, the batch charged %d CU; want 4 CU for the two requests (1 and 3)", k, l0-l1)
	}
}
