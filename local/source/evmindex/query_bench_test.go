package evmindex

import (
	"context"
	"math/big"
	"os"
	"sort"
	"strconv"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
)

// BenchmarkListTransfersP99 fills a store with EVMINDEX_BENCH_TRANSFERS
// synthetic ERC-20 transfers (default 1,000,000; one contract, 1,000
// addresses, 10 per block) and measures pages of the contract's and of one
// address's transfers, reporting p99.
func BenchmarkListTransfersP99(b *testing.B) {
	n := 1_000_000
	if v, err := strconv.Atoi(os.Getenv("EVMINDEX_BENCH_TRANSFERS")); err == nil && v > 0 {
		n = v
	}
	ctx := context.Background()
	ix, err := Open(ctx, Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer ix.Close()
	contract := common.HexToAddress("0x00000000000000000000000000000000000c0de0")
	tx, _ := sqliteOf(ix).w.Begin()
	insB, _ := tx.Prepare(`INSERT INTO blocks VALUES (?,?,?,?,?,?,?,?,?,?,?)`)
	insT, _ := tx.Prepare(`INSERT INTO transfers VALUES (?,?,?,?,?,?,?,?,?,?,?)`)
	insA, _ := tx.Prepare(`INSERT OR IGNORE INTO address_transfers VALUES (?,?,?,?)`)
	addr := func(i int) []byte { return common.BigToAddress(new(big.Int).SetInt64(int64(0x10000 + i%1000))).Bytes() }
	for i := 0; i < n; i++ {
		blk, li := uint64(i/10), uint(i%10)
		if li == 0 {
			h := common.BigToHash(new(big.Int).SetUint64(blk + 1)).Bytes()
			if _, err := insB.Exec(43112, blk, h, h, 1_700_000_000+blk, 10, 0, 0, "0", "0", 0); err != nil {
				b.Fatal(err)
			}
		}
		seq := seqOf(blk, li, 0)
		from, to := addr(i), addr(i+1)
		if _, err := insT.Exec(43112, seq, blk, li, common.BigToHash(new(big.Int).SetInt64(int64(i))).Bytes(), contract.Bytes(), ERC20, from, to, nil, "1"); err != nil {
			b.Fatal(err)
		}
		insA.Exec(43112, from, ERC20, seq)
		insA.Exec(43112, to, ERC20, seq)
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
	sqliteOf(ix).w.Exec(`ANALYZE`)
	holder := common.BytesToAddress(addr(7))
	queries := map[string]TransferQuery{
		"contract": {ChainID: 43112, Contract: &contract, Limit: 101},
		"address":  {ChainID: 43112, Address: &holder, Kind: ERC20, Limit: 101},
		"range":    {ChainID: 43112, Contract: &contract, StartBlock: uint64(n / 40), EndBlock: uint64(n / 20), Limit: 101},
	}
	for name, q := range queries {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			lat := make([]time.Duration, 0, b.N)
			for i := 0; b.Loop(); i++ {
				qq := q
				if i%2 == 1 {
					qq.Before = seqOf(uint64(n/10-i%(n/20)), 0, 0) // a later page
				}
				t0 := time.Now()
				rows, err := ix.Transfers(ctx, qq)
				lat = append(lat, time.Since(t0))
				if err != nil || len(rows) == 0 {
					b.Fatalf("%d rows, %v", len(rows), err)
				}
			}
			sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
			b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
		})
	}
}
