package pindex

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/avaedge/avaedge/avanet"
	"github.com/avaedge/avaedge/jsonrpc"
)

// progressEvery is how often catching up is logged.
const progressEvery = 5 * time.Second

// follower follows one chain (P or X) of the node into the index: it polls
// the node's height, fetches the blocks above the index's head in batches
// (the next one while the last is committed), and rolls the index back to
// what the node has when the two differ. Its run loop is the chain's only
// writer.
type follower struct {
	ix    *Index
	chain avanet.Chain
	api   chainAPI
	label string

	// Owned by run.
	next       *batch // being fetched while a batch is written
	wasDown    bool   // the node did not answer the last poll
	catchingUp bool
	lastLog    time.Time // of catching up's progress
	logFrom    int64     // the head then
	lastErr    loggedErr
}

// loggedErr is the last error a follower logged.
type loggedErr struct {
	msg string
	at  time.Time
}

func newFollower(ix *Index, c avanet.Chain) *follower {
	return &follower{ix: ix, chain: c, api: ix.api(c), label: string(c)}
}

// run indexes the chain until ctx ends.
func (f *follower) run(ctx context.Context) {
	defer func() { f.next.stop() }()
	for ctx.Err() == nil {
		tip, ok := f.poll(ctx)
		if !ok {
			continue
		}
		if f.chain == avanet.ChainP {
			if err := f.ix.readRewards(ctx); err != nil {
				f.fail(ctx, err)
				continue
			}
		}
		head, _ := f.ix.headOf(f.chain)
		f.ix.metrics.lag.WithLabelValues(f.label).Set(float64(int64(tip) - head))
		if int64(tip) <= head {
			f.atTip(ctx, tip, head)
			continue
		}
		if !f.catchingUp && int64(tip)-head > 1 {
			f.catchingUp, f.lastLog, f.logFrom = true, time.Now(), head
			f.ix.log.Info("catching up", "chain", f.label, "indexed", head, "node", tip, "lag", int64(tip)-head)
		}
		if err := f.step(ctx, uint64(head+1), tip); err != nil {
			f.fail(ctx, err)
			continue
		}
		f.logProgress(tip)
	}
}

// poll returns the node's height of the chain; false when the node did not
// answer, after waiting a poll interval.
func (f *follower) poll(ctx context.Context) (uint64, bool) {
	m := f.ix.metrics
	tip, err := f.api.Height(ctx)
	if err != nil {
		m.up.Set(0)
		if ctx.Err() == nil {
			m.errors.WithLabelValues(f.label).Inc()
			if !f.wasDown {
				f.ix.log.Warn("node does not answer; serving the index as it is", "chain", f.label, "err", err)
			}
			f.wasDown = true
		}
		sleep(ctx, f.ix.opts.PollInterval)
		return 0, false
	}
	if f.wasDown {
		f.ix.log.Info("node answers again", "chain", f.label)
		f.wasDown = false
	}
	m.up.Set(1)
	m.node.WithLabelValues(f.label).Set(float64(tip))
	return tip, true
}

// atTip handles a node whose height is the index's head or below: it waits
// a poll interval, or, when the node is behind the index (a network started
// afresh, or a node still bootstrapping), checks the block at the node's
// height.
func (f *follower) atTip(ctx context.Context, tip uint64, head int64) {
	if f.catchingUp {
		f.ix.log.Info("caught up", "chain", f.label, "height", head)
		f.catchingUp = false
	}
	if int64(tip) < head {
		if err := f.reconcile(ctx, tip); err != nil {
			f.fail(ctx, err)
		}
		return
	}
	sleep(ctx, f.ix.opts.PollInterval)
}

// step commits the next batch of blocks from on, up to tip: the one fetched
// while the last was written, unless the head moved elsewhere (a rollback)
// or none was. It starts fetching the batch after it meanwhile.
func (f *follower) step(ctx context.Context, from, tip uint64) error {
	commitBlocks := uint64(f.ix.opts.CommitBlocks)
	cur := f.next
	f.next = nil
	if cur == nil || cur.from != from {
		cur.stop()
		cur = f.fetchBatch(ctx, from, min(from+commitBlocks-1, tip))
	}
	blocks, err := cur.wait()
	if err == nil && cur.to < tip {
		f.next = f.fetchBatch(ctx, cur.to+1, min(cur.to+commitBlocks, tip))
	}
	if err == nil {
		err = f.catchUp(ctx, from, blocks)
	}
	if err != nil {
		f.next.stop()
		f.next = nil
		return err
	}
	if f.chain == avanet.ChainP && cur.to >= tip {
		// Caught up with new P-avanet.Chain blocks: their stakes, subnets and
		// conversions change the current validators. (Not while catching
		// up: a large network's validators are a heavy read.)
		select {
		case f.ix.refresh <- struct{}{}:
		default: // a refresh is already asked for
		}
	}
	return nil
}

// logProgress logs catching up's rate, every progressEvery.
func (f *follower) logProgress(tip uint64) {
	if !f.catchingUp || time.Since(f.lastLog) < progressEvery {
		return
	}
	now, _ := f.ix.headOf(f.chain)
	rate := float64(now-f.logFrom) / time.Since(f.lastLog).Seconds()
	f.ix.log.Info("catching up", "chain", f.label, "indexed", now, "node", tip, "lag", int64(tip)-now, "blocksPerSecond", int(rate))
	f.lastLog, f.logFrom = time.Now(), now
}

// fail counts and logs a follower error and waits before the retry. A
// repeated error is logged again at most once a minute.
func (f *follower) fail(ctx context.Context, err error) {
	if ctx.Err() != nil {
		return
	}
	f.ix.metrics.errors.WithLabelValues(f.label).Inc()
	if f.lastErr.msg != err.Error() || time.Since(f.lastErr.at) >= time.Minute {
		f.lastErr = loggedErr{err.Error(), time.Now()}
		f.ix.log.Error("indexing failed; retrying", "chain", f.label, "err", err)
	}
	sleep(ctx, max(f.ix.opts.PollInterval, time.Second))
}

// batch is a range of blocks fetched in the background, with at most
// Options.Concurrency calls to the node at once.
type batch struct {
	from, to uint64
	blocks   []*RawBlock
	err      error
	done     chan struct{}
	cancel   context.CancelFunc
}

// fetchBatch starts fetching the chain's blocks from..to.
func (f *follower) fetchBatch(ctx context.Context, from, to uint64) *batch {
	ctx, cancel := context.WithCancel(ctx)
	bt := &batch{from: from, to: to, blocks: make([]*RawBlock, to-from+1), done: make(chan struct{}), cancel: cancel}
	go func() {
		defer close(bt.done)
		g, gctx := errgroup.WithContext(ctx)
		g.SetLimit(f.ix.opts.Concurrency)
		for i := range bt.blocks {
			g.Go(func() error {
				b, err := f.fetch(gctx, from+uint64(i))
				bt.blocks[i] = b
				return err
			})
		}
		bt.err = g.Wait()
	}()
	return bt
}

// wait returns the batch's blocks once all are fetched, or the first error.
func (bt *batch) wait() ([]*RawBlock, error) {
	<-bt.done
	bt.cancel()
	return bt.blocks, bt.err
}

// stop abandons the batch and waits for its calls to end. A nil batch is
// nothing to stop.
func (bt *batch) stop() {
	if bt == nil {
		return
	}
	bt.cancel()
	<-bt.done
}

// catchUp commits blocks, the chain's blocks from on, in one store
// transaction, after checking that each extends the one below it: the
// first the stored chain (else the index is reconciled with the node), the
// others the block before them in the batch.
func (f *follower) catchUp(ctx context.Context, from uint64, blocks []*RawBlock) error {
	c := f.chain
	var parent string // the id block from's parent must have
	if from > 0 {
		var first blockJSON
		if err := json.Unmarshal(blocks[0].JSON, &first); err != nil {
			return fmt.Errorf("pindex: %s block %d: %w", c, from, err)
		}
		stored, err := f.ix.st.BlockIDAt(c, from-1)
		if err != nil {
			return fmt.Errorf("pindex: %s block %d: %w", c, from-1, err)
		}
		if first.ParentID != stored {
			head, _ := f.ix.headOf(c)
			if err := f.reconcile(ctx, from-1); err != nil {
				return err
			}
			if now, _ := f.ix.headOf(c); now == head {
				// The node has the stored block at from-1 but names
				// another parent of its block at from: fetching again at
				// once would loop without end.
				return fmt.Errorf("pindex: %s block %d names parent %s, but block %d is %s at the node and in the index", c, from, first.ParentID, from-1, stored)
			}
			return nil
		}
		parent = stored
	}
	return f.ix.commit(ctx, c, from, parent, blocks)
}

// reconcile finds the highest stored height at or below from whose block the
// node has too, and rolls the chain back to it.
func (f *follower) reconcile(ctx context.Context, from uint64) error {
	h := int64(from)
	for ; h >= 0; h-- {
		b, err := f.fetch(ctx, uint64(h))
		if err != nil {
			var rpcErr *jsonrpc.Error
			if errors.As(err, &rpcErr) {
				continue // the node has no block there yet
			}
			return err
		}
		var bj blockJSON
		if err := json.Unmarshal(b.JSON, &bj); err != nil {
			return err
		}
		stored, err := f.ix.st.BlockIDAt(f.chain, uint64(h))
		if err == nil && stored == bj.ID {
			break
		}
	}
	return f.ix.rollBack(ctx, f.chain, h)
}

func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}
