package hostile

import (
	"context"
	"fmt"
	"net/http"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/avaedge/avaedge/internal/redistest"
)

// TestHungRedis (finding 3): with Redis stopped by SIGSTOP (it accepts
// connections and never answers), in proxy mode with cache, keys and limits,
// every request is answered and none takes more than 250ms longer than the
// same request with Redis healthy: 50 concurrent requests, then 100
// sequential ones, each a cache miss with its own API key. Redis's failure
// is logged once per outage, not per request, and the edge uses Redis
// again once it answers.
func TestHungRedis(t *testing.T) {
	const (
		concurrent = 50
		sequential = 100
		allowed    = 250 * time.Millisecond
	)
	rs := redistest.Start(t)
	rs.RequireReal()
	up := NewUpstream(t, nil)
	env := proxyEnv(up)
	env["AVAEDGE_REDIS"] = rs.URL()
	edge := StartEdge(t, EdgeOptions{Env: env, Keys: keysFile(concurrent+sequential, false)})
	client := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: concurrent}}
	ctx := context.Background()

	// Request i of a phase: its own key, a block no phase asked for before
	// (a cache miss, so the cache reads and writes Redis and the limiter
	// decides in Redis).
	conc := func(phase int) []time.Duration {
		t.Helper()
		return concurrentGets(t, ctx, client, concurrent, func(i int) (string, string) {
			return fmt.Sprintf("%s/v1/chains/43114/blocks/%d", edge.URL, phase*1000+i), fmt.Sprintf("key-%d", i)
		})
	}
	seq := func(phase int) []time.Duration {
		t.Helper()
		var took []time.Duration
		for i := 0; i < sequential; i++ {
			u := fmt.Sprintf("%s/v1/chains/43114/blocks/%d", edge.URL, phase*1000+500+i)
			st, d, err := timedGet(ctx, client, u, fmt.Sprintf("key-%d", concurrent+i))
			if err != nil || st != http.StatusOK {
				t.Fatalf("phase %d, sequential request %d: status %d, %v (took %v)", phase, i, st, err, d)
			}
			took = append(took, d)
		}
		return took
	}

	conc(1) // warm the connections (Redis's and the clients')
	hConc, hSeq := conc(2), seq(2)
	callsBefore := up.Calls()

	// Outage 1 meets the concurrent burst; outage 2, after Redis has come
	// back and been used again, meets the sequential requests.
	rs.Pause()
	sConc := conc(3)
	rs.Resume()
	waitMetric(t, edge, "avaedge_redis_up", 1, 5*time.Second)
	time.Sleep(1100 * time.Millisecond) // the cache's and limiter's own 1s backoffs end
	rs.Pause()
	sSeq := seq(4)

	if got, want := up.Calls()-callsBefore, int64(concurrent+sequential); got != want {
		t.Fatalf("upstream saw %d requests while Redis was hung; want %d (every request answered from upstream)", got, want)
	}
	// A sequential request is compared with the same one healthy. Requests
	// of a concurrent burst are served in no set order, so the k-th fastest
	// is compared with the k-th fastest healthy.
	sorted := func(ds []time.Duration) []time.Duration {
		s := append([]time.Duration(nil), ds...)
		sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
		return s
	}
	report := func(name string, healthy, hung []time.Duration) {
		t.Helper()
		var worst time.Duration
		worstI := 0
		for i := range hung {
			if d := hung[i] - healthy[i]; d > worst {
				worst, worstI = d, i
			}
		}
		t.Logf("%s: healthy p50 %s p99 %s max %s; Redis hung p50 %s p99 %s max %s; largest difference %s (request %d)",
			name, ms(quantile(healthy, .5)), ms(quantile(healthy, .99)), ms(quantile(healthy, 1)),
			ms(quantile(hung, .5)), ms(quantile(hung, .99)), ms(quantile(hung, 1)), ms(worst), worstI)
		if worst > allowed {
			t.Errorf("%s request %d took %v with Redis hung, %v healthy: more than %v longer", name, worstI, hung[worstI], healthy[worstI], allowed)
		}
	}
	report("50 concurrent (by rank)", sorted(hConc), sorted(sConc))
	report("100 sequential", hSeq, sSeq)

	// One warning per component and outage, not one per request.
	for _, s := range []string{"redis not answering", "cache: redis failing", "limits: redis failing"} {
		n := edge.LogCount(s)
		t.Logf("%q logged %d times", s, n)
		if n > 2 {
			t.Errorf("%q logged %d times over two outages and %d requests; want at most 2", s, n, concurrent+sequential)
		}
	}
	rs.Resume()
	waitMetric(t, edge, "avaedge_redis_up", 1, 5*time.Second)
}

// concurrentGets sends n GETs at once, request i to the URL and key req(i)
// returns, and fails the test unless all are answered 200.
func concurrentGets(t *testing.T, ctx context.Context, c *http.Client, n int, req func(i int) (url, key string)) []time.Duration {
	t.Helper()
	took := make([]time.Duration, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			u, k := req(i)
			st, d, err := timedGet(ctx, c, u, k)
			if err == nil && st != http.StatusOK {
				err = fmt.Errorf("status %d", st)
			}
			took[i], errs[i] = d, err
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("concurrent request %d: %v (took %v)", i, err, took[i])
		}
	}
	return took
}

// waitMetric waits until the admin metric name reads want.
func waitMetric(t *testing.T, e *Edge, name string, want float64, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		got := e.Metric(t, name)
		if got == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s = %v after %v; want %v", name, got, within, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
