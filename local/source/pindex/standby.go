package pindex

import (
	"context"
	"sync"

	"github.com/avaedge/avaedge/avanet"
)

// A fleet of replicas shares one store (PostgreSQL): one of them, the
// holder of the lease (local/source/lease), follows the node; the others
// read what it commits and stand by. Instead of Start, such a replica
// calls Lead while it holds the lease, and Refresh every second while it
// does not.

// Refresh reads both chains' stored heads and the rewards read into the
// Index: a standby sees the writer's progress (and its rollbacks) through
// them, and its caches (the stakes, the current validators) are read
// again from the store.
func (ix *Index) Refresh(ctx context.Context) error {
	changed := false
	for _, c := range []avanet.Chain{avanet.ChainP, avanet.ChainX} {
		h, ok, err := ix.st.Head(c)
		if err != nil {
			return err
		}
		stored := int64(-1)
		if ok {
			stored = int64(h)
		}
		if cur, _ := ix.headOf(c); cur != stored {
			ix.setHead(c, stored)
			changed = true
		}
	}
	rewards, _, err := ix.st.Meta("rewards_height")
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

// Lead follows both chains (and reads the node's validators, supply and
// answers) until ctx ends, as the store's one writer: it first reloads the
// stored heads (another writer may have written since this replica last
// looked), then resumes from them. It returns once every follower has
// stopped; Close must not run before.
func (ix *Index) Lead(ctx context.Context) error {
	if err := ix.Refresh(ctx); err != nil {
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
	wg.Go(func() { ix.refreshValidators(ctx) })
	wg.Wait()
	return nil
}
