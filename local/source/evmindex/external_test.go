package evmindex

import (
	"context"
	"fmt"
	"math/big"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/avaedge/avaedge/local/source/devnet/evm"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/eth/ethconfig"
	"github.com/ethereum/go-ethereum/ethclient/simulated"
	"github.com/ethereum/go-ethereum/node"
)

func freePort(t *testing.T) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// TestExternalNodeReorg follows a second go-ethereum dev node (the simulated
// backend, over plain HTTP JSON-RPC, without the call tracer), forces a
// re-org with Fork and checks the rollback.
func TestExternalNodeReorg(t *testing.T) {
	eachStore(t, func(t *testing.T, store storeFor) {
		port := freePort(t)
		ewoq := evm.DevAccounts()[0]
		x, y := common.HexToAddress("0x00000000000000000000000000000000000000aa"), common.HexToAddress("0x00000000000000000000000000000000000000bb")
		sim := simulated.NewBackend(types.GenesisAlloc{ewoq.Address: {Balance: new(big.Int).Mul(big.NewInt(1e18), big.NewInt(1000))}},
			func(nc *node.Config, ec *ethconfig.Config) {
				nc.HTTPHost, nc.HTTPPort, nc.HTTPModules = "127.0.0.1", port, []string{"eth", "net", "web3", "debug"}
			})
		defer sim.Close()
		cl := sim.Client()
		ctx := context.Background()
		chainID, _ := cl.ChainID(ctx)
		signer := types.LatestSignerForChainID(chainID)
		tok, _ := evm.LoadArtifact(evm.ContractToken)
		send := func(nonce uint64, to *common.Address, data []byte, tip int64) common.Hash {
			t.Helper()
			tx := types.MustSignNewTx(ewoq.Key, signer, &types.DynamicFeeTx{ChainID: chainID, Nonce: nonce, GasTipCap: big.NewInt(tip),
				GasFeeCap: big.NewInt(tip * 50), Gas: gasFor(to), To: to, Data: data})
			if err := cl.SendTransaction(ctx, tx); err != nil {
				t.Fatal(err)
			}
			return tx.Hash()
		}
		code, _ := tok.Deploy()
		send(0, nil, code, 1e9)
		sim.Commit()
		r, _ := cl.TransactionReceipt(ctx, func() common.Hash { b, _ := cl.BlockByNumber(ctx, big.NewInt(1)); return b.Transactions()[0].Hash() }())
		token := r.ContractAddress
		mint, _ := tok.Call("mint", ewoq.Address, big.NewInt(1000))
		send(1, &token, mint, 1e9) // ~244k gas on the simulated backend's latest forks
		forkPoint := sim.Commit()  // block 2
		toX, _ := tok.Call("transfer", x, big.NewInt(10))
		send(2, &token, toX, 1e9)
		sim.Commit() // block 3

		var mu sync.Mutex
		var rolled []uint64
		var seen []uint64
		ix, err := Open(ctx, Options{Store: store(t),
			Chains:     []ChainOptions{{ChainID: chainID.Uint64(), RPCURL: fmt.Sprintf("http://127.0.0.1:%d", port), PollInterval: 20 * time.Millisecond}},
			OnBlock:    func(_ context.Context, b *Block) { mu.Lock(); seen = append(seen, b.Number); mu.Unlock() },
			OnRollback: func(_ context.Context, _ uint64, from uint64) { mu.Lock(); rolled = append(rolled, from); mu.Unlock() },
		})
		if err != nil {
			t.Fatal(err)
		}
		defer ix.Close()
		ix.Start(ctx)
		wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		if err := ix.WaitFor(wctx, chainID.Uint64(), 3); err != nil {
			t.Fatal(err)
		}
		balance := func(a common.Address) string {
			h, err := ix.Holdings(ctx, HoldingQuery{ChainID: chainID.Uint64(), Owner: a, Kind: ERC20, Limit: 10})
			if err != nil {
				t.Fatal(err)
			}
			if len(h) == 0 {
				return "0"
			}
			return h[0].Balance.String()
		}
		if got := balance(x); got != "10" {
			t.Fatalf("x balance %s before re-org; want 10", got)
		}
		d, err := ix.Deployment(ctx, chainID.Uint64(), token)
		if err != nil || d.Kind != CREATE || d.Deployer != ewoq.Address {
			t.Fatalf("deployment from receipts: %+v %v", d, err)
		}

		// Re-org: block 3 is replaced by 3', 4', 5' where the transfer goes to y.
		if err := sim.Fork(forkPoint); err != nil {
			t.Fatal(err)
		}
		toY, _ := tok.Call("transfer", y, big.NewInt(10))
		// The pool resets to the forked head in the background: retry until it
		// takes nonce 2 again (replacing the re-injected transfer to x).
		replacement := types.MustSignNewTx(ewoq.Key, signer, &types.DynamicFeeTx{ChainID: chainID, Nonce: 2, GasTipCap: big.NewInt(5e9),
			GasFeeCap: big.NewInt(250e9), Gas: 1_000_000, To: &token, Data: toY})
		for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(2 * time.Millisecond) {
			err := cl.SendTransaction(ctx, replacement)
			if err == nil {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal(err)
			}
		}
		sim.Commit()
		sim.Commit()
		sim.Commit()
		if err := ix.WaitFor(wctx, chainID.Uint64(), 5); err != nil {
			t.Fatal(err)
		}
		if bx, by := balance(x), balance(y); bx != "0" || by != "10" {
			t.Fatalf("after re-org x=%s y=%s; want 0 and 10", bx, by)
		}
		rows, _ := ix.Transfers(ctx, TransferQuery{ChainID: chainID.Uint64(), Contract: &token, Limit: 10})
		if len(rows) != 2 || rows[0].To != y || rows[0].BlockNumber != 3 {
			t.Fatalf("transfers after re-org %+v", rows)
		}
		// The address listings lost the replaced transfer's recipient.
		for a, want := range map[common.Address]int{x: 0, y: 1} {
			got, err := ix.AddressTxs(ctx, AddressTxQuery{ChainID: chainID.Uint64(), Address: a, Range: Blocks(0, 0), Limit: 10})
			if err != nil || len(got) != want || (want == 1 && got[0].BlockNumber != 3) {
				t.Errorf("transactions of %s after the re-org: %v, %v; want %d in block 3", a, positions(got), err, want)
			}
		}
		checkDerived(t, ix)
		head, _ := cl.HeaderByNumber(ctx, big.NewInt(3))
		if b, _ := ix.Block(ctx, chainID.Uint64(), 3); b.Hash != head.Hash() {
			t.Fatalf("stored block 3 %s; node has %s", b.Hash, head.Hash())
		}
		// WaitFor returns once the store has the block; the hooks may run just after.
		for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			mu.Lock()
			done := len(seen) > 0 && seen[len(seen)-1] == 5
			mu.Unlock()
			if done {
				break
			}
		}
		mu.Lock()
		defer mu.Unlock()
		if len(rolled) == 0 || rolled[0] != 3 {
			t.Fatalf("OnRollback calls %v; want from 3", rolled)
		}
		if seen[len(seen)-1] != 5 {
			t.Fatalf("OnBlock saw %v", seen)
		}
	})
}

func gasFor(to *common.Address) uint64 {
	if to == nil {
		return 2_000_000
	}
	return 1_000_000
}
