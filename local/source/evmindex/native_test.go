package evmindex

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/avaedge/avaedge/local/source/devnet/evm"
)

// gatedNode serves the dev chain's JSON-RPC over HTTP while up is set, and
// answers 503 otherwise, as a node whose chain is not (or no longer) up.
func gatedNode(t *testing.T) (*evm.Chain, *httptest.Server, *atomic.Bool) {
	t.Helper()
	c, err := evm.New(context.Background(), evm.Options{WritesPerMinute: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	var up atomic.Bool
	h := c.Handler()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !up.Load() {
			http.Error(w, "chain not bootstrapped", http.StatusServiceUnavailable)
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return c, srv, &up
}

// balanceAt is the chain's own balance of a at block n.
func balanceAt(t *testing.T, c *evm.Chain, a common.Address, n uint64) *big.Int {
	t.Helper()
	cl := c.Client()
	defer cl.Close()
	var b hexutil.Big
	if err := cl.Call(&b, "eth_getBalance", a, hexutil.EncodeUint64(n)); err != nil {
		t.Fatal(err)
	}
	return b.ToInt()
}

// TestFollowWhenNodeAnswers: with CheckLater, Open succeeds while the node
// does not answer (without it Open fails), the chain is not Ready, and once
// the node answers it is followed within the retry bound: Ready, its
// blocks indexed.
func TestFollowWhenNodeAnswers(t *testing.T) {
	c, srv, up := gatedNode(t)
	ctx := context.Background()
	co := ChainOptions{ChainID: c.ChainID(), RPCURL: srv.URL, PollInterval: 20 * time.Millisecond}
	if ix, err := Open(ctx, Options{Chains: []ChainOptions{co}}); err == nil {
		ix.Close()
		t.Fatal("Open succeeded with the node down and no CheckLater")
	}
	co.CheckLater = true
	ix, err := Open(ctx, Options{Chains: []ChainOptions{co}})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	ix.Start(ctx)
	// Long enough for the retries to reach their bound.
	time.Sleep(3 * time.Second)
	if ix.Ready(c.ChainID()) {
		t.Fatal("Ready before the node answered")
	}
	up.Store(true)
	start := time.Now()
	wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := ix.WaitFor(wctx, c.ChainID(), c.Seed().Head); err != nil {
		t.Fatalf("not followed within 10s of the node answering: %v", err)
	}
	if !ix.Ready(c.ChainID()) {
		t.Fatal("not Ready after following")
	}
	if d := time.Since(start); d > maxBackoff+2*time.Second {
		t.Errorf("followed %s after the node answered; want within the %s retry bound", d, maxBackoff)
	}
}

// TestNativeBalanceOffline: while following, the balances of the addresses
// each block touched, and those the node answered NativeBalance, are
// recorded; with the node gone NativeBalance answers them as of the block
// they were recorded at, the same values the chain has there, and an
// address the index never saw is ErrNoBalance. A store reopened with the
// node still gone answers the same.
func TestNativeBalanceOffline(t *testing.T) {
	c, srv, up := gatedNode(t)
	up.Store(true)
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "evm.db")
	co := ChainOptions{ChainID: c.ChainID(), RPCURL: srv.URL, PollInterval: 20 * time.Millisecond, CheckLater: true}
	ix, err := Open(ctx, Options{Path: path, Chains: []ChainOptions{co}})
	if err != nil {
		t.Fatal(err)
	}
	ix.Start(ctx)
	head := c.Seed().Head
	wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := ix.WaitFor(wctx, c.ChainID(), head); err != nil {
		t.Fatal(err)
	}
	acc := evm.DevAccounts()
	ewoq, dev1, dev5 := acc[0].Address, acc[1].Address, acc[5].Address
	stranger := common.HexToAddress("0x00000000000000000000000000000000000000aa")
	// Asked while the node answers: the node's balance at the indexed head.
	for _, a := range []common.Address{ewoq, dev5} {
		bal, as, err := ix.NativeBalance(ctx, c.ChainID(), a, nil)
		if want := balanceAt(t, c, a, head); err != nil || as != head || bal.Cmp(want) != 0 {
			t.Fatalf("NativeBalance(%s) with the node up = %v as of %d, %v; want %s as of %d", a, bal, as, err, want, head)
		}
	}
	up.Store(false)
	check := func(t *testing.T, ix *Index) {
		cases := []struct {
			name string
			addr common.Address
			at   *uint64
			as   uint64
		}{
			{"asked at the head while up", ewoq, nil, head},
			{"asked while up, untouched", dev5, nil, head},
			{"touched by the last block", dev1, nil, head},
			{"touched, at an earlier block", dev1, ptr(uint64(2)), 2}, // ewoq sent it 10 AVAX in block 2
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				bal, as, err := ix.NativeBalance(ctx, c.ChainID(), tc.addr, tc.at)
				if want := balanceAt(t, c, tc.addr, tc.as); err != nil || as != tc.as || bal.Cmp(want) != 0 {
					t.Fatalf("got %v as of %d, %v; want %s as of %d", bal, as, err, want, tc.as)
				}
			})
		}
		if _, _, err := ix.NativeBalance(ctx, c.ChainID(), stranger, nil); !errors.Is(err, ErrNoBalance) {
			t.Errorf("an address never seen: %v; want ErrNoBalance", err)
		}
	}
	t.Run("node gone", func(t *testing.T) { check(t, ix) })
	ix.Close()
	reopened, err := Open(ctx, Options{Path: path, Chains: []ChainOptions{co}})
	if err != nil {
		t.Fatalf("reopening with the node gone: %v", err)
	}
	defer reopened.Close()
	if !reopened.Ready(c.ChainID()) {
		t.Error("a reopened store holding the chain is not Ready")
	}
	t.Run("reopened, node gone", func(t *testing.T) { check(t, reopened) })
}

func ptr[T any](v T) *T { return &v }

// prunedState is coreth's answer to eth_getBalance at a block whose state a
// pruning node no longer keeps (libevm's trie.MissingNodeError around
// hashdb's "state %#x is not available, not found").
const prunedState = `{"jsonrpc":"2.0","id":%s,"error":{"code":-32000,"message":"missing trie node ` +
	`2a0b8c5a1bd5e1b9d8bd0e3a5f3b0f1c8d2e4a6b7c9d0e1f2a3b4c5d6e7f8091 (path ) state ` +
	`0x2a0b8c5a1bd5e1b9d8bd0e3a5f3b0f1c8d2e4a6b7c9d0e1f2a3b4c5d6e7f8091 is not available, not found"}}`

// TestNativeBalancePruned: a node that answers that it no longer keeps the
// state of block 1 is not a node that does not answer: NativeBalance of an
// address the index recorded nothing of says the state is pruned
// (ErrStatePruned), and, with the node down, that it does not answer
// (ErrNoBalance).
func TestNativeBalancePruned(t *testing.T) {
	c, srv, up := gatedNode(t)
	up.Store(true)
	h := srv.Config.Handler
	var pruning atomic.Bool
	srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var call struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params []any           `json:"params"`
		}
		if up.Load() && pruning.Load() && json.Unmarshal(body, &call) == nil && call.Method == "eth_getBalance" && len(call.Params) == 2 && call.Params[1] == "0x1" {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, prunedState, call.ID)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		h.ServeHTTP(w, r)
	})
	ctx := context.Background()
	co := ChainOptions{ChainID: c.ChainID(), RPCURL: srv.URL, PollInterval: 20 * time.Millisecond, CheckLater: true}
	ix, err := Open(ctx, Options{Chains: []ChainOptions{co}})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	ix.Start(ctx)
	wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := ix.WaitFor(wctx, c.ChainID(), c.Seed().Head); err != nil {
		t.Fatal(err)
	}
	pruning.Store(true)
	stranger := common.HexToAddress("0x00000000000000000000000000000000000000aa")
	_, _, err = ix.NativeBalance(ctx, c.ChainID(), stranger, ptr(uint64(1)))
	if !errors.Is(err, ErrStatePruned) || errors.Is(err, ErrNoBalance) || !strings.Contains(err.Error(), "missing trie node") {
		t.Errorf("the state of block 1 pruned: %v; want ErrStatePruned with the node's message", err)
	}
	if _, _, err := ix.NativeBalance(ctx, c.ChainID(), stranger, ptr(uint64(2))); err != nil {
		t.Errorf("block 2, whose state the node keeps: %v", err)
	}
	up.Store(false)
	if _, _, err := ix.NativeBalance(ctx, c.ChainID(), stranger, ptr(uint64(1))); !errors.Is(err, ErrNoBalance) || errors.Is(err, ErrStatePruned) {
		t.Errorf("the node down: %v; want ErrNoBalance", err)
	}
}
