package local

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
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
