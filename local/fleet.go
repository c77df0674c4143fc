package local

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/avaedge/avaedge/local/source/lease"
)

// fleet runs a replica's part in a fleet sharing the followed network's
// indexes in PostgreSQL (BuildOptions.IndexURL): the P/X index and the
// EVM index. One lease elects one follower for the whole network: its
// holder follows every chain (each index's Lead), the others refresh the
// stored heads every second and stand by (Refresh). Its goroutine is owned
// by the Handler and stopped by close, before the indexes close.
type fleet struct {
	ixs []ledIndex // set by start
	// readers are read again with the indexes while standing by, and once
	// before leading: what the writer's indexes feed (the metrics engine).
	readers []ledReader
	elector *lease.Elector
	reads   *readsState
	ctx     context.Context // ended by stop
	stop    context.CancelFunc
	done    chan struct{} // closed when run returns
}

// ledIndex is an index a fleet's writer follows into the shared store
// (pindex.Index, evmindex.Index).
type ledIndex interface {
	Lead(ctx context.Context) error
	Refresh(ctx context.Context) error
}

// ledReader reads what a fleet's writer stored (metricsapi.Engine):
// Refresh where the route reads go (the read replica, when
// BuildOptions.IndexReadURL names one), RefreshPrimary on the primary,
// before leading.
type ledReader interface {
	Refresh(ctx context.Context) error
	RefreshPrimary(ctx context.Context) error
}

// leaseName names the lease of the followed network's indexes, by its EVM
// chains (the name the EVM index's lease had before the P/X index joined
// it): replicas following the same chains elect one writer.
func leaseName(chains []uint64) string {
	ids := make([]string, len(chains))
	for i, c := range chains {
		ids[i] = strconv.FormatUint(c, 10)
	}
	return "evmindex/" + strings.Join(ids, ",")
}

// newFleet starts electing the writer of chains among the replicas sharing
// BuildOptions.IndexURL; start runs the replica's part once its index is
// open.
func (b *builder) newFleet(ctx context.Context, chains []uint64) (*fleet, error) {
	m, err := lease.NewMetrics(b.opts.Registerer)
	if err != nil {
		return nil, fmt.Errorf("evm index lease: %w", err)
	}
	reads, err := newReadsState(b.opts.Registerer, b.opts.IndexURL, b.opts.IndexReadURL)
	if err != nil {
		return nil, err
	}
	ctx, stop := context.WithCancel(ctx)
	f := &fleet{ctx: ctx, stop: stop, done: make(chan struct{}), reads: reads}
	f.elector = lease.Start(ctx, lease.Options{URL: b.opts.IndexURL, Name: leaseName(chains), Metrics: m, Logger: b.log})
	return f, nil
}

// fence is the store's Fence: the replica's writes commit only while it
// holds the lease.
func (f *fleet) fence(ctx context.Context, tx pgx.Tx) error { return f.elector.Fence(ctx, tx) }

// start runs the replica's part over ixs and readers.
func (f *fleet) start(b *builder, ixs []ledIndex, readers []ledReader) {
	f.ixs, f.readers = ixs, readers
	go f.run(f.ctx, b)
}

// lead runs every index's Lead until ctx ends.
func (f *fleet) lead(ctx context.Context, log *slog.Logger) {
	var wg sync.WaitGroup
	for _, ix := range f.ixs {
		wg.Go(func() {
			if err := ix.Lead(ctx); err != nil {
				log.Warn("index: leading failed; standing by", "err", err)
			}
		})
	}
	wg.Wait()
}

// refresh reads every index's stored heads and what the readers read,
// where the route reads go (f.reads).
func (f *fleet) refresh(ctx context.Context, log *slog.Logger) {
	var failed error
	for _, ix := range f.ixs {
		if err := ix.Refresh(ctx); err != nil && ctx.Err() == nil {
			log.Warn("index: refreshing the stored heads", "reads", f.reads.host, "err", err)
			failed = err
		}
	}
	for _, r := range f.readers {
		if err := r.Refresh(ctx); err != nil && ctx.Err() == nil {
			log.Warn("index: refreshing what the writer stored", "reads", f.reads.host, "err", err)
			failed = err
		}
	}
	if ctx.Err() == nil {
		f.reads.refreshed(failed)
	}
}

// catchUp reads, from the primary, what the readers have not read yet of
// what the last writer stored: the writer's engine must hold it all
// before it feeds it.
func (f *fleet) catchUp(ctx context.Context, log *slog.Logger) {
	for _, r := range f.readers {
		if err := r.RefreshPrimary(ctx); err != nil && ctx.Err() == nil {
			log.Warn("index: reading what the last writer stored", "err", err)
		}
	}
}

// run leads while the lease is held and refreshes while it is not, until
// ctx ends.
func (f *fleet) run(ctx context.Context, b *builder) {
	defer close(f.done)
	log := b.log
	var lead context.CancelFunc
	var led sync.WaitGroup // the Lead call, while leading
	defer func() {
		if lead != nil {
			lead()
			led.Wait()
		}
	}()
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		switch holder := f.elector.Leader(); {
		case holder && lead == nil:
			var lctx context.Context
			lctx, lead = context.WithCancel(ctx)
			f.catchUp(ctx, log)
			led.Go(func() { f.lead(lctx, log) })
		case !holder && lead != nil:
			lead()
			led.Wait()
			lead = nil
			log.Info("index: the lease is lost; this replica reads and stands by")
		}
		if lead == nil {
			f.refresh(ctx, log)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// close stops leading (or standing by) and steps down.
func (f *fleet) close() error {
	f.stop()
	if f.ixs != nil {
		<-f.done
	}
	f.elector.Close()
	return nil
}
