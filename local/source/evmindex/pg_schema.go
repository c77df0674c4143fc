package evmindex

import (
	"context"
	"log/slog"

	"github.com/avaedge/avaedge/local/source/pgschema"
)

// pgComponent names the EVM index's schema in avaedge_schema.
const pgComponent = "evmindex"

// pgVersions are the PostgreSQL store's schema versions; pgVersions[i] makes version i+1.
//
// Version 1 holds what the SQLite store's version 3 holds (sqlite_schema.go
// in evmindex documents each table), in PostgreSQL's types: addresses and
// hashes bytea, token ids 32-byte big-endian bytea (they sort numerically),
// amounts numeric(78,0) (a uint256 has 78 digits; balances add up in the
// database, and ::text gives the digits the API answers), flags boolean.
// Every chain's rows are keyed by chain_id first, so several chains share
// the tables, and every listing reads one B-tree range in its order: its
// page cursor is a row comparison on the index's columns (keyset
// pagination), never an offset. Where partitioning would go: txs,
// address_txs, transfers and address_transfers by chain_id (LIST), then by
// block_number ranges, once a chain's tables outgrow a single B-tree's
// cache.
var pgVersions = []pgschema.Version{{
	`CREATE TABLE chains (
		chain_id bigint PRIMARY KEY,
		start_block bigint NOT NULL,
		trace boolean NOT NULL DEFAULT true
	)`,
	`CREATE TABLE blocks (
		chain_id bigint NOT NULL,
		number bigint NOT NULL,
		hash bytea NOT NULL,
		parent_hash bytea NOT NULL,
		timestamp bigint NOT NULL,
		tx_count integer NOT NULL,
		gas_used bigint NOT NULL,
		gas_limit bigint NOT NULL,
		base_fee numeric(78,0) NOT NULL,
		fees_spent numeric(78,0) NOT NULL,
		cum_txs bigint NOT NULL,
		PRIMARY KEY (chain_id, number)
	)`,
	`CREATE INDEX blocks_hash ON blocks (chain_id, hash)`,
	`CREATE INDEX blocks_time ON blocks (chain_id, timestamp, number)`,
	`CREATE TABLE txs (
		chain_id bigint NOT NULL,
		hash bytea NOT NULL,
		block_number bigint NOT NULL,
		tx_index integer NOT NULL,
		type smallint NOT NULL,
		from_addr bytea NOT NULL,
		to_addr bytea,
		value numeric(78,0) NOT NULL,
		nonce bigint NOT NULL,
		gas_limit bigint NOT NULL,
		gas_used bigint NOT NULL,
		gas_price numeric(78,0) NOT NULL,
		max_fee numeric(78,0),
		max_priority_fee numeric(78,0),
		status smallint NOT NULL,
		input bytea NOT NULL,
		PRIMARY KEY (chain_id, hash)
	)`,
	`CREATE INDEX txs_pos ON txs (chain_id, block_number, tx_index)`,
	`CREATE INDEX txs_failed ON txs (chain_id, block_number, tx_index) WHERE status = 0`,
	`CREATE TABLE transfers (
		chain_id bigint NOT NULL,
		seq bigint NOT NULL,
		block_number bigint NOT NULL,
		log_index integer NOT NULL,
		tx_hash bytea NOT NULL,
		contract bytea NOT NULL,
		kind smallint NOT NULL,
		from_addr bytea NOT NULL,
		to_addr bytea NOT NULL,
		token_id bytea,
		value numeric(78,0) NOT NULL,
		PRIMARY KEY (chain_id, seq)
	)`,
	`CREATE INDEX transfers_contract ON transfers (chain_id, contract, seq)`,
	`CREATE INDEX transfers_tx ON transfers (chain_id, tx_hash)`,
	`CREATE TABLE address_transfers (
		chain_id bigint NOT NULL,
		address bytea NOT NULL,
		kind smallint NOT NULL,
		seq bigint NOT NULL,
		PRIMARY KEY (chain_id, address, kind, seq)
	)`,
	`CREATE TABLE erc20_balances (
		chain_id bigint NOT NULL,
		owner bytea NOT NULL,
		contract bytea NOT NULL,
		balance numeric(78,0) NOT NULL,
		PRIMARY KEY (chain_id, owner, contract)
	)`,
	`CREATE TABLE erc1155_balances (
		chain_id bigint NOT NULL,
		owner bytea NOT NULL,
		contract bytea NOT NULL,
		token_id bytea NOT NULL,
		balance numeric(78,0) NOT NULL,
		seq bigint NOT NULL DEFAULT 0,
		PRIMARY KEY (chain_id, owner, contract, token_id)
	)`,
	`CREATE INDEX erc1155_balances_seq ON erc1155_balances (chain_id, owner, seq)`,
	`CREATE INDEX erc1155_balances_contract_seq ON erc1155_balances (chain_id, owner, contract, seq)`,
	`CREATE TABLE nft_owners (
		chain_id bigint NOT NULL,
		contract bytea NOT NULL,
		token_id bytea NOT NULL,
		owner bytea NOT NULL,
		seq bigint NOT NULL DEFAULT 0,
		PRIMARY KEY (chain_id, contract, token_id)
	)`,
	`CREATE INDEX nft_owners_owner ON nft_owners (chain_id, owner, contract, token_id)`,
	`CREATE INDEX nft_owners_seq ON nft_owners (chain_id, owner, seq)`,
	`CREATE INDEX nft_owners_contract_seq ON nft_owners (chain_id, owner, contract, seq)`,
	`CREATE TABLE tokens (
		chain_id bigint NOT NULL,
		address bytea NOT NULL,
		kind smallint NOT NULL,
		name text NOT NULL,
		symbol text NOT NULL,
		decimals smallint NOT NULL,
		PRIMARY KEY (chain_id, address)
	)`,
	`CREATE TABLE nfts (
		chain_id bigint NOT NULL,
		contract bytea NOT NULL,
		token_id bytea NOT NULL,
		token_uri text NOT NULL,
		status text NOT NULL,
		metadata text NOT NULL,
		updated bigint NOT NULL,
		PRIMARY KEY (chain_id, contract, token_id)
	)`,
	`CREATE TABLE contracts (
		chain_id bigint NOT NULL,
		address bytea NOT NULL,
		tx_hash bytea NOT NULL,
		block_number bigint NOT NULL,
		deployer bytea NOT NULL,
		kind text NOT NULL,
		origin bytea,
		seq bigint NOT NULL DEFAULT 0,
		PRIMARY KEY (chain_id, address)
	)`,
	`CREATE INDEX contracts_block ON contracts (chain_id, block_number)`,
	`CREATE INDEX contracts_origin ON contracts (chain_id, origin, seq)`,
	`CREATE INDEX contracts_deployer ON contracts (chain_id, deployer, seq)`,
	`CREATE TABLE internal_txs (
		chain_id bigint NOT NULL,
		tx_hash bytea NOT NULL,
		idx integer NOT NULL,
		block_number bigint NOT NULL,
		type text NOT NULL,
		from_addr bytea NOT NULL,
		to_addr bytea NOT NULL,
		value numeric(78,0) NOT NULL,
		gas bigint NOT NULL,
		gas_used bigint NOT NULL,
		reverted boolean NOT NULL,
		PRIMARY KEY (chain_id, tx_hash, idx)
	)`,
	`CREATE INDEX internal_txs_block ON internal_txs (chain_id, block_number)`,
	`CREATE TABLE untraced_blocks (
		chain_id bigint NOT NULL,
		number bigint NOT NULL,
		reason text NOT NULL,
		PRIMARY KEY (chain_id, number)
	)`,
	`CREATE TABLE teleporter_messages (
		chain_id bigint NOT NULL,
		tx_hash bytea NOT NULL,
		log_index integer NOT NULL,
		block_number bigint NOT NULL,
		message_id bytea NOT NULL,
		direction smallint NOT NULL,
		other_chain bytea NOT NULL,
		PRIMARY KEY (chain_id, tx_hash, log_index)
	)`,
	`CREATE INDEX teleporter_messages_block ON teleporter_messages (chain_id, block_number)`,
	`CREATE TABLE address_txs (
		chain_id bigint NOT NULL,
		address bytea NOT NULL,
		block_number bigint NOT NULL,
		tx_index integer NOT NULL,
		native boolean NOT NULL,
		spam boolean NOT NULL,
		PRIMARY KEY (chain_id, address, block_number, tx_index)
	)`,
	`CREATE INDEX address_txs_native ON address_txs (chain_id, address, block_number, tx_index) WHERE native`,
	`CREATE INDEX address_txs_nospam ON address_txs (chain_id, address, block_number, tx_index) WHERE NOT spam`,
	`CREATE TABLE address_internals (
		chain_id bigint NOT NULL,
		address bytea NOT NULL,
		seq bigint NOT NULL,
		tx_hash bytea NOT NULL,
		idx integer NOT NULL,
		PRIMARY KEY (chain_id, address, seq)
	)`,
	`CREATE TABLE collection_tokens (
		chain_id bigint NOT NULL,
		contract bytea NOT NULL,
		token_id bytea NOT NULL,
		first_seq bigint NOT NULL,
		PRIMARY KEY (chain_id, contract, token_id)
	)`,
	`CREATE INDEX collection_tokens_seq ON collection_tokens (chain_id, contract, first_seq)`,
	`CREATE TABLE icm_events (
		chain_id bigint NOT NULL,
		block_number bigint NOT NULL,
		log_index integer NOT NULL,
		tx_hash bytea NOT NULL,
		messenger bytea NOT NULL,
		kind smallint NOT NULL,
		message_id bytea,
		chain bytea,
		party bytea,
		data bytea NOT NULL,
		ts bigint NOT NULL,
		src_chain bytea,
		dst_chain bytea,
		sender bytea,
		recipient bytea,
		PRIMARY KEY (chain_id, block_number, log_index)
	)`,
	`CREATE INDEX icm_events_message ON icm_events (message_id, kind) WHERE message_id IS NOT NULL`,
	`CREATE TABLE icm_messages (
		message_id bytea PRIMARY KEY,
		ord bigint NOT NULL UNIQUE,
		src_chain bytea NOT NULL,
		dst_chain bytea NOT NULL,
		sender bytea NOT NULL,
		recipient bytea NOT NULL
	)`,
	`CREATE INDEX icm_messages_src ON icm_messages (src_chain, ord)`,
	`CREATE INDEX icm_messages_dst ON icm_messages (dst_chain, ord)`,
	`CREATE INDEX icm_messages_sender ON icm_messages (sender, ord)`,
	`CREATE INDEX icm_messages_recipient ON icm_messages (recipient, ord)`,
	`CREATE TABLE icm_backfill (
		chain_id bigint PRIMARY KEY,
		next_block bigint NOT NULL,
		end_block bigint NOT NULL
	)`,
	`CREATE TABLE native_balances (
		chain_id bigint NOT NULL,
		address bytea NOT NULL,
		block bigint NOT NULL,
		balance numeric(78,0) NOT NULL,
		PRIMARY KEY (chain_id, address, block)
	)`,
}}

// pgTables are the index's tables, which ANALYZE refreshes.
var pgTables = []string{"chains", "blocks", "txs", "transfers", "address_transfers", "erc20_balances", "erc1155_balances",
	"nft_owners", "tokens", "nfts", "contracts", "internal_txs", "untraced_blocks", "teleporter_messages", "address_txs",
	"address_internals", "collection_tokens", "icm_events", "icm_messages", "icm_backfill", "native_balances"}

// MigratePostgres brings the database's EVM index schema to the version this
// avaedge knows: the writer calls it, holding the lease. It refuses a newer
// schema (pgschema.ErrNewer).
func MigratePostgres(ctx context.Context, c pgschema.Conn, log *slog.Logger) error {
	_, err := pgschema.Migrate(ctx, c, pgComponent, pgVersions, log)
	return err
}

// CheckPostgres is a reader's check of the schema: nil when it is the version this
// avaedge knows, pgschema.ErrNewer when a newer avaedge migrated it (the
// reader must not read it; the error says so, for the log),
// pgschema.ErrBehind while the writer has not migrated it yet.
func CheckPostgres(ctx context.Context, q pgschema.Querier) error {
	return pgschema.Check(ctx, q, pgComponent, len(pgVersions))
}
