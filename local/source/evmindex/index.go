// Package evmindex follows EVM JSON-RPC nodes into a store (embedded
// SQLite by default):
// blocks, transactions and receipts, ERC-20 / ERC-721 / ERC-1155 transfers
// decoded from logs, balances and NFT owners derived from them, token
// metadata read with eth_call, the Teleporter (ICM) messages a transaction
// sent or delivered, and contract creations and internal transactions from
// debug_traceBlockByNumber's call tracer where the node has it (receipts'
// contractAddress otherwise). Fetching is batched and concurrent; re-orgs are
// detected by parent hash and rolled back; a restarted index resumes from its
// store. Its parts (the followers, the store, the queries) are described in
// store.go.
package evmindex

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/rpc"
	_ "github.com/mattn/go-sqlite3" // the "sqlite3" driver
	"github.com/prometheus/client_golang/prometheus"
)

// Options configures an Index.
type Options struct {
	// Store is where the index is kept. Nil means the embedded SQLite
	// store at Path. Close closes it.
	Store Store
	// Replica is Store's database on a read replica (OpenPostgresReplica):
	// the queries read it, and Refresh reads the stored heads there, so
	// that a replica's answers and heads lag together; the followers'
	// reads and writes stay on Store. Nil means Store. Close closes it.
	Replica Store
	// Path is the SQLite store's file, when Store is nil. Empty means a private temporary file
	// that Close removes: an index as volatile as memory, but with WAL's
	// concurrent readers.
	Path string
	// Chains are the EVM nodes to follow, one per chain id.
	Chains []ChainOptions
	// OnBlock, when set, is called for every block in chain order right
	// after the store commits it, from the chain's follower goroutine: a
	// slow hook slows indexing. b is shared: the hook must not keep or
	// modify it beyond the call.
	OnBlock BlockHook
	// OnRollback, when set, is called after a re-org removed the blocks >=
	// fromBlock of chainID from the store and before the replacement blocks
	// are indexed (and handed to OnBlock).
	OnRollback RollbackHook
	// Registerer receives the index's Prometheus metrics. Nil means none.
	Registerer prometheus.Registerer
	// Logger logs follower errors and re-orgs. Nil means slog.Default().
	Logger *slog.Logger
	// Now stamps metadataLastUpdatedTimestamp. Nil means time.Now.
	Now func() time.Time
}

// ChainOptions configures the follower of one chain.
type ChainOptions struct {
	// ChainID is the EVM chain id; Open checks it against eth_chainId.
	ChainID uint64
	// RPCURL is the node's JSON-RPC endpoint (http, https, ws or wss).
	// Ignored when Client is set.
	RPCURL string
	// Client is an RPC client to use instead of dialling RPCURL, e.g. the
	// embedded dev chain's in-process client. The Index does not close it.
	Client *rpc.Client
	// CheckLater lets Open succeed while the node does not answer
	// eth_chainId: the follower asks again in the background, at most 5s
	// apart, and follows the node once it answers with ChainID (a node of
	// another chain is logged and never followed). Until then the chain
	// answers from the store (Ready).
	CheckLater bool
	// StartBlock is the first block indexed when the store has none of this
	// chain; a resumed index continues after its last block instead.
	StartBlock uint64
	// PollInterval is how often the head is polled when no newHeads
	// subscription is available. Zero means 1s.
	PollInterval time.Duration
	// CommitBlocks is how many blocks one store transaction holds while
	// catching up. Zero means 500.
	CommitBlocks int
	// RPCBatch is how many blocks one JSON-RPC batch request reads. Zero
	// means 25.
	RPCBatch int
	// Concurrency is how many batch requests are in flight. Zero means 4.
	Concurrency int
	// NoTrace disables debug_traceBlockByNumber; contract creations then
	// come from receipts only (top-level CREATE) and there are no internal
	// transactions. Tracing is also switched off when the node lacks it.
	NoTrace bool
	// Tracer names the tracer of debug_traceBlockByNumber: go-ethereum's
	// "callTracer" or one that answers in its shape, such as the embedded
	// dev chain's bounded evm.CallTracer. Empty means "callTracer".
	Tracer string
	// MaxTraceBytes bounds one block's trace as the node answers it: a
	// block whose trace is larger, or fails, is indexed without internal
	// transactions (contract creations from its receipts), logged, counted
	// in avaedge_evmindex_untraced_blocks_total and recorded with its
	// reason (Index.Untraced, TxDetail.InternalsOmitted). Zero means
	// DefaultMaxTraceBytes (8 MiB).
	MaxTraceBytes int
	// IPFSGateway is the base URL for ipfs:// token URIs, e.g.
	// "https://ipfs.io/ipfs/". Empty means such metadata is not fetched.
	IPFSGateway string
	// FetchHTTP allows fetching http(s) token URIs. False means only data:
	// URIs (and ipfs:// with IPFSGateway) are read.
	FetchHTTP bool
	// HTTPClient fetches metadata. Nil means a client with a 5s timeout.
	HTTPClient *http.Client
	// TeleporterAddresses are the TeleporterMessenger contracts whose
	// SendCrossChainMessage and ReceiveCrossChainMessage events are indexed;
	// the same events from any other address are ignored. Empty means
	// TeleporterMessenger alone; to add a messenger, list TeleporterMessenger
	// too.
	TeleporterAddresses []common.Address
	// BlockchainID is the chain's 32-byte Avalanche blockchain id: the
	// source of the ICM messages its messengers send. Zero means the id a
	// messenger announces (BlockchainIDInitialized, emitted before its
	// first message); a send before any announcement has an unknown source.
	BlockchainID common.Hash
}

// Index is the store plus one follower per chain, and the queries over
// them. It is safe for concurrent use.
type Index struct {
	// reader answers the queries the Index answers as the store does; the
	// Index's own methods add the followers' heads and the nodes' answers
	// to the others.
	reader
	st      Store
	opts    Options
	chains  map[uint64]*follower
	order   []uint64
	metrics *metrics
	log     *slog.Logger
	now     func() time.Time

	startOnce sync.Once
	stopOnce  sync.Once
	cancel    context.CancelFunc // ends every follower; set by Start
	wg        sync.WaitGroup     // the followers
}

// reader names the Store's Reader embedded in Index, unexported.
type reader = Reader

// Open opens (or creates) the store and connects to every chain's node. Start
// begins following; Close releases everything.
func Open(ctx context.Context, opts Options) (*Index, error) {
	ix := &Index{opts: opts, chains: map[uint64]*follower{}, log: opts.Logger, now: opts.Now}
	if ix.log == nil {
		ix.log = slog.Default()
	}
	if ix.now == nil {
		ix.now = time.Now
	}
	ix.st = opts.Store
	if ix.st == nil {
		st, err := openSQLite(opts.Path, ix.log)
		if err != nil {
			return nil, err
		}
		ix.st = st
	}
	ix.reader = ix.replica()
	ix.metrics = newMetrics(opts.Registerer)
	for _, co := range opts.Chains {
		if _, dup := ix.chains[co.ChainID]; dup {
			ix.Close()
			return nil, fmt.Errorf("evmindex: chain %d configured twice", co.ChainID)
		}
		f, err := newFollower(ctx, ix, co)
		if err != nil {
			ix.Close()
			return nil, err
		}
		ix.chains[co.ChainID] = f
		ix.order = append(ix.order, co.ChainID)
	}
	return ix, nil
}

// Start begins following every chain in the background, once. The followers
// stop at Close (or when ctx ends).
func (ix *Index) Start(ctx context.Context) {
	ix.startOnce.Do(func() {
		ctx, cancel := context.WithCancel(ctx)
		ix.cancel = cancel
		for _, id := range ix.order {
			f := ix.chains[id]
			ix.wg.Add(1)
			go func() {
				defer ix.wg.Done()
				f.run(ctx)
			}()
		}
	})
}

// Close stops the followers, closes the RPC clients the Index dialled and the
// store, and removes a temporary store. It is safe to call more than once.
func (ix *Index) Close() error {
	ix.stopOnce.Do(func() {
		if ix.cancel != nil {
			ix.cancel()
		}
		ix.wg.Wait()
		for _, f := range ix.chains {
			f.close()
		}
		ix.st.Close()
		if ix.opts.Replica != nil {
			ix.opts.Replica.Close()
		}
	})
	return nil
}

// replica returns the store the queries read: Options.Replica, else the
// store.
func (ix *Index) replica() Store {
	if ix.opts.Replica != nil {
		return ix.opts.Replica
	}
	return ix.st
}

// ErrUnknownChain is returned for a chain id the Index does not follow.
var ErrUnknownChain = errors.New("evmindex: unknown chain")

// Chains returns the followed chain ids in configuration order.
func (ix *Index) Chains() []uint64 { return append([]uint64(nil), ix.order...) }

// Has reports whether chainID is followed.
func (ix *Index) Has(chainID uint64) bool { _, ok := ix.chains[chainID]; return ok }

// Ready reports whether chainID has something to answer from: its node
// answered with the chain's id, or the store holds blocks of it.
func (ix *Index) Ready(chainID uint64) bool {
	f := ix.chains[chainID]
	if f == nil {
		return false
	}
	_, stored := f.indexed()
	return stored || f.verified.Load()
}

// Head returns the highest block of chainID in the store, and false when it
// has none yet.
func (ix *Index) Head(chainID uint64) (uint64, bool) {
	f := ix.chains[chainID]
	if f == nil {
		return 0, false
	}
	return f.indexed()
}

// WaitFor blocks until chainID's store holds block number, or ctx ends.
func (ix *Index) WaitFor(ctx context.Context, chainID, number uint64) error {
	f := ix.chains[chainID]
	if f == nil {
		return ErrUnknownChain
	}
	for {
		f.mu.Lock()
		head, ok, ch := f.head, f.hasHead, f.changed
		f.mu.Unlock()
		if ok && head >= number {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// metrics are the index's Prometheus series, labelled by chain id.
type metrics struct {
	head      *prometheus.GaugeVec
	indexed   *prometheus.GaugeVec
	lag       *prometheus.GaugeVec
	blocks    *prometheus.CounterVec
	transfers *prometheus.CounterVec
	reorgs    *prometheus.CounterVec
	errors    *prometheus.CounterVec
	untraced  *prometheus.CounterVec
}

func newMetrics(reg prometheus.Registerer) *metrics {
	l := []string{"chain_id"}
	m := &metrics{
		head:      prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: "avaedge", Subsystem: "evmindex", Name: "node_head_block", Help: "Latest block number reported by the followed node."}, l),
		indexed:   prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: "avaedge", Subsystem: "evmindex", Name: "indexed_block", Help: "Highest block number committed to the store."}, l),
		lag:       prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: "avaedge", Subsystem: "evmindex", Name: "lag_blocks", Help: "Node head minus indexed block."}, l),
		blocks:    prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: "avaedge", Subsystem: "evmindex", Name: "blocks_total", Help: "Blocks indexed."}, l),
		transfers: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: "avaedge", Subsystem: "evmindex", Name: "transfers_total", Help: "Token transfers indexed."}, l),
		reorgs:    prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: "avaedge", Subsystem: "evmindex", Name: "reorgs_total", Help: "Re-orgs rolled back."}, l),
		errors:    prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: "avaedge", Subsystem: "evmindex", Name: "errors_total", Help: "Follower errors (the follower retries)."}, l),
		untraced:  prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: "avaedge", Subsystem: "evmindex", Name: "untraced_blocks_total", Help: "Blocks of traced chains indexed without internal transactions (trace too large or failed)."}, l),
	}
	if reg != nil {
		for _, c := range []prometheus.Collector{m.head, m.indexed, m.lag, m.blocks, m.transfers, m.reorgs, m.errors, m.untraced} {
			reg.MustRegister(c)
		}
	}
	return m
}
