// Package devnet is the devnet world: avaedge's deterministic offline
// Avalanche. It owns its sources: the generated primary network
// (local/source/devnet: P- and X-Chain history in an index, validators with
// BLS keys, nodes, proposers) and the embedded EVM chains
// (local/source/devnet/evm: the dev chain standing for the C-Chain, and every
// EVM chain the devnet lists). It presents itself as whichever network it is
// asked for (mainnet, fuji, the local network): the HRP of its addresses, its
// chain and AVAX ids, its node's network id.
package devnet

import (
	"context"
	"errors"
	"fmt"

	"github.com/avaedge/avaedge/avanet"
	"github.com/avaedge/avaedge/local/api/dataapi"
	"github.com/avaedge/avaedge/local/api/metricsapi"
	"github.com/avaedge/avaedge/local/api/node"
	"github.com/avaedge/avaedge/local/api/warp"
	gen "github.com/avaedge/avaedge/local/source/devnet"
	"github.com/avaedge/avaedge/local/source/devnet/evm"
	"github.com/avaedge/avaedge/local/world"
	"github.com/avaedge/avaedge/local/world/devnet/primary"
)

// Options configures Open. Zero values mean the documented defaults.
type Options struct {
	// Seed makes the devnet: the same seed gives the same world. Zero means
	// the generator's default.
	Seed int64
	// Chains runs the embedded EVM chains. False means none runs: the
	// world brings no EVM chain.
	Chains bool
	// DevChain configures every embedded chain (its bounds, its clock). A
	// nil Now means time.Now.
	DevChain evm.Options
	// PublicURL is the base URL clients reach the edge at: the EVM Data API
	// names the chains' RPC endpoints under it.
	PublicURL string
	// ChainsDir keeps the embedded chains, each in a directory named after
	// its chain id (evm.Options.Dir): they continue where they stopped, and
	// are seeded only when new. Empty means memory: every Open seeds them
	// again.
	ChainsDir string
}

// World is the devnet as a world.World. Its methods are safe for concurrent
// use; Close is called once.
type World struct {
	opts    Options
	gen     *gen.World
	chains  []world.EVMChain
	closers []func() error // what Open opened, in order
}

var _ world.World = (*World)(nil)

// Open makes the devnet and, with Options.Chains, starts its embedded EVM
// chains. When a step fails, Open closes what it had opened before it
// returns the error.
func Open(ctx context.Context, opts Options) (*World, error) {
	w := &World{opts: opts}
	g, err := gen.New(gen.Config{Seed: opts.Seed})
	if err != nil {
		return nil, fmt.Errorf("devnet: %w", err)
	}
	w.gen = g
	w.opened(g.Close)
	if opts.Chains {
		if err := w.startChains(ctx); err != nil {
			w.Close()
			return nil, err
		}
	}
	return w, nil
}

// opened records a component to close.
func (w *World) opened(close func() error) { w.closers = append(w.closers, close) }

// Close closes the embedded chains and the generated network's index, last
// opened first.
func (w *World) Close() error {
	var errs []error
	for i := len(w.closers) - 1; i >= 0; i-- {
		errs = append(errs, w.closers[i]())
	}
	return errors.Join(errs...)
}

// Generated returns the generated primary network.
func (w *World) Generated() *gen.World { return w.gen }

// DataSource is the generated network's index, answering as any network,
// with the nodes and block proposers only the devnet knows and the AVAX its
// genesis made.
func (w *World) DataSource() dataapi.Options {
	return dataapi.Options{Source: w.gen.Index(), AnyNetwork: true, Nodes: w.gen, Proposers: w.gen, GenesisSupply: gen.InitialSupply}
}

// Stakes are the generated network's, their addresses printed in the
// requested network's HRP (the devnet's own for a name avanet does not
// know).
func (w *World) Stakes() (metricsapi.StakeSource, func(string) string) {
	ix := w.gen.Index()
	return ix, func(name string) string {
		if n, ok := avanet.ByName(name); ok && name != "" {
			return n.HRP
		}
		return ix.Network().HRP
	}
}

// Node answers as the network named as: the devnet's first BLS-keyed
// primary validator's node (primary.NodeView). The methods answer for the node
// upstream only where its network is mapped to the devnet.
func (w *World) Node(_ context.Context, as string) (world.NodeMethods, error) {
	v, err := primary.NodeView(w.gen, as)
	if err != nil {
		return world.NodeMethods{}, err
	}
	return world.NodeMethods{Methods: node.Methods(v)}, nil
}

// WarpSource signs with the devnet's validators' own BLS keys.
func (w *World) WarpSource() warp.Source { return primary.NewSigner(w.gen) }

// EVMChains are the running embedded chains (none without
// Options.Chains), the first the dev chain standing for the C-Chain, and
// the devnet's EVM chains by blockchain id.
func (w *World) EVMChains() ([]world.EVMChain, map[string]uint64) { return w.chains, w.knownChains() }

var (
	_ warp.Source          = primary.Signer{}
	_ warp.MessageNetworks = primary.Signer{}
	_ dataapi.Nodes        = (*gen.World)(nil)
	_ dataapi.Proposers    = (*gen.World)(nil)
)
