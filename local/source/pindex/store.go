package pindex

import (
	"context"
	"encoding/json"
	"log/slog"

	"github.com/avaedge/avaedge/avanet"
	"github.com/avaedge/avaedge/local/vocab/avax"
)

// The index has three parts, each in its own files:
//
//   - The followers (follow.go, fetch.go, rewards.go, validators.go) read
//     the node through nodeclient; the writer (write.go) decodes their
//     blocks (apply.go, ptx.go, derive.go, decode.go) into the rows of a
//     Batch, in one store transaction per batch of blocks.
//   - The store keeps the rows, with its own schema and migrations. The
//     SQLite store (sqlite*.go) is the embedded default and the only place
//     SQL is written; another store (PostgreSQL, for a fleet of replicas)
//     implements Store in its own package and is given to Open in
//     Options.Store.
//   - The queries (query.go) are the store's reads (Reader), with what no
//     store should know added: caches kept per index version, the
//     network's own facts.
//
// A Store's methods are safe for concurrent use. The Index calls Write,
// Rollback and SetCurrentValidators one at a time; reads run beside them
// and see only what a write committed.

// Store is a whole store: what the followers write and what the queries
// read.
type Store interface {
	Writer
	Reader
	// Close releases the store; a temporary one is removed.
	Close() error
}

// Writer is what Open and the followers write, and read back to follow.
type Writer interface {
	// Upgrade brings a store an earlier version wrote up to this one,
	// deriving what it lacks from the transactions it holds (avaxID is
	// the AVAX asset's id, whose burned fees it totals), and logs what it
	// did.
	Upgrade(ctx context.Context, avaxID string, log *slog.Logger) error
	// Meta returns the value kept under key; ok is false when there is
	// none. SetMeta keeps value under key.
	Meta(key string) (value string, ok bool, err error)
	SetMeta(key, value string) error
	// Head returns chain's highest stored height; ok is false when it has
	// no block.
	Head(chain avanet.Chain) (height uint64, ok bool, err error)
	// BlockIDAt returns the id of chain's stored block at height.
	BlockIDAt(chain avanet.Chain, height uint64) (string, error)
	// Write runs fn in one store transaction: what fn writes through the
	// Batch is committed when it returns nil, and nothing is when it
	// fails.
	Write(ctx context.Context, fn func(Batch) error) error
	// Rollback deletes every row chain's blocks above height made, puts
	// back what they spent, and totals the chain's burned fees (of AVAX,
	// avaxID) again, in one transaction.
	Rollback(ctx context.Context, avaxID string, chain avanet.Chain, height int64) error
	// SetCurrentValidators keeps body, the node's
	// platform.getCurrentValidators answer for subnet read at time at
	// (Unix seconds), in place of the last one.
	SetCurrentValidators(ctx context.Context, subnet string, body json.RawMessage, at int64) error
	// SetSupply keeps the node's supply in place of the last one; Record
	// keeps the node's answer to method (one without arguments) in place
	// of the last one.
	SetSupply(s Supply) error
	Record(method string, answer json.RawMessage) error
	// RewardTxs returns the P-avanet.Chain's RewardValidatorTxs above height
	// after whose option block (the block above theirs) is stored, oldest
	// first, at most limit.
	RewardTxs(ctx context.Context, after int64, limit int) ([]RewardTx, error)
}

// RewardTx is a stored RewardValidatorTx with the option block above it
// (the commit or abort block that decided it) and the kind of the stake it
// rewards ("" for a stake no block listed: a genesis staker).
type RewardTx struct {
	ID           string
	Body         json.RawMessage
	OptionHeight uint64
	OptionTime   int64
	OptionType   string
	StakeKind    string
}

// Batch writes the rows of blocks within one store transaction (Writer's
// Write). Rows a later call depends on are written first: a spend finds
// the UTXO it spends when it is stored, and a UTXO stored after another
// chain's follower spent it (an import before its export is indexed)
// finds that spend.
type Batch interface {
	// BlockTime and BlockID return chain's stored block's at height.
	BlockTime(chain avanet.Chain, height uint64) (int64, error)
	BlockID(chain avanet.Chain, height uint64) (string, error)
	// Block stores a block; bytes and js, the block's bytes and the
	// node's JSON of it, are kept for the node's own methods (avm.getBlock,
	// platform.getBlock; either may be nil: not known).
	Block(b *Block, bytes []byte, js json.RawMessage) error
	// Tx stores a transaction, with its signed bytes when known (nil: not
	// kept).
	Tx(t *Tx, signed []byte) error
	// UTXO stores an output its transaction lists: u.CreatedOn is the
	// transaction's chain, txIndex its position in its block. Its
	// addresses may spend it, and the transaction touched them.
	UTXO(u *UTXO, txIndex int) error
	// Spend records that a transaction spent a UTXO, which its addresses no
	// longer hold unspent.
	Spend(s *Spend) error
	// Paid stores a UTXO a transaction (u.EmittedBy, stored already) made
	// without listing it: a reward, a returned L1 balance.
	Paid(u *UTXO) error
	// Asset stores an asset a CreateAssetTx of chain at height created.
	Asset(a *Asset, chain avanet.Chain, height uint64) error
	// Subnet stores a subnet its CreateSubnetTx (whose id is the subnet's)
	// made; SubnetOwner an owner a transaction gave a subnet.
	Subnet(id string, height uint64, time int64) error
	SubnetOwner(subnet, tx string, height uint64, o *Owner) error
	// Blockchain stores a chain a CreateChainTx made.
	Blockchain(b *Blockchain) error
	// Conversion stores the ConvertSubnetToL1Tx of subnet.
	Conversion(subnet string, c *Conversion) error
	// Stake stores a validation or delegation (not its end).
	Stake(s *Stake) error
	// StakeEnd records that stake (a staking tx id, or an L1 validation
	// id) ended by tx, of kind completed, removed or disabled.
	StakeEnd(stake, tx, kind string, height uint64, time int64) error
	// LastStake returns the staking tx of node's latest stake of kind on
	// subnet.
	LastStake(node, subnet, kind string) (string, error)
	// AssetTx records that X-avanet.Chain transaction tx, at height and position
	// idx, moved asset; L1Tx that P-avanet.Chain transaction tx at height made or
	// changed an L1 validation, giving it balance.
	AssetTx(asset string, height uint64, idx int, tx string) error
	L1Tx(validationID, tx string, balance, height uint64) error
	// AddBurned totals the fees chain's blocks from..to burned (of AVAX,
	// avaxID), and those of the pending transactions whose spent UTXOs
	// are all stored now.
	AddBurned(avaxID string, chain avanet.Chain, from, to uint64) error
	// SetMeta keeps value under key, with the batch.
	SetMeta(key, value string) error
}

// Spend is a transaction's spend of a UTXO: the transaction's chain,
// height, position in its block and time.
type Spend struct {
	UTXO, Tx string
	Chain    avanet.Chain
	Height   uint64
	Index    int
	Time     int64
}

// Reader is what the queries read. Every list is in the order its method
// says; nothing is found when a method returns ok false or no rows.
type Reader interface {
	// Subnets returns every subnet, oldest first; Subnet one of them.
	Subnets(ctx context.Context) ([]*Subnet, error)
	Subnet(ctx context.Context, id string) (*Subnet, bool, error)
	// SubnetIDs returns every subnet's id, oldest first.
	SubnetIDs(ctx context.Context) ([]string, error)
	// Blockchains returns every chain a CreateChainTx made, oldest
	// first; Blockchain one of them.
	Blockchains(ctx context.Context) ([]Blockchain, error)
	Blockchain(ctx context.Context, id string) (Blockchain, bool, error)
	// BlockchainIDs returns their ids, in the same order.
	BlockchainIDs(ctx context.Context) ([]string, error)
	// Asset returns an asset a CreateAssetTx created (Index.Asset adds
	// AVAX before its creation is stored).
	Asset(ctx context.Context, id string) (Asset, bool, error)
	// Stakes returns every stake, with its end and its rewards, oldest
	// first (by height, tx, seq).
	Stakes(ctx context.Context) ([]*Stake, error)
	// CurrentValidators returns subnet's last kept
	// platform.getCurrentValidators answer and when it was read.
	CurrentValidators(ctx context.Context, subnet string) (json.RawMessage, int64, bool, error)
	// Block, BlockByID and Blocks return chain's blocks; BlockID a
	// block's id ("" when there is none).
	Block(ctx context.Context, chain avanet.Chain, height uint64) (*Block, bool, error)
	BlockByID(ctx context.Context, chain avanet.Chain, id string) (*Block, bool, error)
	Blocks(ctx context.Context, chain avanet.Chain, r BlockRange) ([]*Block, error)
	BlockID(ctx context.Context, chain avanet.Chain, height uint64) (string, error)
	// Tx returns a transaction by id; Txs chain's transactions f selects,
	// in block and position order (newest first unless f.Asc).
	Tx(ctx context.Context, id string) (*Tx, bool, error)
	Txs(ctx context.Context, chain avanet.Chain, f TxFilter) ([]*Tx, error)
	// UTXOs returns chain's UTXOs any of addrs may spend, oldest first;
	// the spent ones too when includeSpent.
	UTXOs(ctx context.Context, chain avanet.Chain, addrs []avax.ShortID, includeSpent bool) ([]*UTXO, error)
	// TxUTXOs returns the UTXOs a transaction made (in output order) and
	// those it spent.
	TxUTXOs(ctx context.Context, txID string) (emitted, consumed []*UTXO, err error)
	// TxsParts returns the parts of each of txs, in txs' order: a page
	// of transactions in one read (on PostgreSQL one round trip, not
	// three per transaction).
	TxsParts(ctx context.Context, txs []*Tx) ([]TxParts, error)
	// RewardUTXOs returns the reward UTXOs any of addrs may spend (every
	// one when addrs is empty), oldest first.
	RewardUTXOs(ctx context.Context, addrs []avax.ShortID) ([]*UTXO, error)
	// ChainsOf returns the chains on which addr owns or owned a UTXO.
	ChainsOf(ctx context.Context, addr avax.ShortID) ([]avanet.Chain, error)
	// LastActivity returns the latest block of chain whose transactions
	// made or spent a UTXO any of addrs may spend.
	LastActivity(ctx context.Context, chain avanet.Chain, addrs []avax.ShortID) (Activity, bool, error)
	// Totals sums the burned fees, rewards and L1 validator balances.
	Totals(ctx context.Context) (Totals, error)
	// LockedAVAX sums the unspent AVAX (asset avaxID) of the P- and
	// X-avanet.Chain locked at now (Unix seconds).
	LockedAVAX(ctx context.Context, avaxID string, now int64) (uint64, error)
	// XBlock returns the kept bytes and JSON of the X-avanet.Chain block with id,
	// or at height when id is ""; XTx of an X-avanet.Chain transaction; XUTXOs
	// the unspent X-avanet.Chain UTXOs addr may spend made on source, newest
	// first (only ID and Bytes set).
	XBlock(id string, height uint64) (bytes []byte, js json.RawMessage, ok bool)
	// PBlock returns the kept JSON of the P-Chain block with id, or at
	// height when id is "", and its bytes (nil when not kept: a
	// generated network's); ok is false without the JSON.
	PBlock(id string, height uint64) (bytes []byte, js json.RawMessage, ok bool)
	XTx(id string) (bytes []byte, js json.RawMessage, ok bool)
	XUTXOs(ctx context.Context, source avanet.Chain, addr avax.ShortID) ([]*UTXO, error)
	// Supply returns the node's supply as last kept; Recorded the node's
	// last kept answer to method (Writer's SetSupply, Record).
	Supply(ctx context.Context) (Supply, bool, error)
	Recorded(method string) (json.RawMessage, bool)
}
