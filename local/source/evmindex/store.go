package evmindex

import (
	"context"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
)

// The index has three parts, each in its own files:
//
//   - The followers (follow.go, fetch.go, trace.go, native.go, metadata.go,
//     icmbackfill.go) read the nodes over JSON-RPC, and token metadata
//     over HTTP (nftmeta.go); the writer (write.go) decodes their blocks
//     (decode.go, icm.go, teleporter.go, parties.go) into the rows of a
//     Batch, one store transaction per batch of blocks.
//   - The store keeps the rows, with its own schema and migrations, and is
//     the only place SQL is written. The SQLite store (sqlite*.go) is the
//     embedded default; the PostgreSQL store (postgres.go, pg_*.go), for a
//     fleet of replicas sharing one index, is given to Open in
//     Options.Store (OpenPostgres). Both keep the same rows and answer the
//     same; the row scanners and replays they share take a rowSet.
//   - The queries (query.go, listings.go, txlist.go, details.go,
//     holders.go, icmquery.go) are the store's reads (Reader), with what no
//     store should know added: the followers' heads, the node's live
//     answers, the ICM events' decoding.
//
// A Store's methods are safe for concurrent use. It serializes its own
// writes (Write, Rollback and the others of Writer); reads run beside them
// and see only what a write committed.

// Store is a whole store: what the followers write and what the queries
// read.
type Store interface {
	Writer
	Reader
	// Close releases the store; a temporary one is removed.
	Close() error
}

// Writer is what the followers write, and read back to follow.
type Writer interface {
	// Chain registers chainID, whose first block is startBlock and whose
	// blocks are traced when traced, unless the store has it already; it
	// returns the chain's stored first block and tracing.
	Chain(ctx context.Context, chainID, startBlock uint64, traced bool) (start uint64, tracing bool, err error)
	// SetTraced records whether chainID's blocks are traced from now on.
	SetTraced(ctx context.Context, chainID uint64, traced bool) error
	// Head returns chainID's highest stored block and the transactions
	// stored from its first through it; ok is false when it has none.
	Head(ctx context.Context, chainID uint64) (number, cumTxs uint64, ok bool, err error)
	// KnownTokens returns chainID's stored tokens.
	KnownTokens(ctx context.Context, chainID uint64) ([]Token, error)
	// Announced returns the blockchain id each of chainID's messengers
	// announced (ICMBlockchainID events), the last one of each.
	Announced(ctx context.Context, chainID uint64) (map[common.Address]common.Hash, error)
	// BlockHash returns the hash of chainID's stored block number (an
	// error when there is none).
	BlockHash(ctx context.Context, chainID, number uint64) (common.Hash, error)
	// Write runs fn in one store transaction of chainID's rows: what fn
	// writes through the Batch is committed when it returns nil, and
	// nothing is when it fails.
	Write(ctx context.Context, chainID uint64, fn func(Batch) error) error
	// Rollback removes chainID's blocks from from on and everything
	// derived from them (balances, owners, listings, ICM messages), in one
	// transaction.
	Rollback(ctx context.Context, chainID, from uint64) error
	// ICMBackfill returns the blocks of chainID indexed before messenger
	// events were kept whose events are still to be read (next..end); ok
	// is false when none are.
	ICMBackfill(ctx context.Context, chainID uint64) (next, end uint64, ok bool, err error)
	// PutNFTs keeps NFTs' URIs and metadata as read.
	PutNFTs(ctx context.Context, chainID uint64, nfts []NFT) error
	// RecordBalance keeps a native balance the node answered, unless a
	// write is under way (it reports false then, without waiting).
	RecordBalance(ctx context.Context, chainID uint64, addr common.Address, block uint64, bal *big.Int) (bool, error)
}

// Batch writes the rows of one chain's blocks within one store transaction
// (Writer's Write), in block order.
type Batch interface {
	// Token stores a token contract's metadata, when it is first seen.
	Token(t *Token) error
	// Block stores a block's header, the fees its transactions paid and
	// the transactions stored from the chain's first block through it.
	Block(b *Block, feesSpent *big.Int, cumTxs uint64) error
	// Tx stores a transaction of block.
	Tx(block uint64, t *TxRow) error
	// Transfer stores a token transfer at seq (seqOf) with its parties'
	// rows; an ERC-721 transfer moves the token to its recipient (none
	// for a burn); an NFT's first transfer adds it to its collection.
	Transfer(block uint64, seq int64, t *Transfer) error
	// Balances adds changes to the current ERC-20 and ERC-1155 balances; a
	// balance that reaches zero is gone.
	Balances(changes []BalanceChange) error
	// Contract stores a contract creation at seq (creationSeq), with the
	// sender of the transaction that made it.
	Contract(block uint64, seq int64, c *Creation, origin common.Address) error
	// Frame stores a call frame of a transaction's trace.
	Frame(block uint64, f *Frame) error
	// Untraced records why block has no call traces.
	Untraced(block uint64, reason string) error
	// Party records that addr took part in transaction txIndex of block:
	// itself (native), or otherwise; spam when its only part is
	// transfers of spam tokens.
	Party(block uint64, addr common.Address, txIndex uint, native, spam bool) error
	// AddressFrame records that addr sent or received a listed internal
	// transaction: frame idx of tx, at seq (internalSeq).
	AddressFrame(addr common.Address, seq int64, tx common.Hash, idx int) error
	// Teleporter stores a Teleporter event of block.
	Teleporter(block uint64, e *TeleporterEvent) error
	// ICMEvent stores a messenger event of block (time ts), and the
	// message it sent (src, dst: its ends) or delivered: a send decides the
	// message's row; a receive makes it only while no send is stored.
	ICMEvent(block, ts uint64, e *ICMEvent, src, dst common.Hash) error
	// NativeBalance stores addr's balance after block.
	NativeBalance(block uint64, addr common.Address, balance *big.Int) error
	// BlockTime returns the hash and time of the chain's stored block
	// number; ok is false when there is none.
	BlockTime(number uint64) (hash common.Hash, ts uint64, ok bool, err error)
	// ICMBackfilled records that the backfill of messenger events has read
	// the blocks below next, or all of them (done).
	ICMBackfilled(next uint64, done bool) error
}

// BalanceChange is a change of an owner's ERC-20 balance of a contract, or
// of its ERC-1155 balance of a token id (ERC1155 set); Seq is the transfer
// that made it (the ERC-1155 holding's last, 0: unchanged).
type BalanceChange struct {
	Owner, Contract common.Address
	TokenID         [32]byte // zero for ERC-20
	ERC1155         bool
	Delta           *big.Int
	Seq             int64
}

// Frame is a call frame of a transaction's trace: frame Idx in depth-first
// order, 0 being the transaction's own call.
type Frame struct {
	TxHash common.Hash
	Idx    int
	InternalTx
}

// Reader is what the queries read. Every list is in the order its method
// says; ErrNotFound is returned for a single row the store does not have.
type Reader interface {
	LatestBlocks(ctx context.Context, chainID, before uint64, limit int) ([]BlockRow, error)
	Block(ctx context.Context, chainID, number uint64) (BlockRow, error)
	BlockByHash(ctx context.Context, chainID uint64, hash common.Hash) (BlockRow, error)
	BlockAt(ctx context.Context, chainID, ts uint64) (uint64, bool, error)
	Transfers(ctx context.Context, q TransferQuery) ([]TransferRow, error)
	Tokens(ctx context.Context, chainID uint64, addrs []common.Address) (map[common.Address]Token, error)
	// Holdings returns current holdings; HoldingsAt those after a past
	// block, replaying the owner's transfers up to it.
	Holdings(ctx context.Context, q HoldingQuery) ([]Holding, error)
	HoldingsAt(ctx context.Context, q HoldingQuery) ([]Holding, error)
	Internals(ctx context.Context, q InternalQuery) ([]ListedInternal, error)
	UntracedSpan(ctx context.Context, chainID, from, to uint64) (first, last uint64, ok bool, err error)
	Untraced(ctx context.Context, chainID, number uint64) (string, error)
	Deployment(ctx context.Context, chainID uint64, addr common.Address) (Deployment, error)
	Deployments(ctx context.Context, chainID uint64, addr common.Address, before int64, limit int) ([]Deployment, error)
	Collectibles(ctx context.Context, chainID uint64, owner common.Address, contract *common.Address, before int64, limit int) ([]Collectible, error)
	CollectionTokens(ctx context.Context, chainID uint64, contract common.Address, after int64, limit int) ([]CollectionToken, error)
	Active(ctx context.Context, chainID uint64, addr common.Address) (bool, error)
	AddressTxs(ctx context.Context, q AddressTxQuery) ([]ListedTx, error)
	ChainTxs(ctx context.Context, chainID uint64, status TxStatus, r Range, limit int) ([]ListedTx, error)
	Created(ctx context.Context, chainID uint64, txs []ListedTx) (map[common.Hash]common.Address, error)
	PartsOf(ctx context.Context, chainID uint64, addr common.Address, txs []ListedTx) (*TxParts, error)
	Transaction(ctx context.Context, chainID uint64, hash common.Hash) (*TxDetail, error)
	Owner(ctx context.Context, chainID uint64, contract common.Address, tokenID *big.Int) (common.Address, error)
	// StoredNFTs returns the kept metadata of nfts, by key.
	StoredNFTs(ctx context.Context, chainID uint64, nfts []NFT) (map[NFTKey]NFT, error)
	NFTHolders(ctx context.Context, chainID uint64, contract common.Address) ([]Holder, uint64, error)
	BalanceHolders(ctx context.Context, chainID uint64, contract common.Address, threshold *big.Int, start, end int64) ([]Holder, error)
	// StoredBalance returns addr's balance kept last at or before block,
	// and the block it was kept at; ok is false when none was.
	StoredBalance(ctx context.Context, chainID uint64, addr common.Address, block uint64) (*big.Int, uint64, bool, error)
	// ICMEvents returns the messenger events of message id, oldest first,
	// at most limit.
	ICMEvents(ctx context.Context, id common.Hash, limit int) ([]ICMRecord, error)
	// ICMMessageIDs returns the messages q selects, newest first, at most
	// q.Limit+1.
	ICMMessageIDs(ctx context.Context, q ICMQuery) ([]ICMHit, error)
	ICMHourly(ctx context.Context, since, until int64) ([]ICMCount, error)
	ICMChainTxs(ctx context.Context, chainID uint64, kind ICMEventKind) (uint64, error)
}
