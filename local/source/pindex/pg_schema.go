package pindex

import (
	"context"
	"log/slog"
	"strings"

	"github.com/avaedge/avaedge/local/source/pgschema"
)

// pgComponent names the P/X index's schema in avaedge_schema.
const pgComponent = "pindex"

// pgNamespace is the PostgreSQL schema holding the P/X index's tables: the
// EVM index shares the database and has tables of the same names (blocks,
// txs). The store's connections search it first (search_path).
const pgNamespace = "pindex"

// pgVersions are the PostgreSQL store's schema versions; pgVersions[i]
// makes version i+1.
//
// Version 1 holds what the SQLite store's schema version 3 holds
// (sqlite_schema.go documents each table), row for row and column for
// column, so the two stores' rows compare equal: ids are their CB58 or
// hex text, in the C collation (bytewise, as SQLite orders them: the
// listings' ties are broken by id), amounts numeric(20,0) (a uint64), the
// kept JSON text. Every listing reads one B-tree range in its order: a
// page's cursor (a height and a block position) is a row comparison on the
// index's leading columns, never an offset. Where partitioning would go:
// txs, utxos, utxo_addrs, addr_txs and spends by chain (LIST), then by
// height ranges, once a mainnet X-Chain's rows outgrow one B-tree's cache.
var pgVersions = []pgschema.Version{collated(
	`CREATE SCHEMA IF NOT EXISTS pindex`,
	`CREATE TABLE pindex.meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)`,
	`CREATE TABLE pindex.blocks (
		chain TEXT NOT NULL, height bigint NOT NULL, id TEXT NOT NULL, parent TEXT NOT NULL,
		time bigint NOT NULL, type TEXT NOT NULL, size bigint NOT NULL, txs TEXT NOT NULL,
		bytes bytea, json TEXT,
		PRIMARY KEY (chain, height))`,
	`CREATE INDEX blocks_id ON pindex.blocks (id)`,
	`CREATE INDEX blocks_time ON pindex.blocks (chain, time, height)`,
	`CREATE TABLE pindex.txs (
		id TEXT PRIMARY KEY, chain TEXT NOT NULL, height bigint NOT NULL, idx integer NOT NULL,
		type TEXT NOT NULL, time bigint NOT NULL, body TEXT NOT NULL, bytes bytea)`,
	`CREATE INDEX txs_height ON pindex.txs (chain, height, idx) INCLUDE (id)`,
	`CREATE INDEX txs_type ON pindex.txs (chain, type, height, idx)`,
	`CREATE TABLE pindex.utxos (
		id TEXT PRIMARY KEY, chain TEXT NOT NULL, created_on TEXT NOT NULL, height bigint NOT NULL, time bigint NOT NULL,
		tx TEXT NOT NULL, output_index bigint NOT NULL, asset TEXT NOT NULL, amount numeric(20,0) NOT NULL,
		locktime bigint NOT NULL, threshold bigint NOT NULL, addresses TEXT NOT NULL,
		stake_locktime bigint NOT NULL, staked smallint NOT NULL, stake_start bigint NOT NULL, stake_end bigint NOT NULL,
		bytes bytea NOT NULL, reward TEXT, emitted_by TEXT)`,
	`CREATE INDEX utxos_created ON pindex.utxos (created_on, height)`,
	`CREATE INDEX utxos_emitted ON pindex.utxos ((COALESCE(emitted_by, tx)), output_index)`,
	`CREATE INDEX utxos_reward ON pindex.utxos (tx) WHERE reward IS NOT NULL AND reward != ''`,
	`CREATE INDEX utxos_paid ON pindex.utxos (created_on) WHERE emitted_by IS NOT NULL`,
	`CREATE INDEX utxos_locked ON pindex.utxos (locktime, stake_locktime) WHERE locktime > 0 OR stake_locktime > 0`,
	`CREATE TABLE pindex.utxo_addrs (
		addr TEXT NOT NULL, chain TEXT NOT NULL, utxo TEXT NOT NULL, created_on TEXT NOT NULL, height bigint NOT NULL,
		PRIMARY KEY (addr, chain, utxo))`,
	`CREATE INDEX utxo_addrs_created ON pindex.utxo_addrs (created_on, height)`,
	`CREATE TABLE pindex.spends (
		utxo TEXT PRIMARY KEY, tx TEXT NOT NULL, chain TEXT NOT NULL, height bigint NOT NULL, time bigint NOT NULL)`,
	`CREATE INDEX spends_height ON pindex.spends (chain, height)`,
	`CREATE INDEX spends_tx ON pindex.spends (tx)`,
	`CREATE TABLE pindex.subnets (id TEXT PRIMARY KEY, tx TEXT NOT NULL, height bigint NOT NULL, time bigint NOT NULL)`,
	`CREATE TABLE pindex.subnet_owners (
		subnet TEXT NOT NULL, height bigint NOT NULL, tx TEXT NOT NULL, locktime bigint NOT NULL, threshold bigint NOT NULL,
		addresses TEXT NOT NULL, PRIMARY KEY (subnet, height, tx))`,
	`CREATE TABLE pindex.conversions (
		subnet TEXT PRIMARY KEY, tx TEXT NOT NULL, chain_id TEXT NOT NULL, address TEXT NOT NULL,
		height bigint NOT NULL, time bigint NOT NULL)`,
	`CREATE TABLE pindex.blockchains (
		id TEXT PRIMARY KEY, subnet TEXT NOT NULL, name TEXT NOT NULL, vm TEXT NOT NULL, genesis bytea NOT NULL,
		height bigint NOT NULL, time bigint NOT NULL)`,
	`CREATE TABLE pindex.stakes (
		tx TEXT NOT NULL, seq bigint NOT NULL, kind TEXT NOT NULL, node TEXT NOT NULL, subnet TEXT NOT NULL,
		weight bigint NOT NULL, start bigint NOT NULL, "end" bigint NOT NULL, fee bigint NOT NULL,
		reward_owner TEXT NOT NULL, bls_key TEXT NOT NULL, bls_pop TEXT NOT NULL, validation_id TEXT NOT NULL,
		balance bigint NOT NULL, height bigint NOT NULL, time bigint NOT NULL,
		PRIMARY KEY (tx, seq))`,
	`CREATE INDEX stakes_node ON pindex.stakes (node, subnet, kind, height)`,
	`CREATE TABLE pindex.stake_ends (
		stake TEXT PRIMARY KEY, tx TEXT NOT NULL, kind TEXT NOT NULL, height bigint NOT NULL, time bigint NOT NULL)`,
	`CREATE TABLE pindex.assets (
		id TEXT PRIMARY KEY, chain TEXT NOT NULL, name TEXT NOT NULL, symbol TEXT NOT NULL, denomination bigint NOT NULL,
		height bigint NOT NULL, cap TEXT, type TEXT)`,
	`CREATE TABLE pindex.current (subnet TEXT PRIMARY KEY, body TEXT NOT NULL, time bigint NOT NULL)`,
	`CREATE TABLE pindex.l1_txs (
		validation_id TEXT NOT NULL, tx TEXT NOT NULL, balance bigint NOT NULL, height bigint NOT NULL,
		PRIMARY KEY (validation_id, tx))`,
	`CREATE INDEX l1_txs_height ON pindex.l1_txs (height)`,
	`CREATE INDEX l1_txs_tx ON pindex.l1_txs (tx)`,
	`CREATE TABLE pindex.asset_txs (
		asset TEXT NOT NULL, height bigint NOT NULL, idx integer NOT NULL, tx TEXT NOT NULL,
		PRIMARY KEY (asset, height, idx))`,
	`CREATE INDEX asset_txs_height ON pindex.asset_txs (height)`,
	`CREATE TABLE pindex.burn_pending (tx TEXT PRIMARY KEY, chain TEXT NOT NULL, height bigint NOT NULL)`,
	`CREATE TABLE pindex.addr_txs (
		addr TEXT NOT NULL, chain TEXT NOT NULL, height bigint NOT NULL, idx integer NOT NULL, tx TEXT NOT NULL,
		PRIMARY KEY (addr, chain, height, idx))`,
	`CREATE INDEX addr_txs_height ON pindex.addr_txs (chain, height)`,
	`CREATE TABLE pindex.utxo_unspent (
		addr TEXT NOT NULL, chain TEXT NOT NULL, utxo TEXT NOT NULL, created_on TEXT NOT NULL, height bigint NOT NULL,
		PRIMARY KEY (addr, chain, utxo))`,
	`CREATE INDEX utxo_unspent_created ON pindex.utxo_unspent (created_on, height)`,
)}

// collated gives every text column of statements the C collation: ids
// sort bytewise, as SQLite's do, and compare faster than in a locale's.
func collated(statements ...string) pgschema.Version {
	for i, s := range statements {
		statements[i] = strings.ReplaceAll(s, " TEXT", ` text COLLATE "C"`)
	}
	return statements
}

// MigratePostgres brings the database's P/X index schema to the version
// this avaedge knows, under pgschema's lock. It refuses a newer schema
// (pgschema.ErrNewer).
func MigratePostgres(ctx context.Context, c pgschema.Conn, log *slog.Logger) error {
	_, err := pgschema.Migrate(ctx, c, pgComponent, pgVersions, log)
	return err
}

// CheckPostgres is a reader's check of the schema (pgschema.Check).
func CheckPostgres(ctx context.Context, q pgschema.Querier) error {
	return pgschema.Check(ctx, q, pgComponent, len(pgVersions))
}
