package pindex

import (
	"context"
	"math/rand/v2"
	"syscall"
	"testing"
	"time"

	"github.com/avaedge/avaedge/avanet"
	"github.com/avaedge/avaedge/internal/pgtest"
	"github.com/avaedge/avaedge/local/vocab/avax"
)

// BenchmarkWriteP measures the P-Chain's write path on each store: blocks
// of one BaseTx each (one input, two outputs to random owners among 1,000
// addresses), as a catch-up commits them, 256 blocks a store transaction
// (Options.CommitBlocks' default). It reports P-Chain blocks per second.
// The node's side (fetching, decoding its answers) is not in it:
// test/avalanchego's BenchmarkCatchUp measures the whole from a real node.
func BenchmarkWriteP(b *testing.B) {
	for _, s := range []struct {
		name  string
		store func(b *testing.B) Store
	}{
		{"sqlite", func(*testing.B) Store { return nil }},
		{"postgres", func(b *testing.B) Store {
			st, err := openPostgres(context.Background(), pgtest.Shared(b).Database(b), nil)
			if err != nil {
				b.Fatal(err)
			}
			return st
		}},
	} {
		b.Run(s.name, func(b *testing.B) {
			ctx := context.Background()
			net := avanet.Network{ID: 12345, Name: "local", HRP: "local", XChainID: fakeX.String(), CChainID: fakeC.String(), AVAXAssetID: fakeAVAX.String()}
			ix, err := Open(ctx, Options{Network: &net, Path: b.TempDir() + "/pindex.db", Store: s.store(b)})
			if err != nil {
				b.Fatal(err)
			}
			defer ix.Close()
			w := &addrWorld{t: b, ix: ix, net: net, r: rand.New(rand.NewPCG(5, 50)), heights: map[avanet.Chain]uint64{}, unspent: map[avanet.Chain][]addrUTXO{}}
			for a := range 1000 {
				w.addrs = append(w.addrs, avax.ShortID{0xbe, byte(a >> 8), byte(a)})
			}
			w.genesis()
			const per = 256
			blocks := 0
			cpu0 := processCPU()
			b.ReportAllocs()
			for b.Loop() {
				b.StopTimer()
				batch := make([]*RawBlock, per)
				for i := range batch {
					_, tx := w.transfer(avanet.ChainP)
					batch[i] = w.block(avanet.ChainP, tx)
				}
				b.StartTimer()
				if err := ix.Append(ctx, avanet.ChainP, batch); err != nil {
					b.Fatal(err)
				}
				blocks += per
			}
			b.ReportMetric(float64(blocks)/b.Elapsed().Seconds(), "blocks/s")
			// Per second of this process's CPU (generating the blocks
			// included; PostgreSQL's server not): the rate a core of its
			// own would give, on a machine shared by others.
			b.ReportMetric(float64(blocks)/(processCPU()-cpu0).Seconds(), "blocks/cpu-s")
		})
	}
}

// processCPU returns this process's user and system CPU time.
func processCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
