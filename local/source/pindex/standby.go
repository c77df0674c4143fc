package pindex

import (
	"context"
	"sync"
	"time"

	"github.com/avaedge/avaedge/avanet"
)

// A fleet of replicas shares one store (PostgreSQL): one of them, the
// holder of the lease (local/source/lease), follows the node; the others
// read what it commits and stand by. Instead of Start, such a replica
// calls Lead while it holds the lease, and Refresh every second while it
// does not.

// Refresh reads the chains' stored heads (the C-Chain's atomic one too)
// and the rewards read into the Index, from the store the queries read
// (Options.Replica, else the store): a standby sees the writer's progress
// (and its rollbacks) through them, and its caches (the stakes, the
// current validators) are read again from the store.
func (ix *Index) Refresh(ctx context.Context) error { return ix.refreshFrom(ix.replica()) }

// refreshFrom is Refresh reading st.
func (ix *Index) refreshFrom(st Writer) error {
	changed := false
	for _, c := range []avanet.Chain{avanet.ChainP, avanet.ChainX, avanet.ChainC} {
		stored, err := storedHead(st, c)
		if err != nil {
			return err
		}
		if cur, _ := ix.headOf(c); cur != stored {
			ix.setHead(c, stored)
			changed = true
		}
	}
	rewards, _, err := st.Meta("rewards_height")
	if err != nil {
		return err
	}
	ix.refreshMu.Lock()
	changed = changed || rewards != ix.refreshedRewards
	ix.refreshedRewards = rewards
	ix.refreshMu.Unlock()
	if changed {
		ix.version.Add(1)
	}
	ix.currentVersion.Add(1) // the writer keeps the current validators
	return nil
}

// Lead follows the P- and X-Chain and the C-Chain's atomic transactions
// (and reads the node's validators, supply and answers) until ctx ends, as
// the store's one writer: it first reloads the stored heads from the
// store, never Options.Replica (another writer may have written since
// this replica last looked), then resumes from them. It returns once every follower has
// stopped; Close must not run before.
func (ix *Index) Lead(ctx context.Context) error {
	if err := ix.refreshFrom(ix.st); err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return err
	}
	var wg sync.WaitGroup
	for _, c := range []avanet.Chain{avanet.ChainP, avanet.ChainX} {
		f := newFollower(ix, c)
		wg.Go(func() { f.run(ctx) })
	}
	wg.Go(func() { ix.followC(ctx) })
	wg.Go(func() { ix.refreshValidators(ctx) })
	if ix.opts.Replica != nil {
		wg.Go(func() { ix.expireCaches(ctx) })
	}
	wg.Wait()
	return nil
}

// expireCaches drops the stakes and current validators cached at the
// writer's versions every second until ctx ends, for a writer whose
// queries read a replica (Options.Replica): a query right after a write
// may read the replica before it replayed the write, and what it cached
// would otherwise stand until the next write (minutes on a quiet
// network), not a second past the replica's lag.
func (ix *Index) expireCaches(ctx context.Context) {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			ix.version.Add(1)
			ix.currentVersion.Add(1)
		}
	}
}

// storedHead returns chain's highest height stored in st, -1 for none:
// the C-Chain's is the last block read for atomic transactions
// (cchain.go).
func storedHead(st Writer, c avanet.Chain) (int64, error) {
	if c == avanet.ChainC {
		h, _, err := cHead(st)
		return h, err
	}
	h, ok, err := st.Head(c)
	if err != nil || !ok {
		return -1, err
	}
	return int64(h), nil
}
