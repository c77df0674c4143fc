// Package followed is the world of a followed avalanchego node
// (AVAEDGE_LOCAL_NODE): the node's own network, indexed. It owns its
// sources: the index of the node's P- and X-Chain (local/source/pindex,
// followed until Close), its validators asked for signatures over the p2p
// protocol (local/source/warpsource), and the node's C-Chain, which the EVM
// index follows. It answers as itself under every network name, and nothing
// of the devnet ever passes for it.
package followed

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/avaedge/avaedge/local/api/dataapi"
	"github.com/avaedge/avaedge/local/api/metricsapi"
	"github.com/avaedge/avaedge/local/api/node"
	"github.com/avaedge/avaedge/local/api/warp"
	"github.com/avaedge/avaedge/local/source/pindex"
	"github.com/avaedge/avaedge/local/source/warpsource"
	"github.com/avaedge/avaedge/local/world"
)

// Options configures Open. Zero values mean the documented defaults.
type Options struct {
	// Node is the avalanchego node's base URL, e.g. "http://127.0.0.1:9650".
	// Required.
	Node string
	// Path is the index's SQLite file. Empty means a private temporary file
	// (pindex.Options.Path).
	Path string
	// Store is the index's store in place of Path's (a PostgreSQL store a
	// fleet shares: pindex.OpenPostgres). Close closes it.
	Store pindex.Store
	// Replica is Store's database on a read replica
	// (pindex.OpenPostgresReplica), which the queries read
	// (pindex.Options.Replica). Nil means Store. Close closes it.
	Replica pindex.Store
	// Shared means a fleet of replicas shares Store: Open does not follow
	// the node; the caller calls the Index's Lead while this replica holds
	// the fleet's lease, and its Refresh while it does not.
	Shared bool
	// Registerer receives the index's metrics. Nil registers none.
	Registerer prometheus.Registerer
	// Logger logs the index's progress and errors. Nil means
	// slog.Default().
	Logger *slog.Logger
}

// World is a followed node's network as a world.World. Its methods are safe
// for concurrent use; Close is called once.
type World struct {
	ix     *pindex.Index
	signer *warpsource.Node
	chains []world.EVMChain
}

var (
	_ world.World = (*World)(nil)
	_ warp.Source = (*warpsource.Node)(nil)
)

// Open opens the index of the node's P- and X-Chain (from its store when
// the node does not answer) and starts following the node, opens the
// signature source over its validators and describes its C-Chain (see
// cChain). When a step fails, Open closes what it had opened before it
// returns the error.
func Open(ctx context.Context, opts Options) (*World, error) {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	ix, err := pindex.Open(ctx, pindex.Options{Node: opts.Node, Path: opts.Path, Store: opts.Store, Replica: opts.Replica, Registerer: opts.Registerer, Logger: opts.Logger})
	if err != nil {
		return nil, err
	}
	signer, err := warpsource.NewNode(warpsource.NodeOptions{Index: ix, Node: opts.Node})
	if err != nil {
		ix.Close()
		return nil, fmt.Errorf("warp source: %w", err)
	}
	if !opts.Shared {
		ix.Start(context.WithoutCancel(ctx))
	}
	w := &World{ix: ix, signer: signer}
	if c, err := cChain(ctx, opts.Node, ix.Network(), opts.Logger); err != nil {
		opts.Logger.Warn("the followed node's C-Chain is not indexed", "err", err)
	} else {
		w.chains = append(w.chains, c)
	}
	return w, nil
}

// Close closes the signature source's connections, then stops following
// and closes the index.
func (w *World) Close() error {
	return errors.Join(w.signer.Close(), w.ix.Close())
}

// Index returns the index of the node's P- and X-Chain.
func (w *World) Index() *pindex.Index { return w.ix }

// DataSource is the index, answering as its network under every name.
// Routes it cannot answer have no local implementation.
func (w *World) DataSource() dataapi.Options { return dataapi.Options{Source: w.ix} }

// Stakes are the index's, their addresses printed in the network's own HRP
// whatever the name asked for.
func (w *World) Stakes() (metricsapi.StakeSource, func(string) string) {
	hrp := w.ix.Network().HRP
	return w.ix, func(string) string { return hrp }
}

// Node answers from the index what a client gets while the node does not
// answer (node.IndexMethods), as the network itself whatever as says. The
// methods are a real network's.
func (w *World) Node(ctx context.Context, _ string) (world.NodeMethods, error) {
	ms, err := node.IndexMethods(ctx, w.ix)
	if err != nil {
		return world.NodeMethods{}, err
	}
	return world.NodeMethods{Methods: ms, Real: true}, nil
}

// WarpSource asks the network's validators over the p2p protocol.
func (w *World) WarpSource() warp.Source { return w.signer }

// EVMChains is the node's C-Chain, when its id is known; the world knows no
// other EVM chain by id.
func (w *World) EVMChains() ([]world.EVMChain, map[string]uint64) { return w.chains, nil }
