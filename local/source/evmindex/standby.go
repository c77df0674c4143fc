package evmindex

import (
	"context"
	"sync"
)

// A fleet of replicas shares one store (PostgreSQL): one of them, the
// holder of the lease (local/source/lease), writes; the others read what it
// commits and stand by. Instead of Start, such a replica calls Lead while
// it holds the lease, and Refresh every second while it does not.

// Refresh reads every chain's stored head into the Index, from the store
// the queries read (Options.Replica, else the store): a standby sees the
// writer's progress (and its rollbacks) through it.
func (ix *Index) Refresh(ctx context.Context) error {
	st := ix.replica()
	for _, id := range ix.order {
		f := ix.chains[id]
		n, _, ok, err := st.Head(ctx, id)
		if err != nil {
			return err
		}
		if head, had := f.indexed(); head != n || had != ok {
			f.setHead(n, ok)
		}
	}
	return nil
}

// Lead follows every chain until ctx ends, as the store's one writer:
// each follower first reloads what the store holds, never
// Options.Replica (another writer may
// have written since it last looked), then resumes from the stored heads.
// It returns once every follower has stopped (nil when ctx ended); Close
// must not run before.
func (ix *Index) Lead(ctx context.Context) error {
	for _, id := range ix.order {
		if err := ix.chains[id].load(ctx); err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
	}
	var wg sync.WaitGroup
	for _, id := range ix.order {
		f := ix.chains[id]
		wg.Go(func() { f.run(ctx) })
	}
	wg.Wait()
	return nil
}
