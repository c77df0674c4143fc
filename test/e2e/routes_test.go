package e2e

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// successStatus is the status a route's valid request gets: the spec's 2xx
// for Data and Metrics operations it lists, else 200.
func successStatus(t testing.TB, r route) int {
	t.Helper()
	if r.Service != "node" {
		if s := specFor(r.Service).successStatus(t, r.Name); s != 0 {
			return s
		}
	}
	return http.StatusOK
}

// localStatus is the status the local world answers a valid request c of
// r with: 503 while r has no local implementation (noLocalYet), else c's
// own status or r's success status.
func localStatus(t testing.TB, r route, c call) int {
	t.Helper()
	if _, ok := noLocalYet[r.Name]; ok {
		return http.StatusServiceUnavailable
	}
	if c.Status != 0 {
		return c.Status
	}
	return successStatus(t, r)
}

// proxiedStatus is the status a valid request c of r gets through a
// recorder in front of the local world: the recorder's 404 while r has no
// local implementation, else c's own status or r's success status.
func proxiedStatus(t testing.TB, r route, c call) int {
	t.Helper()
	if _, ok := noLocalYet[r.Name]; ok {
		return http.StatusNotFound
	}
	if c.Status != 0 {
		return c.Status
	}
	return successStatus(t, r)
}

// noLocalMessage is how the local world says a route is not built yet
// (local.missing).
const noLocalMessage = "has no local implementation yet"

// noLocalYet are the catalogued routes the local world (the devnet, as the
// sweeps run it) has no implementation of yet, each with the issue that
// builds it. They answer 503 "route X has no local implementation yet";
// the sweeps check that answer, and fail once the route answers, so that
// its issue removes it from this list.
var noLocalYet = map[string]string{
	// No issue yet.
	"data-health-check": "none yet", "live-check": "none yet", "metrics-health-check": "none yet", "metrics-live-check": "none yet",
}

// checkAnswer verifies one answer of route r: the status want, a JSON
// content type, and for a successful Data or Metrics answer the OpenAPI
// schema of the operation; a successful node answer is a JSON-RPC result
// with the request's id. No 5xx is accepted unless want is one.
func checkAnswer(t testing.TB, r route, c call, rep reply, want int) {
	t.Helper()
	what := c.Method + " " + c.Path
	issue, listed := noLocalYet[r.Name]
	if rep.Status != want {
		if listed && rep.Status < 300 {
			t.Errorf("%s = %s: %s answers now; remove it from noLocalYet (issue %s)", what, rep, r.Name, issue)
			return
		}
		t.Errorf("%s = %s; want status %d", what, rep, want)
		return
	}
	if want == http.StatusServiceUnavailable && listed && !strings.Contains(string(rep.Body), "route "+r.Name+" "+noLocalMessage) {
		t.Errorf("%s = %s; want the local world's 503: route %s %s", what, rep, r.Name, noLocalMessage)
	}
	if ct := rep.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Errorf("%s: Content-Type %q; want application/json", what, ct)
	}
	if rep.Header.Get("X-Request-Id") == "" {
		t.Errorf("%s: no X-Request-Id", what)
	}
	if want >= 300 {
		if !json.Valid(rep.Body) {
			t.Errorf("%s: error body is not JSON: %s", what, rep)
		}
		return
	}
	if r.Service == "node" {
		var env struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      json.RawMessage `json:"id"`
			Result  json.RawMessage `json:"result"`
			Error   json.RawMessage `json:"error"`
		}
		var req struct {
			ID json.RawMessage `json:"id"`
		}
		json.Unmarshal(c.Body, &req)
		if c.RPCError != "" {
			if err := json.Unmarshal(rep.Body, &env); err != nil || env.Result != nil || !strings.Contains(string(env.Error), c.RPCError) || string(env.ID) != string(req.ID) {
				t.Errorf("%s: not the JSON-RPC error %q for id %s: %s", what, c.RPCError, req.ID, rep)
			}
			return
		}
		if err := json.Unmarshal(rep.Body, &env); err != nil || env.JSONRPC != "2.0" || env.Result == nil || env.Error != nil || string(env.ID) != string(req.ID) {
			t.Errorf("%s: not a JSON-RPC result for id %s: %s", what, req.ID, rep)
		}
		return
	}
	known, err := specFor(r.Service).validate(t, r.Name, rep.Status, rep.Body)
	if err != nil {
		t.Errorf("%s: the answer does not match the OpenAPI schema: %v\nbody: %.1500s", what, err, rep.Body)
	}
	if !known && !json.Valid(rep.Body) {
		// getAvgTps is not in the published Metrics spec: JSON is all it promises.
		t.Errorf("%s: body is not JSON: %s", what, rep)
	}
}

// eachCall runs f for every catalogued route's requests in w, one subtest
// per route.
func eachCall(t *testing.T, w *world, f func(t *testing.T, r route, c call)) {
	for _, r := range catalogue() {
		t.Run(r.Name, func(t *testing.T) {
			for _, c := range callsFor(t, r, w) {
				f(t, r, c)
			}
		})
	}
}

// TestRoutesLocal: in local mode every catalogued route answers its valid
// request with the spec's success status and schema, from the local world,
// for mainnet and fuji; a route of noLocalYet answers its clear 503. (One
// sweep costs more than the published anonymous plan's 6,000 CU a minute:
// the edge's clients are on a bulk plan.)
func TestRoutesLocal(t *testing.T) {
	for _, network := range []string{"fuji", "mainnet"} {
		t.Run(network, func(t *testing.T) {
			e := startEdge(t, map[string]string{"AVAEDGE_KEYS_FILE": bulkKeysFile(t)})
			w := discover(t, network)
			eachCall(t, w, func(t *testing.T, r route, c call) {
				rep := do(t, c.Method, e.URL+c.Path, c.Body, nil)
				checkAnswer(t, r, c, rep, localStatus(t, r, c))
				if src := rep.Header.Get("X-Avaedge-Source"); rep.Status < 300 && src != "local" {
					t.Errorf("%s %s: X-Avaedge-Source %q; want local", c.Method, c.Path, src)
				}
			})
		})
	}
}

// TestRoutesProxy: with every service proxied to a recording upstream (which
// answers from a local-mode avaedge), every route is forwarded once with the
// operator's key and never the client's, answered as the upstream answered,
// and every cacheable route is a cache HIT the second time without a second
// upstream call.
func TestRoutesProxy(t *testing.T) {
	rec := newRecorder(t, localEdge(t).URL)
	const opKey = "operator-key-e2e"
	e := startEdge(t, map[string]string{
		"AVAEDGE_DATA_UPSTREAM": rec.URL, "AVAEDGE_METRICS_UPSTREAM": rec.URL, "AVAEDGE_NODE_UPSTREAM": rec.URL,
		"AVAEDGE_UPSTREAM_API_KEY": opKey, "AVAEDGE_KEYS_FILE": bulkKeysFile(t),
	}, opKey)
	w := discover(t, "fuji")
	eachCall(t, w, func(t *testing.T, r route, c call) {
		before := rec.count(c.Method, c.Path)
		rep := do(t, c.Method, e.URL+c.Path, c.Body, nil)
		checkAnswer(t, r, c, rep, proxiedStatus(t, r, c))
		if src := rep.Header.Get("X-Avaedge-Source"); src != "upstream" {
			t.Errorf("%s %s: first call X-Avaedge-Source %q; want upstream", c.Method, c.Path, src)
		}
		got := rec.requests("")
		if n := rec.count(c.Method, c.Path); n != before+1 {
			t.Errorf("%s %s: upstream called %d times; want once", c.Method, c.Path, n-before)
		} else if r.Service != "node" {
			last := got[len(got)-1]
			for _, h := range []string{"X-Glacier-Api-Key"} {
				if last.Header.Get(h) != opKey {
					t.Errorf("%s %s: upstream got %s %q; want the operator's key", c.Method, c.Path, h, last.Header.Get(h))
				}
			}
		}
		if r.Cache == "never" || c.RPCError != "" {
			return // a JSON-RPC error is never cached
		}
		again := do(t, c.Method, e.URL+c.Path, c.Body, nil)
		checkAnswer(t, r, c, again, rep.Status)
		if hs := again.Header.Get("X-Cache-Status"); hs != "HIT" {
			t.Errorf("%s %s: second call X-Cache-Status %q; want HIT (cache class %s)", c.Method, c.Path, hs, r.Cache)
		}
		if n := rec.count(c.Method, c.Path); n != before+1 {
			t.Errorf("%s %s: second call went upstream (%d calls)", c.Method, c.Path, n-before)
		}
		if string(again.Body) != string(rep.Body) {
			t.Errorf("%s %s: cached body differs from the first answer:\n%s\n%s", c.Method, c.Path, rep.Body, again.Body)
		}
	})
}

// TestRoutesFailingUpstream: with every upstream failing and
// AVAEDGE_LOCAL_NETWORKS=fuji, the fuji primary-network routes answer from
// the local world, and everything else gets the upstream's failure or a 503:
// devnet data never passes for a real network or chain.
func TestRoutesFailingUpstream(t *testing.T) {
	rec := newRecorder(t, localEdge(t).URL)
	rec.setFail(http.StatusInternalServerError)
	e := startEdge(t, map[string]string{
		"AVAEDGE_DATA_UPSTREAM": rec.URL, "AVAEDGE_METRICS_UPSTREAM": rec.URL, "AVAEDGE_NODE_UPSTREAM": rec.URL,
		"AVAEDGE_LOCAL_NETWORKS": "fuji", "AVAEDGE_KEYS_FILE": bulkKeysFile(t),
	})
	for _, network := range []string{"fuji", "mainnet"} {
		t.Run(network, func(t *testing.T) {
			w := discover(t, network)
			eachCall(t, w, func(t *testing.T, r route, c call) {
				rep := do(t, c.Method, e.URL+c.Path, c.Body, nil)
				if onNetwork(c, "fuji") {
					checkAnswer(t, r, c, rep, localStatus(t, r, c))
					if src := rep.Header.Get("X-Avaedge-Source"); src != "local" {
						t.Errorf("%s %s: X-Avaedge-Source %q; want local", c.Method, c.Path, src)
					}
					return
				}
				if rep.Status < 500 {
					t.Errorf("%s %s = %s; want a 5xx: no local fallback for this network or chain", c.Method, c.Path, rep)
				}
				if ct := rep.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
					t.Errorf("%s %s: Content-Type %q", c.Method, c.Path, ct)
				}
			})
		})
	}
}

// onNetwork reports whether call c names network, in its path
// (/v1/networks/{network}, /v1/signatureAggregator/{network},
// /v2/networks/{network}) or its network query parameter.
func onNetwork(c call, network string) bool {
	u, err := url.Parse(c.Path)
	if err != nil {
		return false
	}
	for _, prefix := range []string{"/v1/networks/", "/v1/signatureAggregator/", "/v2/networks/"} {
		if rest, ok := strings.CutPrefix(u.Path, prefix); ok {
			n, _, _ := strings.Cut(rest, "/")
			return n == network
		}
	}
	return u.Query().Get("network") == network
}
