package local

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"path/filepath"

	"github.com/ethereum/go-ethereum/rpc"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/avaedge/avaedge/avanet"
	"github.com/avaedge/avaedge/catalog"
	"github.com/avaedge/avaedge/jsonrpc"
	"github.com/avaedge/avaedge/local/api/dataapi"
	"github.com/avaedge/avaedge/local/api/evmdata"
	"github.com/avaedge/avaedge/local/api/metricsapi"
	"github.com/avaedge/avaedge/local/api/node"
	"github.com/avaedge/avaedge/local/api/warp"
	"github.com/avaedge/avaedge/local/source/devnet"
	"github.com/avaedge/avaedge/local/source/devnet/evm"
	"github.com/avaedge/avaedge/local/source/evmindex"
	"github.com/avaedge/avaedge/local/source/pindex"
	"github.com/avaedge/avaedge/local/source/warpsource"
)

// BuildOptions configures Build: which network the local world is, what
// else it follows, and where it keeps its state. Zero values mean the
// documented defaults.
type BuildOptions struct {
	// Routes is the catalogue, overrides applied. Nil means
	// catalog.Catalogue().
	Routes []catalog.Route
	// LocalMode says, per service, that it has no upstream: everything of it
	// is answered locally. The embedded dev chain runs only when some
	// service is local.
	LocalMode map[catalog.Service]bool
	// Networks are the network names the devnet may answer for in proxy
	// mode (AVAEDGE_LOCAL_NETWORKS).
	Networks []string
	// NodeNetwork is the node upstream's Data API network name ("mainnet",
	// "fuji"), "" when there is none or it is unknown. With the node service
	// proxied, the devnet's node methods answer as that network, and they
	// fall back locally only when it is one of Networks.
	NodeNetwork string
	// Node is the base URL of an avalanchego node whose network the local
	// world is (AVAEDGE_LOCAL_NODE): its P- and X-Chain are indexed, its
	// C-Chain followed, its validators asked for signatures. Empty means the
	// devnet.
	Node string
	// Seed makes the devnet: the same seed gives the same world. Zero means
	// the devnet's default.
	Seed int64
	// DevChain configures the embedded EVM dev chain. A nil Now means
	// time.Now.
	DevChain evm.Options
	// DisableDevChain keeps the dev chain from running.
	DisableDevChain bool
	// EVMChains are further EVM nodes the indexer follows; the EVM Data API
	// and the Metrics API answer for them, in proxy mode too.
	EVMChains []EVMChain
	// DataDir keeps the followed node's index (pindex.db), the EVM index
	// (evmindex.db) and the metrics history (metrics.db). Empty means in
	// memory.
	DataDir string
	// PublicURL is the base URL clients reach the edge at: the EVM Data API
	// names the dev chain's RPC endpoint under it.
	PublicURL string
	// Registerer receives the local world's metrics. Nil registers none.
	Registerer prometheus.Registerer
	// Logger logs the local world's progress and errors. Nil means
	// slog.Default().
	Logger *slog.Logger
}

// EVMChain is an EVM node the indexer follows.
type EVMChain struct {
	// ChainID is the EVM chain id.
	ChainID uint64
	// Name is the chain's display name. Empty means "EVM chain <id>".
	Name string
	// RPC is the node's JSON-RPC URL.
	RPC string
	// StartBlock is the first block indexed.
	StartBlock uint64
}

// Build assembles the local world: its primary network (the devnet, or the
// index of the followed node), the EVM chains (the embedded dev chain, the
// followed node's C-Chain, Options.EVMChains) with the indexer that follows
// them, the metrics computed from it, the node's methods and the signature
// aggregator over the network's validators. The Handler owns what Build
// opened: its Close closes it. When a step fails, Build closes what it had
// opened before it returns the error.
func Build(ctx context.Context, opts BuildOptions) (*Handler, error) {
	return build(ctx, opts, buildHooks{})
}

// buildHooks let a test watch Build. step, when set, is asked before each
// step and fails Build with its error; opened and closed, when set, are told
// of each component Build opens and closes.
type buildHooks struct {
	step           func(name string) error
	opened, closed func(name string)
}

// closer is a component Build opened.
type closer struct {
	name  string
	close func() error
}

// wiring records what Build handed each component, so that a test can find
// every option in the component it configures.
type wiring struct {
	devnet   devnet.Config
	pindex   pindex.Options
	devChain *evm.Options // nil when the dev chain does not run
	evmIndex evmindex.Options
	evmInfos []evmdata.ChainInfo
	metrics  metricsapi.Options
}

// builder collects what the steps of Build open and contribute.
type builder struct {
	opts     BuildOptions
	log      *slog.Logger
	hooks    buildHooks
	closers  []closer
	handlers map[string]catalog.Handler
	methods  map[string]jsonrpc.Method
	evmRPC   http.Handler
	evmPaths map[string]http.Handler // the other EVM chains' JSON-RPC, by path
	evmSubs  map[string]*rpc.Client  // every dev chain's subscriptions, by JSON-RPC path
	indexed  map[string]bool         // EVM chain ids followed from real nodes
	wired    wiring
}

func build(ctx context.Context, opts BuildOptions, hooks buildHooks) (*Handler, error) {
	b := &builder{opts: opts, log: opts.Logger, hooks: hooks, handlers: map[string]catalog.Handler{}, indexed: map[string]bool{},
		evmPaths: map[string]http.Handler{}, evmSubs: map[string]*rpc.Client{}}
	if b.log == nil {
		b.log = slog.Default()
	}
	h, err := b.build(ctx)
	if err != nil {
		closeAll(b.closers, b.hooks.closed)
		return nil, err
	}
	return h, nil
}

// step asks the test hook before the step called name.
func (b *builder) step(name string) error {
	if b.hooks.step == nil {
		return nil
	}
	if err := b.hooks.step(name); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

// opened records a component to close, last opened first.
func (b *builder) opened(name string, close func() error) {
	b.closers = append(b.closers, closer{name, close})
	if b.hooks.opened != nil {
		b.hooks.opened(name)
	}
}

func (b *builder) add(hs map[string]catalog.Handler) {
	for name, h := range hs {
		b.handlers[name] = h
	}
}

func (b *builder) path(file string) string {
	if b.opts.DataDir == "" {
		return ""
	}
	return filepath.Join(b.opts.DataDir, file)
}

func (b *builder) build(ctx context.Context) (*Handler, error) {
	// The primary network: the followed node's index, or the devnet.
	var followed *pindex.Index
	var dev *devnet.World
	if b.opts.Node != "" {
		ix, err := b.openNodeIndex(ctx)
		if err != nil {
			return nil, err
		}
		followed = ix
	} else {
		if err := b.step("devnet"); err != nil {
			return nil, err
		}
		b.wired.devnet = devnet.Config{Seed: b.opts.Seed}
		w, err := devnet.New(b.wired.devnet)
		if err != nil {
			return nil, fmt.Errorf("devnet: %w", err)
		}
		b.opened("devnet", w.Close)
		dev = w
	}
	if err := b.buildEVM(ctx, followed, dev); err != nil {
		return nil, err
	}

	// The primary-network Data API routes: one set of handlers over an
	// index, the followed node's or the devnet's. Over a followed node,
	// routes it cannot answer have no local implementation: nothing of the
	// devnet passes for that network. The devnet answers as any network.
	if followed != nil {
		b.add(dataapi.Handlers(dataapi.Options{Source: followed, Logger: b.log}))
	} else {
		b.add(dataapi.Handlers(dataapi.Options{Source: dev.Index(), AnyNetwork: true, Nodes: dev, Proposers: dev, GenesisSupply: devnet.InitialSupply, Logger: b.log}))
	}

	// The node's methods: the followed node's fall back to its index, never
	// to the devnet; the devnet's node answers as the local network, or as
	// the node upstream's network when that is mapped to the devnet.
	if err := b.step("node methods"); err != nil {
		return nil, err
	}
	if followed != nil {
		ms, err := node.IndexMethods(ctx, followed)
		if err != nil {
			return nil, fmt.Errorf("local node: %w", err)
		}
		b.methods = ms
	} else {
		nodeAs := avanet.Local.Name
		if !b.opts.LocalMode[catalog.Node] && b.opts.NodeNetwork != "" {
			nodeAs = b.opts.NodeNetwork
		}
		nw, err := node.FromDevnet(dev, nodeAs)
		if err != nil {
			return nil, fmt.Errorf("local node: %w", err)
		}
		b.methods = node.Methods(nw)
	}

	// Signatures: the devnet's validators, or the followed network's over
	// the p2p protocol.
	if err := b.step("warp source"); err != nil {
		return nil, err
	}
	var src warp.Source
	if followed != nil {
		s, err := warpsource.NewNode(warpsource.NodeOptions{Index: followed, Node: b.opts.Node})
		if err != nil {
			return nil, fmt.Errorf("warp source: %w", err)
		}
		b.opened("warp source", s.Close)
		src = s
	} else {
		src = warpsource.Devnet(dev)
	}
	b.add(warp.NewAggregator(src, warp.Options{Registerer: b.opts.Registerer, Logger: b.log}).Handlers())

	if err := b.step("handler"); err != nil {
		return nil, err
	}
	h := New(Options{
		Routes:       b.opts.Routes,
		Handlers:     b.handlers,
		Methods:      b.methods,
		EVM:          b.evmRPC,
		EVMPaths:     b.evmPaths,
		EVMSubs:      b.evmSubs,
		LocalMode:    b.opts.LocalMode,
		Networks:     b.opts.Networks,
		NodeNetwork:  b.opts.NodeNetwork,
		FollowedNode: followed != nil,
		IndexedChain: func(id string) bool { return b.indexed[id] },
	})
	h.closers, h.onClose, h.wired = b.closers, b.hooks.closed, b.wired
	return h, nil
}

// openNodeIndex opens the index of the followed node's P- and X-Chain and
// starts following. The followers run until the Handler is closed.
func (b *builder) openNodeIndex(ctx context.Context) (*pindex.Index, error) {
	if err := b.step("node index"); err != nil {
		return nil, err
	}
	b.wired.pindex = pindex.Options{Node: b.opts.Node, Path: b.path("pindex.db"), Registerer: b.opts.Registerer, Logger: b.log}
	ix, err := pindex.Open(ctx, b.wired.pindex)
	if err != nil {
		return nil, err
	}
	b.opened("node index", ix.Close)
	ix.Start(context.WithoutCancel(ctx))
	return ix, nil
}

// closeAll closes cs, last opened first, and tells closed of each.
func closeAll(cs []closer, closed func(name string)) error {
	var errs []error
	for i := len(cs) - 1; i >= 0; i-- {
		if err := cs[i].close(); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", cs[i].name, err))
		}
		if closed != nil {
			closed(cs[i].name)
		}
	}
	return errors.Join(errs...)
}
