package evmindex

// schema is the store's SQLite schema. Addresses and hashes are BLOBs,
// token ids 32-byte big-endian BLOBs (so they sort numerically), amounts
// decimal TEXT. seq orders token transfers: block<<28 | logIndex<<10 |
// batchIndex. Every list route reads one index range. Every statement is
// idempotent, so opening a store written by an older version adds the tables
// it lacks; the versioned migrations (migrate.go) then add columns and
// indexes and fill what a new table derives from rows already stored.
const schema = `
CREATE TABLE IF NOT EXISTS chains (
	chain_id INTEGER PRIMARY KEY,
	start_block INTEGER NOT NULL,
	trace INTEGER NOT NULL DEFAULT 1
);
CREATE TABLE IF NOT EXISTS blocks (
	chain_id INTEGER NOT NULL,
	number INTEGER NOT NULL,
	hash BLOB NOT NULL,
	parent_hash BLOB NOT NULL,
	timestamp INTEGER NOT NULL,
	tx_count INTEGER NOT NULL,
	gas_used INTEGER NOT NULL,
	gas_limit INTEGER NOT NULL,
	base_fee TEXT NOT NULL,
	fees_spent TEXT NOT NULL,
	cum_txs INTEGER NOT NULL,
	PRIMARY KEY (chain_id, number)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS blocks_hash ON blocks (chain_id, hash);
CREATE TABLE IF NOT EXISTS txs (
	chain_id INTEGER NOT NULL,
	hash BLOB NOT NULL,
	block_number INTEGER NOT NULL,
	tx_index INTEGER NOT NULL,
	type INTEGER NOT NULL,
	from_addr BLOB NOT NULL,
	to_addr BLOB,
	value TEXT NOT NULL,
	nonce INTEGER NOT NULL,
	gas_limit INTEGER NOT NULL,
	gas_used INTEGER NOT NULL,
	gas_price TEXT NOT NULL,
	max_fee TEXT,
	max_priority_fee TEXT,
	status INTEGER NOT NULL,
	input BLOB NOT NULL,
	PRIMARY KEY (chain_id, hash)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS txs_block ON txs (chain_id, block_number);
CREATE TABLE IF NOT EXISTS transfers (
	chain_id INTEGER NOT NULL,
	seq INTEGER NOT NULL,
	block_number INTEGER NOT NULL,
	log_index INTEGER NOT NULL,
	tx_hash BLOB NOT NULL,
	contract BLOB NOT NULL,
	kind INTEGER NOT NULL,
	from_addr BLOB NOT NULL,
	to_addr BLOB NOT NULL,
	token_id BLOB,
	value TEXT NOT NULL,
	PRIMARY KEY (chain_id, seq)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS transfers_contract ON transfers (chain_id, contract, seq);
CREATE INDEX IF NOT EXISTS transfers_tx ON transfers (chain_id, tx_hash);
CREATE TABLE IF NOT EXISTS address_transfers (
	chain_id INTEGER NOT NULL,
	address BLOB NOT NULL,
	kind INTEGER NOT NULL,
	seq INTEGER NOT NULL,
	PRIMARY KEY (chain_id, address, kind, seq)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS erc20_balances (
	chain_id INTEGER NOT NULL,
	owner BLOB NOT NULL,
	contract BLOB NOT NULL,
	balance TEXT NOT NULL,
	PRIMARY KEY (chain_id, owner, contract)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS erc1155_balances (
	chain_id INTEGER NOT NULL,
	owner BLOB NOT NULL,
	contract BLOB NOT NULL,
	token_id BLOB NOT NULL,
	balance TEXT NOT NULL,
	PRIMARY KEY (chain_id, owner, contract, token_id)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS nft_owners (
	chain_id INTEGER NOT NULL,
	contract BLOB NOT NULL,
	token_id BLOB NOT NULL,
	owner BLOB NOT NULL,
	PRIMARY KEY (chain_id, contract, token_id)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS nft_owners_owner ON nft_owners (chain_id, owner, contract, token_id);
CREATE TABLE IF NOT EXISTS tokens (
	chain_id INTEGER NOT NULL,
	address BLOB NOT NULL,
	kind INTEGER NOT NULL,
	name TEXT NOT NULL,
	symbol TEXT NOT NULL,
	decimals INTEGER NOT NULL,
	PRIMARY KEY (chain_id, address)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS nfts (
	chain_id INTEGER NOT NULL,
	contract BLOB NOT NULL,
	token_id BLOB NOT NULL,
	token_uri TEXT NOT NULL,
	status TEXT NOT NULL,
	metadata TEXT NOT NULL,
	updated INTEGER NOT NULL,
	PRIMARY KEY (chain_id, contract, token_id)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS contracts (
	chain_id INTEGER NOT NULL,
	address BLOB NOT NULL,
	tx_hash BLOB NOT NULL,
	block_number INTEGER NOT NULL,
	deployer BLOB NOT NULL,
	kind TEXT NOT NULL,
	PRIMARY KEY (chain_id, address)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS contracts_block ON contracts (chain_id, block_number);
CREATE TABLE IF NOT EXISTS internal_txs (
	chain_id INTEGER NOT NULL,
	tx_hash BLOB NOT NULL,
	idx INTEGER NOT NULL,
	block_number INTEGER NOT NULL,
	type TEXT NOT NULL,
	from_addr BLOB NOT NULL,
	to_addr BLOB NOT NULL,
	value TEXT NOT NULL,
	gas INTEGER NOT NULL,
	gas_used INTEGER NOT NULL,
	reverted INTEGER NOT NULL,
	PRIMARY KEY (chain_id, tx_hash, idx)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS internal_txs_block ON internal_txs (chain_id, block_number);
CREATE TABLE IF NOT EXISTS untraced_blocks (
	chain_id INTEGER NOT NULL,
	number INTEGER NOT NULL,
	reason TEXT NOT NULL,
	PRIMARY KEY (chain_id, number)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS teleporter_messages (
	chain_id INTEGER NOT NULL,
	tx_hash BLOB NOT NULL,
	log_index INTEGER NOT NULL,
	block_number INTEGER NOT NULL,
	message_id BLOB NOT NULL,
	direction INTEGER NOT NULL,
	other_chain BLOB NOT NULL,
	PRIMARY KEY (chain_id, tx_hash, log_index)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS teleporter_messages_block ON teleporter_messages (chain_id, block_number);
CREATE TABLE IF NOT EXISTS address_txs (
	chain_id INTEGER NOT NULL,
	address BLOB NOT NULL,
	block_number INTEGER NOT NULL,
	tx_index INTEGER NOT NULL,
	native INTEGER NOT NULL,
	spam INTEGER NOT NULL,
	PRIMARY KEY (chain_id, address, block_number, tx_index)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS address_txs_native ON address_txs (chain_id, address, block_number, tx_index) WHERE native=1;
CREATE INDEX IF NOT EXISTS address_txs_nospam ON address_txs (chain_id, address, block_number, tx_index) WHERE spam=0;
CREATE TABLE IF NOT EXISTS address_internals (
	chain_id INTEGER NOT NULL,
	address BLOB NOT NULL,
	seq INTEGER NOT NULL,
	tx_hash BLOB NOT NULL,
	idx INTEGER NOT NULL,
	PRIMARY KEY (chain_id, address, seq)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS collection_tokens (
	chain_id INTEGER NOT NULL,
	contract BLOB NOT NULL,
	token_id BLOB NOT NULL,
	first_seq INTEGER NOT NULL,
	PRIMARY KEY (chain_id, contract, token_id)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS collection_tokens_seq ON collection_tokens (chain_id, contract, first_seq);
CREATE TABLE IF NOT EXISTS icm_events (
	chain_id INTEGER NOT NULL,
	block_number INTEGER NOT NULL,
	log_index INTEGER NOT NULL,
	tx_hash BLOB NOT NULL,
	messenger BLOB NOT NULL,
	kind INTEGER NOT NULL,
	message_id BLOB,
	chain BLOB,
	party BLOB,
	data BLOB NOT NULL,
	ts INTEGER NOT NULL,
	src_chain BLOB,
	dst_chain BLOB,
	sender BLOB,
	recipient BLOB,
	PRIMARY KEY (chain_id, block_number, log_index)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS icm_events_message ON icm_events (message_id, kind) WHERE message_id IS NOT NULL;
CREATE TABLE IF NOT EXISTS icm_messages (
	message_id BLOB NOT NULL PRIMARY KEY,
	ord INTEGER NOT NULL,
	src_chain BLOB NOT NULL,
	dst_chain BLOB NOT NULL,
	sender BLOB NOT NULL,
	recipient BLOB NOT NULL
) WITHOUT ROWID;
CREATE UNIQUE INDEX IF NOT EXISTS icm_messages_ord ON icm_messages (ord);
CREATE INDEX IF NOT EXISTS icm_messages_src ON icm_messages (src_chain, ord);
CREATE INDEX IF NOT EXISTS icm_messages_dst ON icm_messages (dst_chain, ord);
CREATE INDEX IF NOT EXISTS icm_messages_sender ON icm_messages (sender, ord);
CREATE INDEX IF NOT EXISTS icm_messages_recipient ON icm_messages (recipient, ord);
CREATE TABLE IF NOT EXISTS icm_backfill (
	chain_id INTEGER NOT NULL PRIMARY KEY,
	next_block INTEGER NOT NULL,
	end_block INTEGER NOT NULL
);
`

// The tables added by schema version 2, for the address and collection
// listings:
//
//   - address_txs: one row per transaction an address took part in, as the
//     sender or recipient of the transaction itself (native=1; the recipient
//     of a contract creation is the contract it created), of one of its token
//     transfers, or of one of its listed internal transactions (listedFrame).
//     spam=1 when the address's only part in it is transfers of spam tokens
//     (Token.Spam).
//   - address_internals: the listed internal transactions of an address, by
//     internalSeq (block<<28 | the frame's position among the block's
//     frames).
//   - collection_tokens: every token id an ERC-721 or ERC-1155 contract has
//     moved, by the seq of its first transfer (its mint, for a token minted
//     after the index's start).
//
// Version 2 also adds columns (migrateV2): contracts.origin (the sender of
// the creating transaction) and contracts.seq (block<<28 | the creation's
// position in the block), and nft_owners.seq and erc1155_balances.seq (the
// transfer that last changed the holding), each with the index its listing
// reads; and untraced_blocks (its own table) gets a row for every block with
// transactions of a chain that is not traced (noTracerReason).

// The tables added by schema version 3, for the ICM messages:
//
//   - icm_events: every event of a chain's TeleporterMessengers
//     (ICMEventKind), with its log's data as emitted; a send or receive also
//     carries the listing's columns (its block's time, the message's source
//     and destination blockchain ids, sender and recipient).
//   - icm_messages: one row per message id, from its send when the source
//     chain is indexed, else from its receive: ord (the send's, else the
//     receive's, block time << 32 | a counter) orders the listings newest
//     first and is their page cursor.
//   - icm_backfill: the blocks indexed before version 3, whose messenger
//     events the follower reads again with eth_getLogs (icmbackfill.go).
