package node

import (
	"encoding/json"
	"net/netip"
	"time"

	"github.com/avaedge/avaedge/avanet"
	"github.com/avaedge/avaedge/local/vocab/avax"
)

// View is the network that the node methods describe, as one of its
// validators sees it. Build it once (FromDevnet, or by hand in tests) and do
// not change it after Methods; the interfaces it holds must be safe for
// concurrent use.
type View struct {
	// NetworkID is the network's id: 12345 on the devnet, 1 or 5 when it
	// impersonates mainnet or fuji. It also decides the address HRP, the
	// network name, the default upgrade schedule and the fees.
	NetworkID uint32
	// Node is the node that answers.
	Node Node
	// Chains are the blockchains the node runs, with their aliases. The one
	// aliased "X" is the X-Chain the avm methods serve; its first alias
	// prefixes every address they print.
	Chains []Chain
	// Peers are the node's connected peers.
	Peers []Peer
	// Assets are the X-Chain's assets.
	Assets []Asset
	// AssetLookup finds an asset Assets does not list (an index that grows).
	// Nil means none.
	AssetLookup func(id avax.ID) (*Asset, bool)
	// Upgrades is the upgrade schedule. Nil means UpgradesFor(NetworkID).
	Upgrades *Upgrades
	// Blocks is the X-Chain's accepted blocks. Nil means the chain is not
	// linearized: the block methods answer the node's "chain is not
	// linearized" error.
	Blocks Blocks
	// Txs is the X-Chain's accepted transactions. Nil means none.
	Txs Txs
	// UTXOs is the X-Chain's unspent outputs. Nil means none.
	UTXOs UTXOs
	// Staking is the P-Chain's staker set and its history, which answer
	// getStake, getMinStake, getValidatorsAt, getAllValidatorsAt and
	// sampleValidators. Nil means only a node answers them.
	Staking Staking
	// Now is the node's clock, which decides whether a locktime has passed.
	// Nil means time.Now.
	Now func() time.Time
}

// Node is the answering node's identity.
type Node struct {
	ID avax.NodeID
	// PublicKey is the 48-byte compressed BLS public key and
	// ProofOfPossession the 96-byte signature of it under the PoP DST.
	PublicKey, ProofOfPossession []byte
	// IP is the node's staking address.
	IP netip.AddrPort
	// Version is the node's version. Empty means "avalanchego/1.14.2".
	Version string
	// Weights is the node's validator weight per subnet (the empty id is
	// the primary network); uptime and acps count it.
	Weights map[avax.ID]uint64
}

// Chain is a blockchain the node runs.
type Chain struct {
	ID avax.ID
	// Aliases name the chain besides its id; the first is its primary
	// alias ("X", "P", "C"). The id's cb58 form is always an alias.
	Aliases []string
}

// Peer is one connected peer.
type Peer struct {
	NodeID  avax.NodeID
	IP      netip.AddrPort
	Version string
	// LastSent and LastReceived are the last message times.
	LastSent, LastReceived time.Time
	// ObservedUptime is this node's uptime in percent as the peer reports
	// observing it.
	ObservedUptime uint32
	// TrackedSubnets are the subnets the peer validates besides the
	// primary network.
	TrackedSubnets []avax.ID
	// SupportedACPs and ObjectedACPs are the peer's votes on proposals.
	SupportedACPs, ObjectedACPs []uint32
	// Weights is the peer's validator weight per subnet.
	Weights map[avax.ID]uint64
}

// Asset is an X-Chain asset.
type Asset struct {
	// ID is the id the methods print and accept.
	ID avax.ID
	// Raw is the id in UTXO and transaction bytes when it differs from ID
	// (the devnet impersonating a network keeps its own bytes). Zero means
	// ID.
	Raw avax.ID
	// Alias names the asset ("AVAX"); empty means none.
	Alias        string
	Name, Symbol string
	Denomination uint8
}

func (a *Asset) raw() avax.ID {
	if a.Raw.IsEmpty() {
		return a.ID
	}
	return a.Raw
}

// Blocks is the X-Chain's accepted post-linearization blocks, as avalanchego
// bytes (codec version 0, StandardBlock).
type Blocks interface {
	// Block returns the bytes of the accepted block with id.
	Block(id avax.ID) ([]byte, bool)
	// BlockAt returns the bytes of the accepted block at height.
	BlockAt(height uint64) ([]byte, bool)
	// Height returns the last accepted height; false when there is no block.
	Height() (uint64, bool)
}

// JSONBlocks is implemented by Blocks that keep the node's own JSON of each
// block; encoding "json" answers with it.
type JSONBlocks interface {
	BlockJSON(id avax.ID) (json.RawMessage, bool)
}

// JSONTxs is implemented by Txs that keep the node's own JSON of each
// transaction; encoding "json" answers with it.
type JSONTxs interface {
	TxJSON(id avax.ID) (json.RawMessage, bool)
}

// Txs is the X-Chain's accepted transactions.
type Txs interface {
	// Tx returns the signed bytes of the accepted transaction with id.
	Tx(id avax.ID) ([]byte, bool)
}

// UTXOs is the X-Chain's unspent outputs, indexed by address like
// avalanchego's UTXO state and shared memory.
type UTXOs interface {
	// UTXOs returns the unspent outputs that addr may spend: on the X-Chain
	// when source is the X-Chain's id, newest first (avalanchego keeps a
	// linked list per address and adds each new UTXO at its head; a
	// transaction's outputs in index order), otherwise those exported to it
	// from the chain source and not yet imported, in any order (shared
	// memory is read in id order).
	UTXOs(source avax.ID, addr avax.ShortID) []*avax.UTXO
}

func (w *View) now() time.Time {
	if w.Now == nil {
		return time.Now()
	}
	return w.Now()
}

func (w *View) hrp() string { return avanet.HRP(w.NetworkID) }
