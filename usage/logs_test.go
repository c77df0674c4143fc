package usage

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/avaedge/avaedge/catalog"
	"github.com/avaedge/avaedge/internal/redistest"
)

// countingStore counts the log lines a store returns, call by call.
type countingStore struct {
	store
	calls, lines, most int
}

func (c *countingStore) logs(ctx context.Context, identity string, q logQuery) ([]logLine, error) {
	l, err := c.store.logs(ctx, identity, q)
	c.calls++
	c.lines += len(l)
	c.most = max(c.most, len(l))
	return l, err
}

// logLines records n keyed requests of alice, one a millisecond from t0
// (every tenth a 404 of chain 1, the rest 200s of chain 43114), flushing
// every 700, and returns their ids newest first.
func logLines(t *testing.T, m *Meter, n int) []string {
	t.Helper()
	ids := make([]string, n)
	for i := 0; i < n; i++ {
		r := req{time.Duration(i) * time.Millisecond, "alice", "getLatestBlocks", "/v1/chains/{chainId}/blocks", 200, 10, "", "43114"}
		if i%10 == 0 {
			r.status, r.chain = 404, "1"
		}
		rec := r.record(i)
		rec.RequestID = fmt.Sprintf("r-%d", i) // ids of different lengths: "r-9" sorts after "r-10"
		m.Record(rec)
		ids[n-1-i] = rec.RequestID
		if i%700 == 699 {
			if err := m.Flush(context.Background()); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := m.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	return ids
}

// pageAll pages through alice's logs with q, and returns the ids in the
// order answered and the number of calls.
func pageAll(t *testing.T, m *Meter, q url.Values) ([]string, int) {
	t.Helper()
	var ids []string
	for calls := 1; calls < 1000; calls++ {
		code, body := ask(t, m, opLogs, "alice", q)
		var l struct {
			NextPageToken string `json:"nextPageToken"`
			Logs          []struct {
				LogID string `json:"logId"`
			} `json:"logs"`
		}
		if code != 200 || json.Unmarshal(body, &l) != nil {
			t.Fatalf("apiLogs %v = %d %s", q, code, body)
		}
		for _, e := range l.Logs {
			ids = append(ids, e.LogID)
		}
		if l.NextPageToken == "" {
			return ids, calls
		}
		q.Set("pageToken", l.NextPageToken)
	}
	t.Fatal("apiLogs did not end in 1,000 calls")
	return nil, 0
}

// TestLogsPaged: every store answers a page by reading that page (plus one
// line), whatever the log's length; paging through it answers every line
// once, newest first; a filter that few lines match reads at most logScan
// lines a call and still reaches every match.
func TestLogsPaged(t *testing.T) {
	const n = 3000
	clk := &clock{t: t0.Add(2 * time.Minute)}
	for name, open := range stores(t, clk) {
		t.Run(name, func(t *testing.T) {
			m := open()
			cs := &countingStore{store: m.store}
			m.store = cs
			want := logLines(t, m, n)
			if name == "memory" {
				want = want[:memLogsPerKey]
			}
			got, calls := pageAll(t, m, url.Values{"pageSize": {"100"}})
			if strings.Join(got, ",") != strings.Join(want, ",") {
				t.Fatalf("paged %d lines; want the %d newest first (first %v, want %v)", len(got), len(want), got[:min(3, len(got))], want[:3])
			}
			if cs.most > 101 || cs.calls != calls {
				t.Errorf("%d calls read %d store pages, the largest %d lines; want one read of at most 101 lines a call", calls, cs.calls, cs.most)
			}
			// Every tenth line is a 404: the filter skips the others, within
			// the scan bound, and loses no match.
			cs.most, cs.lines, cs.calls = 0, 0, 0
			got, calls = pageAll(t, m, url.Values{"pageSize": {"7"}, "responseCode": {"404"}})
			var want404 []string
			for _, id := range want {
				var i int
				fmt.Sscanf(id, "r-%d", &i)
				if i%10 == 0 {
					want404 = append(want404, id)
				}
			}
			if strings.Join(got, ",") != strings.Join(want404, ",") {
				t.Fatalf("paged %d 404s; want %d, newest first", len(got), len(want404))
			}
			if cs.lines > calls*(logScan+1) || cs.most > logChunk {
				t.Errorf("%d filtered calls read %d lines (at most %d at once); want at most %d a call, %d at once", calls, cs.lines, cs.most, logScan, logChunk)
			}
			// A filter nothing matches: pages of no line, each reading at
			// most logScan lines, until the log ends.
			cs.lines = 0
			got, calls = pageAll(t, m, url.Values{"chainId": {"nope"}})
			if len(got) != 0 || cs.lines > calls*logScan || calls > len(want)/logScan+1 {
				t.Errorf("a filter matching nothing: %d lines in %d calls reading %d; want none, each call at most %d", len(got), calls, cs.lines, logScan)
			}
		})
	}
}

// TestLogTokenAcrossReplicas: two replicas write one key's log to one
// Redis; a page token from either reads on from there at the other, and the
// pages hold every line once, newest first.
func TestLogTokenAcrossReplicas(t *testing.T) {
	rs := redistest.Start(t)
	clk := &clock{t: t0.Add(2 * time.Minute)}
	rdb := redis.NewClient(&redis.Options{Addr: rs.Addr})
	defer rdb.Close()
	var ms [2]*Meter
	for i := range ms {
		m, err := New(Options{Redis: rdb, Now: clk.Now, FlushInterval: time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		defer m.Close()
		ms[i] = m
	}
	var want []string
	for i := 0; i < 50; i++ { // interleaved in time, written by turns
		rec := traffic[0].record(i)
		rec.RequestID = fmt.Sprintf("r-%02d", i)
		ms[i%2].Record(rec)
		want = append([]string{rec.RequestID}, want...)
	}
	for _, m := range ms {
		if err := m.Flush(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	q := url.Values{"pageSize": {"6"}}
	for page := 0; page < 20; page++ {
		_, body := ask(t, ms[page%2], opLogs, "alice", q)
		var l struct {
			NextPageToken string
			Logs          []struct{ LogID string }
		}
		json.Unmarshal(body, &l)
		for _, e := range l.Logs {
			got = append(got, e.LogID)
		}
		if l.NextPageToken == "" {
			break
		}
		q.Set("pageToken", l.NextPageToken)
	}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("paged across replicas: %v; want %v", got, want)
	}
}

// TestRefusedLinesBounded: a key refused 5,000 times beside 20 charged
// requests in one flush keeps every charged line and at most as many
// refused ones plus one a second of the flush interval; its counts keep
// every request.
func TestRefusedLinesBounded(t *testing.T) {
	clk := &clock{t: t0.Add(time.Minute)}
	m, err := New(Options{Now: clk.Now, FlushInterval: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	for i := 0; i < 5020; i++ {
		r := req{time.Duration(i) * time.Millisecond, "alice", "getLatestBlocks", "/v1/chains/{chainId}/blocks", 429, 0, "", "43114"}
		if i%251 == 0 {
			r.status, r.cu = 200, 10
		}
		m.Record(r.record(i))
	}
	m.Flush(context.Background())
	got, _ := pageAll(t, m, url.Values{"pageSize": {"100"}})
	charged := 0
	for _, id := range got {
		var i int
		fmt.Sscanf(id, "req-%d", &i)
		if i%251 == 0 {
			charged++
		}
	}
	if charged != 20 || len(got) != 20+20+10 {
		t.Fatalf("%d lines kept, %d of them charged; want the 20 charged and 30 refused", len(got), charged)
	}
	if total := minuteTotal(t, m, "alice"); total != 5020 {
		t.Fatalf("counted %d requests; want all 5020", total)
	}
}

// BenchmarkLogsPage is one apiLogs page of 100 lines of a 20,000-line log
// in Redis, as the edge answers it (read, check, encode).
func BenchmarkLogsPage(b *testing.B) {
	rs := redistest.Start(b)
	rdb := redis.NewClient(&redis.Options{Addr: rs.Addr})
	defer rdb.Close()
	clk := &clock{t: t0.Add(time.Minute)}
	m, err := New(Options{Redis: rdb, Now: clk.Now, FlushInterval: time.Hour, LogsPerKey: 20_000})
	if err != nil {
		b.Fatal(err)
	}
	defer m.Close()
	for i := 0; i < 20_000; i++ {
		rec := traffic[0].record(i)
		rec.Start, rec.RequestID = t0.Add(time.Duration(i)*time.Millisecond), fmt.Sprintf("r-%d", i)
		m.Record(rec)
		if i%1000 == 999 {
			m.Flush(context.Background())
		}
	}
	q := url.Values{"pageSize": {"100"}}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if code, body := ask(b, m, opLogs, "alice", q); code != 200 || len(body) < 30_000 {
			b.Fatalf("%d %d bytes", code, len(body))
		}
	}
}

// TestAppendLog: a line written as the meter stores it (from hostRegion on)
// is answered as the whole LogsFormat object encoding/json writes, and a
// line stored whole, as before, as it is.
func TestAppendLog(t *testing.T) {
	m, _ := New(Options{FlushInterval: time.Hour, HostRegion: "eu"})
	defer m.Close()
	rec := traffic[5].record(5)
	rec.KeyID, rec.RequestID = `a"b<`, "req-5"
	r := m.logRec(&rec, m.dimsOf(&rec))
	l := r.line()
	type whole struct { // logFormat with its first five fields encoded
		OrgID          string `json:"orgId"`
		LogID          string `json:"logId"`
		EventTimestamp int64  `json:"eventTimestamp"`
		APIKeyID       string `json:"apiKeyId"`
		APIKeyAlias    string `json:"apiKeyAlias"`
	}
	head, _ := json.Marshal(whole{rec.KeyID, rec.RequestID, rec.Start.UnixMilli(), rec.KeyID, rec.KeyID})
	want := string(head[:len(head)-1]) + "," + l.JSON[1:]
	key, _ := json.Marshal(rec.KeyID)
	if got := string(appendLog(nil, key, &l)); got != want {
		t.Fatalf("appendLog = %s\nwant %s", got, want)
	}
	if !json.Valid([]byte(want)) || !strings.Contains(want, `"rpcMethod":"eth_blockNumber"`) {
		t.Fatalf("%s is not the whole line", want)
	}
	old := logLine{At: 1, ID: "x", JSON: want}
	if got := string(appendLog(nil, key, &old)); got != want {
		t.Fatalf("a line stored whole = %s; want it as it is", got)
	}
}

// gatedStore holds every logs read until open is closed, counting them.
type gatedStore struct {
	store
	open  chan struct{}
	reads atomic.Int32
}

func (g *gatedStore) logs(ctx context.Context, identity string, q logQuery) ([]logLine, error) {
	g.reads.Add(1)
	select {
	case <-g.open:
		return g.store.logs(ctx, identity, q)
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// TestLogsPageCollapsed (issue 35): calls asking for the same page of the
// same key at once share one read of the store and get the same bytes; a
// caller that leaves does not fail the others; another page, or another
// key's, is read on its own.
func TestLogsPageCollapsed(t *testing.T) {
	clk := &clock{t: t0.Add(2 * time.Minute)}
	m := stores(t, clk)["memory"]()
	logLines(t, m, 300)
	gs := &gatedStore{store: m.store, open: make(chan struct{})}
	m.store = gs
	const callers = 20
	r := httptest.NewRequest(http.MethodGet, "/v1/apiLogs?pageSize=100", nil)
	vals := catalog.Values{"pageSize": "100"}
	alice := Caller{Identity: "key:alice", KeyID: "alice"}
	bodies := make([]string, callers)
	var wg sync.WaitGroup
	for i := range callers {
		wg.Go(func() {
			w := httptest.NewRecorder()
			m.Answer(w, r, logsRoute(t), vals, alice)
			bodies[i] = fmt.Sprint(w.Code, " ", w.Body.String())
		})
	}
	// One caller that leaves while the read is held.
	gone, cancel := context.WithCancel(context.Background())
	left := make(chan int)
	go func() {
		w := httptest.NewRecorder()
		m.Answer(w, r.WithContext(gone), logsRoute(t), vals, alice)
		left <- w.Code
	}()
	for gs.reads.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	time.Sleep(50 * time.Millisecond) // the others join the read held
	cancel()
	if code := <-left; code != http.StatusServiceUnavailable {
		t.Errorf("the caller that left got %d; want 503 (its context ended)", code)
	}
	close(gs.open)
	wg.Wait()
	if n := gs.reads.Load(); n != 1 {
		t.Errorf("%d callers at once read the store %d times; want once", callers+1, n)
	}
	if !strings.HasPrefix(bodies[0], `200 {"nextPageToken":`) || strings.Count(bodies[0], `"logId"`) != 100 {
		t.Fatalf("answer %.200s; want 200 and a page of 100 lines", bodies[0])
	}
	for i, b := range bodies {
		if b != bodies[0] {
			t.Fatalf("caller %d got %.200s; want the same page as caller 0", i, b)
		}
	}
	// Another page, and another key's first page: a read each.
	var next struct{ NextPageToken string }
	json.Unmarshal([]byte(strings.TrimPrefix(bodies[0], "200 ")), &next)
	askAs(t, m, opLogs, alice, url.Values{"pageSize": {"100"}, "pageToken": {next.NextPageToken}})
	askAs(t, m, opLogs, Caller{Identity: "key:bob", KeyID: "bob"}, url.Values{"pageSize": {"100"}})
	if n := gs.reads.Load(); n != 3 {
		t.Errorf("the store was read %d times after two other pages; want 3", n)
	}
}

// logsRoute is the apiLogs route.
func logsRoute(t *testing.T) *catalog.Route {
	for _, r := range Routes() {
		if r.Name == opLogs {
			return &r
		}
	}
	t.Fatal("no apiLogs route")
	return nil
}
