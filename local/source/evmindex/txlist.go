package evmindex

import (
	"math"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
)

// TxPos is a transaction's position in its chain: block<<24 | index. It
// orders transactions and is the cursor of their listings.
type TxPos uint64

// PosOf returns the position of transaction index of block.
func PosOf(block uint64, index uint) TxPos { return TxPos(block<<24 | uint64(index&(1<<24-1))) }

// Block returns the block number of p.
func (p TxPos) Block() uint64 { return uint64(p) >> 24 }

// Index returns the transaction's index in its block.
func (p TxPos) Index() uint { return uint(p & (1<<24 - 1)) }

// maxPos is past every position.
const maxPos = TxPos(math.MaxInt64)

// ListedTx is a transaction of a listing, with its block and the four first
// bytes of its input (its method selector) instead of the whole input.
type ListedTx struct {
	Tx
	BlockNumber          uint64
	BlockHash            common.Hash
	BlockTimestamp       uint64
	MaxFeePerGas         *big.Int // nil for legacy transactions
	MaxPriorityFeePerGas *big.Int
	Selector             []byte // empty for a plain transfer
}

// Pos returns the transaction's position.
func (t *ListedTx) Pos() TxPos { return PosOf(t.BlockNumber, t.Index) }

// Range selects positions From <= p < To, newest first unless Asc. Zero To
// means no bound.
type Range struct {
	From, To TxPos
	Asc      bool
}

// Blocks returns the positions of blocks [start, end); end 0 means no bound.
func Blocks(start, end uint64) Range {
	r := Range{From: PosOf(start, 0), To: maxPos}
	if end != 0 && end < 1<<39 {
		r.To = PosOf(end, 0)
	}
	return r
}

// After narrows r to the positions after cursor c in r's order.
func (r Range) After(c TxPos) Range {
	if r.Asc {
		r.From = max(r.From, c+1)
	} else {
		r.To = min(r.To, c)
	}
	return r
}

func (r Range) to() TxPos {
	if r.To == 0 {
		return maxPos
	}
	return r.To
}

// AddressTxQuery selects an address's transactions.
type AddressTxQuery struct {
	ChainID uint64
	Address common.Address
	// Native keeps the transactions the address sent or received itself
	// (not only through their token transfers or internal transactions).
	Native bool
	// NoSpam leaves out the transactions in which the address's only part is
	// transfers of spam tokens (Token.Spam).
	NoSpam bool
	Range  Range
	Limit  int
}

// TxStatus filters transactions by outcome.
type TxStatus int

// Transaction status filters.
const (
	AnyStatus TxStatus = iota
	Succeeded
	Failed
)

// TxParts are the token transfers and listed internal transactions of some
// transactions in which an address took part, by transaction hash.
type TxParts struct {
	Transfers map[common.Hash][]TransferRow
	Internals map[common.Hash][]InternalTx
}
