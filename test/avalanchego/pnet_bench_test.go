package avalanchego

import (
	"context"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/genesis"
	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/units"
	"github.com/ava-labs/avalanchego/vms/components/avax"
	"github.com/ava-labs/avalanchego/vms/platformvm"
	"github.com/ava-labs/avalanchego/vms/secp256k1fx"
	walletcommon "github.com/ava-labs/avalanchego/wallet/subnet/primary/common"

	"github.com/avaedge/avaedge/avanet"
	"github.com/avaedge/avaedge/internal/pgtest"
	"github.com/avaedge/avaedge/local/source/pindex"
)

const (
	// txTimeout bounds one P-Chain transaction, issued and accepted. The
	// wallet waits for acceptance by polling platform.getTxStatus until the
	// status is Committed or Aborted, so a transaction the node dropped
	// (status Dropped) would otherwise be waited for forever.
	txTimeout = 30 * time.Second
	// capacityWait is how long issuing waits when the P-Chain's gas
	// capacity is spent: it refills at 100,000 gas a second on a local
	// network, a dozen BaseTxs.
	capacityWait = 100 * time.Millisecond
	// issueLogEvery is how often issuing logs its progress.
	issueLogEvery = 10 * time.Second
	// catchUpTimeout bounds one catch-up of the index.
	catchUpTimeout = 5 * time.Minute
)

// BenchmarkCatchUp measures how fast a fresh index catches up with a node
// whose P-Chain is AVAEDGE_BENCH_PBLOCKS (default 1000) blocks ahead: each
// block one P-Chain BaseTx issued with avalanchego's wallet. It reports
// P-Chain blocks per second (both chains are indexed; the X-Chain has a
// handful of blocks). AVAEDGE_BENCH_NODE names a running node of a local
// network to use instead (its P-Chain is brought to the height the same
// way), so that two builds can be measured in turns against the same blocks.
// It measures the SQLite store (BenchmarkCatchUp/sqlite) and, with
// AVAEDGE_BENCH_PG set, PostgreSQL beside it against the same blocks
// (BenchmarkCatchUp/postgres, a server of the benchmark's own).
//
// The node and its blocks are made once per run of the benchmark (b.Loop):
// with a b.N loop the testing package calls the function again with a larger
// b.N, which started a second node and issued every block again, minutes of
// silence after the first result.
func BenchmarkCatchUp(b *testing.B) {
	blocks := 1000
	if s := os.Getenv("AVAEDGE_BENCH_PBLOCKS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			b.Fatalf("AVAEDGE_BENCH_PBLOCKS=%q", s)
		}
		blocks = n
	}
	uri, nodePID := os.Getenv("AVAEDGE_BENCH_NODE"), 0
	if uri == "" {
		// avalanchego builds at most one P-Chain block a second by default
		// (the proposervm's minimum block delay); this node builds one as
		// soon as a transaction is there.
		b.Setenv("AVAGO_PROPOSERVM_MIN_BLOCK_DELAY", "0s")
		node := startNode(b)
		uri, nodePID = node.URI, node.cmd.Process.Pid
	}
	tip := issuePBlocks(b, uri, uint64(blocks))

	b.Run("sqlite", func(b *testing.B) { measureCatchUp(b, uri, nodePID, tip, nil) })
	if os.Getenv("AVAEDGE_BENCH_PG") != "" {
		srv := pgtest.Start(b)
		b.Run("postgres", func(b *testing.B) {
			measureCatchUp(b, uri, nodePID, tip, func() pindex.Store {
				st, err := pindex.OpenPostgres(context.Background(), srv.Database(b), nil, nil)
				if err != nil {
					b.Fatal(err)
				}
				return st
			})
		})
	}
}

// measureCatchUp catches a fresh index up with the node at uri, whose
// P-Chain is at tip, each run of b.Loop, and reports the rate; store opens
// the index's store (nil: a SQLite file).
func measureCatchUp(b *testing.B, uri string, nodePID int, tip uint64, store func() pindex.Store) {
	ctx := context.Background()
	var (
		elapsed time.Duration
		runs    int
	)
	nodeCPU0, selfCPU0 := processCPU(nodePID), selfCPU()
	for b.Loop() {
		opts := pindex.Options{Node: uri, Path: b.TempDir() + "/pindex.db", ValidatorsInterval: time.Hour}
		if store != nil {
			opts.Store, opts.Path = store(), ""
		}
		ix, err := pindex.Open(ctx, opts)
		if err != nil {
			b.Fatal(err)
		}
		t0 := time.Now()
		ix.Start(ctx)
		wctx, cancel := context.WithTimeout(ctx, catchUpTimeout)
		err = ix.WaitFor(wctx, avanet.ChainP, tip)
		cancel()
		if err != nil {
			h, ok := ix.Head(avanet.ChainP)
			ix.Close()
			b.Fatalf("the index did not reach P-Chain height %d in %s (its head: %d, %v): %v", tip, catchUpTimeout, h, ok, err)
		}
		elapsed += time.Since(t0)
		runs++
		ix.Close()
	}
	b.ReportMetric(float64(tip+1)*float64(runs)/elapsed.Seconds(), "blocks/s")
	// CPU of the node and of this process (the index) while catching up, in
	// cores: the machine's share each side takes.
	if nodeCPU0 >= 0 {
		b.ReportMetric((processCPU(nodePID)-nodeCPU0).Seconds()/elapsed.Seconds(), "node-cores")
	}
	b.ReportMetric((selfCPU()-selfCPU0).Seconds()/elapsed.Seconds(), "index-cores")
}

// processCPU returns the user and system CPU time of process pid from
// /proc, or -1 where there is none (pid 0: a node this process did not
// start).
func processCPU(pid int) time.Duration {
	if pid == 0 {
		return -1
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return -1
	}
	// Fields after the command (which may hold spaces): state is field 3,
	// utime and stime are fields 14 and 15, in clock ticks (100 a second).
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	if len(f) < 13 {
		return -1
	}
	u, _ := strconv.ParseInt(f[11], 10, 64)
	s, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(u+s) * 10 * time.Millisecond
}

// selfCPU returns this process's user and system CPU time.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// issuePBlocks issues P-Chain BaseTxs with the ewoq wallet, one a block,
// until the P-Chain height is at least height, logging progress, and returns
// the height reached.
//
// P-Chain fees are dynamic: sustained issuing above the local network's
// target (50,000 gas a second; a BaseTx is about 8,000) raises the gas price,
// and the wallet prices its transactions at twice the price read when it was
// made (kept, the node refused a BaseTx at height 480 of a run: "insufficient
// unlocked funds"). The wallet is made afresh whenever the price passes the
// one it was made with. The gas capacity (1,000,000, refilled at 100,000 a
// second) is spent after about 120 blocks in a burst; then issuing waits for
// it. Every call to the node is bounded.
func issuePBlocks(b *testing.B, uri string, height uint64) uint64 {
	ctx := context.Background()
	bounded := func() (context.Context, context.CancelFunc) { return context.WithTimeout(ctx, txTimeout) }
	kc := secp256k1fx.NewKeychain(genesis.EWOQKey)
	pc := platformvm.NewClient(uri)
	w := makeWallets(b, ctx, uri, kc)
	avaxID := w.X.Builder().Context().AVAXAssetID
	out := &avax.TransferableOutput{Asset: avax.Asset{ID: avaxID}, Out: &secp256k1fx.TransferOutput{Amt: units.MilliAvax,
		OutputOwners: secp256k1fx.OutputOwners{Threshold: 1, Addrs: []ids.ShortID{genesis.EWOQKey.Address()}}}}
	start, lastLog := time.Now(), time.Now()
	var issued, remade, waited int
	nodeHeight := func() (uint64, error) {
		cctx, cancel := bounded()
		defer cancel()
		return pc.GetHeight(cctx)
	}
	price := func() (uint64, error) {
		cctx, cancel := bounded()
		defer cancel()
		_, p, _, err := pc.GetFeeState(cctx)
		return uint64(p), err
	}
	h, err := nodeHeight()
	for err == nil && h < height {
		if issued%50 == 0 && issued > 0 {
			p, ferr := price()
			if ferr != nil {
				b.Fatalf("platform.getFeeState: %v", ferr)
			}
			if 2*p > uint64(w.P.Builder().Context().GasPrice) {
				w = makeWallets(b, ctx, uri, kc)
				remade++
			}
		}
		tctx, cancel := bounded()
		var (
			txID ids.ID
			ierr error
		)
		for {
			_, ierr = w.P.IssueBaseTx([]*avax.TransferableOutput{out}, walletcommon.WithContext(tctx),
				walletcommon.WithPollFrequency(10*time.Millisecond),
				walletcommon.WithIssuanceHandler(func(r walletcommon.IssuanceReceipt) { txID = r.TxID }))
			if ierr == nil || !strings.Contains(ierr.Error(), "exceeds current gas capacity") || tctx.Err() != nil {
				break
			}
			waited++
			time.Sleep(capacityWait)
		}
		cancel()
		if ierr != nil {
			if txID == ids.Empty {
				b.Fatalf("P-Chain BaseTx at height %d: %v", h, ierr)
			}
			sctx, scancel := bounded()
			st, serr := pc.GetTxStatus(sctx, txID)
			scancel()
			if serr != nil {
				b.Fatalf("P-Chain BaseTx %s at height %d: %v (platform.getTxStatus: %v)", txID, h, ierr, serr)
			}
			b.Fatalf("P-Chain BaseTx %s at height %d: %v (status %s %s)", txID, h, ierr, st.Status, st.Reason)
		}
		issued++
		if time.Since(lastLog) >= issueLogEvery {
			p, _ := price()
			b.Logf("issuing: P-Chain height %d of %d, %d txs in %s, gas price %d", h+1, height, issued, time.Since(start).Round(time.Second), p)
			lastLog = time.Now()
		}
		h, err = nodeHeight()
	}
	if err != nil {
		b.Fatalf("platform.getHeight: %v", err)
	}
	d := time.Since(start)
	b.Logf("issued %d P-Chain BaseTxs up to height %d in %s (%.1f blocks/s; wallet made afresh %d times for the gas price; %d waits for gas capacity)",
		issued, h, d.Round(time.Millisecond), float64(issued)/d.Seconds(), remade, waited)
	return h
}
