package evmindex

import (
	"context"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
)

// Block is one indexed block as handed to Options.OnBlock. The hook must not
// modify it.
type Block struct {
	ChainID    uint64
	Number     uint64
	Hash       common.Hash
	ParentHash common.Hash
	Timestamp  uint64 // Unix seconds
	GasUsed    uint64
	GasLimit   uint64
	BaseFee    *big.Int // nil before London
	Txs        []Tx
	Transfers  []Transfer
	Creations  []Creation
}

// Tx is a transaction of a Block with its receipt's outcome.
type Tx struct {
	Hash              common.Hash
	Index             uint
	Type              uint8
	From              common.Address
	To                *common.Address // nil for a contract creation
	Value             *big.Int
	Nonce             uint64
	GasLimit          uint64
	GasUsed           uint64
	EffectiveGasPrice *big.Int
	Fee               *big.Int // GasUsed * EffectiveGasPrice
	Status            uint64   // 1 success, 0 reverted
}

// TokenKind is a token standard.
type TokenKind uint8

// Token standards, numbered after their ERC.
const (
	ERC20   TokenKind = 20
	ERC721  TokenKind = 72
	ERC1155 TokenKind = 115
)

// String returns the Data API's ercType: "ERC-20", "ERC-721" or "ERC-1155".
func (k TokenKind) String() string {
	switch k {
	case ERC20:
		return "ERC-20"
	case ERC721:
		return "ERC-721"
	case ERC1155:
		return "ERC-1155"
	}
	return "UNKNOWN"
}

// Transfer is one token movement decoded from a log. An ERC-1155
// TransferBatch log gives one Transfer per id, numbered by BatchIndex.
type Transfer struct {
	TxHash     common.Hash
	LogIndex   uint
	BatchIndex uint
	Contract   common.Address
	Kind       TokenKind
	From       common.Address // zero for a mint
	To         common.Address // zero for a burn
	TokenID    *big.Int       // nil for ERC-20
	Value      *big.Int       // amount; 1 for ERC-721
}

// CreateKind says how a contract was created.
type CreateKind string

// Creation kinds, as the Data API's internalTxType spells them.
const (
	CREATE  CreateKind = "CREATE"
	CREATE2 CreateKind = "CREATE2"
)

// Creation is a contract deployed in a Block, by a transaction or by another
// contract.
type Creation struct {
	TxHash   common.Hash
	Deployer common.Address // the account or contract that ran CREATE/CREATE2
	Address  common.Address
	Kind     CreateKind
}

// BlockHook is the type of Options.OnBlock.
type BlockHook func(ctx context.Context, b *Block)

// RollbackHook is the type of Options.OnRollback.
type RollbackHook func(ctx context.Context, chainID uint64, fromBlock uint64)
