package local

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/avaedge/avaedge/local/source/evmindex"
	"github.com/jackc/pgx/v5"

	"github.com/avaedge/avaedge/local/source/lease"
)

// fleet runs a replica's part in a fleet sharing the EVM index in
// PostgreSQL (BuildOptions.IndexURL): the holder of the network's lease
// follows the chains (Index.Lead), the others refresh the stored heads
// every second and stand by (Index.Refresh). Its goroutine is owned by the
// Handler and stopped by close, before the index closes.
type fleet struct {
	ix      *evmindex.Index // set by start
	elector *lease.Elector
	ctx     context.Context // ended by stop
	stop    context.CancelFunc
	done    chan struct{} // closed when run returns
}

// leaseName names the lease of an EVM index over chains: replicas
// following the same chains elect one writer.
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
	ctx, stop := context.WithCancel(ctx)
	f := &fleet{ctx: ctx, stop: stop, done: make(chan struct{})}
	f.elector = lease.Start(ctx, lease.Options{URL: b.opts.IndexURL, Name: leaseName(chains), Metrics: m, Logger: b.log})
	return f, nil
}

// fence is the store's Fence: the replica's writes commit only while it
// holds the lease.
func (f *fleet) fence(ctx context.Context, tx pgx.Tx) error { return f.elector.Fence(ctx, tx) }

// start runs the replica's part over ix.
func (f *fleet) start(ix *evmindex.Index, b *builder) {
	f.ix = ix
	go f.run(f.ctx, b)
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
			led.Go(func() {
				if err := f.ix.Lead(lctx); err != nil {
					log.Warn("evm index: leading failed; standing by", "err", err)
				}
			})
		case !holder && lead != nil:
			lead()
			led.Wait()
			lead = nil
			log.Info("evm index: the lease is lost; this replica reads and stands by")
		}
		if lead == nil {
			if err := f.ix.Refresh(ctx); err != nil && ctx.Err() == nil {
				log.Warn("evm index: refreshing the stored heads", "err", err)
			}
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
	if f.ix != nil {
		<-f.done
	}
	f.elector.Close()
	return nil
}
