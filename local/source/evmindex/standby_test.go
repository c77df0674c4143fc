package evmindex

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/jackc/pgx/v5"

	"github.com/avaedge/avaedge/internal/pgtest"
	"github.com/avaedge/avaedge/local/source/devnet/evm"
)

// TestStandbyThenLead: two indexes of one chain share a PostgreSQL
// database; the one that leads writes, the standby sees its head through
// Refresh and answers the same blocks; once the writer stops, the standby
// leads, resuming from the stored head, and indexes the next block.
func TestStandbyThenLead(t *testing.T) {
	ctx := context.Background()
	url := pgtest.Shared(t).Database(t)
	c, err := evm.New(ctx, evm.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	open := func() *Index {
		st, err := openPostgres(ctx, url, nil)
		if err != nil {
			t.Fatal(err)
		}
		cl := c.Client()
		t.Cleanup(cl.Close)
		ix, err := Open(ctx, Options{Store: st, Chains: []ChainOptions{{ChainID: c.ChainID(), Client: cl, PollInterval: 20 * time.Millisecond}}})
		if err != nil {
			t.Fatal(err)
		}
		return ix
	}
	writer, standby := open(), open()
	defer standby.Close()
	lctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- writer.Lead(lctx) }()
	wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := writer.WaitFor(wctx, c.ChainID(), c.Seed().Head); err != nil {
		t.Fatal(err)
	}
	if h, ok := standby.Head(c.ChainID()); ok && h >= c.Seed().Head {
		t.Fatalf("the standby saw head %d before it refreshed", h)
	}
	if err := standby.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	if h, ok := standby.Head(c.ChainID()); !ok || h < c.Seed().Head {
		t.Fatalf("standby head %d, %v after Refresh; want >= %d", h, ok, c.Seed().Head)
	}
	a, err1 := writer.LatestBlocks(ctx, c.ChainID(), 0, 5)
	b, err2 := standby.LatestBlocks(ctx, c.ChainID(), 0, 5)
	if err1 != nil || err2 != nil || len(a) == 0 || len(a) != len(b) || a[0].Hash != b[0].Hash {
		t.Fatalf("writer's blocks %v (%v), standby's %v (%v)", a, err1, b, err2)
	}
	stop()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	writer.Close()
	sctx, sstop := context.WithCancel(ctx)
	sdone := make(chan error, 1)
	go func() { sdone <- standby.Lead(sctx) }()
	blk, err := c.Commit(ctx) // a block only the new writer can index
	if err != nil {
		t.Fatal(err)
	}
	if err := standby.WaitFor(wctx, c.ChainID(), blk.NumberU64()); err != nil {
		t.Fatalf("the standby leading did not index block %d: %v", blk.NumberU64(), err)
	}
	sstop()
	if err := <-sdone; err != nil {
		t.Fatal(err)
	}
}

// TestFencedWrites: a PostgreSQL store whose Fence fails (the replica lost
// the lease) commits none of the follower's writes, nor a rollback.
func TestFencedWrites(t *testing.T) {
	ctx := context.Background()
	lost := errors.New("lease: not the holder")
	st, err := OpenPostgres(ctx, pgtest.Shared(t).Database(t), nil, func(context.Context, pgx.Tx) error { return lost })
	if err != nil {
		t.Fatal(err)
	}
	ix, err := Open(ctx, Options{Store: st})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	blk := FixtureBlock{Block: Block{Number: 1, Hash: common.HexToHash("0xb1"), Timestamp: 100}}
	if err := ix.WriteFixture(ctx, 43112, []FixtureBlock{blk}, nil, nil); !errors.Is(err, lost) {
		t.Fatalf("WriteFixture: %v; want the fence's error", err)
	}
	if _, _, ok, err := st.Head(ctx, 43112); ok || err != nil {
		t.Fatalf("a block was committed past the fence (%v)", err)
	}
	if err := st.Rollback(ctx, 43112, 0); !errors.Is(err, lost) {
		t.Fatalf("Rollback: %v; want the fence's error", err)
	}
}
