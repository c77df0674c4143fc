package proxy

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/avaedge/avaedge/catalog"
)

// seen is one request as a test upstream received it.
type seen struct {
	Method, Path, RawQuery string
	Body                   []byte
	Header                 http.Header
}

// recorder is a test upstream that records requests and answers with a
// body naming them, so a test can check both directions byte for byte.
type recorder struct {
	mu    sync.Mutex
	reqs  []seen
	count atomic.Int64
	srv   *httptest.Server
	// answer, when set, replaces the default answer.
	answer func(w http.ResponseWriter, r *http.Request, body []byte)
}

func newRecorder(t testing.TB) *recorder {
	rec := &recorder{}
	rec.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		rec.mu.Lock()
		rec.reqs = append(rec.reqs, seen{r.Method, r.URL.Path, r.URL.RawQuery, body, r.Header.Clone()})
		rec.mu.Unlock()
		rec.count.Add(1)
		if rec.answer != nil {
			rec.answer(w, r, body)
			return
		}
		w.Header().Set("Content-Type", "application/vnd.test+json")
		w.WriteHeader(http.StatusOK)
		w.Write(answerFor(r.Method, r.URL.Path, r.URL.RawQuery, body))
	}))
	t.Cleanup(rec.srv.Close)
	return rec
}

func answerFor(method, path, query string, body []byte) []byte {
	return []byte(`{"echo":` + quote(method+" "+path+"?"+query+" "+string(body)) + `}`)
}

func quote(s string) string { b, _ := json.Marshal(s); return string(b) }

func (rec *recorder) last() seen {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return rec.reqs[len(rec.reqs)-1]
}

// testUpstream are an upstream's options with config's defaults, in proxy
// mode.
func testUpstream(url string) UpstreamOptions {
	return UpstreamOptions{URL: url, ConnectTimeout: 3 * time.Second, FirstByteTimeout: 10 * time.Second, RetryBudget: 0.1, LocalFallback: true,
		Breaker: BreakerOptions{MinRequests: 20, FailureRatio: 0.5, ConsecutiveFailures: 5, Interval: 30 * time.Second, OpenFor: 10 * time.Second, HalfOpenProbes: 3}}
}

func upstreamFor(t testing.TB, svc catalog.Service, url string) *Upstream {
	up, err := NewUpstream(svc, testUpstream(url), "operator-secret", nil)
	if err != nil {
		t.Fatal(err)
	}
	return up
}

type testEdge struct {
	srv                 *Server
	data, metrics, node *recorder
}

func newTestEdge(t testing.TB, opts Options) *testEdge {
	te := &testEdge{data: newRecorder(t), metrics: newRecorder(t), node: newRecorder(t)}
	opts.Upstreams = map[catalog.Service]*Upstream{
		catalog.Data:    upstreamFor(t, catalog.Data, te.data.srv.URL),
		catalog.Metrics: upstreamFor(t, catalog.Metrics, te.metrics.srv.URL),
		catalog.Node:    upstreamFor(t, catalog.Node, te.node.srv.URL+"/"),
	}
	srv, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	te.srv = srv
	return te
}

// sample returns a valid request for a catalogue route, built from its
// parameters: each path value from a table, or the first of its enum; each
// required query parameter; pageSize=5 where the route pages; the required
// body fields; and a parameter the route does not know, which must not
// reach the upstream.
func sample(rt *catalog.Route) (method, target string, body []byte) {
	if rt.IsRPC() {
		path := rt.Path
		if rt.Endpoint == "evm" {
			return http.MethodPost, path, []byte(`{"jsonrpc":"2.0","id":3,"method":"eth_chainId","params":[]}`)
		}
		return http.MethodPost, path, []byte(`{"jsonrpc":"2.0","id":7,"method":"` + rt.Name + `","params":{"a":1}}`)
	}
	values := map[string]string{
		"network": "fuji", "blockchainId": "p-chain", "chainId": "43114", "address": "0xAbC",
		"nodeId": "NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg", "txHash": "2Q3", "tokenId": "17", "metric": "txCount", "blockId": "99",
	}
	path := rt.Path
	q := []string{"extra=%2Fkeep+me"}
	fields := map[string]string{}
	for _, p := range rt.Params {
		v, ok := values[p.Name]
		switch {
		case len(p.Enum) > 0 && !slices.Contains(p.Enum, v):
			v = p.Enum[0]
		case !ok && p.Kind == catalog.Integer:
			v = "3"
		case !ok:
			v = "fuji1abc,fuji1def"
		}
		switch {
		case p.In == catalog.Path:
			path = strings.ReplaceAll(path, "{"+p.Name+"}", v)
		case p.In == catalog.Body && p.Required:
			fields[p.Name] = v
		case p.Name == "pageSize":
			q = append(q, "pageSize=5")
		case p.Required || p.Name == "addresses" && rt.Check != nil:
			q = append(q, p.Name+"="+url.QueryEscape(v))
		}
	}
	if rt.Name == "aggregateSignatures" {
		return rt.Method, path, []byte(`{"message":"0x00ff","quorumPercentage":60}`)
	}
	if len(fields) > 0 {
		body, _ = json.Marshal(fields)
	}
	return rt.Method, path + "?" + strings.Join(q, "&"), body
}

func recorderOf(te *testEdge, svc catalog.Service) *recorder {
	switch svc {
	case catalog.Metrics:
		return te.metrics
	case catalog.Node:
		return te.node
	}
	return te.data
}

// TestForwardEveryRoute sends a valid request for every catalogued route and
// checks that the upstream saw path and body intact, the canonical query of
// the route's known parameters, never the client's key, and that the client
// got the upstream's bytes, status and content type.
func TestForwardEveryRoute(t *testing.T) {
	te := newTestEdge(t, Options{})
	type tc struct {
		name, method, target string
		body                 []byte
		svc                  catalog.Service
		rt                   *catalog.Route
	}
	var cases []tc
	routes := catalog.Catalogue()
	for i := range routes {
		rt := &routes[i]
		m, target, body := sample(rt)
		cases = append(cases, tc{rt.Name, m, target, body, rt.Service, rt})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rec := recorderOf(te, c.svc)
			before := rec.count.Load()
			r := httptest.NewRequest(c.method, c.target, bytes.NewReader(c.body))
			if c.body != nil {
				r.Header.Set("Content-Type", "application/json")
			}
			r.Header.Set("X-Glacier-Api-Key", "client-secret-1")
			r.Header.Set("X-Data-Api-Key", "client-secret-2")
			r.Header.Set("Connection", "X-Hop")
			r.Header.Set("X-Hop", "drop me")
			w := httptest.NewRecorder()
			te.srv.ServeHTTP(w, r)
			if rec.count.Load() != before+1 {
				t.Fatalf("upstream calls = %d; want 1 (status %d, body %s)", rec.count.Load()-before, w.Code, w.Body)
			}
			got := rec.last()
			u := *r.URL
			if c.rt != nil && !c.rt.IsRPC() {
				// The canonical query of the known parameters, defaults
				// filled in.
				q, msgs := c.rt.ParseQuery(u.RawQuery)
				if msgs != nil {
					t.Fatal(msgs)
				}
				u.RawQuery = c.rt.CanonicalQuery(q)
			}
			if got.Method != c.method || got.Path != u.Path || got.RawQuery != u.RawQuery || !bytes.Equal(got.Body, c.body) {
				t.Fatalf("upstream saw %s %s?%s %q; want %s %s?%s %q", got.Method, got.Path, got.RawQuery, got.Body, c.method, u.Path, u.RawQuery, c.body)
			}
			for _, h := range []string{"X-Data-Api-Key", "X-Hop", "Connection"} {
				if v := got.Header.Get(h); v != "" {
					t.Fatalf("upstream got %s: %q", h, v)
				}
			}
			if k := got.Header.Get("X-Glacier-Api-Key"); k != "operator-secret" {
				t.Fatalf("upstream key = %q; want the operator's", k)
			}
			if got.Header.Get("X-Forwarded-For") == "" {
				t.Fatal("no X-Forwarded-For")
			}
			want := answerFor(c.method, u.Path, u.RawQuery, c.body)
			if w.Code != 200 || !bytes.Equal(w.Body.Bytes(), want) || w.Header().Get("Content-Type") != "application/vnd.test+json" {
				t.Fatalf("client got %d %q %s; want 200 application/vnd.test+json %s", w.Code, w.Header().Get("Content-Type"), w.Body, want)
			}
			if w.Header().Get("X-Avaedge-Source") != "upstream" || w.Header().Get("X-Request-Id") == "" {
				t.Fatalf("headers %v", w.Header())
			}
		})
	}
}
