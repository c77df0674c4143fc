package evmindex

import (
	"context"
	"errors"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
)

// BlockRow is a stored block.
type BlockRow struct {
	ChainID       uint64
	Number        uint64
	Hash          common.Hash
	ParentHash    common.Hash
	Timestamp     uint64
	TxCount       int
	GasUsed       uint64
	GasLimit      uint64
	BaseFee       *big.Int
	FeesSpent     *big.Int
	CumulativeTxs uint64 // transactions from the first indexed block through this one
}

// ErrNotFound is returned for a block, transaction, contract or token the
// store does not have.
var ErrNotFound = errors.New("evmindex: not found")

// TransferRow is a stored transfer with its block.
type TransferRow struct {
	Transfer
	Seq            int64 // position: block<<28 | logIndex<<10 | batchIndex
	BlockNumber    uint64
	BlockHash      common.Hash
	BlockTimestamp uint64
}

// TransferQuery selects transfers, newest first. Exactly one of Contract and
// Address is set; with Address, Kind is required.
type TransferQuery struct {
	ChainID    uint64
	Contract   *common.Address // transfers of this token contract
	Address    *common.Address // transfers from or to this address
	Kind       TokenKind       // with Address: the standard
	StartBlock uint64          // inclusive
	EndBlock   uint64          // exclusive; 0 means no bound
	Before     int64           // keyset cursor: only Seq < Before; 0 means none
	Limit      int
}

// Token is a token contract's kind, name, symbol and decimals.
type Token struct {
	Address  common.Address
	Kind     TokenKind
	Name     string
	Symbol   string
	Decimals uint8
}

// Spam reports whether the token is spam as the local world defines it: an
// ERC-20 contract whose name or symbol could not be read (a call that
// reverted or returned no string), which no wallet could show for what it
// is. The real Data API rates tokens with a security analysis the local
// world does not have; this rule is what filterSpamTokens filters and what
// tokenReputation "Malicious" means locally.
func (t Token) Spam() bool { return t.Kind == ERC20 && (t.Name == "" || t.Symbol == "") }

// Holding is a balance of one token (and token id, for NFTs).
type Holding struct {
	Contract common.Address
	Kind     TokenKind
	TokenID  *big.Int // nil for ERC-20
	Balance  *big.Int
}

// HoldingQuery selects an owner's holdings of one standard, ordered by
// contract then token id.
type HoldingQuery struct {
	ChainID   uint64
	Owner     common.Address
	Kind      TokenKind
	Contracts []common.Address // filter; empty means all
	AtBlock   *uint64          // balances after this block; nil means the latest (ERC-721 supports only nil)
	NoSpam    bool             // leave out spam tokens (Token.Spam)
	// After, when set, is the Key of the previous page's last holding: the
	// holdings after it, found by key.
	After []byte
	Limit int
}

// Key is the holding's place in the order of an owner's holdings: its
// contract, then its token id as 32 bytes (none for ERC-20).
func (h Holding) Key() []byte {
	k := h.Contract.Bytes()
	if h.TokenID != nil {
		k = append(k, idBytes(h.TokenID)...)
	}
	return k
}

// idBytes is a token id as a 32-byte big-endian key.
func idBytes(id *big.Int) []byte {
	var b [32]byte
	id.FillBytes(b[:])
	return b[:]
}

// Holdings returns the owner's holdings. Current balances are one index
// range; a past block replays the owner's transfers up to it.
func (ix *Index) Holdings(ctx context.Context, q HoldingQuery) ([]Holding, error) {
	if q.AtBlock != nil {
		if head, ok := ix.Head(q.ChainID); !ok || *q.AtBlock < head {
			return ix.reader.HoldingsAt(ctx, q)
		}
	}
	return ix.reader.Holdings(ctx, q)
}
