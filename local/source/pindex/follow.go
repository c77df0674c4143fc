package pindex

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/avaedge/avaedge/avanet"
	"github.com/avaedge/avaedge/jsonrpc"
	"github.com/avaedge/avaedge/local/vocab/avax"
)

// progressEvery is how often catching up is logged.
const progressEvery = 5 * time.Second

// chainPath is the node API path of chain c.
func chainPath(c avanet.Chain) string {
	if c == avanet.ChainX {
		return pathX
	}
	return pathP
}

// chainService is the node API service of chain c.
func chainService(c avanet.Chain) string {
	if c == avanet.ChainX {
		return "avm"
	}
	return "platform"
}

// nodeHeight asks the node for chain's last accepted height.
func (ix *Index) nodeHeight(ctx context.Context, c avanet.Chain) (uint64, error) {
	var r struct {
		Height string `json:"height"`
	}
	if err := ix.rpc.Call(ctx, chainPath(c), chainService(c)+".getHeight", nil, &r); err != nil {
		return 0, err
	}
	h, err := parseHeight(r.Height)
	if err != nil {
		return 0, fmt.Errorf("%s.getHeight: %w", chainService(c), err)
	}
	return h, nil
}

// parseHeight reads a height the node printed. The index keeps heights as
// SQLite integers (int64), so a larger one is not a height: taken as one it
// would read as negative, below the index's head, and roll it all back.
func parseHeight(s string) (uint64, error) {
	h, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("height %q: %w", s, err)
	}
	if h > math.MaxInt64 {
		return 0, fmt.Errorf("height %s is beyond any chain's", s)
	}
	return h, nil
}

// fetch reads chain's block at height in both encodings.
func (ix *Index) fetch(ctx context.Context, c avanet.Chain, height uint64) (*RawBlock, error) {
	f := &RawBlock{Height: height}
	for _, enc := range []string{"json", "hexnc"} {
		var r struct {
			Block json.RawMessage `json:"block"`
		}
		args := map[string]string{"height": strconv.FormatUint(height, 10), "encoding": enc}
		if err := ix.rpc.Call(ctx, chainPath(c), chainService(c)+".getBlockByHeight", args, &r); err != nil {
			return nil, err
		}
		if enc == "json" {
			f.JSON = r.Block
			continue
		}
		b, err := hexAnswer(r.Block)
		if err != nil {
			return nil, fmt.Errorf("%s.getBlockByHeight hexnc: %w", chainService(c), err)
		}
		f.Bytes = b
	}
	if height == 0 {
		fetchGenesis := ix.fetchXGenesis
		if c == avanet.ChainP {
			fetchGenesis = ix.fetchPGenesis
		}
		if err := fetchGenesis(ctx, f); err != nil {
			return nil, err
		}
	}
	if c == avanet.ChainX {
		if err := ix.fetchTxBytes(ctx, f); err != nil {
			return nil, err
		}
	}
	return f, nil
}

// follow indexes chain until ctx ends.
func (ix *Index) follow(ctx context.Context, c avanet.Chain) {
	label := string(c)
	var (
		lastLog    time.Time
		logFrom    int64
		wasDown    bool
		catchingUp bool
		next       *batch // being fetched while a batch is written
	)
	defer func() { next.stop() }()
	for ctx.Err() == nil {
		tip, err := ix.nodeHeight(ctx, c)
		if err != nil {
			ix.metrics.up.Set(0)
			if ctx.Err() == nil {
				ix.metrics.errors.WithLabelValues(label).Inc()
				if !wasDown {
					ix.log.Warn("node does not answer; serving the index as it is", "chain", label, "err", err)
				}
				wasDown = true
			}
			sleep(ctx, ix.opts.PollInterval)
			continue
		}
		if wasDown {
			ix.log.Info("node answers again", "chain", label)
			wasDown = false
		}
		ix.metrics.up.Set(1)
		ix.metrics.node.WithLabelValues(label).Set(float64(tip))
		if c == avanet.ChainP {
			if err := ix.readRewards(ctx); err != nil {
				ix.fail(ctx, c, err)
				continue
			}
		}
		head, _ := ix.headOf(c)
		ix.metrics.lag.WithLabelValues(label).Set(float64(int64(tip) - head))
		if int64(tip) <= head {
			if catchingUp {
				ix.log.Info("caught up", "chain", label, "height", head)
				catchingUp = false
			}
			if int64(tip) < head {
				// The node is behind the index: a network started afresh,
				// or a node still bootstrapping. Check the block at tip.
				if err := ix.reconcile(ctx, c, tip); err != nil {
					ix.fail(ctx, c, err)
				}
				continue
			}
			sleep(ctx, ix.opts.PollInterval)
			continue
		}
		if !catchingUp && int64(tip)-head > 1 {
			catchingUp, lastLog, logFrom = true, time.Now(), head
			ix.log.Info("catching up", "chain", label, "indexed", head, "node", tip, "lag", int64(tip)-head)
		}
		// The batch after head was fetched while the last one was written,
		// unless the head moved elsewhere (a rollback) or nothing was.
		from := uint64(head + 1)
		cur := next
		next = nil
		if cur == nil || cur.from != from {
			cur.stop()
			cur = ix.fetchBatch(ctx, c, from, min(from+uint64(ix.opts.CommitBlocks)-1, tip))
		}
		blocks, err := cur.wait()
		if err == nil && cur.to < tip {
			next = ix.fetchBatch(ctx, c, cur.to+1, min(cur.to+uint64(ix.opts.CommitBlocks), tip))
		}
		if err == nil {
			err = ix.catchUp(ctx, c, from, blocks)
		}
		if err == nil && c == avanet.ChainP && cur.to >= tip {
			// Caught up with new P-Chain blocks: their stakes, subnets and
			// conversions change the current validators. (Not while
			// catching up: a large network's validators are a heavy read.)
			select {
			case ix.refresh <- struct{}{}:
			default: // a refresh is already asked for
			}
		}
		if err != nil {
			next.stop()
			next = nil
			ix.fail(ctx, c, err)
			continue
		}
		if catchingUp && time.Since(lastLog) >= progressEvery {
			now, _ := ix.headOf(c)
			rate := float64(now-logFrom) / time.Since(lastLog).Seconds()
			ix.log.Info("catching up", "chain", label, "indexed", now, "node", tip, "lag", int64(tip)-now, "blocksPerSecond", int(rate))
			lastLog, logFrom = time.Now(), now
		}
	}
}

// fail counts and logs a follower error and waits before the retry. A
// repeated error is logged again at most once a minute.
func (ix *Index) fail(ctx context.Context, c avanet.Chain, err error) {
	if ctx.Err() != nil {
		return
	}
	ix.metrics.errors.WithLabelValues(string(c)).Inc()
	ix.mu.Lock()
	last := ix.lastErr[c]
	repeat := last.msg == err.Error() && time.Since(last.at) < time.Minute
	if !repeat {
		ix.lastErr[c] = loggedErr{err.Error(), time.Now()}
	}
	ix.mu.Unlock()
	if !repeat {
		ix.log.Error("indexing failed; retrying", "chain", string(c), "err", err)
	}
	sleep(ctx, max(ix.opts.PollInterval, time.Second))
}

// loggedErr is the last error a follower logged.
type loggedErr struct {
	msg string
	at  time.Time
}

func (ix *Index) headOf(c avanet.Chain) (int64, bool) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	h := ix.heads[c]
	return h, h >= 0
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

// fetchBatch starts fetching chain's blocks from..to.
func (ix *Index) fetchBatch(ctx context.Context, c avanet.Chain, from, to uint64) *batch {
	ctx, cancel := context.WithCancel(ctx)
	bt := &batch{from: from, to: to, blocks: make([]*RawBlock, to-from+1), done: make(chan struct{}), cancel: cancel}
	go func() {
		defer close(bt.done)
		g, gctx := errgroup.WithContext(ctx)
		g.SetLimit(ix.opts.Concurrency)
		for i := range bt.blocks {
			g.Go(func() error {
				f, err := ix.fetch(gctx, c, from+uint64(i))
				bt.blocks[i] = f
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

// catchUp commits blocks, chain's blocks from on, in one store transaction,
// after checking that each extends the one below it: the first the stored
// chain (else the index is reconciled with the node), the others the block
// before them in the batch.
func (ix *Index) catchUp(ctx context.Context, c avanet.Chain, from uint64, blocks []*RawBlock) error {
	var parent string // the id block from's parent must have
	if from > 0 {
		var first blockJSON
		if err := json.Unmarshal(blocks[0].JSON, &first); err != nil {
			return fmt.Errorf("pindex: %s block %d: %w", c, from, err)
		}
		stored, err := ix.st.blockID(c, from-1)
		if err != nil {
			return fmt.Errorf("pindex: %s block %d: %w", c, from-1, err)
		}
		if first.ParentID != stored {
			head, _ := ix.headOf(c)
			if err := ix.reconcile(ctx, c, from-1); err != nil {
				return err
			}
			if now, _ := ix.headOf(c); now == head {
				// The node has the stored block at from-1 but names
				// another parent of its block at from: fetching again at
				// once would loop without end.
				return fmt.Errorf("pindex: %s block %d names parent %s, but block %d is %s at the node and in the index", c, from, first.ParentID, from-1, stored)
			}
			return nil
		}
		parent = stored
	}
	return ix.commit(ctx, c, from, parent, blocks)
}

// commit stores blocks, chain's blocks from on, in one store transaction,
// checking that each names the one below it as its parent (parent is the
// stored block's below from, "" at genesis).
func (ix *Index) commit(ctx context.Context, c avanet.Chain, from uint64, parent string, blocks []*RawBlock) error {
	ix.writeMu.Lock()
	defer ix.writeMu.Unlock()
	tx, err := ix.st.w.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var prevTime int64
	if from > 0 {
		if err := tx.QueryRow(`SELECT time FROM blocks INDEXED BY blocks_height WHERE chain=? AND height=?`, string(c), from-1).Scan(&prevTime); err != nil {
			return err
		}
	}
	w := &writer{tx: tx, net: &ix.net}
	for _, f := range blocks {
		b, err := w.apply(c, f, prevTime)
		if err != nil {
			return err
		}
		if f.Height > 0 && b.ParentID != parent && parent != "" {
			return fmt.Errorf("pindex: %s block %d names parent %s, but block %d is %s", c, f.Height, b.ParentID, f.Height-1, parent)
		}
		parent, prevTime = b.ID, w.time
	}
	if err := addBurned(tx, ix.net.AVAXAssetID, c, from, from+uint64(len(blocks))-1); err != nil {
		return fmt.Errorf("pindex: burned fees: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	ix.version.Add(1)
	to := from + uint64(len(blocks)) - 1
	ix.metrics.blocks.WithLabelValues(string(c)).Add(float64(len(blocks)))
	ix.setHead(c, int64(to))
	ix.metrics.lag.WithLabelValues(string(c)).Sub(float64(len(blocks)))
	return nil
}

// Append stores blocks of a generated chain (Options.Network), the first at
// the height after chain's head, each naming the one below it as its
// parent, in one store transaction.
func (ix *Index) Append(ctx context.Context, c avanet.Chain, blocks []*RawBlock) error {
	if c != avanet.ChainP && c != avanet.ChainX {
		return ErrUnknownChain
	}
	if len(blocks) == 0 {
		return nil
	}
	head, _ := ix.headOf(c)
	from := uint64(head + 1)
	var parent string
	if from > 0 {
		id, err := ix.st.blockID(c, from-1)
		if err != nil {
			return fmt.Errorf("pindex: %s block %d: %w", c, from-1, err)
		}
		parent = id
	}
	for i, f := range blocks {
		if f.Height != from+uint64(i) {
			return fmt.Errorf("pindex: %s block at height %d appended after height %d", c, f.Height, from+uint64(i)-1)
		}
	}
	return ix.commit(ctx, c, from, parent, blocks)
}

// SetCurrentValidators stores a platform.getCurrentValidators answer for
// subnet (the primary network's id is the empty id) as the node's current
// one, read now: a generated network's (the devnet's) validators.
func (ix *Index) SetCurrentValidators(ctx context.Context, subnet string, body json.RawMessage) error {
	ix.writeMu.Lock()
	defer ix.writeMu.Unlock()
	_, err := ix.st.w.ExecContext(ctx, `INSERT INTO current (subnet, body, time) VALUES (?,?,?)
		ON CONFLICT(subnet) DO UPDATE SET body=excluded.body, time=excluded.time`, subnet, string(body), ix.now().Unix())
	ix.currentVersion.Add(1)
	return err
}

// reconcile finds the highest stored height at or below from whose block the
// node has too, and rolls the chain back to it.
func (ix *Index) reconcile(ctx context.Context, c avanet.Chain, from uint64) error {
	h := int64(from)
	for ; h >= 0; h-- {
		f, err := ix.fetch(ctx, c, uint64(h))
		if err != nil {
			var rpcErr *jsonrpc.Error
			if errors.As(err, &rpcErr) {
				continue // the node has no block there yet
			}
			return err
		}
		var b blockJSON
		if err := json.Unmarshal(f.JSON, &b); err != nil {
			return err
		}
		stored, err := ix.st.blockID(c, uint64(h))
		if err == nil && stored == b.ID {
			break
		}
	}
	cur, _ := ix.headOf(c)
	if h == cur {
		return nil
	}
	ix.log.Warn("the node's chain differs from the index; rolling back", "chain", string(c), "from", cur, "to", h)
	ix.writeMu.Lock()
	defer ix.writeMu.Unlock()
	err := ix.st.rollback(ctx, ix.net.AVAXAssetID, c, h)
	ix.version.Add(1) // after a failed commit too: nothing cached may outlive it
	if err != nil {
		return err
	}
	ix.setHead(c, h)
	return nil
}

// refreshValidators stores platform.getCurrentValidators for the primary
// network and every indexed subnet, and platform.getCurrentSupply, every
// ValidatorsInterval and whenever the index reaches the node's P-Chain tip
// with new blocks (new subnets, L1 conversions, stakes).
func (ix *Index) refreshValidators(ctx context.Context) {
	for ctx.Err() == nil {
		if err := ix.RefreshValidators(ctx); err != nil && ctx.Err() == nil {
			ix.log.Debug("current validators not refreshed", "err", err)
		}
		if err := ix.RecordSupply(ctx); err != nil && ctx.Err() == nil {
			ix.log.Debug("the node's supply not recorded", "err", err)
		}
		if err := ix.RecordNode(ctx); err != nil && ctx.Err() == nil {
			ix.log.Debug("the node's info answers not recorded", "err", err)
		}
		t := time.NewTimer(ix.opts.ValidatorsInterval)
		select {
		case <-t.C:
		case <-ix.refresh:
		case <-ctx.Done():
		}
		t.Stop()
	}
}

// RefreshValidators reads platform.getCurrentValidators now for the primary
// network and every indexed subnet.
func (ix *Index) RefreshValidators(ctx context.Context) error {
	subnets := []string{avax.EmptyID.String()}
	rows, err := ix.st.r.QueryContext(ctx, `SELECT id FROM subnets`)
	if err != nil {
		return err
	}
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			rows.Close()
			return err
		}
		subnets = append(subnets, s)
	}
	rows.Close()
	for _, s := range subnets {
		var r json.RawMessage
		var params any
		if s != avax.EmptyID.String() {
			params = map[string]string{"subnetID": s}
		}
		if err := ix.rpc.Call(ctx, pathP, "platform.getCurrentValidators", params, &r); err != nil {
			return err
		}
		if s == avax.EmptyID.String() {
			var err error
			if r, err = ix.withDelegators(ctx, r); err != nil {
				return err
			}
		}
		if err := ix.SetCurrentValidators(ctx, s, r); err != nil {
			return err
		}
	}
	return nil
}

func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}

// withDelegators puts the delegators, with their potential rewards, into a
// primary-network getCurrentValidators answer: the node lists them only
// for the validators a call names, so those with delegators are asked for
// again, by node id, in one call.
func (ix *Index) withDelegators(ctx context.Context, body json.RawMessage) (json.RawMessage, error) {
	nodes, err := delegated(body)
	if err != nil || len(nodes) == 0 {
		return body, err
	}
	var detail json.RawMessage
	if err := ix.rpc.Call(ctx, pathP, "platform.getCurrentValidators", map[string]any{"nodeIDs": nodes}, &detail); err != nil {
		return nil, err
	}
	return mergeDelegators(body, detail)
}

// delegated returns the node ids of a getCurrentValidators answer's
// validators that have delegators.
func delegated(body json.RawMessage) ([]string, error) {
	var all struct {
		Validators []json.RawMessage `json:"validators"`
	}
	if err := json.Unmarshal(body, &all); err != nil {
		return nil, fmt.Errorf("platform.getCurrentValidators: %w", err)
	}
	var nodes []string
	for _, v := range all.Validators {
		var c struct {
			NodeID         string `json:"nodeID"`
			DelegatorCount string `json:"delegatorCount"`
		}
		if json.Unmarshal(v, &c) == nil && c.DelegatorCount != "" && c.DelegatorCount != "0" {
			nodes = append(nodes, c.NodeID)
		}
	}
	return nodes, nil
}

// mergeDelegators replaces the validators of body, a getCurrentValidators
// answer, by those of detail (the answer for their node ids, which lists
// their delegators) with the same staking tx.
func mergeDelegators(body, detail json.RawMessage) (json.RawMessage, error) {
	var all, more struct {
		Validators []json.RawMessage `json:"validators"`
	}
	if err := json.Unmarshal(body, &all); err != nil {
		return nil, fmt.Errorf("platform.getCurrentValidators: %w", err)
	}
	if err := json.Unmarshal(detail, &more); err != nil {
		return nil, fmt.Errorf("platform.getCurrentValidators by node id: %w", err)
	}
	byTx := map[string]json.RawMessage{}
	for _, v := range more.Validators {
		var c struct {
			TxID string `json:"txID"`
		}
		if json.Unmarshal(v, &c) == nil {
			byTx[c.TxID] = v
		}
	}
	for i, v := range all.Validators {
		var c struct {
			TxID string `json:"txID"`
		}
		if json.Unmarshal(v, &c) == nil && byTx[c.TxID] != nil {
			all.Validators[i] = byTx[c.TxID]
		}
	}
	return json.Marshal(all)
}
