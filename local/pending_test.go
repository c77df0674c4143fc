package local

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/avaedge/avaedge/avanet"
	"github.com/avaedge/avaedge/catalog"
	"github.com/avaedge/avaedge/local/source/devnet/evm"
)

// TestFollowedCChainComesUp follows a node whose C-Chain does not answer
// when Build runs (its info and X-Chain do): the C-Chain's EVM and Metrics
// routes answer a clear 503 in their service's format, and once the C-Chain
// answers they answer from the index without a restart.
func TestFollowedCChainComesUp(t *testing.T) {
	chain, err := evm.New(context.Background(), evm.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer chain.Close()
	var up atomic.Bool
	node := fakeNode(t, avanet.Local.EVMChainID)
	cRPC := chain.Handler()
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/ext/bc/C/rpc" {
			node.Config.Handler.ServeHTTP(w, r)
			return
		}
		if !up.Load() {
			http.Error(w, "chain not bootstrapped", http.StatusServiceUnavailable)
			return
		}
		cRPC.ServeHTTP(w, r)
	}))
	defer front.Close()
	h, err := Build(context.Background(), BuildOptions{Node: front.URL, Logger: slog.New(slog.DiscardHandler),
		LocalMode: map[catalog.Service]bool{catalog.Data: true, catalog.Metrics: true}})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	get := func(path string) *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		return rec
	}
	data := `{"message":"` + pendingMessage + `","statusCode":503,"error":"Service Unavailable"}`
	metrics := `{"message":["` + pendingMessage + `"],"statusCode":503,"error":"Service Unavailable"}`
	if rec := get("/v1/chains"); rec.Code != 200 {
		t.Errorf("the chain list, which names no chain, before the C-Chain answers: %d %s", rec.Code, rec.Body)
	}
	for _, c := range []struct{ path, body string }{
		{"/v1/chains/43112/blocks", data},
		{"/v1/chains/" + avanet.Local.CChainID + "/blocks", data},
		{"/v2/chains/43112/metrics/txCount", metrics},
	} {
		if rec := get(c.path); rec.Code != http.StatusServiceUnavailable || strings.TrimSpace(rec.Body.String()) != c.body {
			t.Errorf("%s before the C-Chain answers: %d %s; want 503 %s", c.path, rec.Code, rec.Body, c.body)
		}
	}
	up.Store(true)
	deadline := time.Now().Add(10 * time.Second)
	for {
		rec := get("/v1/chains/43112/blocks?pageSize=1")
		if rec.Code == 200 && strings.Contains(rec.Body.String(), `"blockNumber":"7"`) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the C-Chain's blocks 10s after it answered: %d %s", rec.Code, rec.Body)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if rec := get("/v2/chains/43112/metrics/txCount"); rec.Code != 200 {
		t.Errorf("a Metrics route once the C-Chain answers: %d %s", rec.Code, rec.Body)
	}
}

// TestPendingGateModes runs the Data API and the Metrics API in different
// modes (one local, the other proxied) over a followed node whose C-Chain
// has not answered yet. Each service's gate resolves the C-Chain's aliases
// of its own mode: in local mode mainnet's and fuji's C-Chain ids answer the
// 503 of a chain not up yet; proxied, they are not the followed chain's, and
// the service's own handler answers them (a chain it does not know).
func TestPendingGateModes(t *testing.T) {
	node := fakeNode(t, avanet.Local.EVMChainID)
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/ext/bc/C/rpc" {
			http.Error(w, "chain not bootstrapped", http.StatusServiceUnavailable)
			return
		}
		node.Config.Handler.ServeHTTP(w, r)
	}))
	defer front.Close()
	data := `{"message":"` + pendingMessage + `","statusCode":503,"error":"Service Unavailable"}`
	metrics := `{"message":["` + pendingMessage + `"],"statusCode":503,"error":"Service Unavailable"}`
	mainnetC := "/v1/chains/" + strconv.FormatUint(avanet.Mainnet.EVMChainID, 10) + "/blocks"
	mainnetCMetrics := "/v2/chains/" + strconv.FormatUint(avanet.Mainnet.EVMChainID, 10) + "/metrics/txCount"
	for _, tc := range []struct {
		name  string
		local catalog.Service
		// gated answer the pending 503; open answer anything else.
		gated, open map[string]string
	}{
		{"data local, metrics proxied", catalog.Data,
			map[string]string{mainnetC: data, "/v1/chains/43112/blocks": data, "/v2/chains/43112/metrics/txCount": metrics},
			map[string]string{mainnetCMetrics: metrics}},
		{"metrics local, data proxied", catalog.Metrics,
			map[string]string{mainnetCMetrics: metrics, "/v1/chains/43112/blocks": data, "/v2/chains/43112/metrics/txCount": metrics},
			map[string]string{mainnetC: data}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, err := Build(context.Background(), BuildOptions{Node: front.URL, Logger: slog.New(slog.DiscardHandler),
				LocalMode: map[catalog.Service]bool{tc.local: true}})
			if err != nil {
				t.Fatal(err)
			}
			defer h.Close()
			get := func(path string) *httptest.ResponseRecorder {
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
				return rec
			}
			for path, body := range tc.gated {
				if rec := get(path); rec.Code != http.StatusServiceUnavailable || strings.TrimSpace(rec.Body.String()) != body {
					t.Errorf("%s: %d %s; want 503 %s", path, rec.Code, rec.Body, body)
				}
			}
			for path, body := range tc.open {
				if rec := get(path); strings.TrimSpace(rec.Body.String()) == body {
					t.Errorf("%s: %d %s; want the handler's own answer, not the gate's", path, rec.Code, rec.Body)
				}
			}
		})
	}
}
