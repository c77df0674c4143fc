package dataapi

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/avaedge/avaedge/avanet"
	"github.com/avaedge/avaedge/jsonrpc"
	"github.com/avaedge/avaedge/local/api/node"
	"github.com/avaedge/avaedge/local/vocab/avax"
)

// BenchmarkPrimaryNodeMethods measures the P-Chain's node methods the local
// world answers (node.PlatformMethods) over the benchmark's world (the
// fixture of BenchmarkPrimaryRoutes, PINDEX_BENCH_STORE reused): each call
// a JSON-RPC request through the node's envelope, for a random address
// (…/address) or the whale (…/whale), b.N times. It reports p50 and p99 in
// ms.
//
//	PINDEX_BENCH_STORE=/tmp/p.db go test -run XXX -bench PrimaryNodeMethods -benchtime 1000x -timeout 90m ./local/api/dataapi
func BenchmarkPrimaryNodeMethods(b *testing.B) {
	ix, net, clock := benchIndex(b)
	v := &node.View{NetworkID: net.ID, Now: func() time.Time { return clock },
		Chains: []node.Chain{
			{ID: avax.EmptyID, Aliases: []string{"P", "platform"}},
			{ID: avax.MustParseID(net.XChainID), Aliases: []string{"X", "avm"}},
			{ID: avax.MustParseID(net.CChainID), Aliases: []string{"C", "evm"}},
		},
		Assets: []node.Asset{{ID: avax.MustParseID(net.AVAXAssetID), Alias: "AVAX"}}}
	srv := jsonrpc.NewServer(node.PlatformMethods(ix, v))
	head, ok := ix.Head(avanet.ChainP)
	if !ok {
		b.Fatal("no P-Chain block")
	}
	pTxs := 0
	for range 100 {
		if _, ok, _ := ix.Tx(b.Context(), benchPTx(pTxs+1000)); !ok {
			break
		}
		pTxs += 1000
	}
	r := rand.New(rand.NewPCG(benchSeed, 2))
	addr := func(whale bool) string {
		i := 1 + r.IntN(benchAddrs-1)
		if whale {
			i = 0
		}
		return avax.FormatAddress("P", net.HRP, benchAddr(i))
	}
	calls := []struct {
		name   string
		whale  bool
		params func(whale bool) string
	}{
		{"platform.getUTXOs", true, func(w bool) string { return fmt.Sprintf(`{"addresses":[%q],"limit":1024}`, addr(w)) }},
		{"platform.getBalance", true, func(w bool) string { return fmt.Sprintf(`{"addresses":[%q]}`, addr(w)) }},
		{"platform.getUTXOs/1024-addresses", false, func(bool) string {
			as := make([]string, 1024)
			for i := range as {
				as[i] = strconv.Quote(addr(false))
			}
			return `{"addresses":[` + strings.Join(as, ",") + `],"limit":1024}`
		}},
		{"platform.getCurrentValidators", false, func(bool) string { return `{}` }},
		{"platform.getTx", false, func(bool) string { return fmt.Sprintf(`{"txID":%q,"encoding":"json"}`, benchPTx(r.IntN(max(pTxs, 1)))) }},
		{"platform.getBlockByHeight", false, func(bool) string { return fmt.Sprintf(`{"height":"%d","encoding":"json"}`, 1+r.Uint64N(head)) }},
	}
	for _, c := range calls {
		for _, whale := range []bool{false, true} {
			if whale && !c.whale {
				continue
			}
			name := c.name
			if c.whale {
				name += map[bool]string{false: "/address", true: "/whale"}[whale]
			}
			method, _, _ := strings.Cut(c.name, "/")
			b.Run(name, func(b *testing.B) { measureRPC(b, srv, method, func() string { return c.params(whale) }) })
		}
	}
}

// benchPTx is the id of the fixture's k-th P-Chain BaseTx (one in five of
// its transactions).
func benchPTx(k int) string {
	return avax.Hash256([]byte(fmt.Sprintf("bench %s tx %d", avanet.ChainP, 5*k+4))).String()
}

// measureRPC posts method with the params of next to h b.N times and
// reports the latencies' p50 and p99 in ms; an error answer fails b.
func measureRPC(b *testing.B, h http.Handler, method string, next func() string) {
	b.ReportAllocs()
	times := make([]time.Duration, 0, b.N)
	for b.Loop() {
		body := `{"jsonrpc":"2.0","id":1,"method":"` + method + `","params":` + next() + `}`
		req := httptest.NewRequest(http.MethodPost, "/ext/bc/P", bytes.NewReader([]byte(body)))
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		t0 := time.Now()
		h.ServeHTTP(rec, req)
		times = append(times, time.Since(t0))
		if rec.Code != http.StatusOK || bytes.Contains(rec.Body.Bytes(), []byte(`"error"`)) {
			b.Fatalf("%s %s = %d %.300s", method, body, rec.Code, rec.Body)
		}
	}
	slices.Sort(times)
	q := func(p float64) float64 { return float64(times[int(p*float64(len(times)-1))]) / 1e6 }
	b.ReportMetric(q(0.5), "p50-ms")
	b.ReportMetric(q(0.99), "p99-ms")
}
