package pindex

import (
	"context"
	"errors"
	"net/http/httptest"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/avaedge/avaedge/avanet"
	"github.com/avaedge/avaedge/internal/pgtest"
	"github.com/avaedge/avaedge/local/source/pgschema"
)

// TestReadReplica: with Options.Replica on a streaming hot standby of the
// store's database, a writer follows the node into the primary (a write
// sent to the standby would fail: it refuses writes), and a standby index
// reading the replica answers as one reading the primary once the replica
// caught up. Its reads do go to the replica: with the replica stopped they
// fail while the primary's reader still answers. A replica whose schema is
// newer than this version is refused.
func TestReadReplica(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	srv := pgtest.Start(t)
	url := srv.Database(t)
	standby := srv.Standby(t) // before the migration: opening the replica waits for its replay
	rurl := standby.SameDatabase(url)
	node := &fakeNode{height: 5, fork: 1 << 62, gen: 1}
	ns := httptest.NewServer(node)
	defer ns.Close()
	open := func(replica bool) *Index {
		st, err := OpenPostgres(ctx, url, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		o := Options{Node: ns.URL, Store: st, PollInterval: 10 * time.Millisecond, CommitBlocks: 2}
		if replica {
			if o.Replica, err = OpenPostgresReplica(ctx, rurl); err != nil {
				t.Fatal(err)
			}
		}
		ix, err := Open(ctx, o)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ix.Close() })
		return ix
	}
	writer := open(true)
	lctx, stop := context.WithCancel(ctx)
	led := make(chan error, 1)
	go func() { led <- writer.Lead(lctx) }()
	if err := writer.WaitFor(ctx, avanet.ChainP, 5); err != nil {
		t.Fatal(err)
	}
	stop()
	if err := <-led; err != nil {
		t.Fatalf("the writer with a read replica: %v", err)
	}

	onPrimary, onReplica := open(false), open(true)
	standby.CatchUp(t)
	for _, ix := range []*Index{onPrimary, onReplica} {
		if err := ix.Refresh(ctx); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []avanet.Chain{avanet.ChainP, avanet.ChainX} {
		hp, okp := onPrimary.Head(c)
		hr, okr := onReplica.Head(c)
		if hp != hr || okp != okr {
			t.Fatalf("%s head: %d, %v on the primary, %d, %v on the replica", c, hp, okp, hr, okr)
		}
	}
	if h, _ := onPrimary.Head(avanet.ChainP); h != 5 {
		t.Fatalf("the primary's P-Chain head %d; want 5 (the writer's blocks came through the primary)", h)
	}
	if x, y := unspent(t, onPrimary), unspent(t, onReplica); len(x) != 1 || !slices.Equal(x, y) {
		t.Fatalf("the primary reader's unspent %v, the replica reader's %v", x, y)
	}
	bp, errp := onPrimary.Blocks(ctx, avanet.ChainP, BlockRange{Limit: 10})
	br, errr := onReplica.Blocks(ctx, avanet.ChainP, BlockRange{Limit: 10})
	if errp != nil || errr != nil || len(bp) != 6 || !reflect.DeepEqual(bp, br) {
		t.Fatalf("P-Chain blocks: %d on the primary (%v), %d on the replica (%v); want the same 6", len(bp), errp, len(br), errr)
	}

	// A newer avaedge migrated the primary: the replica replays it and is
	// refused.
	pg := onPrimary.st.(*pgStore)
	if _, err := pg.pool.Exec(ctx, `UPDATE public.avaedge_schema SET version = version + 1 WHERE component = 'pindex'`); err != nil {
		t.Fatal(err)
	}
	standby.CatchUp(t)
	if _, err := OpenPostgresReplica(ctx, rurl); !errors.Is(err, pgschema.ErrNewer) {
		t.Fatalf("opening a replica of a newer schema: %v; want pgschema.ErrNewer", err)
	}

	// The replica reader's queries read the replica.
	standby.Stop()
	if _, err := onReplica.Blocks(ctx, avanet.ChainP, BlockRange{Limit: 10}); err == nil {
		t.Fatal("the replica reader answered with its replica stopped: it does not read the replica")
	}
	if _, err := onPrimary.Blocks(ctx, avanet.ChainP, BlockRange{Limit: 10}); err != nil {
		t.Fatalf("the primary reader with the replica stopped: %v", err)
	}
}
