package e2e

import (
	"net/http"
	"testing"

	"github.com/avaedge/avaedge/internal/redistest"
)

// TestRoutesKeysFile: with a keys file, every catalogued route answers a
// known key (with its plan's ratelimit headers) and an anonymous client on
// the file's anonymous plan; an unknown key is refused 401 in the Data API's
// format; without an anonymous plan a client with no key is refused too.
func TestRoutesKeysFile(t *testing.T) {
	const key = "e2e-keys-file-key-5b1e"
	e := startEdge(t, map[string]string{"AVAEDGE_KEYS_FILE": keysFile(t, key, true)}, key)
	w := discover(t, "fuji")
	eachCall(t, w, func(t *testing.T, r route, c call) {
		rep := do(t, c.Method, e.URL+c.Path, c.Body, map[string]string{"x-glacier-api-key": key})
		checkAnswer(t, r, c, rep, localStatus(t, r, c))
		if rep.Header.Get("ratelimit-policy") == "" || rep.Header.Get("ratelimit-remaining") == "" {
			t.Errorf("%s %s: keyed answer without ratelimit headers", c.Method, c.Path)
		}
		anon := do(t, c.Method, e.URL+c.Path, c.Body, nil)
		checkAnswer(t, r, c, anon, localStatus(t, r, c))
		bad := do(t, c.Method, e.URL+c.Path, c.Body, map[string]string{"x-glacier-api-key": "e2e-unknown-key"})
		checkAnswer(t, r, c, bad, http.StatusUnauthorized)
	})

	t.Run("no anonymous plan", func(t *testing.T) {
		closed := startEdge(t, map[string]string{"AVAEDGE_KEYS_FILE": keysFile(t, key, false)}, key)
		for _, p := range []string{"/v1/chains", "/v2/chains"} {
			if r := do(t, "GET", closed.URL+p, nil, nil); r.Status != http.StatusUnauthorized {
				t.Errorf("GET %s without a key = %s; want 401", p, r)
			}
			if r := do(t, "GET", closed.URL+p, nil, map[string]string{"x-glacier-api-key": key}); r.Status != 200 {
				t.Errorf("GET %s with the key = %s; want 200", p, r)
			}
		}
	})
}

// TestRoutesRedis: two replicas share one real redis-server. Every
// cacheable route fetched through one is a cache HIT on the other without a
// second upstream call, and a key's quota is one counter across both.
func TestRoutesRedis(t *testing.T) {
	rs := redistest.Start(t)
	rs.RequireReal()
	rec := newRecorder(t, localEdge(t).URL)
	const key = "e2e-redis-key-c40f"
	env := map[string]string{
		"AVAEDGE_DATA_UPSTREAM": rec.URL, "AVAEDGE_METRICS_UPSTREAM": rec.URL, "AVAEDGE_NODE_UPSTREAM": rec.URL,
		"AVAEDGE_REDIS": rs.URL(), "AVAEDGE_KEYS_FILE": keysFile(t, key, true),
	}
	a := startEdge(t, env, key, smallKey)
	b := startEdge(t, env, key, smallKey)
	w := discover(t, "fuji")
	// The sweep runs with the key: through two replicas it costs more than
	// the anonymous plan's minute.
	keyed := map[string]string{"x-glacier-api-key": key}
	eachCall(t, w, func(t *testing.T, r route, c call) {
		first := do(t, c.Method, a.URL+c.Path, c.Body, keyed)
		checkAnswer(t, r, c, first, proxiedStatus(t, r, c))
		if r.Cache == "never" || c.RPCError != "" {
			return // a JSON-RPC error is never cached
		}
		before := rec.count(c.Method, c.Path)
		other := do(t, c.Method, b.URL+c.Path, c.Body, keyed)
		checkAnswer(t, r, c, other, first.Status)
		if hs := other.Header.Get("X-Cache-Status"); hs != "HIT" {
			t.Errorf("%s %s on the second replica: X-Cache-Status %q; want HIT from Redis", c.Method, c.Path, hs)
		}
		if n := rec.count(c.Method, c.Path); n != before {
			t.Errorf("%s %s: the second replica went upstream", c.Method, c.Path)
		}
	})

	t.Run("shared quota", func(t *testing.T) {
		// One day's quota of three calls, spent across both replicas: the
		// fourth call is refused whichever replica gets it.
		path := "/v1/networks/fuji/validators?pageSize=1"
		for i, e := range []*edge{a, b, a} {
			if r := do(t, "GET", e.URL+path, nil, map[string]string{"x-glacier-api-key": smallKey}); r.Status != 200 {
				t.Fatalf("call %d within the quota = %s", i+1, r)
			}
		}
		if r := do(t, "GET", b.URL+path, nil, map[string]string{"x-glacier-api-key": smallKey}); r.Status != http.StatusTooManyRequests || r.Header.Get("retry-after") == "" {
			t.Fatalf("call 4 over the shared quota = %s (retry-after %q); want 429", r, r.Header.Get("retry-after"))
		}
	})
}
