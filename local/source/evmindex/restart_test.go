package evmindex

import (
	"bytes"
	"context"
	"log/slog"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/params"

	"github.com/avaedge/avaedge/local/source/devnet/evm"
)

var sink = common.HexToAddress("0x000000000000000000000000000000000000dEaD")

// sendWei mines dev1's transfer of v wei to sink on c.
func sendWei(t *testing.T, c *evm.Chain, nonce uint64, v int64) *types.Block {
	t.Helper()
	dev1 := c.Accounts()[1]
	id := new(big.Int).SetUint64(c.ChainID())
	tx := types.MustSignNewTx(dev1.Key, types.LatestSignerForChainID(id), &types.DynamicFeeTx{ChainID: id, Nonce: nonce,
		GasTipCap: big.NewInt(params.GWei), GasFeeCap: big.NewInt(50 * params.GWei), Gas: 21_000, To: &sink, Value: big.NewInt(v)})
	b, _, err := c.SendBlock(context.Background(), tx)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// indexChain opens the index at path over c, waits until it holds c's head
// and returns it with what it logged so far.
func indexChain(t *testing.T, c *evm.Chain, path string, log *bytes.Buffer) *Index {
	t.Helper()
	ctx := context.Background()
	cl := c.Client()
	t.Cleanup(cl.Close)
	ix, err := Open(ctx, Options{Path: path, Logger: slog.New(slog.NewTextHandler(log, nil)),
		Chains: []ChainOptions{{ChainID: c.ChainID(), Client: cl, PollInterval: 20 * time.Millisecond}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	ix.Start(ctx)
	wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	head := c.Head().NumberU64()
	if err := ix.WaitFor(wctx, c.ChainID(), head); err != nil {
		t.Fatal(err)
	}
	// WaitFor returns once the index holds head; an index that was ahead
	// must also have come down to it.
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if h, _ := ix.Head(c.ChainID()); h == head {
			break
		}
		if time.Now().After(deadline) {
			h, _ := ix.Head(c.ChainID())
			t.Fatalf("index head %d; want the chain's %d", h, head)
		}
	}
	return ix
}

// TestIndexAheadOfChain: an index that holds blocks its chain lost (the
// chain's directory as it was two blocks earlier) is rolled back to the
// chain's head at start, keeps every block the chain still has, logs what it
// did, and indexes the chain's next block.
func TestIndexAheadOfChain(t *testing.T) {
	ctx := context.Background()
	tmp := t.TempDir()
	dir, earlier, path := filepath.Join(tmp, "chain"), filepath.Join(tmp, "earlier"), filepath.Join(tmp, "evmindex.db")
	c, err := evm.New(ctx, evm.Options{Dir: dir, NoAutoMine: true})
	if err != nil {
		t.Fatal(err)
	}
	nonce := func(c *evm.Chain) uint64 {
		cl := ethclient.NewClient(c.Client())
		defer cl.Close()
		n, err := cl.NonceAt(ctx, c.Accounts()[1].Address, nil)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	kept := sendWei(t, c, nonce(c), 100)
	c.Close()
	if err := os.CopyFS(earlier, os.DirFS(dir)); err != nil {
		t.Fatal(err)
	}
	c, err = evm.New(ctx, evm.Options{Dir: dir, NoAutoMine: true})
	if err != nil {
		t.Fatal(err)
	}
	sendWei(t, c, nonce(c), 20)
	sendWei(t, c, nonce(c), 3)
	var log bytes.Buffer
	ix := indexChain(t, c, path, &log)
	if bal, _, err := ix.NativeBalance(ctx, c.ChainID(), sink, nil); err != nil || bal.Int64() != 123 {
		t.Fatalf("indexed balance %v, %v; want 123", bal, err)
	}
	ix.Close()
	c.Close()

	c, err = evm.New(ctx, evm.Options{Dir: earlier, NoAutoMine: true})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if c.Head().Hash() != kept.Hash() {
		t.Fatalf("earlier chain at %d; want %d", c.Head().NumberU64(), kept.NumberU64())
	}
	log.Reset()
	ix = indexChain(t, c, path, &log)
	if !strings.Contains(log.String(), "the index is ahead of the chain") {
		t.Errorf("log %q says nothing of the index ahead of the chain", log.String())
	}
	if got, err := ix.st.BlockHash(ctx, c.ChainID(), kept.NumberU64()); err != nil || got != kept.Hash() {
		t.Fatalf("stored block %d: %s, %v; want %s", kept.NumberU64(), got, err, kept.Hash())
	}
	if bal, _, err := ix.NativeBalance(ctx, c.ChainID(), sink, nil); err != nil || bal.Int64() != 100 {
		t.Fatalf("indexed balance after the rollback %v, %v; want 100", bal, err)
	}
	next := sendWei(t, c, nonce(c), 5)
	wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := ix.WaitFor(wctx, c.ChainID(), next.NumberU64()); err != nil {
		t.Fatal(err)
	}
	if got, err := ix.st.BlockHash(ctx, c.ChainID(), next.NumberU64()); err != nil || got != next.Hash() {
		t.Fatalf("stored block %d: %s, %v; want %s", next.NumberU64(), got, err, next.Hash())
	}
}
