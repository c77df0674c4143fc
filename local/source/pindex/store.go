package pindex

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"

	_ "github.com/mattn/go-sqlite3" // the "sqlite3" driver

	"github.com/avaedge/avaedge/avanet"
)

// The store is append-only per chain: every row carries the chain and the
// height of the block that made it, so a rollback to height h deletes the
// rows above h and nothing else. Facts that later blocks add to earlier rows
// (a UTXO spent, a stake ended, a subnet converted or given a new owner) are
// rows of their own, joined at query time; that also lets the P-Chain import
// a UTXO whose export the X-Chain follower has not stored yet.
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

// A block's row holds its JSON (tens of kilobytes on a busy X-Chain), and
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

// store is the SQLite database: one writer connection, a pool of readers.
type store struct {
	w, r   *sql.DB
	tmpDir string // removed by close when the store is temporary
	// stmts are the readers' prepared statements of the queries every
	// listed transaction asks (prepared), by query text.
	stmts sync.Map
}

// prepared returns the readers' statement of the fixed query q, prepared
// once: preparing a query of several joins costs tens of microseconds,
// asked ten times a page.
func (s *store) prepared(ctx context.Context, q string) (*sql.Stmt, error) {
	if st, ok := s.stmts.Load(q); ok {
		return st.(*sql.Stmt), nil
	}
	st, err := s.r.PrepareContext(ctx, q)
	if err != nil {
		return nil, err
	}
	if prev, loaded := s.stmts.LoadOrStore(q, st); loaded {
		st.Close()
		return prev.(*sql.Stmt), nil
	}
	return st, nil
}

// Memory is the Options.Path of a store kept in memory, gone at Close.
const Memory = ":memory:"

// memoryDBs numbers the in-memory databases, each shared by the store's
// writer and readers only.
var memoryDBs atomic.Uint64

func openStore(path string) (*store, error) {
	s := &store{}
	if path == Memory {
		// One named in-memory database shared by the writer and the
		// readers (SQLite's shared cache); it lives while the writer's
		// connection does, which the pool keeps (no lifetime is set).
		dsn := fmt.Sprintf("file:pindex-mem-%d?mode=memory&cache=shared&_busy_timeout=10000", memoryDBs.Add(1))
		return s.open(dsn+"&_stmt_cache_size=64", dsn+"&_query_only=1")
	}
	if path == "" {
		dir, err := os.MkdirTemp("", "pindex-")
		if err != nil {
			return nil, fmt.Errorf("pindex: temp dir: %w", err)
		}
		s.tmpDir, path = dir, filepath.Join(dir, "pindex.db")
	}
	sync := "NORMAL"
	if s.tmpDir != "" {
		sync = "OFF"
	}
	dsn := "file:" + path + "?_journal_mode=WAL&_synchronous=" + sync + "&_busy_timeout=10000&cache=private"
	return s.open(dsn+"&_txlock=immediate&_stmt_cache_size=64", dsn+"&mode=ro&_query_only=1")
}

// open opens the writer (one connection) and the readers.
func (s *store) open(wdsn, rdsn string) (*store, error) {
	w, err := sql.Open("sqlite3", wdsn)
	if err != nil {
		s.close()
		return nil, fmt.Errorf("pindex: open: %w", err)
	}
	w.SetMaxOpenConns(1)
	s.w = w
	if _, err := w.Exec(schema); err != nil {
		s.close()
		return nil, fmt.Errorf("pindex: schema: %w", err)
	}
	if err := migrate(w); err != nil {
		s.close()
		return nil, fmt.Errorf("pindex: schema: %w", err)
	}
	// The UTXOs a transaction emitted (TxUTXOs), the reward UTXOs (Stakes,
	// RewardUTXOs, Totals), those paid without a spend (Totals) and the
	// locked ones (LockedAVAX), on migrated columns.
	if _, err := w.Exec(`CREATE INDEX IF NOT EXISTS utxos_emitted ON utxos(COALESCE(emitted_by, tx));
		CREATE INDEX IF NOT EXISTS utxos_reward ON utxos(tx) WHERE reward IS NOT NULL AND reward != '';
		CREATE INDEX IF NOT EXISTS utxos_paid ON utxos(created_on) WHERE emitted_by IS NOT NULL;
		CREATE INDEX IF NOT EXISTS utxos_locked ON utxos(locktime, stake_locktime) WHERE locktime > 0 OR stake_locktime > 0`); err != nil {
		s.close()
		return nil, fmt.Errorf("pindex: schema: %w", err)
	}
	r, err := sql.Open("sqlite3", rdsn)
	if err != nil {
		s.close()
		return nil, fmt.Errorf("pindex: open: %w", err)
	}
	r.SetMaxOpenConns(8)
	r.SetMaxIdleConns(8)
	s.r = r
	return s, nil
}

func (s *store) close() {
	s.stmts.Range(func(_, st any) bool { st.(*sql.Stmt).Close(); return true })
	if s.r != nil {
		s.r.Close()
	}
	if s.w != nil {
		s.w.Close()
	}
	if s.tmpDir != "" {
		os.RemoveAll(s.tmpDir)
	}
}

// meta reads a meta value; ok is false when it is absent.
func (s *store) meta(key string) (string, bool, error) {
	var v string
	err := s.w.QueryRow(`SELECT value FROM meta WHERE key=?`, key).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	return v, err == nil, err
}

func (s *store) setMeta(key, value string) error {
	_, err := s.w.Exec(`INSERT INTO meta (key, value) VALUES (?,?) ON CONFLICT(key) DO UPDATE SET value=excluded.value`, key, value)
	return err
}

// head returns the highest stored height of chain.
func (s *store) head(chain avanet.Chain) (uint64, bool, error) {
	var h sql.NullInt64
	if err := s.w.QueryRow(`SELECT MAX(height) FROM blocks WHERE chain=?`, string(chain)).Scan(&h); err != nil {
		return 0, false, err
	}
	return uint64(h.Int64), h.Valid, nil
}

// blockID returns the stored id of chain's block at height.
func (s *store) blockID(chain avanet.Chain, height uint64) (string, error) {
	var id string
	err := s.w.QueryRow(`SELECT id FROM blocks INDEXED BY blocks_height WHERE chain=? AND height=?`, string(chain), height).Scan(&id)
	return id, err
}

// rollback deletes every row chain's blocks above height made, and totals
// the chain's burned fees (of AVAX, avaxID) again.
func (s *store) rollback(ctx context.Context, avaxID string, chain avanet.Chain, height int64) error {
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := unspendAbove(tx, chain, height); err != nil {
		return fmt.Errorf("pindex: rollback unspent UTXOs: %w", err)
	}
	for _, t := range heightTables {
		if t[1][0] == '\'' && t[1] != "'"+string(chain)+"'" {
			continue
		}
		if _, err := tx.Exec(`DELETE FROM `+t[0]+` WHERE `+t[1]+`=? AND height>?`, string(chain), height); err != nil {
			return fmt.Errorf("pindex: rollback %s: %w", t[0], err)
		}
	}
	if chain == avanet.ChainP {
		// The rewards of a reward tx at height-1 or above were stored with
		// its option block above height: they are read again.
		if _, err := tx.Exec(`UPDATE meta SET value=CAST(MIN(CAST(value AS INTEGER), ?) AS TEXT) WHERE key='rewards_height'`, height-1); err != nil {
			return fmt.Errorf("pindex: rollback rewards_height: %w", err)
		}
	}
	if err := resetBurned(tx, avaxID, chain); err != nil {
		return fmt.Errorf("pindex: rollback burned fees: %w", err)
	}
	return tx.Commit()
}

// unspendAbove puts back in utxo_unspent the UTXOs that chain's spends above
// height spent (those the rollback then deletes; a UTXO made above height
// goes with its own rows).
func unspendAbove(tx *sql.Tx, chain avanet.Chain, height int64) error {
	rows, err := tx.Query(`SELECT u.id, u.chain, u.created_on, u.height, u.addresses FROM spends s JOIN utxos u ON u.id = s.utxo
		WHERE s.chain=? AND s.height>?`, string(chain), height)
	if err != nil {
		return err
	}
	type row struct {
		id, chain, created, addrs string
		height                    int64
	}
	var back []row
	for rows.Next() {
		var r row
		if err := rows.Scan(&r.id, &r.chain, &r.created, &r.height, &r.addrs); err != nil {
			rows.Close()
			return err
		}
		back = append(back, r)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, r := range back {
		for _, a := range storedAddrs(r.addrs) {
			if _, err := tx.Exec(`INSERT OR IGNORE INTO utxo_unspent (addr, chain, utxo, created_on, height) VALUES (?,?,?,?,?)`,
				a, r.chain, r.id, r.created, r.height); err != nil {
				return err
			}
		}
	}
	return nil
}

// storedAddrs splits a UTXO's stored addresses (joinAddrs) into the strings
// utxo_addrs holds.
func storedAddrs(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}
