// Package pindex follows an avalanchego node's P-avanet.Chain and X-avanet.Chain into a
// store (embedded SQLite by default): blocks and transactions (every type, classified from
// the node's JSON encoding), UTXOs with their spends (atomic ones exported to
// and imported from the other chains included), subnets with their owners,
// chains and L1 conversions, assets, and stakes (validators, delegators,
// subnet and L1 validators) with their ends, plus the node's latest answer of
// platform.getCurrentValidators per subnet. It reads only the node's
// JSON-RPC APIs (platform.*, avm.*, info.*), so it links without avalanchego.
//
// The index resumes from its store after a restart, keeps answering from it
// while the node is down, and rolls back blocks the node no longer has at
// their height (a local network started afresh). Its parts (the followers,
// the store, the queries) are described in store.go.
package pindex

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/avaedge/avaedge/avanet"
	"github.com/avaedge/avaedge/jsonrpc"
	"github.com/avaedge/avaedge/local/source/nodeclient"
	"github.com/avaedge/avaedge/local/vocab/avax"
)

// Options configures an Index.
type Options struct {
	// Node is the avalanchego base URL, e.g. "http://127.0.0.1:9650".
	Node string
	// Network is the network of an index no node fills: a generated one
	// (the devnet), whose blocks Append stores. With it, Node is not used
	// and Start is not called.
	Network *avanet.Network
	// Store is where the index is kept. Nil means the embedded SQLite
	// store at Path. Close closes it.
	Store Store
	// Replica is Store's database on a read replica (OpenPostgresReplica):
	// the queries read it, and Refresh reads the stored heads there, so
	// that a replica's answers and heads lag together; the follower's
	// reads and writes stay on Store. Nil means Store. Close closes it.
	Replica Store
	// Path is the SQLite store's file, when Store is nil. Empty means a
	// private temporary file that Close removes; Memory means in memory.
	Path string
	// PollInterval is how often the node's heights are polled once caught
	// up. Zero means 1s.
	PollInterval time.Duration
	// ValidatorsInterval is how often platform.getCurrentValidators is read.
	// Zero means 10s.
	ValidatorsInterval time.Duration
	// Concurrency is how many blocks are fetched at once while catching up.
	// Zero means 8.
	Concurrency int
	// CommitBlocks is how many blocks one store transaction holds while
	// catching up. Zero means 256.
	CommitBlocks int
	// HTTPClient calls the node. Nil means a client of its own that keeps a
	// connection open for each concurrent call (jsonrpc.ClientOptions).
	HTTPClient *http.Client
	// CallTimeout bounds each call to the node, whatever HTTPClient's own
	// timeout. Zero means 30s.
	CallTimeout time.Duration
	// Registerer receives the index's metrics. Nil means none.
	Registerer prometheus.Registerer
	// Logger logs progress and errors. Nil means slog.Default().
	Logger *slog.Logger
	// Now is the clock of stake statuses. Nil means time.Now.
	Now func() time.Time
}

// maxAnswer bounds one answer of the node, which the index reads whole into
// memory before decoding it.
const maxAnswer = 64 << 20

// Index is the store, the followers of the P- and X-avanet.Chain and the queries
// over them. It is safe for concurrent use.
type Index struct {
	// reader answers the queries the Index answers as the store does; the
	// Index's own methods (query.go) add caches and the network's facts
	// to the others.
	reader
	st      Store
	opts    Options
	node    *nodeclient.Client // nil for a generated network (Options.Network)
	net     avanet.Network
	log     *slog.Logger
	now     func() time.Time
	metrics *metrics

	// writeMu serializes the store's writes.
	writeMu sync.Mutex
	// version counts the committed writes of blocks, rewards and
	// rollbacks (after each commit): what Stakes reads changes only when
	// it does.
	version atomic.Uint64
	// stakesMu guards stakes, Stakes' answer at a version.
	stakesMu sync.Mutex
	stakes   stakesAt
	// assetsMu guards assets, Asset's answers at a version.
	assetsMu sync.Mutex
	assets   assetsAt
	// currentVersion counts the stored current validators lists (after
	// each write); current is CurrentValidators' answers, by subnet,
	// guarded by currentMu.
	currentVersion atomic.Uint64
	currentMu      sync.Mutex
	current        map[string]currentAt

	// mu guards heads and changed (closed and replaced when a head moves).
	mu      sync.Mutex
	heads   map[avanet.Chain]int64 // -1: nothing indexed
	changed chan struct{}
	// refreshMu guards refreshedRewards, the stored rewards_height a
	// standby's last Refresh read.
	refreshMu        sync.Mutex
	refreshedRewards string
	// refresh asks the validators refresher to read the node's current
	// validators now (a P-avanet.Chain block may have changed them).
	refresh chan struct{}

	startOnce, stopOnce sync.Once
	cancel              context.CancelFunc
	wg                  sync.WaitGroup
}

// reader names the Store's Reader embedded in Index, unexported.
type reader = Reader

// Open opens (or creates) the store and learns the network from the node, or
// from the store when the node does not answer. It fails when neither knows
// the network, or when the node's network is not the stored one.
func Open(ctx context.Context, opts Options) (*Index, error) {
	if opts.PollInterval <= 0 {
		opts.PollInterval = time.Second
	}
	if opts.ValidatorsInterval <= 0 {
		opts.ValidatorsInterval = 10 * time.Second
	}
	if opts.Concurrency <= 0 {
		opts.Concurrency = 8
	}
	if opts.CommitBlocks <= 0 {
		opts.CommitBlocks = 256
	}
	ix := &Index{opts: opts, log: opts.Logger, now: opts.Now, heads: map[avanet.Chain]int64{}, changed: make(chan struct{}), refresh: make(chan struct{}, 1)}
	if ix.log == nil {
		ix.log = slog.Default()
	}
	if ix.now == nil {
		ix.now = time.Now
	}
	ix.log = ix.log.With("component", "pindex", "node", opts.Node)
	if opts.Network == nil {
		// Idle connections for two batches' fetches, the other chain's and
		// the validators'.
		ix.node = nodeclient.New(opts.Node, jsonrpc.ClientOptions{HTTPClient: opts.HTTPClient, Timeout: opts.CallTimeout,
			MaxIdleConns: 2*opts.Concurrency + 4, MaxAnswerBytes: maxAnswer})
	}
	if err := ix.open(ctx); err != nil {
		ix.Close()
		return nil, err
	}
	ix.metrics = newMetrics(opts.Registerer)
	if opts.Network != nil {
		return ix, nil
	}
	// Recorded now, so that a node gone right after the start is still
	// described; bounded, since a hung node must not hold the start.
	rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := ix.RecordNode(rctx); err != nil {
		ix.log.Debug("the node's info answers not recorded", "err", err)
	}
	return ix, nil
}

// open opens the store, reads the network (Options.Network, else the
// stored one checked against the node's) and the heads.
func (ix *Index) open(ctx context.Context) error {
	ix.st = ix.opts.Store
	if ix.st == nil {
		st, err := openSQLite(ix.opts.Path)
		if err != nil {
			return err
		}
		ix.st = st
	}
	ix.reader = ix.replica()
	if ix.opts.Network != nil {
		ix.net = *ix.opts.Network
		if err := checkNetwork(ix.net); err != nil {
			return fmt.Errorf("pindex: network: %w", err)
		}
	} else if err := ix.loadNetwork(ctx); err != nil {
		return err
	}
	if err := ix.st.Upgrade(ctx, ix.net.AVAXAssetID, ix.log); err != nil {
		return fmt.Errorf("pindex: upgrading the store: %w", err)
	}
	for _, c := range []avanet.Chain{avanet.ChainP, avanet.ChainX, avanet.ChainC} {
		h, err := storedHead(ix.st, c)
		if err != nil {
			return fmt.Errorf("pindex: %w", err)
		}
		ix.heads[c] = h
	}
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

// loadNetwork reads the network from the store and checks it against the
// node's, or learns it from the node.
func (ix *Index) loadNetwork(ctx context.Context) error {
	stored, ok, err := ix.st.Meta("network")
	if err != nil {
		return fmt.Errorf("pindex: %w", err)
	}
	live, lerr := ix.learnNetwork(ctx)
	switch {
	case ok:
		var sn storedNetwork
		if err := json.Unmarshal([]byte(stored), &sn); err != nil {
			return fmt.Errorf("pindex: stored network: %w", err)
		}
		ix.net = sn.network()
		if lerr == nil && (live.ID != ix.net.ID || live.XChainID != ix.net.XChainID) {
			return fmt.Errorf("pindex: the node at %s is on network %d (X-Chain %s) but the index holds network %d (X-Chain %s); use another data directory",
				ix.opts.Node, live.ID, live.XChainID, ix.net.ID, ix.net.XChainID)
		}
		if lerr != nil {
			ix.log.Warn("node unreachable; answering from the index", "err", lerr)
		}
	case lerr != nil:
		return fmt.Errorf("pindex: learning the network from %s: %w", ix.opts.Node, lerr)
	default:
		ix.net = live
		b, _ := json.Marshal(storedOf(live))
		if err := ix.st.SetMeta("network", string(b)); err != nil {
			return fmt.Errorf("pindex: %w", err)
		}
	}
	return checkNetwork(ix.net)
}

func (ix *Index) learnNetwork(ctx context.Context) (avanet.Network, error) {
	id, err := ix.node.Info().NetworkID(ctx)
	if err != nil {
		return avanet.Network{}, err
	}
	var x, c string
	for alias, dst := range map[string]*string{"X": &x, "C": &c} {
		if *dst, err = ix.node.Info().BlockchainID(ctx, alias); err != nil {
			return avanet.Network{}, err
		}
	}
	a, err := ix.node.X().AssetDescription(ctx, "AVAX")
	if err != nil {
		return avanet.Network{}, err
	}
	return networkOf(id, x, c, a.ID)
}

// networkOf reads the network from the node's answers: info.getNetworkID,
// the X- and C-Chain's info.getBlockchainID and AVAX's
// avm.getAssetDescription.
func networkOf(id uint32, x, c, avaxID string) (avanet.Network, error) {
	n := storedNetwork{ID: id, HRP: avanet.HRP(id), X: x, C: c, Avax: avaxID}.network()
	return n, checkNetwork(n)
}

// Network returns the followed network: its id, name and HRP, its X- and
// C-Chain and AVAX ids as the node reported them, and the C-Chain's EVM
// chain id when avanet knows the network (zero otherwise).
func (ix *Index) Network() avanet.Network { return ix.net }

// Now returns the clock of stake statuses (Options.Now).
func (ix *Index) Now() time.Time { return ix.now() }

// Start begins following the P- and X-Chain, and the C-Chain's atomic
// transactions (cchain.go), in the background, once. The followers
// stop at Close or when ctx ends.
func (ix *Index) Start(ctx context.Context) {
	ix.startOnce.Do(func() {
		ctx, cancel := context.WithCancel(ctx)
		ix.cancel = cancel
		for _, c := range []avanet.Chain{avanet.ChainP, avanet.ChainX} {
			f := newFollower(ix, c)
			ix.wg.Add(1)
			go func() {
				defer ix.wg.Done()
				f.run(ctx)
			}()
		}
		ix.wg.Add(2)
		go func() {
			defer ix.wg.Done()
			ix.followC(ctx)
		}()
		go func() {
			defer ix.wg.Done()
			ix.refreshValidators(ctx)
		}()
	})
}

// Close stops the followers and closes the store. It is safe to call more
// than once.
func (ix *Index) Close() error {
	ix.stopOnce.Do(func() {
		if ix.cancel != nil {
			ix.cancel()
		}
		ix.wg.Wait()
		if ix.st != nil {
			ix.st.Close()
		}
		if ix.opts.Replica != nil {
			ix.opts.Replica.Close()
		}
		if ix.node != nil {
			ix.node.Close()
		}
	})
	return nil
}

// Head returns the highest indexed height of chain, and false when none is.
func (ix *Index) Head(c avanet.Chain) (uint64, bool) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	h, ok := ix.heads[c]
	return uint64(max(h, 0)), ok && h >= 0
}

// PrimaryNetworkID is the primary network's subnet id (the empty id).
var PrimaryNetworkID = avax.EmptyID.String()

// ErrUnknownChain is returned for a chain the Index does not follow.
var ErrUnknownChain = errors.New("pindex: unknown chain")

// WaitFor blocks until chain's index holds height, or ctx ends.
func (ix *Index) WaitFor(ctx context.Context, c avanet.Chain, height uint64) error {
	if c != avanet.ChainP && c != avanet.ChainX {
		return ErrUnknownChain
	}
	for {
		ix.mu.Lock()
		h, ch := ix.heads[c], ix.changed
		ix.mu.Unlock()
		if h >= 0 && uint64(h) >= height {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// metrics are the index's Prometheus series, labelled by chain (P, X).
type metrics struct {
	node, indexed, lag *prometheus.GaugeVec
	blocks, errors     *prometheus.CounterVec
	up                 prometheus.Gauge
}

func newMetrics(reg prometheus.Registerer) *metrics {
	l := []string{"chain"}
	g := func(name, help string) *prometheus.GaugeVec {
		return prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: "avaedge", Subsystem: "pindex", Name: name, Help: help}, l)
	}
	c := func(name, help string) *prometheus.CounterVec {
		return prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: "avaedge", Subsystem: "pindex", Name: name, Help: help}, l)
	}
	m := &metrics{
		node:    g("node_height", "Latest accepted height reported by the followed node."),
		indexed: g("indexed_height", "Highest height committed to the store."),
		lag:     g("lag_blocks", "Node height minus indexed height."),
		blocks:  c("blocks_total", "Blocks indexed."),
		errors:  c("errors_total", "Follower errors (the follower retries)."),
		up: prometheus.NewGauge(prometheus.GaugeOpts{Namespace: "avaedge", Subsystem: "pindex", Name: "node_up",
			Help: "1 when the followed node answered the last poll, else 0."}),
	}
	if reg != nil {
		for _, col := range []prometheus.Collector{m.node, m.indexed, m.lag, m.blocks, m.errors, m.up} {
			reg.MustRegister(col)
		}
	}
	return m
}
