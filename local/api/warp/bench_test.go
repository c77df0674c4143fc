package warp

import (
	"context"
	"fmt"
	"log/slog"
	"testing"
)

// benchWorld is a 100-validator primary network with uneven weights.
func benchWorld() (*fakeSource, []*fakeValidator) {
	weights := make([]uint64, 100)
	for i := range weights {
		weights[i] = uint64(1000 + 37*i)
	}
	vs := newFakeValidators(1000, weights...)
	return newFakeSource(vs), vs
}

// BenchmarkAggregateCached aggregates a message whose 100 signatures are all
// cached: the canonical set, cache lookups, blst aggregation and the final
// verification. Target: under 50 ms per operation.
func BenchmarkAggregateCached(b *testing.B) {
	for _, quorum := range []uint64{67, 100} {
		b.Run(fmt.Sprintf("quorum=%d", quorum), func(b *testing.B) {
			src, vs := benchWorld()
			a := NewAggregator(src, Options{Logger: slog.New(slog.DiscardHandler)})
			msg := testMessage(cChainID, "bench cached")
			req := Request{Network: "fuji", Message: msg, QuorumPercentage: 100}
			signed, err := a.Aggregate(context.Background(), req) // fills the cache
			if err != nil {
				b.Fatal(err)
			}
			checkSigned(b, signed, msg, vs, 100)
			calls := src.totalCalls()
			req.QuorumPercentage = quorum
			b.ReportAllocs()
			for b.Loop() {
				if _, err := a.Aggregate(context.Background(), req); err != nil {
					b.Fatal(err)
				}
			}
			if src.totalCalls() != calls {
				b.Fatalf("Sign called while cached")
			}
		})
	}
}

// BenchmarkAggregateUncached aggregates a new message each time: every
// signature is produced by the fake validators (blst signing, as a real
// validator would) and verified one by one.
func BenchmarkAggregateUncached(b *testing.B) {
	src, _ := benchWorld()
	a := NewAggregator(src, Options{Logger: slog.New(slog.DiscardHandler)})
	i := 0
	b.ReportAllocs()
	for b.Loop() {
		i++
		req := Request{Network: "fuji", Message: testMessage(cChainID, fmt.Sprint("bench uncached ", i))}
		if _, err := a.Aggregate(context.Background(), req); err != nil {
			b.Fatal(err)
		}
	}
}
