package metricsapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"testing"
	"time"

	"github.com/avaedge/avaedge/catalog"
)

var testChains = []Chain{
	{EVMChainID: 43112, ChainName: "c_chain_local", BlockchainID: "2owdGqyG6FFzTHy5qhenDXQcEghvr571KZE3gSfRJERSJinuwC",
		SubnetID: "11111111111111111111111111111111LpoYY", Network: "testnet"},
	{EVMChainID: 43113, ChainName: "c_chain_fuji", BlockchainID: "yH8D7ThNJkxmtkuv2jgBa4P1Rn3Qpr4pPr7QYNfcdoS6k6HWp",
		SubnetID: "11111111111111111111111111111111LpoYY", Network: "fuji"},
	{EVMChainID: 43114, ChainName: "c_chain", BlockchainID: "2q9e4r6Mu3U68nU1fYjgbR6JvwrRx36CohpAX5UQxse55x1Q5",
		SubnetID: "11111111111111111111111111111111LpoYY", Network: "mainnet"},
	{EVMChainID: 99999, ChainName: "idle", BlockchainID: "idle", SubnetID: "idle", Network: "mainnet"}, // never gets a block
}

var clock = time.Date(2026, 11, 23, 5, 0, 0, 0, time.UTC)

// world is three chains with known activity: 43112 crosses the end of
// January, February, March and April and many Mondays; 43113 starts later;
// 43114 (mainnet) starts on a Monday.
type world struct {
	e      *Engine
	blocks map[uint64][]*Block
}

func newWorld(t testing.TB) *world {
	t.Helper()
	w := &world{blocks: map[uint64][]*Block{
		43112: genChain(43112, 700, time.Date(2026, 1, 28, 21, 13, 0, 0, time.UTC), 1),
		43113: genChain(43113, 250, time.Date(2026, 2, 10, 3, 0, 0, 0, time.UTC), 2),
		43114: genChain(43114, 300, time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC), 3),
	}}
	w.e = newEngine(t)
	for _, id := range []uint64{43112, 43113, 43114} {
		apply(t, w.e, w.blocks[id])
	}
	return w
}

func newEngine(t testing.TB) *Engine {
	t.Helper()
	e, err := New(Options{Chains: testChains, Now: func() time.Time { return clock }})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func apply(t testing.TB, e *Engine, bs []*Block) {
	t.Helper()
	for _, b := range bs {
		if err := e.Apply(context.Background(), b); err != nil {
			t.Fatal(err)
		}
	}
}

// members returns the blocks of the chains chainID names.
func (w *world) members(chainID string) [][]*Block {
	var out [][]*Block
	for _, c := range testChains {
		if strconv.FormatUint(c.EVMChainID, 10) == chainID || chainID == "total" || (c.Network == chainID) ||
			(chainID == "testnet" && c.Network == "fuji") {
			out = append(out, w.blocks[c.EVMChainID])
		}
	}
	return out
}

type point struct {
	Value     json.Number `json:"value"`
	Timestamp int64       `json:"timestamp"`
}

type page struct {
	Results       []point `json:"results"`
	NextPageToken *string `json:"nextPageToken"`
}

// do serves one request with the given path values.
func do(e *Engine, op, target string, pv ...string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(http.MethodGet, target, nil)
	for i := 0; i+1 < len(pv); i += 2 {
		r.SetPathValue(pv[i], pv[i+1])
	}
	rec := httptest.NewRecorder()
	validating(e, op).ServeHTTP(rec, r)
	return rec
}

// validating returns the handler of op behind the catalogue's validation, as
// the local world mounts it without the edge.
func validating(e *Engine, op string) http.Handler {
	for _, rt := range catalog.Catalogue() {
		if rt.Name == op {
			return rt.Validating(e.Handlers()[op])
		}
	}
	panic("no route " + op)
}

func decode(t testing.TB, body []byte, v any) {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(body))
	d.UseNumber()
	if err := d.Decode(v); err != nil {
		t.Fatalf("decoding %s: %v", body, err)
	}
}

// walk fetches every page of a metric series.
func walk(t testing.TB, e *Engine, chainID, metric string, q url.Values) []point {
	t.Helper()
	var all []point
	for pages := 0; ; pages++ {
		if pages > 10000 {
			t.Fatal("too many pages")
		}
		rec := do(e, "getEvmChainMetrics", "/v2/x?"+q.Encode(), "chainId", chainID, "metric", metric)
		if rec.Code != http.StatusOK {
			t.Fatalf("%s %s ?%s: status %d: %s", chainID, metric, q.Encode(), rec.Code, rec.Body)
		}
		var p page
		decode(t, rec.Body.Bytes(), &p)
		all = append(all, p.Results...)
		if p.NextPageToken == nil {
			return all
		}
		if *p.NextPageToken == "" || len(p.Results) == 0 {
			t.Fatalf("empty nextPageToken or page: %s", rec.Body)
		}
		q.Set("pageToken", *p.NextPageToken)
	}
}

// same reports the first difference between got and the oracle's want.
func same(got []point, want []oPoint) string {
	if len(got) != len(want) {
		return "got " + strconv.Itoa(len(got)) + " points; want " + strconv.Itoa(len(want))
	}
	for i, w := range want {
		g := got[i]
		at := time.Unix(w.ts, 0).UTC().Format(time.RFC3339)
		if g.Timestamp != w.ts {
			return "point " + strconv.Itoa(i) + ": timestamp " + time.Unix(g.Timestamp, 0).UTC().Format(time.RFC3339) + "; want " + at
		}
		if !w.float {
			if g.Value.String() != w.value {
				return at + ": got " + g.Value.String() + "; want " + w.value
			}
			continue
		}
		gv, err1 := g.Value.Float64()
		wv, err2 := strconv.ParseFloat(w.value, 64)
		if err1 != nil || err2 != nil || math.Abs(gv-wv) > 1e-12*math.Max(1, math.Abs(wv)) {
			return at + ": got " + g.Value.String() + "; want " + w.value
		}
	}
	return ""
}

func allowed(metric string) []string {
	if catalog.DayOnly(metric) {
		return []string{"day"}
	}
	return []string{"hour", "day", "week", "month"}
}

// TestEveryMetricEveryInterval checks each metric at each allowed interval,
// for one chain and for the aggregates, against the oracle, whole series
// (every page) at once: timestamps, alignment, dense empty buckets, values.
func TestEveryMetricEveryInterval(t *testing.T) {
	w := newWorld(t)
	for _, chainID := range []string{"43112", "43114", "testnet", "mainnet", "total"} {
		for _, metric := range catalog.MetricNames {
			for _, iv := range allowed(metric) {
				t.Run(chainID+"/"+metric+"/"+iv, func(t *testing.T) {
					got := walk(t, w.e, chainID, metric, url.Values{"timeInterval": {iv}, "pageSize": {"2160"}})
					if d := same(got, oracle(w.members(chainID), metric, iv)); d != "" {
						t.Fatal(d)
					}
				})
			}
		}
	}
}

// TestDefaultInterval checks that no timeInterval means day.
func TestDefaultInterval(t *testing.T) {
	w := newWorld(t)
	got := walk(t, w.e, "43112", "txCount", url.Values{})
	if d := same(got, oracle(w.members("43112"), "txCount", "day")); d != "" {
		t.Fatal(d)
	}
}

func TestIntervalAlignment(t *testing.T) {
	tests := []struct {
		name string
		ts   time.Time
		iv   interval
		want time.Time
	}{
		{"hour mid", time.Date(2026, 3, 4, 15, 30, 1, 0, time.UTC), hour, time.Date(2026, 3, 4, 15, 0, 0, 0, time.UTC)},
		{"hour edge", time.Date(2026, 3, 4, 15, 0, 0, 0, time.UTC), hour, time.Date(2026, 3, 4, 15, 0, 0, 0, time.UTC)},
		{"day last second", time.Date(2026, 3, 4, 23, 59, 59, 0, time.UTC), day, time.Date(2026, 3, 4, 0, 0, 0, 0, time.UTC)},
		{"week wednesday", time.Date(2026, 3, 4, 15, 30, 0, 0, time.UTC), week, time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)},
		{"week monday 00:00", time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC), week, time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)},
		{"week sunday 23:59:59", time.Date(2026, 3, 1, 23, 59, 59, 0, time.UTC), week, time.Date(2026, 2, 23, 0, 0, 0, 0, time.UTC)},
		{"week across a year", time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC), week, time.Date(2025, 12, 29, 0, 0, 0, 0, time.UTC)},
		{"month first", time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC), month, time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)},
		{"month last second", time.Date(2026, 2, 28, 23, 59, 59, 0, time.UTC), month, time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)},
		{"leap february", time.Date(2028, 2, 29, 10, 0, 0, 0, time.UTC), month, time.Date(2028, 2, 1, 0, 0, 0, 0, time.UTC)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.iv.floor(tt.ts.Unix())
			if got != tt.want.Unix() {
				t.Fatalf("floor = %v; want %v", time.Unix(got, 0).UTC(), tt.want)
			}
			if p := tt.iv.prev(tt.iv.next(got)); p != got {
				t.Fatalf("prev(next(%d)) = %d", got, p)
			}
			if c := tt.iv.ceil(tt.ts.Unix()); c < tt.ts.Unix() || tt.iv.floor(c) != c || (c != got && tt.iv.next(got) != c) {
				t.Fatalf("ceil = %v", time.Unix(c, 0).UTC())
			}
		})
	}
	for ts := int64(1767225600 - 3*86400); ts < 1767225600+40*86400; ts += 1793 {
		for iv := range numIntervals {
			if got, want := iv.floor(ts), oFloor(ts, iv.String()); got != want {
				t.Fatalf("%s floor(%d) = %d; want %d", iv, ts, got, want)
			}
		}
	}
}

// TestRollback cuts a chain at several places (mid-bucket, between block
// numbers, before the first block), then applies a different fork, and
// checks every metric of the chain and of total against the oracle.
func TestRollback(t *testing.T) {
	ctx := context.Background()
	for _, cut := range []int{699, 350, 41, 0} {
		t.Run("cut"+strconv.Itoa(cut), func(t *testing.T) {
			w := newWorld(t)
			a := w.blocks[43112]
			from := a[cut].Number
			if cut == 350 {
				from-- // between two block numbers
			}
			if err := w.e.Rollback(ctx, 43112, from); err != nil {
				t.Fatal(err)
			}
			check := func(step string) {
				for _, chainID := range []string{"43112", "total"} {
					for _, metric := range catalog.MetricNames {
						for _, iv := range allowed(metric) {
							got := walk(t, w.e, chainID, metric, url.Values{"timeInterval": {iv}, "pageSize": {"2160"}})
							if d := same(got, oracle(w.members(chainID), metric, iv)); d != "" {
								t.Fatalf("%s: %s %s %s: %s", step, chainID, metric, iv, d)
							}
						}
					}
				}
			}
			w.blocks[43112] = a[:cut]
			check("after rollback")
			start := time.Date(2026, 1, 20, 0, 0, 0, 0, time.UTC)
			if cut > 0 {
				start = time.Unix(int64(a[cut-1].Timestamp), 0)
			}
			fork := genChain(43112, 120, start, 99)
			for i, b := range fork {
				b.Number = from + uint64(i)
			}
			apply(t, w.e, fork)
			w.blocks[43112] = append(a[:cut:cut], fork...)
			check("after the fork")
		})
	}
	t.Run("nothing to undo", func(t *testing.T) {
		e := newEngine(t)
		if err := e.Rollback(ctx, 43112, 5); err != nil {
			t.Fatalf("Rollback of an empty chain = %v", err)
		}
		if err := e.Rollback(ctx, 1, 5); !errors.Is(err, ErrUnknownChain) {
			t.Fatalf("Rollback of an unknown chain = %v; want ErrUnknownChain", err)
		}
	})
}

// TestPagination walks an hourly series in pages of 7 within a window and
// checks that every point comes once, in order, and that blocks applied
// mid-walk do not shift the pages.
func TestPagination(t *testing.T) {
	w := newWorld(t)
	a := w.blocks[43112]
	start := int64(a[100].Timestamp)/3600*3600 + 1 // not aligned: its own hour is left out
	end := int64(a[400].Timestamp) / 3600 * 3600   // aligned: its hour is in
	q := url.Values{"timeInterval": {"hour"}, "pageSize": {"7"}, "startTimestamp": {strconv.FormatInt(start, 10)},
		"endTimestamp": {strconv.FormatInt(end, 10)}}
	var want []oPoint
	for _, p := range oracle(w.members("43112"), "txCount", "hour") {
		if p.ts >= start && p.ts <= end {
			want = append(want, p)
		}
	}
	var got []point
	pages := 0
	for {
		rec := do(w.e, "getEvmChainMetrics", "/v2/x?"+q.Encode(), "chainId", "43112", "metric", "txCount")
		if rec.Code != http.StatusOK {
			t.Fatalf("status %d: %s", rec.Code, rec.Body)
		}
		var p page
		decode(t, rec.Body.Bytes(), &p)
		got = append(got, p.Results...)
		pages++
		if p.NextPageToken == nil {
			if len(p.Results) == 0 || len(p.Results) > 7 {
				t.Fatalf("last page has %d points", len(p.Results))
			}
			break
		}
		if len(p.Results) != 7 {
			t.Fatalf("page %d has %d points; want 7", pages, len(p.Results))
		}
		if pages == 3 { // new data arrives mid-walk
			last := w.blocks[43112][len(w.blocks[43112])-1]
			b := &Block{ChainID: 43112, Number: last.Number + 1, Timestamp: last.Timestamp + 7200, Txs: []Tx{{From: "0x1"}}}
			apply(t, w.e, []*Block{b})
		}
		q.Set("pageToken", *p.NextPageToken)
	}
	if d := same(got, want); d != "" {
		t.Fatal(d)
	}
	if wantPages := (len(want) + 6) / 7; pages != wantPages {
		t.Fatalf("%d pages; want %d", pages, wantPages)
	}
	// A token belongs to its listing.
	first := do(w.e, "getEvmChainMetrics", "/v2/x?timeInterval=hour&pageSize=1", "chainId", "43112", "metric", "txCount")
	var p page
	decode(t, first.Body.Bytes(), &p)
	tok := url.QueryEscape(*p.NextPageToken)
	if rec := do(w.e, "getEvmChainMetrics", "/v2/x?timeInterval=hour&pageToken="+tok, "chainId", "43112", "metric", "gasUsed"); rec.Code != http.StatusBadRequest {
		t.Fatalf("token of another metric: status %d; want 400", rec.Code)
	}
	if rec := do(w.e, "getEvmChainMetrics", "/v2/x?timeInterval=hour&pageToken="+tok, "chainId", "43112", "metric", "txCount"); rec.Code != http.StatusOK {
		t.Fatalf("token: status %d; want 200", rec.Code)
	}
}

// TestPageSizes checks the page count around the series' length: a last
// page of one point, and no token when the page holds everything.
func TestPageSizes(t *testing.T) {
	w := newWorld(t)
	n := len(oracle(w.members("testnet"), "activeAddresses", "week"))
	for _, size := range []int{1, n - 1, n, n + 1} {
		t.Run(strconv.Itoa(size), func(t *testing.T) {
			q := url.Values{"timeInterval": {"week"}, "pageSize": {strconv.Itoa(size)}}
			pages, total := 0, 0
			for {
				rec := do(w.e, "getEvmChainMetrics", "/v2/x?"+q.Encode(), "chainId", "testnet", "metric", "activeAddresses")
				var p page
				decode(t, rec.Body.Bytes(), &p)
				pages++
				total += len(p.Results)
				if p.NextPageToken == nil {
					break
				}
				q.Set("pageToken", *p.NextPageToken)
			}
			if want := (n + size - 1) / size; pages != want || total != n {
				t.Fatalf("%d pages, %d points; want %d pages, %d points", pages, total, want, n)
			}
		})
	}
}

// TestTimestampBounds checks that both bounds are inclusive.
func TestTimestampBounds(t *testing.T) {
	w := newWorld(t)
	all := walk(t, w.e, "43112", "txCount", url.Values{"pageSize": {"2160"}})
	mid := all[len(all)/2].Timestamp
	tests := []struct {
		name       string
		start, end int64
		want       []int64
	}{
		{"one day", mid, mid, []int64{mid}},
		{"start inside the day", mid + 1, mid + 86400, []int64{mid + 86400}},
		{"end inside the day", mid - 86400, mid + 86399, []int64{mid, mid - 86400}},
		{"empty", mid + 1, mid + 86399, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := walk(t, w.e, "43112", "txCount", url.Values{"startTimestamp": {strconv.FormatInt(tt.start, 10)},
				"endTimestamp": {strconv.FormatInt(tt.end, 10)}})
			var ts []int64
			for _, p := range got {
				ts = append(ts, p.Timestamp)
			}
			if !equal(ts, tt.want) {
				t.Fatalf("timestamps %v; want %v", ts, tt.want)
			}
		})
	}
}

func equal(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestAvgTps(t *testing.T) {
	w := newWorld(t)
	newest := w.blocks[43112][len(w.blocks[43112])-1] // lastRun: the chain's newest block's time
	var got []point
	q := url.Values{}
	for {
		rec := do(w.e, "getAvgTps", "/v1/avg_tps/43112?"+q.Encode(), "chainId", "43112")
		if rec.Code != http.StatusOK {
			t.Fatalf("status %d: %s", rec.Code, rec.Body)
		}
		var p struct {
			Results       []point `json:"results"`
			Status        *int    `json:"status"`
			LastRun       *int64  `json:"lastRun"`
			NextPageToken *string `json:"nextPageToken"`
		}
		decode(t, rec.Body.Bytes(), &p)
		if p.Status == nil || *p.Status != 200 || p.LastRun == nil || *p.LastRun != int64(newest.Timestamp) {
			t.Fatalf("status/lastRun: %s", rec.Body)
		}
		if p.NextPageToken != nil && len(p.Results) != defaultPageSize {
			t.Fatalf("a page of %d points before the last", len(p.Results))
		}
		got = append(got, p.Results...)
		if p.NextPageToken == nil {
			break
		}
		q.Set("pageToken", *p.NextPageToken)
	}
	want := oracle(w.members("43112"), "avgTps", "day")
	if len(want) <= defaultPageSize {
		t.Fatalf("the test wants more than one page; has %d days", len(want))
	}
	if d := same(got, want); d != "" {
		t.Fatal(d)
	}
	if rec := do(w.e, "getAvgTps", "/v1/avg_tps/7", "chainId", "7"); rec.Code != http.StatusNotFound {
		t.Fatalf("unknown chain: status %d", rec.Code)
	}
}

// TestConcurrent reads while blocks are applied and rolled back (run with
// -race).
func TestConcurrent(t *testing.T) {
	e := newEngine(t)
	blocks := genChain(43112, 300, time.Date(2026, 1, 28, 0, 0, 0, 0, time.UTC), 11)
	done := make(chan struct{})
	go func() {
		defer close(done)
		ctx := context.Background()
		for i, b := range blocks {
			if err := e.Apply(ctx, b); err != nil {
				t.Error(err)
				return
			}
			if i%50 == 49 {
				if err := e.Rollback(ctx, 43112, b.Number); err != nil {
					t.Error(err)
					return
				}
				if err := e.Apply(ctx, b); err != nil {
					t.Error(err)
					return
				}
			}
		}
	}()
	for reads := 0; ; reads++ {
		select {
		case <-done:
			if reads == 0 {
				t.Log("the writer finished before the first read")
			}
			return
		default:
		}
		for _, chainID := range []string{"43112", "total", "testnet"} {
			for _, metric := range []string{"activeAddresses", "cumulativeAddresses", "feesPaid"} {
				if rec := do(e, "getEvmChainMetrics", "/v2/x?pageSize=50&timeInterval=day", "chainId", chainID, "metric", metric); rec.Code != http.StatusOK {
					t.Fatalf("status %d", rec.Code)
				}
			}
		}
	}
}
