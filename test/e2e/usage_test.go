package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/avaedge/avaedge/internal/redistest"
)

// usageFlush is the replicas' flush interval in the usage test.
const usageFlush = 500 * time.Millisecond

// sent is one request a key made, as the test saw it.
type sent struct {
	minute int64  // unix seconds of its minute, by the test's clock
	path   string // the route's path template
	status int
	id     string // X-Request-Id
	method string // a node call's method
}

// usageClient sends one key's requests through the replicas and remembers
// each of them.
type usageClient struct {
	t    *testing.T
	key  string
	sent []sent
}

// avoidMinuteEdge waits when a minute is about to end (within margin
// seconds), so a request's minute is the same by the test's clock and the
// edge's.
func avoidMinuteEdge(margin int) {
	if s := time.Now().Second(); s >= 60-margin {
		time.Sleep(time.Until(time.Now().Truncate(time.Minute).Add(time.Minute + 100*time.Millisecond)))
	}
}

func (c *usageClient) get(e *edge, target, tmpl string) reply {
	c.t.Helper()
	avoidMinuteEdge(1)
	at := time.Now()
	r := do(c.t, "GET", e.URL+target, nil, map[string]string{"x-glacier-api-key": c.key})
	c.sent = append(c.sent, sent{at.Unix() / 60 * 60, tmpl, r.Status, r.Header.Get("X-Request-Id"), ""})
	return r
}

func (c *usageClient) rpc(e *edge, path, tmpl, method, body string) reply {
	c.t.Helper()
	avoidMinuteEdge(1)
	at := time.Now()
	r := do(c.t, "POST", e.URL+path, []byte(body), map[string]string{"x-glacier-api-key": c.key})
	c.sent = append(c.sent, sent{at.Unix() / 60 * 60, tmpl, r.Status, r.Header.Get("X-Request-Id"), method})
	return r
}

// traffic makes a known mix of data and node requests through both
// replicas: misses, hits (in process and from Redis), a parameter error
// and, for a, one 429 (an EVM batch that costs more than the day's quota).
func (c *usageClient) traffic(a, b *edge, withRefusal bool) {
	c.t.Helper()
	const blocks, validators = "/v1/chains/{chainId}/blocks", "/v1/networks/{network}/validators"
	want := func(r reply, status int) {
		c.t.Helper()
		if r.Status != status {
			c.t.Fatalf("%s: %s; want %d", c.key, r, status)
		}
	}
	want(c.get(a, "/v1/chains/43112/blocks?pageSize=3", blocks), 200)
	want(c.get(b, "/v1/chains/43112/blocks?pageSize=3", blocks), 200)
	want(c.get(b, "/v1/networks/fuji/validators?pageSize=2", validators), 200)
	want(c.get(a, "/v1/networks/fuji/validators?pageSize=2", validators), 200)
	want(c.get(a, "/v1/chains/43112/blocks?pageSize=1000", blocks), 400)
	info := `{"jsonrpc":"2.0","id":1,"method":"info.getNetworkID"}`
	want(c.rpc(a, "/ext/info", "/ext/info", "info.getNetworkID", info), 200)
	want(c.rpc(b, "/ext/info", "/ext/info", "info.getNetworkID", info), 200)
	want(c.rpc(b, "/ext/bc/X", "/ext/bc/X", "avm.getHeight", `{"jsonrpc":"2.0","id":2,"method":"avm.getHeight"}`), 200)
	want(c.rpc(a, "/ext/bc/C/rpc", "/ext/bc/C/rpc", "eth_chainId", `{"jsonrpc":"2.0","id":3,"method":"eth_chainId","params":[]}`), 200)
	if withRefusal {
		calls := make([]string, 100)
		for i := range calls {
			calls[i] = `{"jsonrpc":"2.0","id":` + strconv.Itoa(i) + `,"method":"eth_blockNumber","params":[]}`
		}
		want(c.rpc(b, "/ext/bc/C/rpc", "/ext/bc/C/rpc", "batch", "["+strings.Join(calls, ",")+"]"), http.StatusTooManyRequests)
	}
}

// count is the expected usage: requests by minute and group value.
func (c *usageClient) count(group func(s sent) string) map[string]int64 {
	out := map[string]int64{}
	for _, s := range c.sent {
		out[strconv.FormatInt(s.minute, 10)+" "+group(s)]++
	}
	return out
}

// usageAnswer is a usage route's answer, flattened as count does.
func usageAnswer(t *testing.T, body []byte) map[string]int64 {
	t.Helper()
	var a struct {
		Metrics []struct {
			Timestamp int64 `json:"timestamp"`
			Values    []struct {
				GroupValue    any   `json:"groupValue"`
				TotalRequests int64 `json:"totalRequests"`
			} `json:"values"`
		} `json:"metrics"`
	}
	if err := json.Unmarshal(body, &a); err != nil {
		t.Fatalf("%v: %s", err, body)
	}
	out := map[string]int64{}
	for _, m := range a.Metrics {
		for _, v := range m.Values {
			out[fmt.Sprintf("%d %v", m.Timestamp, v.GroupValue)] += v.TotalRequests
		}
	}
	return out
}

// TestUsageTwoReplicas: two replicas on one real Redis meter keys A and B;
// A's usage, asked of either replica, is exactly A's requests per minute,
// path and status, its logs exactly its requests newest first, its node
// calls counted by method, nothing of B's, in shapes chainkit's strict
// schemas accept; a restarted replica answers the same counts; with Redis
// stopped requests are served and nothing is lost once it is back.
func TestUsageTwoReplicas(t *testing.T) {
	rs := redistest.Start(t)
	rs.RequireReal()
	rec := newRecorder(t, localEdge(t).URL)
	const keyA, keyB = "e2e-usage-key-a-91c2", "e2e-usage-key-b-5e07"
	dir := t.TempDir()
	keys := filepath.Join(dir, "keys.yaml")
	os.WriteFile(keys, []byte("plans:\n  day: {cu_per_day: 50000}\nkeys:\n  - {id: key-a, key: \""+keyA+"\", plan: day}\n  - {id: key-b, key: \""+keyB+"\", plan: day}\n"), 0o600)
	// EVM calls at 600 CU: a batch of 100 costs more than the day's quota,
	// so it is refused (429) and nothing else is.
	cfg := filepath.Join(dir, "avaedge.yaml")
	os.WriteFile(cfg, []byte("routes:\n  evm.rpc: {cost: 600}\n"), 0o600)
	env := map[string]string{
		"AVAEDGE_DATA_UPSTREAM": rec.URL, "AVAEDGE_METRICS_UPSTREAM": rec.URL, "AVAEDGE_NODE_UPSTREAM": rec.URL,
		"AVAEDGE_REDIS": rs.URL(), "AVAEDGE_KEYS_FILE": keys, "AVAEDGE_USAGE_FLUSH_INTERVAL": usageFlush.String(),
		"AVAEDGE_ADMIN_TOKEN": "e2e-admin",
	}
	args := []string{"-config", cfg}
	r1 := startEdgeArgs(t, args, env, keyA, keyB)
	r2 := startEdgeArgs(t, args, env, keyA, keyB)
	sc := newScraper(t, os.Getenv("AVAEDGE_E2E_SCRAPE"))
	sc.set("replica1", r1)
	sc.set("replica2", r2)
	A := &usageClient{t: t, key: keyA}
	B := &usageClient{t: t, key: keyB}

	// Two minutes of traffic.
	A.traffic(r1, r2, true)
	B.traffic(r2, r1, false)
	time.Sleep(time.Until(time.Now().Truncate(time.Minute).Add(time.Minute + 200*time.Millisecond)))
	A.traffic(r2, r1, false)
	B.traffic(r1, r2, false)
	if len(usageMinutes(A.sent)) < 2 {
		t.Fatalf("A's traffic fell in one minute: %v", usageMinutes(A.sent))
	}

	// ask calls a usage route as A, after every earlier request was
	// flushed, checks the answer against chainkit's schemas and returns it.
	ask := func(e *edge, op, path string, q url.Values) []byte {
		t.Helper()
		time.Sleep(3 * usageFlush)
		r := A.get(e, path+"?"+q.Encode(), path)
		if r.Status != 200 || r.Header.Get("X-Avaedge-Source") != "edge" {
			t.Fatalf("%s %v = %s", path, q, r)
		}
		args := map[string]any{}
		for k := range q {
			if n, err := strconv.Atoi(q.Get(k)); err == nil && k != "responseCode" {
				args[k] = n
			} else {
				args[k] = q.Get(k)
			}
		}
		// The SDK's call is one more request of A: remembered.
		avoidMinuteEdge(10)
		A.sent = append(A.sent, sent{time.Now().Unix() / 60 * 60, path, 200, "", ""})
		sdkCallsAs(t, "chainkit", keyA, e.URL, []sdkCall{{Name: "c", Op: "data.usageMetrics." + op, Args: args}})
		return r.Body
	}

	// By path and by status, per minute: exactly A's requests (the SDK's
	// check of each answer is a request of A too, and counted).
	for _, g := range []struct {
		by    string
		group func(s sent) string
	}{
		{"requestPath", func(s sent) string { return s.path }},
		{"responseCode", func(s sent) string { return strconv.Itoa(s.status) }},
	} {
		for _, e := range []*edge{r1, r2} {
			expect := A.count(g.group)
			body := ask(e, "getUsage", "/v1/apiUsageMetrics", url.Values{"timeInterval": {"minute"}, "groupBy": {g.by}})
			if got := usageAnswer(t, body); !reflect.DeepEqual(got, expect) {
				t.Errorf("A's usage by %s from %s:\n got %v\nwant %v", g.by, e.URL, got, expect)
			}
		}
	}

	// B's id as apiKeyId (and as orgId) answers nothing of B.
	for _, p := range []string{"apiKeyId", "orgId"} {
		body := ask(r1, "getUsage", "/v1/apiUsageMetrics", url.Values{p: {"key-b"}, "groupBy": {"apiKeyId"}})
		if got := usageAnswer(t, body); len(got) != 0 || strings.Contains(string(body), "key-b") {
			t.Errorf("A asking for %s=key-b got %s", p, body)
		}
	}

	// Node calls by method: the primary network's (all of them) and the
	// C-Chain's (the EVM calls).
	rpcCount := func(keep func(s sent) bool) map[string]int64 {
		out := map[string]int64{}
		for _, s := range A.sent {
			if s.method != "" && keep(s) {
				out[s.method]++
			}
		}
		return out
	}
	flatMethods := func(body []byte) map[string]int64 {
		out := map[string]int64{}
		for k, v := range usageAnswer(t, body) {
			_, m, _ := strings.Cut(k, " ")
			out[m] += v
		}
		return out
	}
	resp := do(t, "GET", r2.URL+"/v1/primaryNetworkRpcUsageMetrics?network=fuji&groupBy=rpcMethod&timeInterval=hourly", nil, map[string]string{"x-glacier-api-key": keyA})
	A.sent = append(A.sent, sent{time.Now().Unix() / 60 * 60, "/v1/primaryNetworkRpcUsageMetrics", resp.Status, resp.Header.Get("X-Request-Id"), ""})
	if got, want := flatMethods(resp.Body), rpcCount(func(sent) bool { return true }); resp.Status != 200 || !reflect.DeepEqual(got, want) {
		t.Errorf("A's node calls by method = %d %v; want %v", resp.Status, got, want)
	}
	time.Sleep(3 * usageFlush)
	body := ask(r1, "getSubnetRpcUsage", "/v1/subnetRpcUsageMetrics", url.Values{"groupBy": {"rpcMethod"}, "timeInterval": {"hourly"}})
	if got, want := flatMethods(body), rpcCount(func(s sent) bool { return s.path == "/ext/bc/C/rpc" }); !reflect.DeepEqual(got, want) {
		t.Errorf("A's EVM calls by method = %v; want %v", got, want)
	}
	ask(r2, "getRpcUsageMetrics", "/v1/rpcUsageMetrics", url.Values{"groupBy": {"responseCode"}})

	// Logs: exactly A's requests, newest first, a page at a time.
	time.Sleep(3 * usageFlush)
	avoidMinuteEdge(10)
	A.sent = append(A.sent, sent{time.Now().Unix() / 60 * 60, "/v1/apiLogs", 200, "", ""})
	sdkCallsAs(t, "chainkit", keyA, r1.URL, []sdkCall{{Name: "c", Op: "data.usageMetrics.getLogs", Args: map[string]any{"pageSize": 5}}})
	time.Sleep(3 * usageFlush)
	want := map[string]bool{}
	for _, s := range A.sent {
		if s.id != "" {
			want[s.id] = true
		}
	}
	wantN := len(A.sent)
	var got []string
	var last int64 = 1 << 62
	q := url.Values{"pageSize": {"7"}}
	for page := 0; page < 50; page++ {
		r := do(t, "GET", r2.URL+"/v1/apiLogs?"+q.Encode(), nil, map[string]string{"x-glacier-api-key": keyA})
		var l struct {
			NextPageToken string `json:"nextPageToken"`
			Logs          []struct {
				LogID          string `json:"logId"`
				APIKeyID       string `json:"apiKeyId"`
				EventTimestamp int64  `json:"eventTimestamp"`
			} `json:"logs"`
		}
		if r.Status != 200 || json.Unmarshal(r.Body, &l) != nil {
			t.Fatalf("apiLogs page %d = %s", page, r)
		}
		for _, e := range l.Logs {
			if e.APIKeyID != "key-a" || e.EventTimestamp > last {
				t.Errorf("log %+v: not A's, or newer than the one before (%d)", e, last)
			}
			last = e.EventTimestamp
			got = append(got, e.LogID)
		}
		if l.NextPageToken == "" {
			break
		}
		q.Set("pageToken", l.NextPageToken)
	}
	gotSet := map[string]bool{}
	for _, id := range got {
		gotSet[id] = true
	}
	for id := range want {
		if !gotSet[id] {
			t.Errorf("A's request %s is not in its logs", id)
		}
	}
	if len(got) != wantN || len(gotSet) != len(got) {
		t.Errorf("A's logs hold %d lines (%d distinct); A made %d requests before paging", len(got), len(gotSet), wantN)
	}
	t.Logf("A's logs: %d requests paged newest first", len(got))

	// A replica restarted: the counts are the same (the usage calls since
	// aside).
	byPath := func(e *edge) map[string]int64 {
		time.Sleep(3 * usageFlush)
		r := A.get(e, "/v1/apiUsageMetrics?timeInterval=minute&groupBy=requestPath&requestType=data", "/v1/apiUsageMetrics")
		out := usageAnswer(t, r.Body)
		for k := range out {
			if strings.Contains(k, "UsageMetrics") || strings.Contains(k, "apiLogs") {
				delete(out, k)
			}
		}
		return out
	}
	pre := byPath(r1)
	r1.stop(t)
	r1 = startEdgeArgs(t, args, env, keyA, keyB)
	sc.set("replica1", r1)
	if post := byPath(r1); !reflect.DeepEqual(pre, post) {
		t.Errorf("after a restart A's usage by path = %v; before %v", post, pre)
	}

	// Redis stopped (SIGSTOP: it hangs): requests are served; once it is
	// back, every one of them is counted.
	time.Sleep(3 * usageFlush)
	base := countBlocks(t, r2, keyA)
	rs.Pause()
	const during = 20
	for i := 0; i < during; i++ {
		e := []*edge{r1, r2}[i%2]
		if r := do(t, "GET", e.URL+"/v1/chains/43112/blocks?pageSize=3", nil, map[string]string{"x-glacier-api-key": keyA}); r.Status != 200 {
			t.Fatalf("request %d with Redis stopped = %s", i, r)
		}
	}
	time.Sleep(4 * usageFlush) // a few failed flushes
	rs.Resume()
	deadline := time.Now().Add(20 * time.Second)
	var after int64
	for time.Now().Before(deadline) {
		time.Sleep(time.Second)
		if after = countBlocks(t, r2, keyA); after >= base+during {
			break
		}
	}
	lost := base + during - after
	t.Logf("Redis outage: %d requests served while it was stopped, %d lost once it was back", during, lost)
	if lost != 0 {
		t.Errorf("after the outage A's blocks requests = %d; want %d (%d lost)", after, base+during, lost)
	}
	// The operator's view lists both keys.
	adm := do(t, "GET", r1.Admin+"/admin/usage", nil, map[string]string{"Authorization": "Bearer e2e-admin"})
	if adm.Status != 200 || !strings.Contains(string(adm.Body), `"key":"key-a"`) || !strings.Contains(string(adm.Body), `"key":"key-b"`) {
		t.Errorf("/admin/usage = %s", adm)
	}
}

// countBlocks is key's requests of the blocks route today.
func countBlocks(t *testing.T, e *edge, key string) int64 {
	t.Helper()
	r := do(t, "GET", e.URL+"/v1/apiUsageMetrics?timeInterval=daily&requestPath="+url.QueryEscape("/v1/chains/{chainId}/blocks"), nil, map[string]string{"x-glacier-api-key": key})
	var n int64
	for _, v := range usageAnswer(t, r.Body) {
		n += v
	}
	return n
}

func usageMinutes(s []sent) []int64 {
	seen := map[int64]bool{}
	var out []int64
	for _, x := range s {
		if !seen[x.minute] {
			seen[x.minute] = true
			out = append(out, x.minute)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// scraper, given a directory, saves each replica's /metrics every 2s while
// the test runs, as <unix ms>-<replica>.prom: the traffic the dashboard's
// screenshot in docs/operations.md is rendered from (deploy/grafana/render).
type scraper struct {
	mu    sync.Mutex
	edges map[string]*edge
}

func newScraper(t *testing.T, dir string) *scraper {
	sc := &scraper{edges: map[string]*edge{}}
	if dir == "" {
		return sc
	}
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(2 * time.Second)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
			}
			sc.mu.Lock()
			edges := maps.Clone(sc.edges)
			sc.mu.Unlock()
			for name, e := range edges {
				req, _ := http.NewRequest("GET", e.Admin+"/metrics", nil)
				req.Header.Set("Authorization", "Bearer e2e-admin")
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					continue
				}
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				os.WriteFile(filepath.Join(dir, strconv.FormatInt(time.Now().UnixMilli(), 10)+"-"+name+".prom"), b, 0o644)
			}
		}
	}()
	t.Cleanup(func() {
		time.Sleep(6 * time.Second) // a few scrapes of how the test leaves the replicas
		close(stop)
		<-done
	})
	return sc
}

func (sc *scraper) set(name string, e *edge) {
	sc.mu.Lock()
	sc.edges[name] = e
	sc.mu.Unlock()
}
