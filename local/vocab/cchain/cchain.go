// Package cchain maps the ids a client of the real services uses for the
// C-Chain (its EVM chain id or its blockchain id, on mainnet, fuji or the
// local network) onto the local world's C-Chain. Local mode answers every
// network from the devnet, so an application written for mainnet or fuji
// reads the C-Chain offline under the ids it already uses. It is for local
// mode only: in proxy mode devnet data must never pass for a real network's.
package cchain

import (
	"strconv"

	"github.com/avaedge/avaedge/avanet"
)

// ID is the C-Chain as one network names it.
type ID struct {
	// EVMChainID is the chain id of the EVM (eth_chainId).
	EVMChainID uint64
	// BlockchainID is the Avalanche blockchain id, in cb58.
	BlockchainID string
	// Network is "mainnet", "fuji" or "local".
	Network string
}

// The C-Chain's ids on the public networks and on avalanchego's local
// network (avalanchego's genesis configs).
var (
	Mainnet = idOf(avanet.Mainnet)
	Fuji    = idOf(avanet.Fuji)
	Local   = idOf(avanet.Local)
)

func idOf(n avanet.Network) ID {
	return ID{EVMChainID: n.EVMChainID, BlockchainID: n.CChainID, Network: n.Name}
}

// Aliases resolves requested chain ids onto the local C-Chain. A nil
// *Aliases resolves nothing. It is immutable and safe for concurrent use.
type Aliases struct {
	// Target is the EVM chain id of the chain that answers: the local
	// world's C-Chain (the embedded dev chain, 43112 by default).
	Target uint64
	// BlockchainID is the target's own blockchain id, also accepted (the
	// devnet's C-Chain id). Empty means Local.BlockchainID only.
	BlockchainID string
}

// Resolve reports whether requested (a decimal EVM chain id or a blockchain
// id, exactly as in a path) names the C-Chain on mainnet, fuji or the local
// network, and returns the C-Chain as that network names it, so that answers
// carry the ids the client asked for. The target's own ids (Target and
// BlockchainID) resolve as the local network with EVMChainID Target. Callers look for an exact match
// among the chains they serve first: an alias only fills in for a chain
// they do not have.
func (a *Aliases) Resolve(requested string) (ID, bool) {
	if a == nil || a.Target == 0 || len(requested) > 64 {
		return ID{}, false
	}
	own := Local
	own.EVMChainID = a.Target
	if a.BlockchainID != "" {
		own.BlockchainID = a.BlockchainID
	}
	for _, id := range [...]ID{Mainnet, Fuji, Local, own} {
		if requested == id.BlockchainID || requested == strconv.FormatUint(id.EVMChainID, 10) {
			return id, true
		}
	}
	return ID{}, false
}
