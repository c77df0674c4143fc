package proxy

import (
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/avaedge/avaedge/catalog"
)

// fakeLocal answers every route and has a real source only for fuji.
type fakeLocal struct{ calls atomic.Int64 }

func (l *fakeLocal) Answer(w http.ResponseWriter, r *http.Request, rt *catalog.Route, v catalog.Values) {
	l.calls.Add(1)
	w.Header().Set("Content-Type", "application/json")
	w.Write([]byte(`{"local":true}`))
}

func (l *fakeLocal) Covers(rt *catalog.Route, v catalog.Values) bool {
	return v["network"] == "fuji"
}

type flakyOrigin struct {
	mode  atomic.Value // "ok", "500", "429", "404", "hang"
	calls atomic.Int64
	srv   *httptest.Server
}

func newFlakyOrigin(t *testing.T) *flakyOrigin {
	o := &flakyOrigin{}
	o.mode.Store("ok")
	o.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		o.calls.Add(1)
		switch o.mode.Load().(string) {
		case "500":
			http.Error(w, `{"message":"boom","statusCode":500,"error":"Internal Server Error"}`, 500)
		case "429":
			http.Error(w, `{"message":"slow down","statusCode":429,"error":"Too Many Requests"}`, http.StatusTooManyRequests)
		case "404":
			http.Error(w, `{"message":"nope","statusCode":404,"error":"Not Found"}`, 404)
		case "hang":
			<-r.Context().Done()
		default:
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`{"subnets":[]}`))
		}
	}))
	t.Cleanup(o.srv.Close)
	return o
}

func breakerEdge(t *testing.T, url string, local Local) *Server {
	up := upstreamFor(t, catalog.Data, url)
	up.RetryBudget = 0
	up.Timeout = 150 * time.Millisecond
	up.Breaker = NewBreaker("data", BreakerOptions{
		MinRequests: 100, FailureRatio: 0.5, ConsecutiveFailures: 3,
		Interval: time.Minute, OpenFor: 200 * time.Millisecond, HalfOpenProbes: 1,
	}, nil)
	srv, err := New(Options{Upstreams: map[catalog.Service]*Upstream{catalog.Data: up}, Local: local})
	if err != nil {
		t.Fatal(err)
	}
	return srv
}

func get(srv http.Handler, target string) *httptest.ResponseRecorder {
	w := httptest.NewRecorder()
	srv.ServeHTTP(w, httptest.NewRequest("GET", target, nil))
	return w
}

func TestBreakerAndFallback(t *testing.T) {
	origin := newFlakyOrigin(t)
	local := &fakeLocal{}
	srv := breakerEdge(t, origin.srv.URL, local)
	const fuji, mainnet = "/v1/networks/fuji/subnets", "/v1/networks/mainnet/subnets"

	if w := get(srv, fuji); w.Code != 200 || w.Header().Get("X-Avaedge-Source") != "upstream" {
		t.Fatalf("healthy: %d %v", w.Code, w.Header())
	}
	for _, mode := range []string{"500", "hang"} {
		t.Run(mode, func(t *testing.T) {
			origin.mode.Store(mode)
			start := origin.calls.Load()
			// Failures trip the breaker after 3 in a row; every answer comes
			// from local meanwhile.
			for i := 0; i < 6; i++ {
				w := get(srv, fuji)
				if w.Code != 200 || w.Header().Get("X-Avaedge-Source") != "local" {
					t.Fatalf("request %d: %d source %q; want local", i, w.Code, w.Header().Get("X-Avaedge-Source"))
				}
			}
			if n := origin.calls.Load() - start; n != 3 {
				t.Fatalf("upstream calls = %d; want 3 before the breaker opened", n)
			}
			// An unmapped network is never answered from the devnet.
			w := get(srv, mainnet)
			if w.Code != 503 || w.Header().Get("X-Avaedge-Source") != "edge" {
				t.Fatalf("mainnet while open: %d %q %s", w.Code, w.Header().Get("X-Avaedge-Source"), w.Body)
			}
			if origin.calls.Load()-start != 3 {
				t.Fatal("a request reached the upstream while the breaker was open")
			}
			// Recovery: after OpenFor a half-open probe closes it again.
			origin.mode.Store("ok")
			time.Sleep(250 * time.Millisecond)
			if w := get(srv, fuji); w.Header().Get("X-Avaedge-Source") != "upstream" {
				t.Fatalf("probe answered by %q", w.Header().Get("X-Avaedge-Source"))
			}
			if w := get(srv, mainnet); w.Code != 200 || w.Header().Get("X-Avaedge-Source") != "upstream" {
				t.Fatalf("after recovery: %d %q", w.Code, w.Header().Get("X-Avaedge-Source"))
			}
		})
	}
	t.Run("refused", func(t *testing.T) {
		origin.srv.Close()
		for i := 0; i < 5; i++ {
			if w := get(srv, fuji); w.Header().Get("X-Avaedge-Source") != "local" {
				t.Fatalf("refused: source %q", w.Header().Get("X-Avaedge-Source"))
			}
		}
		if w := get(srv, mainnet); w.Code != 503 {
			t.Fatalf("mainnet refused: %d", w.Code)
		}
	})
}

// TestBackpressureNeverTrips: upstream 429 falls back but does not count as a
// failure, and 4xx answers pass through as answers.
func TestBackpressureNeverTrips(t *testing.T) {
	origin := newFlakyOrigin(t)
	srv := breakerEdge(t, origin.srv.URL, &fakeLocal{})
	origin.mode.Store("429")
	for i := 0; i < 10; i++ {
		if w := get(srv, "/v1/networks/fuji/subnets"); w.Header().Get("X-Avaedge-Source") != "local" {
			t.Fatalf("429 not covered by local: %q", w.Header().Get("X-Avaedge-Source"))
		}
		if w := get(srv, "/v1/networks/mainnet/subnets"); w.Code != 429 || w.Header().Get("X-Avaedge-Source") != "upstream" {
			t.Fatalf("unmapped 429: %d %q; want the upstream's 429", w.Code, w.Header().Get("X-Avaedge-Source"))
		}
	}
	origin.mode.Store("404")
	for i := 0; i < 10; i++ {
		if w := get(srv, "/v1/networks/fuji/subnets"); w.Code != 404 || w.Header().Get("X-Avaedge-Source") != "upstream" {
			t.Fatalf("404: %d %q", w.Code, w.Header().Get("X-Avaedge-Source"))
		}
	}
	up := srv.opts.Upstreams[catalog.Data]
	if st := up.Breaker.State(); st != "closed" {
		t.Fatalf("breaker %s after 429s and 404s; want closed", st)
	}
	if origin.calls.Load() != 30 {
		t.Fatalf("upstream calls = %d; want 30", origin.calls.Load())
	}
}
