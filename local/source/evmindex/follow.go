package evmindex

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/rpc"
)

// follower indexes one chain. Its run loop is the only writer of the chain's
// rows.
type follower struct {
	ix     *Index
	opts   ChainOptions
	id     uint64
	label  string
	client *rpc.Client
	dialed bool // client was dialled by us: close it
	trace  atomic.Bool
	// verified is set once the node answered eth_chainId with the chain's
	// id (at Open, or with ChainOptions.CheckLater in run).
	verified atomic.Bool
	// meta reads NFTs' metadata documents (nftmeta.go).
	meta metadataReader
	// own carries the calls of the clients the follower made itself (the
	// dialled RPC client over HTTP, meta's default http client); close
	// closes its idle connections.
	own *http.Transport
	// messengers are the addresses whose Teleporter events are indexed.
	messengers map[common.Address]bool
	// announced holds the blockchain id each messenger announced
	// (BlockchainIDInitialized), as the chain's writes store them; owned
	// by the run loop.
	announced map[common.Address]common.Hash

	// mu guards head, hasHead and changed (closed and replaced whenever the
	// indexed head moves).
	mu      sync.Mutex
	head    uint64
	hasHead bool
	changed chan struct{}

	// Owned by the run loop.
	backfilled bool // icm_backfill holds nothing of this chain
	compared   bool // the stored head was compared with the node's once (step)
	cumTxs     uint64
	tokens     map[common.Address]knownToken // contracts with a tokens row
}

// knownToken is what the follower keeps of a stored token: its standard and
// whether it is spam (Token.Spam).
type knownToken struct {
	kind TokenKind
	spam bool
}

func newFollower(ctx context.Context, ix *Index, co ChainOptions) (*follower, error) {
	if co.PollInterval <= 0 {
		co.PollInterval = time.Second
	}
	if co.CommitBlocks <= 0 {
		co.CommitBlocks = 500
	}
	if co.RPCBatch <= 0 {
		co.RPCBatch = 25
	}
	if co.Concurrency <= 0 {
		co.Concurrency = 4
	}
	if co.Tracer == "" {
		co.Tracer = "callTracer"
	}
	if co.MaxTraceBytes <= 0 {
		co.MaxTraceBytes = DefaultMaxTraceBytes
	}
	f := &follower{ix: ix, opts: co, id: co.ChainID, label: strconv.FormatUint(co.ChainID, 10), client: co.Client,
		changed: make(chan struct{}), tokens: map[common.Address]knownToken{}, messengers: messengerSet(co.TeleporterAddresses)}
	f.own = http.DefaultTransport.(*http.Transport).Clone()
	f.meta = metadataReader{http: co.HTTPClient, ipfsGateway: co.IPFSGateway, fetchHTTP: co.FetchHTTP}
	if f.meta.http == nil {
		f.meta.http = &http.Client{Timeout: 5 * time.Second, Transport: f.own}
	}
	if f.client == nil {
		if co.RPCURL == "" {
			return nil, fmt.Errorf("evmindex: chain %d: no RPC URL or client", co.ChainID)
		}
		c, err := rpc.DialOptions(ctx, co.RPCURL, rpc.WithHTTPClient(&http.Client{Transport: f.own}))
		if err != nil {
			return nil, fmt.Errorf("evmindex: chain %d: dial %s: %w", co.ChainID, co.RPCURL, err)
		}
		f.client, f.dialed = c, true
	}
	if err := f.checkChainID(ctx); err != nil {
		var wrong *wrongChainError
		if !co.CheckLater || errors.As(err, &wrong) {
			f.close()
			return nil, err
		}
		ix.log.Warn("evmindex: the node does not answer; following it once it does", "chain", co.ChainID, "err", err)
	}
	if err := f.load(ctx); err != nil {
		f.close()
		return nil, err
	}
	return f, nil
}

// wrongChainError says the node serves another chain than configured.
type wrongChainError struct{ want, got uint64 }

func (e *wrongChainError) Error() string {
	return fmt.Sprintf("evmindex: chain %d: node reports chain id %d", e.want, e.got)
}

// checkChainID asks the node its chain id and marks the follower verified
// when it is the configured one.
func (f *follower) checkChainID(ctx context.Context) error {
	var id hexutil.Uint64
	if err := f.client.CallContext(ctx, &id, "eth_chainId"); err != nil {
		return fmt.Errorf("evmindex: chain %d: eth_chainId: %w", f.id, err)
	}
	if uint64(id) != f.id {
		return &wrongChainError{want: f.id, got: uint64(id)}
	}
	f.verified.Store(true)
	return nil
}

// maxBackoff bounds the wait between a follower's retries, so that a node
// that comes back (or answers for the first time) is followed within it.
const maxBackoff = 5 * time.Second

func (f *follower) close() {
	if f.dialed {
		f.client.Close()
	}
	if f.own != nil { // nil for a follower without a node (WriteFixture)
		f.own.CloseIdleConnections()
	}
}

// load reads the resume point, the known tokens and the messengers'
// blockchain ids from the store, registering the chain when it is new.
func (f *follower) load(ctx context.Context) error {
	st := f.ix.st
	start, traced, err := st.Chain(ctx, f.id, f.opts.StartBlock, !f.opts.NoTrace)
	if err != nil {
		return fmt.Errorf("evmindex: chain %d: %w", f.id, err)
	}
	f.opts.StartBlock = start
	f.trace.Store(traced && !f.opts.NoTrace)
	if err := f.loadHead(ctx); err != nil {
		return fmt.Errorf("evmindex: chain %d: %w", f.id, err)
	}
	tokens, err := st.KnownTokens(ctx, f.id)
	if err != nil {
		return fmt.Errorf("evmindex: chain %d: %w", f.id, err)
	}
	for _, t := range tokens {
		f.tokens[t.Address] = knownToken{kind: t.Kind, spam: t.Spam()}
	}
	return nil
}

// loadHead reads the stored head, the transactions counted through it and
// the messengers' blockchain ids: at Open, and after a rollback.
func (f *follower) loadHead(ctx context.Context) error {
	n, cum, ok, err := f.ix.st.Head(ctx, f.id)
	if err != nil {
		return err
	}
	f.cumTxs = cum
	f.setHead(n, ok)
	f.announced, err = f.ix.st.Announced(ctx, f.id)
	return err
}

func (f *follower) indexed() (uint64, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.head, f.hasHead
}

func (f *follower) setHead(n uint64, ok bool) {
	f.mu.Lock()
	f.head, f.hasHead = n, ok
	close(f.changed)
	f.changed = make(chan struct{})
	f.mu.Unlock()
	if ok {
		f.ix.metrics.indexed.WithLabelValues(f.label).Set(float64(n))
	}
}

func (f *follower) disableTrace(err error) {
	if f.trace.CompareAndSwap(true, false) {
		f.ix.log.Info("evmindex: node has no call tracer; creations from receipts only", "chain", f.id, "err", err)
		if err := f.ix.st.SetTraced(context.Background(), f.id, false); err != nil {
			f.ix.log.Warn("evmindex: recording that the chain is not traced", "chain", f.id, "err", err)
		}
	}
}

// awaitNode checks the node's chain id until it answers, at most maxBackoff
// apart, and reports whether to follow it: not when ctx ended or the node
// serves another chain.
func (f *follower) awaitNode(ctx context.Context) bool {
	backoff := f.opts.PollInterval
	for !f.verified.Load() {
		err := f.checkChainID(ctx)
		var wrong *wrongChainError
		switch {
		case ctx.Err() != nil:
			return false
		case errors.As(err, &wrong):
			f.ix.log.Error("evmindex: not following the node: it serves another chain", "err", err)
			return false
		case err != nil:
			f.ix.metrics.errors.WithLabelValues(f.label).Inc()
		}
		if f.verified.Load() {
			f.ix.log.Info("evmindex: the node answers; following it", "chain", f.id)
			return true
		}
		t := time.NewTimer(backoff)
		select {
		case <-ctx.Done():
			t.Stop()
			return false
		case <-t.C:
		}
		backoff = min(backoff*2, maxBackoff)
	}
	return true
}

// run follows the node until ctx ends.
func (f *follower) run(ctx context.Context) {
	if !f.awaitNode(ctx) {
		return
	}
	wake := make(chan struct{}, 1)
	heads := make(chan map[string]any, 16)
	if sub, err := f.client.EthSubscribe(ctx, heads, "newHeads"); err == nil {
		// Only the wake-up matters; the loop reads the head itself. Without
		// subscriptions (plain HTTP) the loop polls.
		defer sub.Unsubscribe()
		go func() {
			for {
				select {
				case <-heads:
					select {
					case wake <- struct{}{}:
					default:
					}
				case <-sub.Err():
					return
				case <-ctx.Done():
					return
				}
			}
		}()
	}
	backoff := f.opts.PollInterval
	for {
		caughtUp, err := f.step(ctx)
		if ctx.Err() != nil {
			return
		}
		wait := f.opts.PollInterval
		if err != nil {
			f.ix.metrics.errors.WithLabelValues(f.label).Inc()
			f.ix.log.Warn("evmindex: follow", "chain", f.id, "err", err)
			wait = backoff
			backoff = min(backoff*2, maxBackoff)
		} else {
			backoff = f.opts.PollInterval
			if !caughtUp {
				continue
			}
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-wake:
		case <-t.C:
		}
		t.Stop()
	}
}

// step indexes up to CommitBlocks blocks; caughtUp reports that the store
// reached the node's head.
func (f *follower) step(ctx context.Context) (caughtUp bool, err error) {
	if !f.backfilled {
		// A store of an earlier version: read the messenger events of its
		// blocks, a chunk a step. A failure does not hold up following: it
		// is logged and the chunk tried again next step.
		done, err := f.backfillICM(ctx)
		switch {
		case err != nil:
			f.ix.metrics.errors.WithLabelValues(f.label).Inc()
			f.ix.log.Warn("evmindex: follow", "chain", f.id, "err", err)
		case !done:
			return false, nil
		default:
			f.backfilled = true
		}
	}
	var h hexutil.Uint64
	if err := f.client.CallContext(ctx, &h, "eth_blockNumber"); err != nil {
		return false, fmt.Errorf("eth_blockNumber: %w", err)
	}
	nodeHead := uint64(h)
	f.ix.metrics.head.WithLabelValues(f.label).Set(float64(nodeHead))
	last, ok := f.indexed()
	next := f.opts.StartBlock
	if ok {
		next = last + 1
	}
	if !f.compared {
		f.compared = true
		f.compare(last, ok, nodeHead)
	}
	defer func() {
		cur, _ := f.indexed()
		f.ix.metrics.lag.WithLabelValues(f.label).Set(float64(nodeHead) - float64(cur))
	}()
	if next > nodeHead {
		if ok {
			// Same height or a shorter chain: is our tip still canonical?
			probe := min(last, nodeHead)
			if err := f.checkCanonical(ctx, probe); err != nil {
				return false, err
			}
		}
		return true, nil
	}
	to := min(nodeHead, next+uint64(f.opts.CommitBlocks)-1)
	blocks, err := f.fetchRange(ctx, next, to)
	if err != nil {
		return false, err
	}
	// Link the batch to the store and to itself.
	if ok {
		stored, err := f.storedHash(ctx, last)
		if err != nil {
			return false, err
		}
		if blocks[0].block.ParentHash != stored {
			return false, f.rollbackToCanonical(ctx, last)
		}
	}
	for i := 1; i < len(blocks); i++ {
		if blocks[i].block.ParentHash != blocks[i-1].block.Hash {
			blocks = blocks[:i] // the node re-orged while we read: keep the linked prefix
			break
		}
	}
	if err := f.commit(ctx, blocks); err != nil {
		return false, err
	}
	return to == nodeHead && len(blocks) == int(to-next+1), nil
}

// compare logs how the stored head stands against the node's at the first
// step: an index ahead of its chain (a chain that lost blocks when its
// process was killed, or was reset) is rolled back to the node's head by
// the step (rollbackToCanonical, which keeps every block the node still
// has); one behind it catches up.
func (f *follower) compare(last uint64, ok bool, nodeHead uint64) {
	switch {
	case !ok:
		f.ix.log.Info("evmindex: indexing the chain from its start", "chain", f.id, "from", f.opts.StartBlock, "chainHead", nodeHead)
	case last > nodeHead:
		f.ix.log.Warn("evmindex: the index is ahead of the chain (a chain that lost blocks or was reset); rolling it back to the chain's head",
			"chain", f.id, "indexHead", last, "chainHead", nodeHead)
	case last < nodeHead:
		f.ix.log.Info("evmindex: the index is behind the chain; catching up", "chain", f.id, "indexHead", last, "chainHead", nodeHead)
	default:
		f.ix.log.Info("evmindex: the index is at the chain's head", "chain", f.id, "head", last)
	}
}

// checkCanonical compares the stored hash of block n with the node's and
// rolls back on a mismatch.
func (f *follower) checkCanonical(ctx context.Context, n uint64) error {
	if n < f.opts.StartBlock {
		return nil
	}
	stored, err := f.storedHash(ctx, n)
	if err != nil {
		return err
	}
	node, err := f.headerHash(ctx, n)
	if err != nil {
		return fmt.Errorf("block %d hash: %w", n, err)
	}
	last, _ := f.indexed()
	if node != stored || last > n {
		return f.rollbackToCanonical(ctx, n)
	}
	return nil
}

// rollbackToCanonical walks back from block n to the newest stored block the
// node still has, and removes every stored block above it.
func (f *follower) rollbackToCanonical(ctx context.Context, n uint64) error {
	from := f.opts.StartBlock
	for k := n; k >= f.opts.StartBlock; k-- {
		stored, err := f.storedHash(ctx, k)
		if err != nil {
			return err
		}
		node, err := f.headerHash(ctx, k)
		if err != nil && !errors.Is(err, errNotFound) {
			return fmt.Errorf("block %d hash: %w", k, err)
		}
		if err == nil && node == stored {
			from = k + 1
			break
		}
		if k == 0 {
			break
		}
	}
	last, ok := f.indexed()
	if !ok || from > last {
		return nil
	}
	f.ix.log.Warn("evmindex: re-org: dropping the stored blocks the node does not have", "chain", f.id, "from", from, "to", last)
	if err := f.ix.st.Rollback(ctx, f.id, from); err != nil {
		return err
	}
	if err := f.loadHead(ctx); err != nil {
		return fmt.Errorf("rollback: %w", err)
	}
	f.ix.metrics.reorgs.WithLabelValues(f.label).Inc()
	if f.ix.opts.OnRollback != nil {
		f.ix.opts.OnRollback(ctx, f.id, from)
	}
	return nil
}

func (f *follower) storedHash(ctx context.Context, n uint64) (common.Hash, error) {
	return f.ix.st.BlockHash(ctx, f.id, n)
}
