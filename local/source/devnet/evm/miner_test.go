package evm

import (
	"context"
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/txpool"
	"github.com/ethereum/go-ethereum/core/types"
)

// TestAutoMineBurstWhileSealing: transactions keep entering the pool while
// a block is being sealed (a loaded machine seals slowly), each announced
// by its own pool event, more of them than the auto-miner buffers; every
// one still becomes pending at once and all are mined when sealing
// resumes. Before the fix the pool's event feed waited for the auto-miner,
// which waited in TxPool.Sync for the pool: a 60-write batch hung the dev
// chain and its edge for good.
func TestAutoMineBurstWhileSealing(t *testing.T) {
	c, err := New(context.Background(), Options{NoSeed: true})
	if err != nil {
		t.Fatal(err)
	}
	pool := c.eth.TxPool()
	s := &seeder{c: c, signer: latestSigner(c), nonces: map[common.Address]uint64{}}
	from, to := c.accounts[1], c.accounts[2].Address
	const n = 64    // four times the auto-miner's event buffer
	c.sealMu.Lock() // a block is being sealed
	var last *types.Transaction
	for i := range n {
		last = s.tx(from, &to, big.NewInt(1), nil, 21_000)
		if err := pool.Add([]*types.Transaction{last}, false)[0]; err != nil {
			c.sealMu.Unlock()
			c.Close()
			t.Fatalf("tx %d: %v", i, err)
		}
		// Pending means the pool ran its own promotion for this one and
		// announced it: one event per transaction.
		if !eventually(10*time.Second, func() bool { return pool.Status(last.Hash()) == txpool.TxStatusPending }) {
			// The pool is stuck announcing to the blocked auto-miner;
			// releasing sealMu would let the miner into TxPool.Sync and
			// hang Close, so the chain is left behind.
			t.Fatalf("tx %d of %d never became pending while a block was sealed: the pool's event feed waits for the auto-miner", i, n)
		}
	}
	c.sealMu.Unlock()
	if !eventually(30*time.Second, func() bool {
		st, err := c.eth.BlockChain().State()
		return err == nil && st.GetNonce(from.Address) == n
	}) {
		t.Fatalf("%d transactions not mined 30s after sealing resumed: the auto-miner is stuck", n)
	}
	closed := make(chan error, 1)
	go func() { closed <- c.Close() }()
	select {
	case err := <-closed:
		if err != nil {
			t.Fatalf("Close: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Close did not return in 30s")
	}
}

// eventually polls cond every 5ms until it holds or limit passes.
func eventually(limit time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(5 * time.Millisecond)
	}
	return true
}
