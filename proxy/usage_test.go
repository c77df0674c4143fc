package proxy

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/avaedge/avaedge/cache"
	"github.com/avaedge/avaedge/internal/spectest"
	"github.com/avaedge/avaedge/limits"
	"github.com/avaedge/avaedge/usage"
)

var glacier = spectest.DataAPI(nil)

// TestUsageRoutesAtTheEdge: the usage routes are answered by the edge for
// the calling key and never reach the upstream; an anonymous client gets
// 401, a bad parameter 400 in the NestJS style, a known key its own usage,
// recorded from finish for every kind of answer (a cache hit, a miss, a
// refused and a parameter error, a node call) with what it was charged.
func TestUsageRoutesAtTheEdge(t *testing.T) {
	lim := testLimiter(t, "plans:\n  p: {cu_per_minute: 100000}\n  tiny: {cu_per_day: 10}\n"+
		"keys:\n  - {id: alice, key: alice-key, plan: p}\n  - {id: bob, key: bob-key, plan: p}\n  - {id: carol, key: carol-key, plan: tiny}\nanonymous: p\n")
	meter, err := usage.New(usage.Options{FlushInterval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { meter.Close() })
	c, _ := cache.New(cache.Options{})
	t.Cleanup(func() { c.Close() })
	te := newTestEdge(t, Options{Limiter: lim, Usage: meter, Cache: c})
	get := func(path, key string) *httptest.ResponseRecorder {
		r := httptest.NewRequest(http.MethodGet, path, nil)
		if key != "" {
			r.Header.Set("x-glacier-api-key", key)
		}
		w := httptest.NewRecorder()
		te.srv.ServeHTTP(w, r)
		return w
	}
	for _, p := range []string{"/v1/chains/43114/blocks", "/v1/chains/43114/blocks", "/v1/chains/43114/blocks?pageSize=1000"} {
		get(p, "alice-key")
	}
	get("/v1/chains", "bob-key")
	get("/v1/chains/43114/blocks", "carol-key") // 10 CU: the whole day's quota
	get("/v1/chains/43114/blocks", "carol-key") // refused: 429
	rpc := httptest.NewRequest(http.MethodPost, "/ext/info", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"info.getNetworkID"}`))
	rpc.Header.Set("x-glacier-api-key", "alice-key")
	rpc.Header.Set("Content-Type", "application/json")
	te.srv.ServeHTTP(httptest.NewRecorder(), rpc)
	before := te.data.count.Load()
	if err := meter.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}

	if w := get("/v1/apiUsageMetrics", ""); w.Code != http.StatusUnauthorized || !strings.Contains(w.Body.String(), `"error":"Unauthorized"`) {
		t.Errorf("anonymous = %d %s; want 401", w.Code, w.Body)
	}
	if w := get("/v1/apiLogs?pageSize=101&timeInterval=x", "alice-key"); w.Code != 400 || !strings.Contains(w.Body.String(), `"message":["pageSize must not be greater than 100"]`) {
		t.Errorf("pageSize 101 = %d %s; want 400", w.Code, w.Body)
	}
	if w := get("/v1/apiUsageMetrics?startTimestamp=20&endTimestamp=10", "alice-key"); w.Code != 400 {
		t.Errorf("a range ending before it starts = %d %s; want 400", w.Code, w.Body)
	}
	w := get("/v1/apiUsageMetrics?timeInterval=minute&groupBy=responseCode", "alice-key")
	if w.Code != 200 || w.Header().Get("X-Avaedge-Source") != "edge" || !hasHeader(w.Header(), "ratelimit-remaining") {
		t.Fatalf("alice's usage = %d %v %s", w.Code, w.Header(), w.Body)
	}
	if err := glacier.Validate(t, "UsageMetricsResponseDTO", w.Body.Bytes()); err != nil {
		t.Fatal(err)
	}
	var got struct {
		OrgID   string `json:"orgId"`
		Metrics []struct {
			Values []struct {
				GroupValue       any   `json:"groupValue"`
				TotalRequests    int64 `json:"totalRequests"`
				APICreditsUsed   int64 `json:"apiCreditsUsed"`
				APICreditsWasted int64 `json:"apiCreditsWasted"`
			} `json:"values"`
		} `json:"metrics"`
	}
	json.Unmarshal(w.Body.Bytes(), &got)
	counts := map[any]int64{}
	cus := map[any]int64{}
	for _, m := range got.Metrics {
		for _, v := range m.Values {
			counts[v.GroupValue] += v.TotalRequests
			cus[v.GroupValue] += v.APICreditsUsed
		}
	}
	// Two blocks pages (a miss and a hit) and the node call answered 200;
	// the bad pageSize answered 400, charged as its route: a request is
	// admitted before its query is parsed (the usage calls themselves were
	// after the flush).
	if got.OrgID != "alice" || counts[float64(200)] != 3 || counts[float64(400)] != 1 || cus[float64(200)] != 21 || cus[float64(400)] != 10 {
		t.Errorf("alice by code = %v, CU %v (orgId %q); want 3 200s (21 CU) and 1 400 (10 CU)", counts, cus, got.OrgID)
	}
	// The operator's view holds carol's 429 (charged nothing) beside her 200.
	aw := httptest.NewRecorder()
	meter.AdminHandler(nil).ServeHTTP(aw, httptest.NewRequest(http.MethodGet, "/admin/usage", nil))
	if !strings.Contains(aw.Body.String(), `"key":"carol","totalRequests":2,"successRatePercent":50,"invalidRequests":1,"apiCreditsUsed":10,`) ||
		!strings.Contains(aw.Body.String(), `"byStatus":{"200":1,"429":1}`) {
		t.Errorf("the fleet view = %s; want carol's 200 and 429", aw.Body)
	}
	if w := get("/v1/primaryNetworkRpcUsageMetrics?network=mainnet&groupBy=rpcMethod", "alice-key"); w.Code != 200 ||
		!strings.Contains(w.Body.String(), `"groupValue":"info.getNetworkID","totalRequests":1`) {
		t.Errorf("alice's node calls = %d %s", w.Code, w.Body)
	} else if err := glacier.Validate(t, "PrimaryNetworkRpcUsageMetricsResponseDTO", w.Body.Bytes()); err != nil {
		t.Error(err)
	}
	if w := get("/v1/apiUsageMetrics?apiKeyId=bob&groupBy=apiKeyId", "alice-key"); w.Code != 200 || strings.Contains(w.Body.String(), "bob") && !strings.Contains(w.Body.String(), `"metrics":[]`) {
		t.Errorf("alice asking for bob = %d %s; want nothing of bob", w.Code, w.Body)
	}
	if n := te.data.count.Load(); n != before {
		t.Errorf("the usage routes reached the upstream (%d calls)", n-before)
	}
}

// testLimiter is an in-process limiter of the keys file keys, closed when
// the test ends.
func testLimiter(t testing.TB, keys string) *limits.Limiter {
	t.Helper()
	kf, err := limits.ParseKeysFile([]byte(keys))
	if err != nil {
		t.Fatal(err)
	}
	lim, err := limits.New(limits.Options{Keys: kf})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lim.Close() })
	return lim
}

// hasHeader reports whether h holds name as the edge sets it (rate-limit
// headers are set lower-case, as the Data API sends them).
func hasHeader(h http.Header, name string) bool {
	for k := range h {
		if k == name {
			return true
		}
	}
	return false
}

// TestUsageRoutesWithoutMeter: without a meter the usage routes are
// account-scoped paths like any other: 404 at the edge, never forwarded.
func TestUsageRoutesWithoutMeter(t *testing.T) {
	te := newTestEdge(t, Options{})
	for _, p := range []string{"/v1/apiUsageMetrics", "/v1/apiLogs", "/v1/subnetRpcUsageMetrics", "/v1/rpcUsageMetrics", "/v1/primaryNetworkRpcUsageMetrics?network=fuji"} {
		w := httptest.NewRecorder()
		te.srv.ServeHTTP(w, httptest.NewRequest(http.MethodGet, p, nil))
		if w.Code != http.StatusNotFound {
			t.Errorf("%s = %d; want 404", p, w.Code)
		}
	}
	if n := te.data.count.Load(); n != 0 {
		t.Errorf("%d usage calls reached the upstream", n)
	}
}
