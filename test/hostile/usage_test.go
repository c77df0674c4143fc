package hostile

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/avaedge/avaedge/internal/redistest"
)

// cmdStat is one command's line of INFO commandstats.
type cmdStat struct{ calls, usec int64 }

// commandStats reads INFO commandstats: every command Redis ran, those run
// inside Lua scripts included, by name.
func commandStats(t *testing.T, rdb *redis.Client) map[string]cmdStat {
	t.Helper()
	info, err := rdb.Info(context.Background(), "commandstats").Result()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]cmdStat{}
	for _, line := range strings.Split(info, "\n") {
		name, rest, ok := strings.Cut(strings.TrimSpace(line), ":")
		if !ok || !strings.HasPrefix(name, "cmdstat_") {
			continue
		}
		var s cmdStat
		for _, kv := range strings.Split(rest, ",") {
			k, v, _ := strings.Cut(kv, "=")
			switch k {
			case "calls":
				s.calls, _ = strconv.ParseInt(v, 10, 64)
			case "usec":
				s.usec, _ = strconv.ParseInt(v, 10, 64)
			}
		}
		out[strings.TrimPrefix(name, "cmdstat_")] = s
	}
	return out
}

// total sums every command's calls and µs.
func total(s map[string]cmdStat) cmdStat {
	var t cmdStat
	for _, c := range s {
		t.calls += c.calls
		t.usec += c.usec
	}
	return t
}

// hammer sends n GETs of target with the given keys (request i uses
// keys[i%len(keys)]) from conc clients, and returns the answers by status.
func hammer(t *testing.T, target string, keys []string, n, conc int) map[int]int64 {
	t.Helper()
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: conc}}
	var next atomic.Int64
	var mu sync.Mutex // guards byStatus and failed
	byStatus := map[int]int64{}
	var failed error
	var wg sync.WaitGroup
	for g := 0; g < conc; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			seen := map[int]int64{}
			defer func() {
				mu.Lock()
				for s, c := range seen {
					byStatus[s] += c
				}
				mu.Unlock()
			}()
			for {
				i := next.Add(1) - 1
				if i >= int64(n) {
					return
				}
				st, _, err := timedGet(context.Background(), client, target, keys[int(i)%len(keys)])
				if err != nil {
					mu.Lock()
					failed = err
					mu.Unlock()
					return
				}
				seen[st]++
			}
		}()
	}
	wg.Wait()
	if failed != nil {
		t.Fatalf("hammering %s: %v", target, failed)
	}
	return byStatus
}

// cachedBlocks is the config of the usage tests: the blocks route cached
// for good, so the traffic is hits.
const cachedBlocks = "routes:\n  getLatestBlocks: {cache: immutable}\n"

// waitFlushed waits until the edge has written at least n metered requests
// to its usage store and holds none back.
func waitFlushed(t *testing.T, e *Edge, n float64, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		got := e.Metric(t, "avaedge_usage_flushed_requests_total")
		if got >= n && e.Metric(t, "avaedge_usage_queued_requests") == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%v metered requests written after %v; want at least %v", got, within, n)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// redisEdge starts the edge in proxy mode with keys, config and env added,
// on a real redis-server of its own, and returns it with a client of that
// Redis.
func redisEdge(t *testing.T, keys, config string, env map[string]string) (*Edge, *redis.Client) {
	t.Helper()
	rs := redistest.Start(t)
	rs.RequireReal()
	all := proxyEnv(NewUpstream(t, nil))
	all["AVAEDGE_REDIS"] = rs.URL()
	for k, v := range env {
		all[k] = v
	}
	return StartEdge(t, EdgeOptions{Env: all, Keys: keys, Config: config}), rs.Client()
}

// logsPage is /v1/apiLogs' answer (LogsResponseDTO).
type logsPage struct {
	NextPageToken string `json:"nextPageToken"`
	OrgID         string `json:"orgId"`
	Logs          []struct {
		LogID          string `json:"logId"`
		APIKeyID       string `json:"apiKeyId"`
		EventTimestamp int64  `json:"eventTimestamp"`
		ResponseCode   int    `json:"responseCode"`
	} `json:"logs"`
}

// TestUsageLogsPageBounded (issue 35, finding 2): /v1/apiLogs of a key
// whose log holds 100,000 lines reads one page, never the whole log: 20
// callers paging through it at once cost the edge at most 5 ms of CPU and
// Redis at most 1 ms per page, and Redis never fails for anyone while they
// read (no 503, no "redis not answering"). Their p99 is logged (measured
// in docs/measured.md).
func TestUsageLogsPageBounded(t *testing.T) {
	const (
		lines   = 100_000
		callers = 20
		pages   = 10 // per caller, pageSize 100
	)
	e, rdb := redisEdge(t, keysFile(1, false), cachedBlocks+"usage: {logs_per_key: "+strconv.Itoa(lines)+"}\n",
		map[string]string{"AVAEDGE_USAGE_FLUSH_INTERVAL": "1s"})

	// The log: 100,000 keyed cache hits.
	start := time.Now()
	byStatus := hammer(t, e.URL+"/v1/chains/43114/blocks?pageSize=10", []string{"key-0"}, lines, 16)
	if byStatus[200] != lines {
		t.Fatalf("filling the log: answers by status %v; want %d × 200", byStatus, lines)
	}
	waitFlushed(t, e, lines, 60*time.Second)
	if d := e.Metric(t, "avaedge_usage_logs_dropped_total"); d != 0 {
		t.Fatalf("%v log lines dropped while filling the log; want none", d)
	}
	t.Logf("%d requests logged in %v", lines, time.Since(start).Round(time.Millisecond))
	failing := []string{"redis not answering", "redis failing", "usage is unavailable"}
	before := map[string]int{}
	for _, s := range failing {
		// Writing the log is this test's setup, at 10 times the default
		// cap's rate: reported, not judged.
		if before[s] = e.LogCount(s); before[s] != 0 {
			t.Logf("while the log was written the edge logged %q %d times", s, before[s])
		}
	}

	client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: callers}}
	// For scale, and to open the callers' connections: the same callers
	// asking for a cached page of 300 bytes at once.
	var wg sync.WaitGroup
	hits := make([][]time.Duration, callers)
	for c := 0; c < callers; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range pages {
				_, d, _ := timedGet(context.Background(), client, e.URL+"/v1/chains/43114/blocks?pageSize=10", "key-0")
				hits[c] = append(hits[c], d)
			}
		}()
	}
	wg.Wait()
	var allHits []time.Duration
	for _, h := range hits {
		allHits = append(allHits, h...)
	}
	t.Logf("the same %d callers asking for a cached page at once: p50 %s, p99 %s", callers, ms(quantile(allHits, .5)), ms(quantile(allHits, .99)))
	// And one page each at once, untimed, as a warm edge has them: its
	// Redis connections for 20 reads at once (a cached page needs none) and
	// the key's lease for 200 CU a call.
	for c := 0; c < callers; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			pageLogs(client, e.URL, "key-0", 1)
		}()
	}
	wg.Wait()
	// Each caller pages through the log; the pages are checked once every
	// caller is done, so the test's own decoding does not take the CPU the
	// edge is timed on.
	took := make([][]time.Duration, callers)
	bodies := make([][][]byte, callers)
	errs := make([]error, callers)
	if err := rdb.ConfigResetStat(context.Background()).Err(); err != nil {
		t.Fatal(err)
	}
	cpu0 := cpuTime(t, e)
	for c := 0; c < callers; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			bodies[c], took[c], errs[c] = pageLogs(client, e.URL, "key-0", pages)
		}()
	}
	wg.Wait()
	cpu := cpuTime(t, e) - cpu0
	stats := total(commandStats(t, rdb))
	var all []time.Duration
	for c := range callers {
		if errs[c] != nil {
			t.Errorf("caller %d: %v", c, errs[c])
		}
		all = append(all, took[c]...)
		if err := checkPages(bodies[c], "k0", 100); err != nil {
			t.Errorf("caller %d: %v", c, err)
		}
	}
	var firsts, rest []time.Duration // the callers' first pages (asked at once), and the others
	for c := range callers {
		if len(took[c]) > 0 {
			firsts, rest = append(firsts, took[c][0]), append(rest, took[c][1:]...)
		}
	}
	t.Logf("first pages: p50 %s, max %s; the others: p50 %s, p99 %s", ms(quantile(firsts, .5)), ms(quantile(firsts, 1)),
		ms(quantile(rest, .5)), ms(quantile(rest, .99)))
	calls := int64(len(all))
	perPage := time.Duration(stats.usec/max(calls, 1)) * time.Microsecond
	t.Logf("%d pages of a %d-line log, %d callers at once: p50 %s, p99 %s, max %s; edge CPU %v a page; Redis ran %d commands in %v, %v per page",
		calls, lines, callers, ms(quantile(all, .5)), ms(quantile(all, .99)), ms(quantile(all, 1)), cpu/time.Duration(max(calls, 1)),
		stats.calls, time.Duration(stats.usec)*time.Microsecond, perPage)
	// What a page costs is judged by work, not wall time (a shared
	// machine's scheduling is not the edge's): the edge's CPU a page and
	// Redis's time a page. Reading the whole log, as before issue 35, took
	// 130 ms of edge CPU and 24.5 ms of Redis a call at 10,000 lines. The
	// p99 with 20 callers is logged above and measured on a quiet machine
	// in docs/measured.md.
	if perCPU := cpu / time.Duration(max(calls, 1)); perCPU > 5*time.Millisecond {
		t.Errorf("the edge spent %v of CPU per apiLogs page; want at most 5ms (one page, not the log)", perCPU)
	}
	if perPage > time.Millisecond {
		t.Errorf("Redis spent %v per apiLogs page; want at most 1ms", perPage)
	}
	for _, s := range failing {
		if n := e.LogCount(s) - before[s]; n != 0 {
			t.Errorf("while the log was read the edge logged %q %d times; want never", s, n)
		}
	}
	distinctPages(t, e, rdb, client, callers, pages)
	for _, s := range failing {
		if n := e.LogCount(s) - before[s]; n != 0 {
			t.Errorf("while distinct pages were read the edge logged %q %d times; want never", s, n)
		}
	}
	if t.Failed() {
		for _, l := range strings.Split(e.Log(), "\n") {
			if strings.Contains(l, "redis") {
				t.Log(l)
			}
		}
	}
}

// distinctPages has callers ask for pages of key-0's log at once that no
// read can share (caller c asks for pages 10c to 10c+9, from tokens one
// caller collected first, untimed), and judges them by work as
// TestUsageLogsPageBounded does, logging their p99.
func distinctPages(t *testing.T, e *Edge, rdb *redis.Client, client *http.Client, callers, pages int) {
	t.Helper()
	bodies, _, err := pageLogs(client, e.URL, "key-0", callers*pages)
	if err != nil {
		t.Fatal(err)
	}
	tokens := make([]string, len(bodies))
	for i, b := range bodies {
		_, rest, _ := bytes.Cut(b, []byte(`"nextPageToken":"`))
		tok, _, _ := bytes.Cut(rest, []byte(`"`))
		tokens[i] = string(tok)
	}
	if err := rdb.ConfigResetStat(context.Background()).Err(); err != nil {
		t.Fatal(err)
	}
	cpu0 := cpuTime(t, e)
	took := make([][]time.Duration, callers)
	var wg sync.WaitGroup
	for c := range callers {
		wg.Go(func() {
			for p := range pages {
				code, d, err := timedGet(context.Background(), client, e.URL+"/v1/apiLogs?pageSize=100&pageToken="+tokens[c*pages+p], "key-0")
				if err != nil || code != 200 {
					t.Errorf("caller %d, page %d: %d (%v)", c, p, code, err)
				}
				took[c] = append(took[c], d)
			}
		})
	}
	wg.Wait()
	cpu := (cpuTime(t, e) - cpu0) / time.Duration(callers*pages)
	stats := total(commandStats(t, rdb))
	perPage := time.Duration(stats.usec/int64(callers*pages)) * time.Microsecond
	all := slices.Concat(took...)
	t.Logf("%d distinct pages, %d callers at once: p50 %s, p99 %s, max %s; edge CPU %v a page; Redis %v a page",
		len(all), callers, ms(quantile(all, .5)), ms(quantile(all, .99)), ms(quantile(all, 1)), cpu, perPage)
	if cpu > 5*time.Millisecond || perPage > time.Millisecond {
		t.Errorf("a distinct apiLogs page cost the edge %v of CPU and Redis %v; want at most 5ms and 1ms", cpu, perPage)
	}
}

// cpuTime is the CPU time (user and system) the edge's process has used.
func cpuTime(t *testing.T, e *Edge) time.Duration {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", e.cmd.Process.Pid))
	if err != nil {
		t.Fatal(err)
	}
	// Fields 14 and 15 (utime, stime), in clock ticks (100 a second), after
	// the command name in parentheses.
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+2:]))
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(ut+st) * 10 * time.Millisecond
}

// pageLogs asks for pages of /v1/apiLogs as key, 100 lines each, each from
// the token of the one before, and returns their bodies and how long each
// took (sent to read whole).
func pageLogs(c *http.Client, base, key string, pages int) ([][]byte, []time.Duration, error) {
	var bodies [][]byte
	var took []time.Duration
	q := url.Values{"pageSize": {"100"}}
	for p := 0; p < pages; p++ {
		req, _ := http.NewRequest(http.MethodGet, base+"/v1/apiLogs?"+q.Encode(), nil)
		req.Header.Set("x-glacier-api-key", key)
		start := time.Now()
		resp, err := c.Do(req)
		if err != nil {
			return bodies, took, err
		}
		var buf bytes.Buffer // sized once: the client's reading costs the edge's CPU little
		buf.Grow(int(max(resp.ContentLength, 0)) + bytes.MinRead)
		_, err = buf.ReadFrom(resp.Body)
		resp.Body.Close()
		took = append(took, time.Since(start))
		body := buf.Bytes()
		if err != nil || resp.StatusCode != 200 {
			return bodies, took, fmt.Errorf("page %d: %d %.300s (%v)", p, resp.StatusCode, body, err)
		}
		bodies = append(bodies, body)
		// The token, without decoding the page (checkPages does).
		_, rest, ok := bytes.Cut(body, []byte(`"nextPageToken":"`))
		tok, _, _ := bytes.Cut(rest, []byte(`"`))
		if !ok || len(tok) == 0 {
			return bodies, took, fmt.Errorf("page %d has no next page token: %.300s", p, body)
		}
		q.Set("pageToken", string(tok))
	}
	return bodies, took, nil
}

// checkPages checks consecutive pages of apiLogs: each holds size lines of
// key, newest first across the pages, none twice, and a next page token.
func checkPages(bodies [][]byte, key string, size int) error {
	seen := map[string]bool{}
	last := int64(1 << 62)
	for p, body := range bodies {
		var page logsPage
		if err := json.Unmarshal(body, &page); err != nil {
			return fmt.Errorf("page %d: %v", p, err)
		}
		if len(page.Logs) != size || page.NextPageToken == "" {
			return fmt.Errorf("page %d: %d lines, next page token %q; want %d and a token", p, len(page.Logs), page.NextPageToken, size)
		}
		for _, l := range page.Logs {
			if l.APIKeyID != key || l.EventTimestamp > last || seen[l.LogID] {
				return fmt.Errorf("page %d: line %+v not %s's, newer than the one before (%d) or repeated", p, l, key, last)
			}
			seen[l.LogID] = true
			last = l.EventTimestamp
		}
	}
	return nil
}

// TestUsageRedisCommandsPerRequest (issue 35, finding 3): keyed cache hits
// with usage on and Redis (limits and usage shared there, the default flush)
// cost Redis at most 0.5 commands a request in all, commands run inside Lua
// scripts included (INFO commandstats), counted until the edge has stopped
// and written everything it held.
func TestUsageRedisCommandsPerRequest(t *testing.T) {
	const requests = 20_000
	e, rdb := redisEdge(t, keysFile(4, false), cachedBlocks, nil)
	target := e.URL + "/v1/chains/43114/blocks?pageSize=10"
	keys := []string{"key-0", "key-1", "key-2", "key-3"}
	hammer(t, target, keys, 8, 4) // the page cached, each key known
	if err := rdb.ConfigResetStat(context.Background()).Err(); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if byStatus := hammer(t, target, keys, requests, 8); byStatus[200] != requests {
		t.Fatalf("answers by status %v; want %d × 200", byStatus, requests)
	}
	took := time.Since(start)
	e.Stop(t) // everything held is written
	stats := commandStats(t, rdb)
	sum := total(stats)
	var top []string
	for name, s := range stats {
		if s.calls*100 >= sum.calls {
			top = append(top, fmt.Sprintf("%s %d", name, s.calls))
		}
	}
	perReq := float64(sum.calls) / requests
	t.Logf("%d keyed hits in %v (%.0f/s): Redis ran %d commands (%.3f a request; %s)", requests, took.Round(time.Millisecond),
		requests/took.Seconds(), sum.calls, perReq, strings.Join(top, ", "))
	if perReq > 0.5 {
		t.Errorf("%.3f Redis commands per keyed request; want at most 0.5", perReq)
	}
}

// TestUsageRefusedLogsBounded (issue 35, finding 2): a key hammering past
// its plan's rate gets its 429s logged, but its log grows no faster than
// its plan lets it make requests: the refused lines kept are at most as many
// as the requests it was allowed, plus one a flush.
func TestUsageRefusedLogsBounded(t *testing.T) {
	up := NewUpstream(t, nil)
	env := proxyEnv(up)
	env["AVAEDGE_USAGE_FLUSH_INTERVAL"] = "500ms"
	keys := "plans:\n  slow: {rps: 5, burst: 5}\nkeys:\n  - {id: slow, key: slow-key, plan: slow}\n"
	e := StartEdge(t, EdgeOptions{Env: env, Keys: keys, Config: cachedBlocks})
	start := time.Now()
	byStatus := hammer(t, e.URL+"/v1/chains/43114/blocks?pageSize=10", []string{"slow-key"}, 2000, 8)
	secs := time.Since(start).Seconds()
	if byStatus[429] < 1000 {
		t.Fatalf("answers by status %v; want most of them 429", byStatus)
	}
	time.Sleep(1500 * time.Millisecond) // flushed; the rate bucket full again
	var lines, refused int
	q := url.Values{"pageSize": {"100"}}
	for p := 0; p < 25; p++ {
		time.Sleep(250 * time.Millisecond) // within the plan's 5 requests a second
		resp, body := getWithKey(t, e.URL+"/v1/apiLogs?"+q.Encode(), "slow-key")
		var page logsPage
		if resp.StatusCode != 200 || json.Unmarshal([]byte(body), &page) != nil {
			t.Fatalf("apiLogs page %d = %d %s", p, resp.StatusCode, body)
		}
		for _, l := range page.Logs {
			lines++
			if l.ResponseCode == 429 {
				refused++
			}
		}
		if page.NextPageToken == "" {
			break
		}
		q.Set("pageToken", page.NextPageToken)
	}
	// Every line not a 429 is a request the plan allowed (the blocks hits
	// and the apiLogs calls flushed so far).
	charged := lines - refused
	bound := charged + 2*int(secs+1) + 2 // one a flush (500ms) of the hammering
	t.Logf("%v in %.1fs: %d lines logged, %d of them 429 (at most %d allowed)", byStatus, secs, lines, refused, bound)
	if refused == 0 {
		t.Errorf("no 429 logged; want them logged, bounded")
	}
	if refused > bound {
		t.Errorf("%d refused requests logged beside %d allowed in %.1fs; want at most %d", refused, charged, secs, bound)
	}
}
