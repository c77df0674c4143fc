package metricsapi

import (
	"context"
	"fmt"
	"math/big"
	"net/http"
	"net/http/httptest"
	"runtime"
	"sync"
	"testing"
	"time"
)

var (
	benchOnce   sync.Once
	benchEngine *Engine
	benchHeap   uint64
)

// benchBlocks makes n blocks of chainID with txs transactions each, one
// every 120 s from 2026-01-01 plus skip blocks: senders from a pool of 50,000, receivers of 2,000, one token
// transfer per block and a creation every 50 blocks.
func benchBlocks(chainID uint64, skip, n, txs int, emit func(*Block)) {
	senders := make([]string, 50000)
	for i := range senders {
		senders[i] = fmt.Sprintf("0x%040x", i+1)
	}
	receivers := senders[:2000]
	start := uint64(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Unix())
	gp := big.NewInt(25e9)
	fee := big.NewInt(25e9 * 21000)
	k := 0
	for i := range n {
		b := &Block{ChainID: chainID, Number: uint64(i + 1), Timestamp: start + uint64(skip+i)*120, GasUsed: uint64(txs) * 21000}
		for range txs {
			b.Txs = append(b.Txs, Tx{From: senders[(k*7919)%len(senders)], To: receivers[k%len(receivers)], GasUsed: 21000, GasPrice: gp, Fee: fee})
			k++
		}
		b.Transfers = []Transfer{{From: senders[i%len(senders)], To: senders[(i*31)%len(senders)]}}
		if i%50 == 0 {
			b.Creations = []Creation{{Deployer: senders[i%100], Address: fmt.Sprintf("0xc%039x", i), Kind: "CREATE2"}}
		}
		emit(b)
	}
}

// benchWorld indexes 1,000,000 transactions on 43114 (100,000 blocks over
// ~139 days, ~3,333 hours) and 100,000 on 43113 in its last 333 hours, so
// that total takes unions there.
func benchWorld(b *testing.B) *Engine {
	benchOnce.Do(func() {
		e, err := New(Options{Chains: testChains})
		if err != nil {
			b.Fatal(err)
		}
		ctx := context.Background()
		add := func(blk *Block) {
			if err := e.Apply(ctx, blk); err != nil {
				b.Fatal(err)
			}
		}
		benchBlocks(43114, 0, 100000, 10, add)
		benchBlocks(43113, 90000, 10000, 10, add) // the newest 333 hours
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		benchEngine, benchHeap = e, ms.HeapAlloc
	})
	return benchEngine
}

// BenchmarkSeries answers 2,160-point series over 1,000,000 indexed
// transactions; the budget is 10 ms an answer.
func BenchmarkSeries(b *testing.B) {
	e := benchWorld(b)
	b.Logf("heap after indexing 1,100,000 transactions: %d MiB", benchHeap>>20)
	h := validating(e, "getEvmChainMetrics")
	for _, bc := range []struct{ chain, metric, interval string }{
		{"43114", "activeAddresses", "hour"},
		{"43114", "txCount", "hour"},
		{"43114", "feesPaid", "day"},
		{"total", "activeSenders", "hour"},
		{"total", "cumulativeAddresses", "day"},
		{"43114", "avgGps", "day"},
	} {
		b.Run(bc.chain+"/"+bc.metric+"/"+bc.interval, func(b *testing.B) {
			r := httptest.NewRequest(http.MethodGet, "/v2/x?pageSize=2160&timeInterval="+bc.interval, nil)
			r.SetPathValue("chainId", bc.chain)
			r.SetPathValue("metric", bc.metric)
			b.ReportAllocs()
			for b.Loop() {
				w := httptest.NewRecorder()
				h.ServeHTTP(w, r)
				if w.Code != http.StatusOK || w.Body.Len() < 100 {
					b.Fatalf("status %d: %.200s", w.Code, w.Body)
				}
			}
		})
	}
}

// BenchmarkApply indexes blocks of 10 transactions.
func BenchmarkApply(b *testing.B) {
	e, err := New(Options{Chains: testChains})
	if err != nil {
		b.Fatal(err)
	}
	var blocks []*Block
	benchBlocks(43114, 0, 20000, 10, func(blk *Block) { blocks = append(blocks, blk) })
	ctx := context.Background()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if i == len(blocks) {
			b.StopTimer()
			e, _ = New(Options{Chains: testChains})
			i = 0
			b.StartTimer()
		}
		if err := e.Apply(ctx, blocks[i]); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// BenchmarkRolling answers rolling windows over 1,100,000 indexed
// transactions: every window reads the blocks it holds, allTime all of them.
func BenchmarkRolling(b *testing.B) {
	e := benchWorld(b)
	h := validating(e, "getEvmChainRollingWindowMetrics")
	for _, bc := range []struct{ chain, metric string }{{"43114", "txCount"}, {"43114", "feesPaid"}, {"total", "deployers"}, {"total", "activeAddresses"}} {
		b.Run(bc.chain+"/"+bc.metric, func(b *testing.B) {
			r := httptest.NewRequest(http.MethodGet, "/v2/x", nil)
			r.SetPathValue("chainId", bc.chain)
			r.SetPathValue("metric", bc.metric)
			b.ReportAllocs()
			for b.Loop() {
				w := httptest.NewRecorder()
				h.ServeHTTP(w, r)
				if w.Code != http.StatusOK {
					b.Fatalf("status %d: %.200s", w.Code, w.Body)
				}
			}
		})
	}
}
