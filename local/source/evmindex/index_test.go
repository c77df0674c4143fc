package evmindex

import (
	"context"
	"math/big"
	"sync"
	"testing"
	"time"

	"github.com/avaedge/avaedge/local/source/devnet/evm"
	"github.com/ethereum/go-ethereum/common"
)

func openEmbedded(t testing.TB, hook BlockHook, store Store) (*evm.Chain, *Index) {
	t.Helper()
	ctx := context.Background()
	c, err := evm.New(ctx, evm.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	cl := c.Client()
	t.Cleanup(cl.Close)
	ix, err := Open(ctx, Options{Store: store, Chains: []ChainOptions{{ChainID: c.ChainID(), Client: cl, PollInterval: 50 * time.Millisecond}}, OnBlock: hook})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	ix.Start(ctx)
	wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := ix.WaitFor(wctx, c.ChainID(), c.Seed().Head); err != nil {
		t.Fatal(err)
	}
	return c, ix
}

func TestIndexEmbeddedSeed(t *testing.T) {
	eachStore(t, func(t *testing.T, store storeFor) {
		var mu sync.Mutex // guards blocks: the hook runs on the follower goroutine
		var blocks []*Block
		c, ix := openEmbedded(t, func(_ context.Context, b *Block) { mu.Lock(); blocks = append(blocks, b); mu.Unlock() }, store(t))
		ctx := context.Background()
		s := c.Seed()
		acc := c.Accounts()
		// WaitFor returns once the store has the block; the hook may run just after.
		deadline := time.Now().Add(5 * time.Second)
		for {
			mu.Lock()
			n := len(blocks)
			mu.Unlock()
			if n >= int(s.Head)+1 || time.Now().After(deadline) {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		mu.Lock()
		defer mu.Unlock()
		if len(blocks) != int(s.Head)+1 || blocks[0].Number != 0 {
			t.Fatalf("hook saw %d blocks; want %d from 0", len(blocks), s.Head+1)
		}
		var creations []Creation
		for _, b := range blocks {
			creations = append(creations, b.Creations...)
		}
		if len(creations) != 6 || creations[4].Kind != CREATE || creations[5].Kind != CREATE2 || creations[5].Address != s.ChildCreate2 || creations[5].Deployer != s.Factory {
			t.Fatalf("creations %+v", creations)
		}
		tr, err := ix.Transfers(ctx, TransferQuery{ChainID: 43112, Contract: &s.Multi, Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		// mint, mintBatch(3), transfer, batch(2), transfer = 8, newest first.
		if len(tr) != 8 || tr[0].From != acc[1].Address || tr[0].To != acc[3].Address || tr[0].Value.Int64() != 2 {
			t.Fatalf("1155 transfers: %d, first %+v", len(tr), tr[0])
		}
		h, err := ix.Holdings(ctx, HoldingQuery{ChainID: 43112, Owner: acc[0].Address, Kind: ERC1155, Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		want := []int64{95, 9, 18, 30}
		if len(h) != 4 {
			t.Fatalf("ewoq 1155 holdings %+v", h)
		}
		for i, w := range want {
			if h[i].Balance.Int64() != w || h[i].TokenID.Int64() != int64(i+1) {
				t.Errorf("holding %d: id %v balance %v; want id %d balance %d", i, h[i].TokenID, h[i].Balance, i+1, w)
			}
		}
		at := uint64(4)
		h, _ = ix.Holdings(ctx, HoldingQuery{ChainID: 43112, Owner: acc[0].Address, Kind: ERC1155, AtBlock: &at, Limit: 10})
		if len(h) != 4 || h[0].Balance.Int64() != 100 || h[1].Balance.Int64() != 10 {
			t.Fatalf("ewoq 1155 holdings at block 4: %+v", h)
		}
		// Page by page, each after the previous page's last Key: the same
		// holdings, now and at block 4.
		for _, at := range []*uint64{nil, &at} {
			all, _ := ix.Holdings(ctx, HoldingQuery{ChainID: 43112, Owner: acc[0].Address, Kind: ERC1155, AtBlock: at, Limit: 10})
			var paged []Holding
			var after []byte
			for range 10 {
				page, err := ix.Holdings(ctx, HoldingQuery{ChainID: 43112, Owner: acc[0].Address, Kind: ERC1155, AtBlock: at, After: after, Limit: 1})
				if err != nil {
					t.Fatal(err)
				}
				if len(page) == 0 {
					break
				}
				paged, after = append(paged, page...), page[0].Key()
			}
			if len(paged) != len(all) {
				t.Fatalf("holdings at %v one at a time: %d; want the %d of one page", at, len(paged), len(all))
			}
			for i := range all {
				if paged[i].TokenID.Cmp(all[i].TokenID) != 0 || paged[i].Balance.Cmp(all[i].Balance) != 0 {
					t.Fatalf("holding %d at %v one at a time: %+v; want %+v", i, at, paged[i], all[i])
				}
			}
		}
		nfts, err := ix.Holdings(ctx, HoldingQuery{ChainID: 43112, Owner: acc[2].Address, Kind: ERC721, Limit: 10})
		if err != nil || len(nfts) != 2 || nfts[0].TokenID.Int64() != 4 || nfts[1].TokenID.Int64() != 5 {
			t.Fatalf("dev2 nfts %+v (%v)", nfts, err)
		}
		md, err := ix.NFTs(ctx, 43112, []NFTKey{{s.NFT, "4"}, {s.Multi, "2"}})
		if err != nil {
			t.Fatal(err)
		}
		if n := md[NFTKey{s.NFT, "4"}]; n.Status != StatusIndexed || n.Metadata.Name != "Avaedge Dev NFT #4" || n.Metadata.Attributes == "" {
			t.Fatalf("nft 4 metadata %+v", n)
		}
		if n := md[NFTKey{s.Multi, "2"}]; n.Status != StatusIndexed || n.Metadata.Name != "Avaedge Item #2" || n.Metadata.Decimals == nil {
			t.Fatalf("item 2 metadata %+v", n)
		}
		d, err := ix.Deployment(ctx, 43112, s.ChildCreate)
		if err != nil || d.Deployer != s.Factory || d.Kind != CREATE {
			t.Fatalf("deployment %+v %v", d, err)
		}
		tx, err := ix.Transaction(ctx, 43112, d.TxHash)
		if err != nil || len(tx.Internals) != 2 || tx.Internals[1].Type != "CREATE" || tx.Internals[1].Value.Cmp(big.NewInt(1e18)) != 0 {
			t.Fatalf("tx %+v %v", tx, err)
		}
		toks, _ := ix.Tokens(ctx, 43112, []common.Address{s.Token})
		if tk := toks[s.Token]; tk.Symbol != "ADT" || tk.Decimals != 18 || tk.Kind != ERC20 {
			t.Fatalf("token %+v", tk)
		}
	})
}
