package e2e

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"testing"
	"time"

	"github.com/avaedge/avaedge/internal/redistest"
)

// logEntry is one line of apiLogs as the SDKs parse it.
type logEntry struct {
	LogID          string `json:"logId"`
	APIKeyID       string `json:"apiKeyId"`
	EventTimestamp int64  `json:"eventTimestamp"`
	ResponseCode   int    `json:"responseCode"`
	RequestPath    string `json:"requestPath"`
}

// sdkLogPages pages through key's apiLogs at base with an SDK's own
// iterator (getLogs, pageSize 7 unless args say, args added; calls.mjs with
// "pages", at most 60) and returns the lines in the order the pages held
// them.
func sdkLogPages(t *testing.T, sdk, key, base string, args map[string]any) []logEntry {
	t.Helper()
	a := map[string]any{"pageSize": 7}
	for k, v := range args {
		a[k] = v
	}
	spec, _ := json.Marshal([]map[string]any{{"name": "logs", "op": "data.usageMetrics.getLogs", "args": a, "pages": 60}})
	out, err := runNodeScript(t, key, "calls.mjs", "--sdk", sdk, base, string(spec))
	var res map[string]struct {
		OK     bool
		Error  string
		Result []struct {
			Logs []logEntry `json:"logs"`
		}
	}
	if err != nil || json.Unmarshal(out, &res) != nil || !res["logs"].OK {
		t.Fatalf("%s getLogs %v: %v: %.1000s", sdk, a, err, out)
	}
	var lines []logEntry
	for _, p := range res["logs"].Result {
		lines = append(lines, p.Logs...)
	}
	return lines
}

// TestUsageLogsSDKPages (issue 35): a key's log, written by two replicas to
// one real Redis, read a page at a time from the token's line: chainkit's
// and the AvaCloud SDK's own iterators page through it from either replica
// and get every request of the key once, newest first (by time, then id);
// with a filter that few lines match, the pages (some short, each read
// bounded) still hold exactly the matches; a token from one replica reads
// on at the other.
func TestUsageLogsSDKPages(t *testing.T) {
	rs := redistest.Start(t)
	rs.RequireReal()
	rec := newRecorder(t, localEdge(t).URL)
	const key = "e2e-logs-key-7d1f"
	dir := t.TempDir()
	keys := filepath.Join(dir, "keys.yaml")
	os.WriteFile(keys, []byte("plans:\n  day: {cu_per_day: 500000}\nkeys:\n  - {id: logs-key, key: \""+key+"\", plan: day}\n"), 0o600)
	env := map[string]string{
		"AVAEDGE_DATA_UPSTREAM": rec.URL, "AVAEDGE_METRICS_UPSTREAM": rec.URL, "AVAEDGE_NODE_UPSTREAM": rec.URL,
		"AVAEDGE_REDIS": rs.URL(), "AVAEDGE_KEYS_FILE": keys, "AVAEDGE_USAGE_FLUSH_INTERVAL": usageFlush.String(),
	}
	r := [2]*edge{startEdgeArgs(t, nil, env, key), startEdgeArgs(t, nil, env, key)}

	// 40 requests by turns through both replicas, every fifth a 400.
	sent := map[string]int{} // X-Request-Id -> status
	var bad []string
	for i := 0; i < 40; i++ {
		target := "/v1/chains/43112/blocks?pageSize=3"
		status := 200
		if i%5 == 4 {
			target, status = "/v1/chains/43112/blocks?pageSize=1000", 400
		}
		resp := do(t, "GET", r[i%2].URL+target, nil, map[string]string{"x-glacier-api-key": key})
		if resp.Status != status {
			t.Fatalf("request %d: %s; want %d", i, resp, status)
		}
		id := resp.Header.Get("X-Request-Id")
		sent[id] = status
		if status == 400 {
			bad = append(bad, id)
		}
	}
	// Then 2,100 hits: the 400s lie beyond what one filtered call reads.
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 2}}
	for i := 0; i < 2100; i++ {
		req, _ := http.NewRequest("GET", r[i%2].URL+"/v1/chains/43112/blocks?pageSize=3", nil)
		req.Header.Set("x-glacier-api-key", key)
		resp, err := client.Do(req)
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("hit %d: %v %v", i, resp, err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		sent[resp.Header.Get("X-Request-Id")] = 200
	}
	time.Sleep(3 * usageFlush)

	// newestFirst checks lines are ordered newest first, by time then id,
	// and returns their ids.
	newestFirst := func(name string, lines []logEntry) []string {
		t.Helper()
		var ids []string
		for i, l := range lines {
			if l.APIKeyID != "logs-key" {
				t.Errorf("%s: line %+v is not the key's", name, l)
			}
			if i > 0 {
				p := lines[i-1]
				if p.EventTimestamp < l.EventTimestamp || p.EventTimestamp == l.EventTimestamp && p.LogID <= l.LogID {
					t.Errorf("%s: line %d %+v is not older than the one before %+v", name, i, l, p)
				}
			}
			ids = append(ids, l.LogID)
		}
		return ids
	}
	all := make([]string, 0, len(sent))
	for id := range sent {
		all = append(all, id)
	}
	sort.Strings(all)
	sort.Strings(bad)
	for i, sdk := range []string{"chainkit", "avacloud"} {
		// The 40 requests, and the apiLogs calls of the SDKs before.
		lines := sdkLogPages(t, sdk, key, r[i].URL, map[string]any{"pageSize": 100})
		var got []string
		for _, id := range newestFirst(sdk, lines) {
			if _, ok := sent[id]; ok {
				got = append(got, id)
			}
		}
		for _, l := range lines {
			if _, ok := sent[l.LogID]; !ok && l.RequestPath != "/v1/apiLogs" {
				t.Errorf("%s paged %+v: not a request of the test", sdk, l)
			}
		}
		sort.Strings(got)
		if !reflect.DeepEqual(got, all) {
			t.Errorf("%s paged %d of the requests from replica %d; want the %d once each (got %v)", sdk, len(got), i+1, len(all), got)
		}
		// A filter few lines match: exactly the 400s (the SDK's calls since
		// answered 200), through pages that each read at most 2,048 lines,
		// the first of them empty, with a token to go on from.
		ids := newestFirst(sdk+" 400s", sdkLogPages(t, sdk, key, r[1-i].URL, map[string]any{"responseCode": "400"}))
		sort.Strings(ids)
		if !reflect.DeepEqual(ids, bad) {
			t.Errorf("%s paged the 400s as %v; want %v", sdk, ids, bad)
		}
	}

	// A token of one replica read by the other gives the page after it (the
	// 400s: no line the test's reads add).
	page := func(e *edge, q url.Values) (string, []logEntry) {
		t.Helper()
		resp := do(t, "GET", e.URL+"/v1/apiLogs?"+q.Encode(), nil, map[string]string{"x-glacier-api-key": key})
		var p struct {
			NextPageToken string     `json:"nextPageToken"`
			Logs          []logEntry `json:"logs"`
		}
		if resp.Status != 200 || json.Unmarshal(resp.Body, &p) != nil {
			t.Fatalf("apiLogs %v: %s", q, resp)
		}
		return p.NextPageToken, p.Logs
	}
	// pageAll pages through the 400s, 3 at a time, asking the replicas
	// by turns from the first one given.
	pageAll := func(from int, turns bool) []logEntry {
		t.Helper()
		var all []logEntry
		q := url.Values{"pageSize": {"3"}, "responseCode": {"400"}}
		for p, e := 0, from; p < 20; p++ {
			tok, lines := page(r[e], q)
			all = append(all, lines...)
			if tok == "" {
				return all
			}
			q.Set("pageToken", tok)
			if turns {
				e = 1 - e
			}
		}
		t.Fatal("paging the 400s did not end in 20 pages")
		return nil
	}
	byTurns, one := pageAll(0, true), pageAll(1, false)
	if !reflect.DeepEqual(byTurns, one) || len(one) != len(bad) {
		t.Errorf("the 400s paged by both replicas by turns %v; want as replica 2 alone pages them %v (%d)", byTurns, one, len(bad))
	}
}
