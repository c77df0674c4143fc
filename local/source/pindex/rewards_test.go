package pindex

import (
	"context"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/avaedge/avaedge/avanet"
	"github.com/avaedge/avaedge/local/vocab/avax"
)

// waitUntil polls cond every 10ms until it holds or ctx ends.
func waitUntil(t *testing.T, ctx context.Context, what string, cond func() bool) {
	t.Helper()
	for !cond() {
		select {
		case <-ctx.Done():
			t.Fatalf("%s: %v", what, ctx.Err())
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// rewardsOf returns owner's reward UTXOs as kind:amount@height.
func rewardsOf(t *testing.T, ix *Index) []*UTXO {
	t.Helper()
	us, err := ix.RewardUTXOs(context.Background(), []avax.ShortID{owner})
	if err != nil {
		t.Fatal(err)
	}
	return us
}

// TestFollowerRewards: the follower asks platform.getRewardUTXOs for each
// RewardValidatorTx once the block after its proposal block (its commit)
// is indexed, stores what it pays as UTXOs of that block, emitted by the
// reward tx, with their kinds, and asks again only for reward txs a
// rollback removed. It also stores the primary network's chains from the
// P-avanet.Chain's genesis and the node's current supply.
func TestFollowerRewards(t *testing.T) { eachStoreAt(t, testFollowerRewards) }

func testFollowerRewards(t *testing.T, store func() Store) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	node := &fakeNode{height: 6, fork: 1 << 62, gen: 1, rewardAt: 3}
	srv := httptest.NewServer(node)
	defer srv.Close()
	open := func() *Index {
		ix, err := Open(ctx, Options{Node: srv.URL, Store: store(), PollInterval: 10 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		ix.Start(ctx)
		return ix
	}
	ix := open()
	if err := ix.WaitFor(ctx, avanet.ChainP, 6); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, ctx, "the reward UTXOs", func() bool { return len(rewardsOf(t, ix)) == 2 })
	check := func(when string) {
		t.Helper()
		us := rewardsOf(t, ix)
		want := rewardUTXOs()
		rewardTx := node.id("tx", 3).String()
		for i, kind := range []string{RewardValidator, RewardValidatorFee} {
			u := us[i]
			if u.ID != want[i].ID().String() || u.Reward != kind || u.Amount != want[i].Out.Amount() || u.EmittedBy != rewardTx ||
				u.TxID != stakingTx.String() || u.Height != 4 || u.Time != 1004 {
				t.Errorf("%s: reward UTXO %d = %+v; want %s of %d paid by %s in block 4", when, i, u, kind, want[i].Out.Amount(), rewardTx)
			}
		}
		tot, err := ix.Totals(ctx)
		if err != nil || tot.Rewards != 730 {
			t.Errorf("%s: totals %+v, %v; want 730 of rewards", when, tot, err)
		}
	}
	check("caught up")
	time.Sleep(100 * time.Millisecond) // some more polls
	node.mu.Lock()
	calls := node.rewardCalls
	node.mu.Unlock()
	if calls != 1 {
		t.Errorf("platform.getRewardUTXOs called %d times; want once", calls)
	}

	chains, err := ix.Blockchains(ctx)
	if err != nil || len(chains) != 2 {
		t.Fatalf("blockchains %+v, %v; want the X- and C-avanet.Chain of the genesis", chains, err)
	}
	for _, c := range chains {
		if id := genesisTxID[c.Name]; c.ID != id.String() || c.SubnetID != PrimaryNetworkID || c.Height != 0 || string(c.Genesis) != `{"config":{"chainId":43112}}` {
			t.Errorf("genesis chain %+v", c)
		}
	}
	waitUntil(t, ctx, "the supply", func() bool { s, ok, _ := ix.Supply(ctx); return ok && s.Current == 360_000_000_000_000_000 })

	// A store of an earlier version: its reward UTXOs and derived rows were
	// never made; opening it derives them, and the follower reads the
	// rewards.
	// (PostgreSQL's first version has every table: its rewards are only
	// read again.)
	ix.Close()
	switch st := store().(type) {
	case *sqliteStore:
		if _, err := st.w.Exec(`DELETE FROM utxos WHERE reward != ''; DELETE FROM asset_txs; DELETE FROM utxo_addrs WHERE utxo NOT IN (SELECT id FROM utxos);
		DELETE FROM meta WHERE key IN ('schema', 'rewards_height', 'burned:P', 'burned:X')`); err != nil {
			t.Fatal(err)
		}
		st.Close()
	case *pgStore:
		if _, err := st.pool.Exec(ctx, `DELETE FROM utxos WHERE reward != ''; DELETE FROM utxo_addrs WHERE utxo NOT IN (SELECT id FROM utxos);
		DELETE FROM meta WHERE key = 'rewards_height'`); err != nil {
			t.Fatal(err)
		}
		st.Close()
	}
	ix = open()
	defer func() { ix.Close() }()
	waitUntil(t, ctx, "the reward UTXOs of an upgraded store", func() bool { return len(rewardsOf(t, ix)) == 2 })
	check("upgraded")
	if txs, err := ix.Txs(ctx, avanet.ChainX, TxFilter{Asset: fakeAVAX.String()}); err != nil || len(txs) != 1 || txs[0].ID != fakeAVAX.String() {
		t.Errorf("AVAX's txs after the upgrade: %+v, %v; want its genesis CreateAssetTx", txs, err)
	}

	// The network starts afresh from block 4 (the commit): its rewards are
	// read again.
	node.mu.Lock()
	node.fork, node.gen, node.height = 4, 2, 5
	node.mu.Unlock()
	waitUntil(t, ctx, "the rollback", func() bool {
		b, ok, _ := ix.Block(ctx, avanet.ChainP, 4)
		_, still, _ := ix.Block(ctx, avanet.ChainP, 6)
		return ok && b.ID == node.id("block", 4).String() && !still
	})
	waitUntil(t, ctx, "the reward UTXOs after the rollback", func() bool { return len(rewardsOf(t, ix)) == 2 })
	check("rolled back")
	node.mu.Lock()
	calls = node.rewardCalls
	node.mu.Unlock()
	if calls != 3 {
		t.Errorf("platform.getRewardUTXOs called %d times; want once more after the upgrade and after the rollback", calls)
	}
}
