package evmindex

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/avaedge/avaedge/internal/pgtest"
	"github.com/avaedge/avaedge/local/source/devnet/evm"
	"github.com/avaedge/avaedge/local/source/pgschema"
)

// TestReadReplica: with Options.Replica on a streaming hot standby of the
// store's database, a writer indexes a chain into the primary (a write
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
	standby := srv.Standby(t)
	rurl := standby.SameDatabase(url)
	c, err := evm.New(ctx, evm.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	open := func(replica bool) *Index {
		st, err := OpenPostgres(ctx, url, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		cl := c.Client()
		t.Cleanup(cl.Close)
		o := Options{Store: st, Chains: []ChainOptions{{ChainID: c.ChainID(), Client: cl, PollInterval: 20 * time.Millisecond}}}
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
	if err := writer.WaitFor(ctx, c.ChainID(), c.Seed().Head); err != nil {
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
	hp, _ := onPrimary.Head(c.ChainID())
	hr, _ := onReplica.Head(c.ChainID())
	if hp < c.Seed().Head || hp != hr {
		t.Fatalf("head %d on the primary, %d on the replica; want the same, >= %d (the writer's blocks came through the primary)", hp, hr, c.Seed().Head)
	}
	bp, errp := onPrimary.LatestBlocks(ctx, c.ChainID(), 0, 10)
	br, errr := onReplica.LatestBlocks(ctx, c.ChainID(), 0, 10)
	if errp != nil || errr != nil || len(bp) == 0 || !reflect.DeepEqual(bp, br) {
		t.Fatalf("latest blocks: %d on the primary (%v), %d on the replica (%v); want the same", len(bp), errp, len(br), errr)
	}
	tp, errp := onPrimary.ChainTxs(ctx, c.ChainID(), AnyStatus, Blocks(0, 0), 10)
	tr, errr := onReplica.ChainTxs(ctx, c.ChainID(), AnyStatus, Blocks(0, 0), 10)
	if errp != nil || errr != nil || len(tp) == 0 || !reflect.DeepEqual(tp, tr) {
		t.Fatalf("chain transactions: %d on the primary (%v), %d on the replica (%v); want the same", len(tp), errp, len(tr), errr)
	}

	// A newer avaedge migrated the primary: the replica replays it and is
	// refused.
	if _, err := onPrimary.st.(*pgStore).pool.Exec(ctx, `UPDATE avaedge_schema SET version = version + 1 WHERE component = $1`, pgComponent); err != nil {
		t.Fatal(err)
	}
	standby.CatchUp(t)
	if _, err := OpenPostgresReplica(ctx, rurl); !errors.Is(err, pgschema.ErrNewer) {
		t.Fatalf("opening a replica of a newer schema: %v; want pgschema.ErrNewer", err)
	}

	// The replica reader's queries read the replica.
	standby.Stop()
	if _, err := onReplica.LatestBlocks(ctx, c.ChainID(), 0, 10); err == nil {
		t.Fatal("the replica reader answered with its replica stopped: it does not read the replica")
	}
	if _, err := onPrimary.LatestBlocks(ctx, c.ChainID(), 0, 10); err != nil {
		t.Fatalf("the primary reader with the replica stopped: %v", err)
	}
}
