package evmindex

import (
	"context"
	"math/big"
	"net/http/httptest"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/avaedge/avaedge/local/source/devnet/evm"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
)

// activeChain builds a dev chain of about n blocks, each with an ERC-20
// transfer, an ERC-721 mint and an ERC-1155 transfer.
func activeChain(b *testing.B, n int) *evm.Chain {
	ctx := context.Background()
	c, err := evm.New(ctx, evm.Options{NoAutoMine: true})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Close() })
	s := c.Seed()
	ewoq := c.Accounts()[0]
	tok, _ := evm.LoadArtifact(evm.ContractToken)
	nft, _ := evm.LoadArtifact(evm.ContractNFT)
	multi, _ := evm.LoadArtifact(evm.ContractMulti)
	signer := types.LatestSignerForChainID(big.NewInt(43112))
	var nonce uint64
	cl := c.Client()
	defer cl.Close()
	var hexNonce string
	if err := cl.Call(&hexNonce, "eth_getTransactionCount", ewoq.Address, "latest"); err != nil {
		b.Fatal(err)
	}
	n0, _ := strconv.ParseUint(hexNonce[2:], 16, 64)
	nonce = n0
	mk := func(to common.Address, data []byte) *types.Transaction {
		tx := types.MustSignNewTx(ewoq.Key, signer, &types.DynamicFeeTx{ChainID: big.NewInt(43112), Nonce: nonce, GasTipCap: big.NewInt(1e9),
			GasFeeCap: big.NewInt(100e9), Gas: 300_000, To: &to, Data: data})
		nonce++
		return tx
	}
	for i := int(c.Head().NumberU64()); i < n; i++ {
		rcpt := common.BigToAddress(big.NewInt(int64(0x1000 + i%50)))
		t20, _ := tok.Call("transfer", rcpt, big.NewInt(1))
		m721, _ := nft.Call("mint", rcpt)
		t1155, _ := multi.Call("safeTransferFrom", ewoq.Address, rcpt, big.NewInt(1), big.NewInt(1), []byte{})
		if i%1000 == 0 {
			// Keep ewoq's item 1 stocked.
			m, _ := multi.Call("mint", ewoq.Address, big.NewInt(1), big.NewInt(2000))
			if _, _, err := c.SendBlock(ctx, mk(s.Multi, m)); err != nil {
				b.Fatal(err)
			}
			i++
		}
		if _, _, err := c.SendBlock(ctx, mk(s.Token, t20), mk(s.NFT, m721), mk(s.Multi, t1155)); err != nil {
			b.Fatal(err)
		}
	}
	return c
}

func benchBlocks() int {
	if n, err := strconv.Atoi(os.Getenv("EVMINDEX_BENCH_BLOCKS")); err == nil && n > 0 {
		return n
	}
	return 10_000
}

// BenchmarkIndexHTTP indexes a 10,000-block chain (EVMINDEX_BENCH_BLOCKS)
// from a local JSON-RPC endpoint over HTTP, with the call tracer.
func BenchmarkIndexHTTP(b *testing.B) {
	n := benchBlocks()
	t0 := time.Now()
	c := activeChain(b, n)
	b.Logf("built %d blocks in %s", c.Head().NumberU64(), time.Since(t0).Round(time.Millisecond))
	srv := httptest.NewServer(c.Handler())
	defer srv.Close()
	head := c.Head().NumberU64()
	for _, trace := range []bool{true, false} {
		name := "trace"
		if !trace {
			name = "notrace"
		}
		b.Run(name, func(b *testing.B) {
			var transfers int
			b.ResetTimer()
			for range b.N {
				ctx := context.Background()
				ix, err := Open(ctx, Options{
					Chains:  []ChainOptions{{ChainID: 43112, RPCURL: srv.URL, NoTrace: !trace, PollInterval: 10 * time.Millisecond}},
					OnBlock: func(_ context.Context, blk *Block) { transfers += len(blk.Transfers) },
				})
				if err != nil {
					b.Fatal(err)
				}
				start := time.Now()
				ix.Start(ctx)
				if err := ix.WaitFor(ctx, 43112, head); err != nil {
					b.Fatal(err)
				}
				el := time.Since(start).Seconds()
				b.ReportMetric(float64(head+1)/el, "blocks/s")
				b.ReportMetric(float64(transfers)/el, "transfers/s")
				transfers = 0
				ix.Close()
			}
		})
	}
}
