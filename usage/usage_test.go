package usage

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unsafe"

	"github.com/redis/go-redis/v9"

	"github.com/avaedge/avaedge/catalog"
	"github.com/avaedge/avaedge/internal/redistest"
	"github.com/avaedge/avaedge/internal/spectest"
)

var spec = spectest.DataAPI(nil)

// clock is a test clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }

// t0 is a minute boundary in the tests' day.
var t0 = time.Date(2026, 3, 4, 10, 20, 0, 0, time.UTC)

// stores returns a meter of each store kind, on clk: memory, SQLite in a
// temporary data directory, and a real Redis (miniredis without one).
func stores(t *testing.T, clk *clock) map[string]func() *Meter {
	dir := t.TempDir()
	rs := redistest.Start(t)
	open := func(o Options) func() *Meter {
		return func() *Meter {
			o.Now, o.FlushInterval, o.EVMChainID = clk.Now, time.Hour, "43112"
			m, err := New(o)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { m.Close() })
			return m
		}
	}
	return map[string]func() *Meter{
		"memory": open(Options{}),
		"sqlite": open(Options{DataDir: dir}),
		"redis":  open(Options{Redis: redis.NewClient(&redis.Options{Addr: rs.Addr})}),
	}
}

// req is a request the tests record.
type req struct {
	at     time.Duration // after t0
	key    string
	route  string
	path   string
	status int
	cu     int64
	rpc    string // the JSON-RPC method of a node call
	chain  string
}

var traffic = []req{
	{0, "alice", "getLatestBlocks", "/v1/chains/{chainId}/blocks", 200, 10, "", "43114"},
	{time.Second, "alice", "getLatestBlocks", "/v1/chains/{chainId}/blocks", 200, 10, "", "43114"},
	{2 * time.Second, "alice", "listSubnets", "/v1/networks/{network}/subnets", 400, 0, "", ""},
	{3 * time.Second, "bob", "getLatestBlocks", "/v1/chains/{chainId}/blocks", 200, 10, "", "43114"},
	{61 * time.Second, "alice", "info.getNetworkID", "/ext/info", 200, 1, "info.getNetworkID", ""},
	{62 * time.Second, "alice", "evm.rpc", "/ext/bc/C/rpc", 200, 1, "eth_blockNumber", ""},
	{63 * time.Second, "alice", "evm.rpc", "/ext/bc/C/rpc", 429, 0, "eth_blockNumber", ""},
	{64 * time.Second, "alice", "getLatestBlocks", "/v1/chains/{chainId}/blocks", 404, 10, "", "1"},
}

func (r req) record(i int) Record {
	rec := Record{Start: t0.Add(r.at), Duration: time.Duration(i+1) * time.Millisecond, Identity: "key:" + r.key, KeyID: r.key,
		Route: r.route, Path: r.path, RequestID: fmt.Sprintf("req-%02d", i), RemoteAddr: "192.0.2.7:5000", Host: "edge.test",
		Header: http.Header{"User-Agent": {"test-agent"}}, Status: r.status, Source: "cache", CU: r.cu, RPC: r.rpc != "", Method: r.rpc}
	if r.chain != "" {
		rec.Values = catalog.Values{"chainId": r.chain}
	}
	return rec
}

// ask calls a usage route of m as the key caller and returns its status
// and body.
func ask(t testing.TB, m *Meter, name, caller string, q url.Values) (int, []byte) {
	t.Helper()
	return askAs(t, m, name, Caller{Identity: "key:" + caller, KeyID: caller}, q)
}

// askAs is ask for any caller.
func askAs(t testing.TB, m *Meter, name string, caller Caller, q url.Values) (int, []byte) {
	t.Helper()
	var rt *catalog.Route
	for _, r := range Routes() {
		if r.Name == name {
			rt = &r
		}
	}
	r := httptest.NewRequest(http.MethodGet, rt.Path+"?"+q.Encode(), nil)
	query, msgs := rt.ParseQuery(r.URL.RawQuery)
	var vals catalog.Values
	if msgs == nil {
		vals, msgs = rt.Validate(r, query, nil)
	}
	if len(msgs) > 0 {
		t.Fatalf("%s %v: %v", name, q, msgs)
	}
	w := httptest.NewRecorder()
	m.Answer(w, r, rt, vals, caller)
	return w.Code, w.Body.Bytes()
}

func TestUsageRoutes(t *testing.T) {
	clk := &clock{t: t0.Add(2 * time.Minute)}
	for name, open := range stores(t, clk) {
		t.Run(name, func(t *testing.T) {
			m := open()
			for i, r := range traffic {
				m.Record(r.record(i))
			}
			if err := m.Flush(context.Background()); err != nil {
				t.Fatal(err)
			}
			checkUsage(t, m)
		})
	}
}

type value struct {
	GroupedBy               string  `json:"groupedBy"`
	GroupValue              any     `json:"groupValue"`
	TotalRequests           int64   `json:"totalRequests"`
	SuccessRatePercent      float64 `json:"successRatePercent"`
	MedianResponseTimeMsecs float64 `json:"medianResponseTimeMsecs"`
	InvalidRequests         int64   `json:"invalidRequests"`
	APICreditsUsed          int64   `json:"apiCreditsUsed"`
	APICreditsWasted        int64   `json:"apiCreditsWasted"`
}

type series struct {
	Metrics []struct {
		Timestamp int64   `json:"timestamp"`
		Values    []value `json:"values"`
	} `json:"metrics"`
}

// flat is a series as "timestamp groupValue=requests" lines.
func (s series) flat() []string {
	var out []string
	for _, m := range s.Metrics {
		for _, v := range m.Values {
			out = append(out, fmt.Sprintf("%d %v=%d", m.Timestamp-t0.Unix(), v.GroupValue, v.TotalRequests))
		}
	}
	return out
}

func checkUsage(t *testing.T, m *Meter) {
	get := func(name, schema, caller string, q url.Values) []byte {
		t.Helper()
		code, body := ask(t, m, name, caller, q)
		if code != 200 {
			t.Fatalf("%s %v = %d %s", name, q, code, body)
		}
		if err := spec.Validate(t, schema, body); err != nil {
			t.Fatalf("%s %v: %s is not a %s: %v", name, q, body, schema, err)
		}
		return body
	}
	decode := func(b []byte) series {
		var s series
		if err := json.Unmarshal(b, &s); err != nil {
			t.Fatal(err)
		}
		return s
	}
	byPath := decode(get(opUsage, "UsageMetricsResponseDTO", "alice", url.Values{"timeInterval": {"minute"}, "groupBy": {"requestPath"}}))
	want := []string{"60 /ext/bc/C/rpc=2", "60 /ext/info=1", "60 /v1/chains/{chainId}/blocks=1",
		"0 /v1/chains/{chainId}/blocks=2", "0 /v1/networks/{network}/subnets=1"}
	if got := byPath.flat(); !reflect.DeepEqual(got, want) {
		t.Errorf("alice by path per minute = %q; want %q", got, want)
	}
	byCode := decode(get(opUsage, "UsageMetricsResponseDTO", "alice", url.Values{"timeInterval": {"minute"}, "groupBy": {"responseCode"}}))
	want = []string{"60 200=2", "60 404=1", "60 429=1", "0 200=2", "0 400=1"}
	if got := byCode.flat(); !reflect.DeepEqual(got, want) {
		t.Errorf("alice by code per minute = %q; want %q", got, want)
	}
	// The 404 was charged: its credits are wasted; the 400 and the 429 were not charged.
	for _, v := range byCode.Metrics[0].Values {
		if v.GroupValue == float64(404) && (v.InvalidRequests != 1 || v.APICreditsWasted != 10) {
			t.Errorf("404 group = %+v; want 1 invalid request and 10 wasted credits", v)
		}
	}
	daily := decode(get(opUsage, "UsageMetricsResponseDTO", "alice", url.Values{}))
	if len(daily.Metrics) != 1 || len(daily.Metrics[0].Values) != 1 {
		t.Fatalf("daily = %+v", daily)
	}
	v := daily.Metrics[0].Values[0]
	if v.GroupedBy != "None" || v.GroupValue != nil || v.TotalRequests != 7 || v.APICreditsUsed != 32 || v.InvalidRequests != 3 ||
		v.SuccessRatePercent != 57.143 || v.MedianResponseTimeMsecs <= 2.5 || v.MedianResponseTimeMsecs > 5 {
		t.Errorf("alice's day = %+v; want 7 requests, 32 CU, 3 invalid, 57.143%% success, median in (2.5, 5] ms", v)
	}
	if got := decode(get(opUsage, "UsageMetricsResponseDTO", "bob", url.Values{"timeInterval": {"hourly"}, "groupBy": {"apiKeyId"}})).flat(); !reflect.DeepEqual(got, []string{"-1200 bob=1"}) {
		t.Errorf("bob by key per hour = %q", got)
	}
	// Another key's id, as apiKeyId or orgId, answers nothing of it.
	for _, p := range []string{"apiKeyId", "orgId"} {
		if s := decode(get(opUsage, "UsageMetricsResponseDTO", "alice", url.Values{p: {"bob"}})); len(s.Metrics) != 0 {
			t.Errorf("%s=bob asked by alice = %+v; want nothing", p, s)
		}
	}
	if got := decode(get(opUsage, "UsageMetricsResponseDTO", "alice", url.Values{"requestType": {"rpc"}, "groupBy": {"requestType"}, "timeInterval": {"weekly"}})).flat(); len(got) != 1 || !strings.HasSuffix(got[0], " rpc=3") {
		t.Errorf("alice's rpc requests per week = %q; want rpc=3", got)
	}

	// Logs: exactly alice's, newest first, a page at a time.
	var ids []string
	q := url.Values{"pageSize": {"3"}}
	for page := 0; ; page++ {
		var l struct {
			NextPageToken string `json:"nextPageToken"`
			OrgID         string `json:"orgId"`
			Logs          []struct {
				LogID     string `json:"logId"`
				APIKeyID  string `json:"apiKeyId"`
				RPCMethod string `json:"rpcMethod"`
			} `json:"logs"`
		}
		if err := json.Unmarshal(get(opLogs, "LogsResponseDTO", "alice", q), &l); err != nil {
			t.Fatal(err)
		}
		for _, e := range l.Logs {
			if e.APIKeyID != "alice" {
				t.Errorf("alice's logs hold %+v", e)
			}
			ids = append(ids, e.LogID)
		}
		if l.NextPageToken == "" || page > 5 {
			break
		}
		q.Set("pageToken", l.NextPageToken)
	}
	if want := []string{"req-07", "req-06", "req-05", "req-04", "req-02", "req-01", "req-00"}; !reflect.DeepEqual(ids, want) {
		t.Errorf("alice's logs = %q; want %q", ids, want)
	}
	var bobLogs struct{ Logs []json.RawMessage }
	json.Unmarshal(get(opLogs, "LogsResponseDTO", "alice", url.Values{"apiKeyId": {"bob"}}), &bobLogs)
	if len(bobLogs.Logs) != 0 {
		t.Errorf("alice asking for bob's logs got %d", len(bobLogs.Logs))
	}
	if code, body := ask(t, m, opLogs, "alice", url.Values{"pageToken": {"not a token"}}); code != 400 {
		t.Errorf("a bad page token = %d %s; want 400", code, body)
	}

	// RPC: node calls by method.
	prim := decode(get(opPrimaryRPC, "PrimaryNetworkRpcUsageMetricsResponseDTO", "alice", url.Values{"network": {"fuji"}, "groupBy": {"rpcMethod"}, "timeInterval": {"hourly"}}))
	if got := prim.flat(); !reflect.DeepEqual(got, []string{"-1200 eth_blockNumber=2", "-1200 info.getNetworkID=1"}) {
		t.Errorf("primary network RPC by method = %q", got)
	}
	sub := decode(get(opSubnetRPC, "SubnetRpcUsageMetricsResponseDTO", "alice", url.Values{"groupBy": {"responseCode"}}))
	if got := sub.flat(); !reflect.DeepEqual(got, []string{fmt.Sprint(-t0.Unix()%86400) + " 200=1", fmt.Sprint(-t0.Unix()%86400) + " 429=1"}) {
		t.Errorf("subnet RPC by code = %q", got)
	}
	if s := decode(get(opSubnetRPC, "SubnetRpcUsageMetricsResponseDTO", "alice", url.Values{"chainId": {"43114"}})); len(s.Metrics) != 0 {
		t.Errorf("subnet RPC of a chain not called = %+v", s)
	}
}

// TestSQLiteSurvivesRestart: what a meter wrote to its data directory is
// answered the same by the next process's meter.
func TestSQLiteSurvivesRestart(t *testing.T) {
	dir := t.TempDir()
	clk := &clock{t: t0.Add(2 * time.Minute)}
	open := func() *Meter {
		m, err := New(Options{DataDir: dir, Now: clk.Now, FlushInterval: time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	m := open()
	for i, r := range traffic {
		m.Record(r.record(i))
	}
	q := url.Values{"timeInterval": {"minute"}, "groupBy": {"responseCode"}}
	m.Close() // flushes
	m2 := open()
	defer m2.Close()
	_, after := ask(t, m2, opUsage, "alice", q)
	var s series
	json.Unmarshal(after, &s)
	if got := s.flat(); len(got) != 5 {
		t.Fatalf("after a restart alice's usage = %q; want her 5 groups", got)
	}
}

// TestRedisOutage: a batch that cannot be written is kept and written once
// Redis is back, nothing counted twice; a batch applied whose answer was
// lost is not applied again when retried.
func TestRedisOutage(t *testing.T) {
	rs := redistest.Start(t)
	rs.RequireReal()
	clk := &clock{t: t0.Add(2 * time.Minute)}
	rdb := redis.NewClient(&redis.Options{Addr: rs.Addr, MaxRetries: -1, DialTimeout: 100 * time.Millisecond})
	defer rdb.Close()
	m, err := New(Options{Redis: rdb, Now: clk.Now, FlushInterval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	for i, r := range traffic[:4] {
		m.Record(r.record(i))
	}
	rs.Stop()
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	if err := m.Flush(ctx); err == nil {
		t.Fatal("a flush with Redis stopped succeeded")
	}
	cancel()
	for i, r := range traffic[4:] {
		m.Record(r.record(i + 4))
	}
	if err := m.Flush(context.Background()); err == nil {
		t.Fatal("a second flush with Redis stopped succeeded")
	}
	if n := m.queuedRequests(); n != int64(len(traffic)) {
		t.Fatalf("queued %d requests; want %d", n, len(traffic))
	}
	rs.Restart()
	if err := m.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	// The first batch applied again, as a retry after a lost answer would:
	// skipped by its sequence number.
	b := &batch{seq: 1, counts: map[bucketKey]map[string]int64{{"key:alice", minuteLevel, t0.Unix()}: {"data" + sep + "/x" + sep + "200" + sep + sep + sep + sep + "cache" + sep + "n": 5}}}
	if err := m.store.write(context.Background(), b, clk.Now()); err != nil {
		t.Fatal(err)
	}
	if total := minuteTotal(t, m, "alice"); total != 7 {
		t.Fatalf("alice's requests after the outage = %d; want 7", total)
	}
}

// minuteTotal is key's requests over its minutes, as apiUsageMetrics
// answers them.
func minuteTotal(t testing.TB, m *Meter, key string) int64 {
	t.Helper()
	_, body := ask(t, m, opUsage, key, url.Values{"timeInterval": {"minute"}})
	var s series
	if err := json.Unmarshal(body, &s); err != nil {
		t.Fatalf("%v: %s", err, body)
	}
	var total int64
	for _, x := range s.Metrics {
		for _, v := range x.Values {
			total += v.TotalRequests
		}
	}
	return total
}

// TestDimsBounded: a key that names a thousand chains in one minute is
// counted exactly, its distinct dims capped.
func TestDimsBounded(t *testing.T) {
	clk := &clock{t: t0.Add(time.Minute)}
	m, _ := New(Options{Now: clk.Now, FlushInterval: time.Hour})
	defer m.Close()
	for i := 0; i < 1000; i++ {
		r := req{0, "alice", "getLatestBlocks", "/v1/chains/{chainId}/blocks", 200, 10, "", strconv.Itoa(i)}
		rec := r.record(i)
		rec.RequestID = strconv.Itoa(i)
		m.Record(rec)
	}
	m.Flush(context.Background())
	_, body := ask(t, m, opUsage, "alice", url.Values{"timeInterval": {"minute"}, "groupBy": {"chainId"}})
	var s series
	json.Unmarshal(body, &s)
	var total int64
	chains := map[any]bool{}
	for _, v := range s.Metrics[0].Values {
		total += v.TotalRequests
		chains[v.GroupValue] = true
	}
	if total != 1000 || len(chains) != maxDims+1 || !chains[other] {
		t.Fatalf("1000 requests over 1000 chains: %d counted in %d groups; want 1000 in %d (with %q)", total, len(chains), maxDims+1, other)
	}
}

// TestRecordAllocs: recording a request allocates nothing.
func TestRecordAllocs(t *testing.T) {
	m, _ := New(Options{FlushInterval: time.Hour})
	defer m.Close()
	rec := traffic[0].record(0)
	if n := testing.AllocsPerRun(1000, func() { m.Record(rec) }); n != 0 {
		t.Fatalf("Record allocates %.1f times", n)
	}
}

// TestRoutesMatchSpec: each usage route takes glacier.json's parameters,
// in its order, with its enums, bounds and defaults.
func TestRoutesMatchSpec(t *testing.T) {
	var doc struct {
		Paths map[string]map[string]struct {
			OperationID string `json:"operationId"`
			Parameters  []struct {
				Name     string `json:"name"`
				Required bool   `json:"required"`
				Schema   struct {
					Ref     string   `json:"$ref"`
					Enum    []string `json:"enum"`
					Type    string   `json:"type"`
					Minimum *float64 `json:"minimum"`
					Maximum *float64 `json:"maximum"`
					Default any      `json:"default"`
				} `json:"schema"`
			} `json:"parameters"`
		} `json:"paths"`
		Components struct {
			Schemas map[string]struct {
				Enum []string `json:"enum"`
			} `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(spec.Raw(), &doc); err != nil {
		t.Fatal(err)
	}
	for _, rt := range Routes() {
		op, ok := doc.Paths[rt.Path]["get"]
		if rt.Name == opRPC { // the deprecated alias takes the subnet route's parameters
			op, ok = doc.Paths["/v1/subnetRpcUsageMetrics"]["get"], true
			op.OperationID = opRPC
		}
		if !ok || op.OperationID != rt.Name {
			t.Errorf("%s: glacier.json has no GET %s named so", rt.Name, rt.Path)
			continue
		}
		if len(op.Parameters) != len(rt.Params) {
			t.Errorf("%s: %d parameters; glacier.json has %d", rt.Name, len(rt.Params), len(op.Parameters))
			continue
		}
		for i, sp := range op.Parameters {
			p := rt.Params[i]
			enum := sp.Schema.Enum
			if sp.Schema.Ref != "" {
				enum = doc.Components.Schemas[sp.Schema.Ref[len("#/components/schemas/"):]].Enum
			}
			def := ""
			if sp.Schema.Default != nil {
				def = fmt.Sprint(sp.Schema.Default)
			}
			sort.Strings(enum)
			got := append([]string(nil), p.Enum...)
			sort.Strings(got)
			if p.Name != sp.Name || p.Required != sp.Required || (len(enum) > 0 && !reflect.DeepEqual(got, enum)) ||
				(sp.Schema.Type == "integer") != (p.Kind == catalog.Integer) || (sp.Schema.Minimum != nil) != p.HasMin ||
				(sp.Schema.Maximum != nil) != p.HasMax || p.Default != def {
				t.Errorf("%s parameter %d: %+v; glacier.json %+v (enum %v)", rt.Name, i, p, sp, enum)
			}
		}
	}
}

// BenchmarkRecord is the cost a request pays to be metered, from every core.
func BenchmarkRecord(b *testing.B) {
	m, _ := New(Options{FlushInterval: 50 * time.Millisecond})
	defer m.Close()
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		rec := traffic[0].record(0)
		i := 0
		for pb.Next() {
			i++
			rec.RequestID = ids[i&63]
			m.Record(rec)
		}
	})
}

var ids = func() (out [64]string) {
	for i := range out {
		out[i] = "r-" + strconv.FormatInt(int64(i), 36)
	}
	return out
}()

// TestShardSize: each shard fills two cache lines of its own.
func TestShardSize(t *testing.T) {
	if n := unsafe.Sizeof(shard{}); n != 128 {
		t.Fatalf("a shard is %d bytes; want 128", n)
	}
}

// TestCountMatchesRecord: a repeated anonymous request with a shared plan
// is counted by Count as Record counts it; a keyed one is left to Record
// (its log line), and so is the first of a plan.
func TestCountMatchesRecord(t *testing.T) {
	clk := &clock{t: t0.Add(time.Minute)}
	m, _ := New(Options{Now: clk.Now, FlushInterval: time.Hour})
	defer m.Close()
	plan := &struct{ name string }{"blocks"}
	rec := req{0, "x", "getLatestBlocks", "/v1/chains/{chainId}/blocks", 200, 10, "", "43114"}.record(0)
	rec.Identity, rec.KeyID, rec.Shape, rec.Duration = "ip:192.0.2.7", "anonymous", plan, 0
	q := Count{Shape: plan, Identity: rec.Identity, Start: rec.Start, Status: 200, Source: rec.Source, CU: 10, RequestID: rec.RequestID}
	if m.Count(q) {
		t.Fatal("Count counted the first request of a plan; want it left to Record")
	}
	m.Record(rec)
	for i := 0; i < 99; i++ {
		if !m.Count(q) {
			t.Fatalf("Count %d refused a repeated request", i)
		}
	}
	if m.Count(Count{Shape: plan, Identity: "key:alice", Start: rec.Start, Status: 200, Source: "cache", RequestID: "r-1"}) {
		t.Fatal("Count counted a keyed request, whose log line needs the whole record")
	}
	m.Flush(context.Background())
	code, body := askAs(t, m, opUsage, Caller{Identity: Anonymous, KeyID: Anonymous}, url.Values{"timeInterval": {"minute"}})
	var s series
	json.Unmarshal(body, &s)
	if code != 200 || len(s.Metrics) != 1 || s.Metrics[0].Values[0].TotalRequests != 100 || s.Metrics[0].Values[0].APICreditsUsed != 1000 {
		t.Fatalf("anonymous usage = %d %s; want 100 requests, 1000 CU", code, body)
	}
}
