package evmindex

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"time"
)

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

// nativeSchema holds the recorded balances, one row per address and block.
const nativeSchema = `
CREATE TABLE IF NOT EXISTS native_balances (
	chain_id INTEGER NOT NULL,
	address BLOB NOT NULL,
	block INTEGER NOT NULL,
	balance TEXT NOT NULL,
	PRIMARY KEY (chain_id, address, block)
) WITHOUT ROWID;
`

// schemaVersion is the store's version, kept in SQLite's user_version. A
// store of an earlier version (or a new one, whose tables schema has just
// made empty) is migrated step by step when it is opened.
const schemaVersion = 3

// listedFrameSQL is listedFrame over an internal_txs row: the frames the
// Data API lists as internal transactions.
const listedFrameSQL = `(idx > 0 AND (type IN ('CREATE','CREATE2','CREATE3') OR (type IN ('CALL','CALLCODE') AND value <> '0')))`

// spamSQL is Token.Spam over a tokens row k.
const spamSQL = `(k.kind=20 AND (k.name='' OR k.symbol=''))`

// migrateV2 adds the columns, indexes and rows of schema version 2 (see
// schema.go), deriving them from what the store already holds: every
// address's transactions, internal transactions and deployments, and every
// collection's tokens; and the blocks with transactions of the chains that
// were not traced when the store was closed are recorded as untraced.
var migrateV2 = []string{
	`INSERT OR IGNORE INTO untraced_blocks (chain_id, number, reason)
		SELECT b.chain_id, b.number, '` + noTracerReason + `' FROM blocks b JOIN chains c ON c.chain_id = b.chain_id WHERE c.trace = 0 AND b.tx_count > 0`,
	`ALTER TABLE contracts ADD COLUMN origin BLOB`,
	`ALTER TABLE contracts ADD COLUMN seq INTEGER NOT NULL DEFAULT 0`,
	`ALTER TABLE nft_owners ADD COLUMN seq INTEGER NOT NULL DEFAULT 0`,
	`ALTER TABLE erc1155_balances ADD COLUMN seq INTEGER NOT NULL DEFAULT 0`,
	`DROP INDEX IF EXISTS txs_block`,
	`CREATE INDEX IF NOT EXISTS txs_pos ON txs (chain_id, block_number, tx_index)`,
	`CREATE INDEX IF NOT EXISTS txs_failed ON txs (chain_id, block_number, tx_index) WHERE status=0`,
	`CREATE INDEX IF NOT EXISTS blocks_time ON blocks (chain_id, timestamp, number)`,
	// Deployments: the creating transaction's sender, and the creations'
	// order within their blocks.
	`UPDATE contracts SET origin = (SELECT x.from_addr FROM txs x WHERE x.chain_id = contracts.chain_id AND x.hash = contracts.tx_hash)`,
	`UPDATE contracts SET origin = deployer WHERE origin IS NULL`,
	`WITH o AS (SELECT c.chain_id, c.address, (c.block_number << 28) | (ROW_NUMBER() OVER (PARTITION BY c.chain_id, c.block_number ORDER BY x.tx_index,
			(SELECT MIN(i.idx) FROM internal_txs i WHERE i.chain_id = c.chain_id AND i.tx_hash = c.tx_hash AND i.to_addr = c.address AND i.type IN ('CREATE','CREATE2','CREATE3')), c.address) - 1) AS seq
		FROM contracts c LEFT JOIN txs x ON x.chain_id = c.chain_id AND x.hash = c.tx_hash)
	UPDATE contracts SET seq = o.seq FROM o WHERE o.chain_id = contracts.chain_id AND o.address = contracts.address`,
	`CREATE INDEX IF NOT EXISTS contracts_origin ON contracts (chain_id, origin, seq)`,
	`CREATE INDEX IF NOT EXISTS contracts_deployer ON contracts (chain_id, deployer, seq)`,
	// Holdings: the transfer that last changed each.
	`UPDATE nft_owners SET seq = m.seq FROM (SELECT chain_id, contract, token_id, MAX(seq) AS seq FROM transfers WHERE kind = 72 GROUP BY chain_id, contract, token_id) m
		WHERE m.chain_id = nft_owners.chain_id AND m.contract = nft_owners.contract AND m.token_id = nft_owners.token_id`,
	`UPDATE erc1155_balances SET seq = m.seq FROM (SELECT a.chain_id, a.address, t.contract, t.token_id, MAX(t.seq) AS seq FROM address_transfers a
			JOIN transfers t ON t.chain_id = a.chain_id AND t.seq = a.seq WHERE a.kind = 115 GROUP BY a.chain_id, a.address, t.contract, t.token_id) m
		WHERE m.chain_id = erc1155_balances.chain_id AND m.address = erc1155_balances.owner AND m.contract = erc1155_balances.contract AND m.token_id = erc1155_balances.token_id`,
	`CREATE INDEX IF NOT EXISTS nft_owners_seq ON nft_owners (chain_id, owner, seq)`,
	`CREATE INDEX IF NOT EXISTS erc1155_balances_seq ON erc1155_balances (chain_id, owner, seq)`,
	`CREATE INDEX IF NOT EXISTS nft_owners_contract_seq ON nft_owners (chain_id, owner, contract, seq)`,
	`CREATE INDEX IF NOT EXISTS erc1155_balances_contract_seq ON erc1155_balances (chain_id, owner, contract, seq)`,
	// Collections.
	`INSERT OR IGNORE INTO collection_tokens (chain_id, contract, token_id, first_seq)
		SELECT chain_id, contract, token_id, MIN(seq) FROM transfers WHERE kind IN (72, 115) GROUP BY chain_id, contract, token_id`,
	// Addresses' transactions: senders and recipients, created contracts,
	// token transfers' parties, listed internal transactions' parties.
	`INSERT INTO address_txs (chain_id, address, block_number, tx_index, native, spam)
		SELECT chain_id, from_addr, block_number, tx_index, 1, 0 FROM txs WHERE true
		ON CONFLICT DO UPDATE SET native = 1, spam = 0`,
	`INSERT INTO address_txs (chain_id, address, block_number, tx_index, native, spam)
		SELECT chain_id, to_addr, block_number, tx_index, 1, 0 FROM txs WHERE to_addr IS NOT NULL AND to_addr <> zeroblob(20)
		ON CONFLICT DO UPDATE SET native = 1, spam = 0`,
	`INSERT INTO address_txs (chain_id, address, block_number, tx_index, native, spam)
		SELECT c.chain_id, c.address, x.block_number, x.tx_index, 1, 0 FROM contracts c
		JOIN txs x ON x.chain_id = c.chain_id AND x.hash = c.tx_hash WHERE x.to_addr IS NULL AND c.deployer = x.from_addr
		ON CONFLICT DO UPDATE SET native = 1, spam = 0`,
	`INSERT INTO address_txs (chain_id, address, block_number, tx_index, native, spam)
		SELECT p.chain_id, p.address, x.block_number, x.tx_index, 0, p.spam FROM (
			SELECT t.chain_id, t.tx_hash, t.from_addr AS address, COALESCE((SELECT ` + spamSQL + ` FROM tokens k WHERE k.chain_id = t.chain_id AND k.address = t.contract), 0) AS spam FROM transfers t
			UNION ALL
			SELECT t.chain_id, t.tx_hash, t.to_addr, COALESCE((SELECT ` + spamSQL + ` FROM tokens k WHERE k.chain_id = t.chain_id AND k.address = t.contract), 0) FROM transfers t
		) p JOIN txs x ON x.chain_id = p.chain_id AND x.hash = p.tx_hash WHERE p.address <> zeroblob(20)
		ON CONFLICT DO UPDATE SET spam = spam AND excluded.spam`,
	`WITH f AS (SELECT i.chain_id, i.tx_hash, i.idx, i.type, i.value, i.from_addr, i.to_addr, x.block_number, x.tx_index,
			ROW_NUMBER() OVER (PARTITION BY i.chain_id, i.block_number ORDER BY x.tx_index, i.idx) - 1 AS ord
		FROM internal_txs i JOIN txs x ON x.chain_id = i.chain_id AND x.hash = i.tx_hash)
	INSERT OR IGNORE INTO address_internals (chain_id, address, seq, tx_hash, idx)
		SELECT chain_id, from_addr, (block_number << 28) | ord, tx_hash, idx FROM f WHERE ` + listedFrameSQL + ` AND from_addr <> zeroblob(20)
		UNION ALL SELECT chain_id, to_addr, (block_number << 28) | ord, tx_hash, idx FROM f WHERE ` + listedFrameSQL + ` AND to_addr <> zeroblob(20)`,
	`INSERT INTO address_txs (chain_id, address, block_number, tx_index, native, spam)
		SELECT a.chain_id, a.address, x.block_number, x.tx_index, 0, 0 FROM address_internals a
		JOIN txs x ON x.chain_id = a.chain_id AND x.hash = a.tx_hash WHERE true
		ON CONFLICT DO UPDATE SET spam = 0`,
}

// migrate brings the store at db to schemaVersion in one transaction per
// version, logging what it does to log.
func migrate(ctx context.Context, db *sql.DB, log *slog.Logger) error {
	var v int
	if err := db.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&v); err != nil {
		return fmt.Errorf("schema version: %w", err)
	}
	steps := map[int][]string{2: migrateV2, 3: migrateV3}
	for next := v + 1; next <= schemaVersion; next++ {
		start := time.Now()
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return fmt.Errorf("migrating to version %d: %w", next, err)
		}
		for _, q := range steps[next] {
			if _, err := tx.ExecContext(ctx, q); err != nil {
				tx.Rollback()
				return fmt.Errorf("migrating to version %d: %.80s: %w", next, q, err)
			}
		}
		if _, err := tx.ExecContext(ctx, fmt.Sprintf(`PRAGMA user_version = %d`, next)); err != nil {
			tx.Rollback()
			return fmt.Errorf("migrating to version %d: %w", next, err)
		}
		if err := tx.Commit(); err != nil {
			return fmt.Errorf("migrating to version %d: %w", next, err)
		}
		if v > 0 || time.Since(start) > time.Second {
			log.Info("evmindex: store migrated", "version", next, "took", time.Since(start).Round(time.Millisecond))
		}
	}
	return nil
}

// migrateV3 records, for every chain the store holds blocks of, the blocks
// indexed before the messenger events were kept (schema version 3): the
// follower reads their events again (backfillICM).
var migrateV3 = []string{
	`INSERT OR IGNORE INTO icm_backfill (chain_id, next_block, end_block) SELECT chain_id, MIN(number), MAX(number) FROM blocks GROUP BY chain_id`,
}
