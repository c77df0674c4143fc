package local

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/avaedge/avaedge/local/source/evmindex"
	"github.com/avaedge/avaedge/local/source/lease"
)

// fleet runs a replica's part in a fleet sharing the EVM index in
// PostgreSQL (BuildOptions.IndexURL): the holder of the network's lease
// follows the chains (Index.Lead), the others refresh the stored heads
// every second and stand by (Index.Refresh). Its goroutine is owned by the
// Handler and stopped by close, before the index closes.
type fleet struct {
	ix      *evmindex.Index
	elector *lease.Elector
	stop    context.CancelFunc
	done    chan struct{}
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

// startFleet starts electing the writer of ix's chains among the replicas
// sharing url.
func (b *builder) startFleet(ctx context.Context, ix *evmindex.Index) (*fleet, error) {
	m, err := lease.NewMetrics(b.opts.Registerer)
	if err != nil {
		return nil, fmt.Errorf("evm index lease: %w", err)
	}
	ctx, stop := context.WithCancel(ctx)
	f := &fleet{ix: ix, stop: stop, done: make(chan struct{})}
	f.elector = lease.Start(ctx, lease.Options{URL: b.opts.IndexURL, Name: leaseName(ix.Chains()), Metrics: m, Logger: b.log})
	go f.run(ctx, b)
	return f, nil
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
	<-f.done
	f.elector.Close()
	return nil
}
