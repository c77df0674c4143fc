package avalanchego

import (
	"context"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/genesis"
	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/units"
	"github.com/ava-labs/avalanchego/vms/components/avax"
	"github.com/ava-labs/avalanchego/vms/platformvm"
	"github.com/ava-labs/avalanchego/vms/secp256k1fx"

	"github.com/avaedge/avaedge/local/pindex"
)

// BenchmarkCatchUp measures how fast a fresh index catches up with a node
// whose P-Chain is AVAEDGE_BENCH_PBLOCKS (default 1000) blocks ahead: each
// block one P-Chain BaseTx issued with avalanchego's wallet. It reports
// P-Chain blocks per second (both chains are indexed; the X-Chain has a
// handful of blocks).
func BenchmarkCatchUp(b *testing.B) {
	blocks := 1000
	if s := os.Getenv("AVAEDGE_BENCH_PBLOCKS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			b.Fatalf("AVAEDGE_BENCH_PBLOCKS=%q", s)
		}
		blocks = n
	}
	node := startNode(b)
	ctx := context.Background()
	kc := secp256k1fx.NewKeychain(genesis.EWOQKey)
	w := makeWallets(b, ctx, node.URI, kc)
	pc := platformvm.NewClient(node.URI)
	avaxID := w.X.Builder().Context().AVAXAssetID
	start := time.Now()
	for h, _ := pc.GetHeight(ctx); h < uint64(blocks); h, _ = pc.GetHeight(ctx) {
		out := &avax.TransferableOutput{Asset: avax.Asset{ID: avaxID}, Out: &secp256k1fx.TransferOutput{Amt: units.MilliAvax,
			OutputOwners: secp256k1fx.OutputOwners{Threshold: 1, Addrs: []ids.ShortID{genesis.EWOQKey.Address()}}}}
		if _, err := w.P.IssueBaseTx([]*avax.TransferableOutput{out}); err != nil {
			b.Fatalf("P BaseTx at height %d: %v", h, err)
		}
	}
	tip, _ := pc.GetHeight(ctx)
	b.Logf("issued P-Chain blocks up to height %d in %s", tip, time.Since(start).Round(time.Millisecond))
	b.ResetTimer()
	var elapsed time.Duration
	for range b.N {
		ix, err := pindex.Open(ctx, pindex.Options{Node: node.URI, Path: b.TempDir() + "/pindex.db", ValidatorsInterval: time.Hour})
		if err != nil {
			b.Fatal(err)
		}
		t0 := time.Now()
		ix.Start(ctx)
		if err := ix.WaitFor(ctx, pindex.ChainP, tip); err != nil {
			b.Fatal(err)
		}
		elapsed += time.Since(t0)
		ix.Close()
	}
	b.ReportMetric(float64(tip+1)*float64(b.N)/elapsed.Seconds(), "blocks/s")
}
