package hostile

import (
	"fmt"
	"net/http"
	"testing"
)

// TestCacheIsTheOperators (issue 35, finding 8): a client's Cache-Control:
// no-cache or Pragma: no-cache does not make the edge spend the operator's
// upstream quota: eight such requests for a cached page make one upstream
// call. A key whose plan says cache_bypass may skip the cache's read; each
// such request is charged as any other of its route.
func TestCacheIsTheOperators(t *testing.T) {
	const path = "/v1/chains/43114/blocks/7"
	get := func(e *Edge, key, name, value string) *http.Response {
		t.Helper()
		h := map[string]string{name: value}
		if key != "" {
			h["x-glacier-api-key"] = key
		}
		resp, _ := send(t, http.MethodGet, e.URL+path, h)
		return resp
	}
	up := NewUpstream(t, nil)
	e := StartEdge(t, EdgeOptions{Env: proxyEnv(up), Keys: "plans:\n  day: {cu_per_day: 1000000}\nkeys:\n  - {id: k, key: key-k, plan: day}\nanonymous: day\n"})
	get(e, "", "Accept", "application/json") // the fill
	for i, h := range [][2]string{
		{"Cache-Control", "no-cache"}, {"Pragma", "no-cache"}, {"Cache-Control", "no-store"}, {"Cache-Control", "max-age=0, no-cache"},
		{"Cache-Control", "no-cache"}, {"Pragma", "no-cache"}, {"Cache-Control", "no-cache"}, {"Cache-Control", "no-cache"},
	} {
		key := []string{"", "key-k"}[i%2]
		if resp := get(e, key, h[0], h[1]); resp.StatusCode != 200 || resp.Header.Get("X-Cache-Status") != "HIT" {
			t.Errorf("key %q with %s: %s = %d %s; want a HIT", key, h[0], h[1], resp.StatusCode, resp.Header.Get("X-Cache-Status"))
		}
	}
	if n := up.CallsTo("GET " + path); n != 1 {
		t.Errorf("the upstream got %d calls for the page; want 1", n)
	}

	// A plan that allows it: a bypass, charged as the route.
	up = NewUpstream(t, nil)
	e = StartEdge(t, EdgeOptions{Env: proxyEnv(up), Keys: "plans:\n  fresh: {cu_per_day: 1000000, cache_bypass: true}\nkeys:\n  - {id: f, key: key-f, plan: fresh}\n"})
	get(e, "key-f", "Accept", "application/json") // the fill
	prev := int64(-1)
	for i := range 2 {
		resp := get(e, "key-f", "Cache-Control", "no-cache")
		var left int64
		fmt.Sscan(resp.Header.Get("ratelimit-remaining"), &left)
		if resp.Header.Get("X-Cache-Status") != "BYPASS" || i > 0 && prev-left != 10 {
			t.Errorf("cache_bypass key, no-cache: %s, charged %d; want BYPASS at the route's 10 CU", resp.Header.Get("X-Cache-Status"), prev-left)
		}
		prev = left
	}
	if n := up.CallsTo("GET " + path); n != 3 {
		t.Errorf("the upstream got %d calls for the page; want 3 (the fill and two bypasses)", n)
	}
}
