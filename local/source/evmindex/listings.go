package evmindex

import (
	"math/big"
	"slices"

	"github.com/ethereum/go-ethereum/common"
)

// ListedInternal is a listed internal transaction with its transaction and
// block.
type ListedInternal struct {
	InternalTx
	Seq            int64 // block<<28 | the frame's position among the block's frames: the listing's cursor
	TxHash         common.Hash
	BlockNumber    uint64
	BlockHash      common.Hash
	BlockTimestamp uint64
}

// InternalQuery selects an address's internal transactions in blocks
// [StartBlock, EndBlock) (EndBlock 0: no bound) before the cursor Before (0:
// none), newest first.
type InternalQuery struct {
	ChainID              uint64
	Address              common.Address
	StartBlock, EndBlock uint64
	Before               int64
	Limit                int
}

// Deployment is how a contract was created.
type Deployment struct {
	Creation
	// Origin is the sender of the transaction that created the contract;
	// Deployer, when it differs, is the contract (a factory) that ran
	// CREATE or CREATE2.
	Origin      common.Address
	BlockNumber uint64
	Seq         int64 // block<<28 | the creation's position in its block: the listing's cursor
}

// Collectible is an ERC-721 token an owner holds or an ERC-1155 balance.
type Collectible struct {
	Holding
	Seq int64 // the transfer that last changed the holding: the listing's cursor
}

// CollectionToken is a token id of an NFT collection.
type CollectionToken struct {
	TokenID *big.Int
	Seq     int64           // its first transfer: the listing's cursor
	Owner   *common.Address // an ERC-721 token's current owner; nil when burned or ERC-1155
}

// Holder is an address holding a token, with how much: the number of an
// NFT contract's tokens (ERC-721 tokens, ERC-1155 ids with a balance), or
// an ERC-20 balance.
type Holder struct {
	Address common.Address
	Amount  *big.Int
}

// sortHolders orders holders by amount, the largest first, then address.
func sortHolders(hs []Holder) {
	slices.SortFunc(hs, func(a, b Holder) int {
		if c := b.Amount.Cmp(a.Amount); c != 0 {
			return c
		}
		return a.Address.Cmp(b.Address)
	})
}
