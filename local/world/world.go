// Package world states what a local world is: the network avaedge's local
// handlers answer from. A world is a value: the devnet (local/world/devnet)
// and a followed avalanchego node's network (local/world/followed) each
// implement World in their own package, opening and owning their sources;
// local.Build opens one and wires it to the handlers in one pass, without
// asking which it has. A third world is a new package implementing World.
//
// The package sits between the wiring (local) and the worlds: it imports the
// handlers' and sources' types a world hands over, and nothing that imports
// it.
package world

import (
	"context"
	"net/http"

	"github.com/ethereum/go-ethereum/rpc"

	"github.com/avaedge/avaedge/jsonrpc"
	"github.com/avaedge/avaedge/local/api/dataapi"
	"github.com/avaedge/avaedge/local/api/evmdata"
	"github.com/avaedge/avaedge/local/api/metricsapi"
	"github.com/avaedge/avaedge/local/api/warp"
	"github.com/avaedge/avaedge/local/source/evmindex"
)

// World is one local world. Build calls each method once while it wires the
// world, then owns it: Close closes what the world opened (its indexes, its
// chains, its connections), last opened first, and may be called once.
type World interface {
	Primary
	Node
	Warp
	EVM
	Close() error
}

// Primary is the world's primary network as the Data API and the Metrics
// API read it.
type Primary interface {
	// DataSource returns what the Data API's primary-network handlers read:
	// the index (Source), whether the world answers as any network it is
	// asked for (AnyNetwork) and what it knows beyond the index (Nodes,
	// Proposers, GenesisSupply). Now and Logger are the wiring's.
	DataSource() dataapi.Options
	// Stakes returns the P-Chain stakes the staking and L1 metrics read, and
	// the HRP their addresses are printed in for a requested network name.
	Stakes() (metricsapi.StakeSource, func(network string) string)
}

// Node is the world's node.
type Node interface {
	// Node returns the node's info.* and avm.* methods. A world that presents
	// itself as any network (the devnet) answers as the network named as; a
	// world that is one network answers as itself.
	Node(ctx context.Context, as string) (NodeMethods, error)
}

// NodeMethods are a world's node methods.
type NodeMethods struct {
	// Methods answer by method name ("info.getNetworkID").
	Methods map[string]jsonrpc.Method
	// Real says they are a real network's (a followed node's index): in
	// proxy mode they answer whenever the node upstream fails. False means
	// they answer only when the node upstream's network is mapped to the
	// world (local.Options.Networks).
	Real bool
}

// Warp is the world's signature source.
type Warp interface {
	// WarpSource returns the source the signature aggregator signs from.
	WarpSource() warp.Source
}

// EVM is what the world brings to the EVM routes.
type EVM interface {
	// EVMChains returns the world's EVM chains, and the EVM chains it knows
	// by blockchain id (the EVM chain id an ICM answer names for them).
	EVMChains() (chains []EVMChain, known map[string]uint64)
}

// EVMChain is one EVM chain of a world: how the EVM index follows it, how the
// EVM Data API and the Metrics API describe it, and how it is served.
type EVMChain struct {
	// Index is how the EVM index follows it. The wiring adds the ICM
	// messengers and the blockchain id (from Metrics.BlockchainID).
	Index evmindex.ChainOptions
	// Info describes it to the EVM Data API, Metrics to the Metrics API.
	Info    evmdata.ChainInfo
	Metrics metricsapi.Chain
	// CChain says it is the world's C-Chain: in local mode every id a
	// client of the real services uses for the C-Chain resolves to it.
	CChain bool
	// Real says it is followed from a real node, so its EVM and Metrics
	// routes answer from the index in proxy mode too.
	Real bool
	// Pending says its node may not have answered yet: its routes answer
	// 503 until the index is ready for it.
	Pending bool
	// RPC serves its JSON-RPC (an embedded chain) on Paths, and, for the
	// world's C-Chain, on the node's C-Chain endpoints (/ext/bc/C/rpc). Nil
	// for a followed chain.
	RPC   http.Handler
	Paths []string
	// Subscriber serves eth_subscribe for it on the same paths' WebSocket
	// twins (an embedded chain's in-process client; the edge shares each
	// subscription it holds between the clients that subscribe alike). Nil
	// for a followed chain, whose WebSocket is its node's.
	Subscriber *rpc.Client
	// Head is the height the index reaches before Build returns (an
	// embedded chain's seeded head). Zero means no wait.
	Head uint64
}
