package pindex

import (
	"database/sql"
	"fmt"
)

// The store is append-only per chain: every row carries the chain and the
// height of the block that made it, so a rollback to height h deletes the
// rows above h and nothing else. Facts that later blocks add to earlier rows
// (a UTXO spent, a stake ended, a subnet converted or given a new owner) are
// rows of their own, joined at query time; that also lets the P-avanet.Chain import
// a UTXO whose export the X-avanet.Chain follower has not stored yet.
const schema = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS blocks (
	chain TEXT NOT NULL, height INTEGER NOT NULL, id TEXT NOT NULL, parent TEXT NOT NULL,
	time INTEGER NOT NULL, type TEXT NOT NULL, size INTEGER NOT NULL, txs TEXT NOT NULL,
	PRIMARY KEY (chain, height)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS blocks_id ON blocks(id);
CREATE INDEX IF NOT EXISTS blocks_height ON blocks(chain, height, id, time);
CREATE TABLE IF NOT EXISTS txs (
	id TEXT PRIMARY KEY, chain TEXT NOT NULL, height INTEGER NOT NULL, idx INTEGER NOT NULL,
	type TEXT NOT NULL, time INTEGER NOT NULL, body TEXT NOT NULL) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS txs_height ON txs(chain, height, idx);
CREATE TABLE IF NOT EXISTS utxos (
	id TEXT PRIMARY KEY, chain TEXT NOT NULL, created_on TEXT NOT NULL, height INTEGER NOT NULL, time INTEGER NOT NULL,
	tx TEXT NOT NULL, output_index INTEGER NOT NULL, asset TEXT NOT NULL, amount TEXT NOT NULL,
	locktime INTEGER NOT NULL, threshold INTEGER NOT NULL, addresses TEXT NOT NULL,
	stake_locktime INTEGER NOT NULL, staked INTEGER NOT NULL, stake_start INTEGER NOT NULL, stake_end INTEGER NOT NULL,
	bytes BLOB NOT NULL) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS utxos_created ON utxos(created_on, height);
CREATE TABLE IF NOT EXISTS utxo_addrs (
	addr TEXT NOT NULL, chain TEXT NOT NULL, utxo TEXT NOT NULL, created_on TEXT NOT NULL, height INTEGER NOT NULL,
	PRIMARY KEY (addr, chain, utxo)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS utxo_addrs_created ON utxo_addrs(created_on, height);
CREATE TABLE IF NOT EXISTS spends (
	utxo TEXT PRIMARY KEY, tx TEXT NOT NULL, chain TEXT NOT NULL, height INTEGER NOT NULL, time INTEGER NOT NULL) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS spends_height ON spends(chain, height);
CREATE TABLE IF NOT EXISTS subnets (
	id TEXT PRIMARY KEY, tx TEXT NOT NULL, height INTEGER NOT NULL, time INTEGER NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS subnet_owners (
	subnet TEXT NOT NULL, height INTEGER NOT NULL, tx TEXT NOT NULL, locktime INTEGER NOT NULL, threshold INTEGER NOT NULL,
	addresses TEXT NOT NULL, PRIMARY KEY (subnet, height, tx)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS conversions (
	subnet TEXT PRIMARY KEY, tx TEXT NOT NULL, chain_id TEXT NOT NULL, address TEXT NOT NULL,
	height INTEGER NOT NULL, time INTEGER NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS blockchains (
	id TEXT PRIMARY KEY, subnet TEXT NOT NULL, name TEXT NOT NULL, vm TEXT NOT NULL, genesis BLOB NOT NULL,
	height INTEGER NOT NULL, time INTEGER NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS stakes (
	tx TEXT NOT NULL, seq INTEGER NOT NULL, kind TEXT NOT NULL, node TEXT NOT NULL, subnet TEXT NOT NULL,
	weight INTEGER NOT NULL, start INTEGER NOT NULL, end INTEGER NOT NULL, fee INTEGER NOT NULL,
	reward_owner TEXT NOT NULL, bls_key TEXT NOT NULL, bls_pop TEXT NOT NULL, validation_id TEXT NOT NULL,
	balance INTEGER NOT NULL, height INTEGER NOT NULL, time INTEGER NOT NULL,
	PRIMARY KEY (tx, seq)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS stakes_node ON stakes(node);
CREATE TABLE IF NOT EXISTS stake_ends (
	stake TEXT PRIMARY KEY, tx TEXT NOT NULL, kind TEXT NOT NULL, height INTEGER NOT NULL, time INTEGER NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS assets (
	id TEXT PRIMARY KEY, chain TEXT NOT NULL, name TEXT NOT NULL, symbol TEXT NOT NULL, denomination INTEGER NOT NULL,
	height INTEGER NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS current (
	subnet TEXT PRIMARY KEY, body TEXT NOT NULL, time INTEGER NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS l1_txs (
	validation_id TEXT NOT NULL, tx TEXT NOT NULL, balance INTEGER NOT NULL, height INTEGER NOT NULL,
	PRIMARY KEY (validation_id, tx)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS l1_txs_height ON l1_txs(height);
CREATE TABLE IF NOT EXISTS asset_txs (
	asset TEXT NOT NULL, height INTEGER NOT NULL, idx INTEGER NOT NULL, tx TEXT NOT NULL,
	PRIMARY KEY (asset, height, idx)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS asset_txs_height ON asset_txs(height);
CREATE TABLE IF NOT EXISTS burn_pending (tx TEXT PRIMARY KEY, chain TEXT NOT NULL, height INTEGER NOT NULL) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS spends_tx ON spends(tx);
CREATE INDEX IF NOT EXISTS txs_type ON txs(chain, type, height);
CREATE TABLE IF NOT EXISTS addr_txs (
	addr TEXT NOT NULL, chain TEXT NOT NULL, height INTEGER NOT NULL, idx INTEGER NOT NULL, tx TEXT NOT NULL,
	PRIMARY KEY (addr, chain, height, idx)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS addr_txs_height ON addr_txs(chain, height);
CREATE TABLE IF NOT EXISTS utxo_unspent (
	addr TEXT NOT NULL, chain TEXT NOT NULL, utxo TEXT NOT NULL, created_on TEXT NOT NULL, height INTEGER NOT NULL,
	PRIMARY KEY (addr, chain, utxo)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS utxo_unspent_created ON utxo_unspent(created_on, height);
`

// A block's row holds its JSON (tens of kilobytes on a busy X-avanet.Chain), and
// SQLite reads the whole of an overflowing row of a WITHOUT ROWID table to
// compare keys on the way to it: looking a block up by its primary key
// costs about 200 us. The lookups of a block's id and time by height (one
// per transaction listed) go through blocks_height, a covering index,
// instead: about 8 us (INDEXED BY, since the planner prefers the key).

// Two tables answer an address's questions without walking its history:
// addr_txs lists the transactions (of their own chain, at their height and
// block position) that made or spent a UTXO the address may spend, newest
// first by its key; utxo_unspent is utxo_addrs less the spent UTXOs. The
// write path keeps both (output, spend, paidUTXO), a rollback restores the
// unspent rows of the spends it deletes, and a store written before them
// gets them at open (schemaVersion 3). A whale's balance then reads its few
// unspent UTXOs, not the 50,000 it ever had.

// heightTables are the tables a rollback trims: table and its chain column.
var heightTables = [][2]string{
	{"blocks", "chain"}, {"txs", "chain"}, {"utxos", "created_on"}, {"utxo_addrs", "created_on"}, {"spends", "chain"},
	{"subnets", "'P'"}, {"subnet_owners", "'P'"}, {"conversions", "'P'"}, {"blockchains", "'P'"},
	{"stakes", "'P'"}, {"stake_ends", "'P'"}, {"assets", "chain"}, {"l1_txs", "'P'"}, {"asset_txs", "'X'"}, {"burn_pending", "chain"},
	{"addr_txs", "chain"}, {"utxo_unspent", "created_on"},
}

// migrations add the columns of later versions to a store an earlier one
// made: table, column, type.
var migrations = [][3]string{
	{"blocks", "bytes", "BLOB"},
	{"blocks", "json", "TEXT"},
	{"txs", "bytes", "BLOB"},
	{"utxos", "reward", "TEXT"},     // a reward UTXO's kind
	{"utxos", "emitted_by", "TEXT"}, // the RewardValidatorTx that paid a reward UTXO (its tx is the staking tx)
	{"assets", "cap", "TEXT"},       // fixed or variable (NULL before version 2: derived then)
	{"assets", "type", "TEXT"},      // secp256k1 or nft
}

// migrate adds missing columns. Rows stored before them have NULLs there:
// the node methods answer "not found" for those blocks and transactions.
func migrate(db *sql.DB) error {
	for _, m := range migrations {
		rows, err := db.Query(`SELECT name FROM pragma_table_info(?)`, m[0])
		if err != nil {
			return err
		}
		found := false
		for rows.Next() {
			var name string
			if err := rows.Scan(&name); err != nil {
				rows.Close()
				return err
			}
			found = found || name == m[1]
		}
		rows.Close()
		if found {
			continue
		}
		if _, err := db.Exec(`ALTER TABLE ` + m[0] + ` ADD COLUMN ` + m[1] + ` ` + m[2]); err != nil {
			return fmt.Errorf("adding %s.%s: %w", m[0], m[1], err)
		}
	}
	return nil
}

// derivedIndexes are the indexes on migrated columns: the UTXOs a
// transaction emitted (TxUTXOs), the reward UTXOs (Stakes, RewardUTXOs,
// Totals), those paid without a spend (Totals) and the locked ones
// (LockedAVAX).
const derivedIndexes = `CREATE INDEX IF NOT EXISTS utxos_emitted ON utxos(COALESCE(emitted_by, tx));
	CREATE INDEX IF NOT EXISTS utxos_reward ON utxos(tx) WHERE reward IS NOT NULL AND reward != '';
	CREATE INDEX IF NOT EXISTS utxos_paid ON utxos(created_on) WHERE emitted_by IS NOT NULL;
	CREATE INDEX IF NOT EXISTS utxos_locked ON utxos(locktime, stake_locktime) WHERE locktime > 0 OR stake_locktime > 0`

// createSchema makes the tables a new store lacks, adds the columns an
// earlier version's lacks, and their indexes.
func createSchema(w *sql.DB) error {
	if _, err := w.Exec(schema); err != nil {
		return err
	}
	if err := migrate(w); err != nil {
		return err
	}
	_, err := w.Exec(derivedIndexes)
	return err
}
