package pindex

import (
	"context"
	"errors"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/avaedge/avaedge/avanet"
	"github.com/avaedge/avaedge/internal/pgtest"
	"github.com/avaedge/avaedge/local/source/pgschema"
)

// TestStandby: two replicas share one PostgreSQL store: the one leading
// follows the node, the other, refreshing, sees its heads and rows (and a
// rollback) and answers the same; when it leads in turn, it resumes from
// the stored heads. A writer whose fence fails commits nothing.
func TestStandby(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	url := pgtest.Shared(t).Database(t)
	node := &fakeNode{height: 5, fork: 1 << 62, gen: 1}
	srv := httptest.NewServer(node)
	defer srv.Close()
	open := func(fence Fence) *Index {
		st, err := OpenPostgres(ctx, url, nil, fence)
		if err != nil {
			t.Fatal(err)
		}
		ix, err := Open(ctx, Options{Node: srv.URL, Store: st, PollInterval: 10 * time.Millisecond, CommitBlocks: 2})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ix.Close() })
		return ix
	}
	a, b := open(nil), open(nil)
	lctx, stop := context.WithCancel(ctx)
	led := make(chan error, 1)
	go func() { led <- a.Lead(lctx) }()
	if err := a.WaitFor(ctx, avanet.ChainP, 5); err != nil {
		t.Fatal(err)
	}
	if err := b.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	if h, ok := b.Head(avanet.ChainP); !ok || h != 5 {
		t.Fatalf("the standby's head %d, %v; want 5", h, ok)
	}
	if x, y := unspent(t, a), unspent(t, b); len(x) != 1 || !slices.Equal(x, y) {
		t.Fatalf("the leader's unspent %v, the standby's %v", x, y)
	}

	// The network starts afresh below the head: the leader rolls back,
	// the standby sees it.
	node.mu.Lock()
	node.fork, node.gen, node.height = 3, 2, 4
	node.mu.Unlock()
	waitUntil(t, ctx, "the leader's rollback", func() bool {
		blk, ok, _ := a.Block(ctx, avanet.ChainP, 4)
		return ok && blk.ID == node.id("block", 4).String()
	})
	stop()
	if err := <-led; err != nil {
		t.Fatal(err)
	}
	if err := b.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	if h, _ := b.Head(avanet.ChainP); h != 4 {
		t.Fatalf("the standby's head after the rollback %d; want 4", h)
	}
	if x, y := unspent(t, a), unspent(t, b); len(x) != 1 || !slices.Equal(x, y) {
		t.Fatalf("after the rollback: the leader's unspent %v, the standby's %v", x, y)
	}

	// The standby leads: it resumes at 4 and follows the node on.
	node.mu.Lock()
	node.height = 7
	node.mu.Unlock()
	bctx, bstop := context.WithCancel(ctx)
	defer bstop()
	bled := make(chan error, 1)
	go func() { bled <- b.Lead(bctx) }()
	if err := b.WaitFor(ctx, avanet.ChainP, 7); err != nil {
		t.Fatal(err)
	}
	bstop()
	if err := <-bled; err != nil {
		t.Fatal(err)
	}

	// A writer that lost the lease commits nothing.
	lost := errors.New("not the holder")
	c := open(func(context.Context, pgx.Tx) error { return lost })
	err := c.st.Write(ctx, func(bt Batch) error { return bt.SetMeta("fenced", "written") })
	if !errors.Is(err, lost) {
		t.Fatalf("a fenced write returned %v; want the fence's error", err)
	}
	if err := c.st.Rollback(ctx, c.net.AVAXAssetID, avanet.ChainP, 0); !errors.Is(err, lost) {
		t.Fatalf("a fenced rollback returned %v; want the fence's error", err)
	}
	if _, ok, _ := c.st.Meta("fenced"); ok {
		t.Fatal("the fenced write was committed")
	}
	if h, _, _ := c.st.Head(avanet.ChainP); h != 7 {
		t.Fatalf("head %d after the fenced rollback; want 7", h)
	}
}

// TestNewerSchemaRefused: a replica finding the P/X index's schema newer
// than it knows refuses to open the store, saying so.
func TestNewerSchemaRefused(t *testing.T) {
	ctx := context.Background()
	url := pgtest.Shared(t).Database(t)
	st, err := openPostgres(ctx, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.pool.Exec(ctx, `UPDATE public.avaedge_schema SET version = version + 1 WHERE component = 'pindex'`); err != nil {
		t.Fatal(err)
	}
	st.Close()
	if _, err := openPostgres(ctx, url, nil); !errors.Is(err, pgschema.ErrNewer) {
		t.Fatalf("opening a newer schema: %v; want pgschema.ErrNewer", err)
	}
}

// TestStandbyFollowsCAtomic: in a fleet, the replica leading follows the
// C-Chain's atomic transactions too (into the shared PostgreSQL store) and
// a standby sees them and their head by refreshing.
func TestStandbyFollowsCAtomic(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	url := pgtest.Shared(t).Database(t)
	node := &fakeCNode{fakeNode: &fakeNode{height: 1, fork: 1 << 62, gen: 1}, cHeight: 4, cFork: 1 << 62, cGen: 1}
	srv := httptest.NewServer(node)
	defer srv.Close()
	open := func() *Index {
		st, err := OpenPostgres(ctx, url, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		ix, err := Open(ctx, Options{Node: srv.URL, Store: st, PollInterval: 10 * time.Millisecond, CommitBlocks: 2})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ix.Close() })
		return ix
	}
	a, b := open(), open()
	lctx, stop := context.WithCancel(ctx)
	defer stop()
	go a.Lead(lctx)
	waitUntil(t, ctx, "the leader's C-Chain head at 4", func() bool {
		h, ok := a.Head(avanet.ChainC)
		return ok && h == 4
	})
	if err := b.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	if h, ok := b.Head(avanet.ChainC); !ok || h != 4 {
		t.Fatalf("the standby's C-Chain head %d, %v; want 4", h, ok)
	}
	if _, ok, err := b.Tx(ctx, cImport.ID().String()); !ok || err != nil {
		t.Fatalf("the standby does not see the C-Chain's import: %v %v", ok, err)
	}
}
