package local

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"slices"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/avaedge/avaedge/avanet"
	"github.com/avaedge/avaedge/catalog"
	"github.com/avaedge/avaedge/local/api/dataapi"
	"github.com/avaedge/avaedge/local/api/warp"
	"github.com/avaedge/avaedge/local/source/devnet/evm"
	"github.com/avaedge/avaedge/local/source/pindex"
	"github.com/avaedge/avaedge/local/world"
	"github.com/avaedge/avaedge/local/world/devnet"
	"github.com/avaedge/avaedge/local/world/followed"
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
	// IndexURL is a postgres:// URL: the followed network's P/X index and
	// the EVM index of its chains live there, shared by a fleet of
	// replicas, one of which (the holder of one lease in the database)
	// follows every chain while the others read and stand by. Empty means
	// pindex.db and evmindex.db in DataDir.
	IndexURL string
	// IndexReadURL is a postgres:// URL of a read replica of IndexURL's
	// database (a streaming hot standby): the route reads (the indexes'
	// queries, the Metrics history a standby reads) and a standby's
	// refresh of the stored heads go there, the holder's too; the lease,
	// the writer's writes and reads for writing, and the migrations stay
	// on IndexURL. Answers lag by the replica's replay lag. Empty means
	// IndexURL.
	IndexReadURL string
	// DataDir keeps the followed node's index (pindex.db), the EVM index
	// (evmindex.db), the metrics history (metrics.db) and the devnet's
	// embedded chains (devchains/<chain id>/, go-ethereum's database).
	// Empty means in memory.
	DataDir string
	// ResetDevChains starts the devnet's embedded chains again from their
	// seed: their directories in DataDir are removed first (the EVM index
	// then drops what the chains no longer have, as after a re-org).
	ResetDevChains bool
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

// Build assembles the local world: it opens the world (the devnet, or the
// network of the followed node), follows the world's EVM chains and
// Options.EVMChains with one EVM index that feeds the metrics engine, and
// wires the world to the handlers of each API (the Data API, the Metrics
// API, the node's methods, the signature aggregator). The Handler owns what
// Build opened: its Close closes it. When a step fails, Build closes what it
// had opened before it returns the error.
func Build(ctx context.Context, opts BuildOptions) (*Handler, error) {
	return build(ctx, opts, buildHooks{})
}

func build(ctx context.Context, opts BuildOptions, hooks buildHooks) (*Handler, error) {
	b := &builder{opts: opts, log: opts.Logger, hooks: hooks, handlers: map[string]catalog.Handler{}}
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

// build wires the world to the handlers, one step after the other.
func (b *builder) build(ctx context.Context) (*Handler, error) {
	o := b.opts
	if err := b.step("world"); err != nil {
		return nil, err
	}
	w, err := b.openWorld(ctx)
	if err != nil {
		return nil, err
	}
	b.opened("world", w.Close)

	// The EVM chains and the metrics over them, with the primary network's
	// stakes.
	wc, known := w.EVMChains()
	chains := append(slices.Clone(wc), configuredChains(o.EVMChains)...)
	e, err := b.openEVM(ctx, chains, w)
	if err != nil {
		return nil, err
	}
	if err := b.waitFor(ctx, e.index, chains); err != nil {
		return nil, err
	}
	data, metrics := e.handlers(chains, known, o.LocalMode)
	b.add(data)
	b.add(metrics)

	// The primary network's Data API routes: routes a world cannot answer
	// have no local implementation, so nothing of one world passes for
	// another.
	ds := w.DataSource()
	ds.Logger = b.log
	b.add(dataapi.Handlers(ds))

	// The node's methods: the devnet's node answers as the local network,
	// or as the node upstream's network when that is mapped to the devnet.
	if err := b.step("node methods"); err != nil {
		return nil, err
	}
	nodeAs := avanet.Local.Name
	if !o.LocalMode[catalog.Node] && o.NodeNetwork != "" {
		nodeAs = o.NodeNetwork
	}
	nm, err := w.Node(ctx, nodeAs)
	if err != nil {
		return nil, fmt.Errorf("local node: %w", err)
	}

	// Signatures: the world's validators.
	if err := b.step("warp source"); err != nil {
		return nil, err
	}
	b.add(warp.NewAggregator(w.WarpSource(), warp.Options{Registerer: o.Registerer, Logger: b.log}).Handlers())

	if err := b.step("handler"); err != nil {
		return nil, err
	}
	rpc, paths, subs := evmRPC(chains)
	h := New(Options{
		Routes:       o.Routes,
		Handlers:     b.handlers,
		Methods:      nm.Methods,
		EVM:          rpc,
		EVMPaths:     paths,
		EVMSubs:      subs,
		LocalMode:    o.LocalMode,
		Networks:     o.Networks,
		NodeNetwork:  o.NodeNetwork,
		RealNode:     nm.Real,
		IndexedChain: indexedChains(chains),
	})
	h.closers, h.onClose, h.wired = b.closers, b.hooks.closed, b.wired
	return h, nil
}

// openWorld opens the world: the network of the followed node when
// Options.Node names one, the devnet otherwise. The devnet's embedded
// chains run when some service is local.
func (b *builder) openWorld(ctx context.Context) (world.World, error) {
	o := b.opts
	if o.Node != "" {
		b.wired.followed = followed.Options{Node: o.Node, Path: b.path("pindex.db"), Registerer: o.Registerer, Logger: b.log}
		if o.IndexURL == "" {
			return followed.Open(ctx, b.wired.followed)
		}
		st, err := pindex.OpenPostgres(ctx, o.IndexURL, b.log, b.fence)
		if err != nil {
			return nil, fmt.Errorf("p/x index: %w", err)
		}
		b.wired.followed.Path, b.wired.followed.Store, b.wired.followed.Shared = "", st, true
		if o.IndexReadURL != "" {
			if b.wired.followed.Replica, err = pindex.OpenPostgresReplica(ctx, o.IndexReadURL); err != nil {
				st.Close()
				return nil, fmt.Errorf("p/x index: %w", err)
			}
		}
		w, err := followed.Open(ctx, b.wired.followed)
		if err != nil {
			return nil, err
		}
		b.sharedPX = w.Index()
		return w, nil
	}
	local := o.LocalMode[catalog.Data] || o.LocalMode[catalog.Metrics] || o.LocalMode[catalog.Node]
	b.wired.devnet = devnet.Options{Seed: o.Seed, Chains: local && !o.DisableDevChain, DevChain: o.DevChain, PublicURL: o.PublicURL,
		ChainsDir: b.path("devchains")}
	if err := b.resetDevChains(); err != nil {
		return nil, err
	}
	return devnet.Open(ctx, b.wired.devnet)
}

// resetDevChains removes the dev chains' directories when
// Options.ResetDevChains asks for it, and says so.
func (b *builder) resetDevChains() error {
	dir := b.wired.devnet.ChainsDir
	if !b.opts.ResetDevChains || dir == "" || !b.wired.devnet.Chains {
		return nil
	}
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("resetting the dev chains: %w", err)
	}
	b.log.Warn("dev chains reset to their seed: what was done on them is gone (local.evm.reset_dev_chains)", "dir", dir)
	return nil
}
