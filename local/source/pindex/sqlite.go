package pindex

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	_ "github.com/mattn/go-sqlite3" // the "sqlite3" driver

	"github.com/avaedge/avaedge/avanet"
)

// sqliteStore is the embedded Store: one SQLite database, one writer
// connection and a pool of readers. It is safe for concurrent use.
type sqliteStore struct {
	indexReads // on r
	w, r       *sql.DB
	tmpDir     string // removed by Close when the store is temporary
	// stmts are the readers' prepared statements of the queries every
	// listed transaction asks (prepared), by query text.
	stmts sync.Map
}

var _ Store = (*sqliteStore)(nil)

// prepared returns the readers' statement of the fixed query q, prepared
// once: preparing a query of several joins costs tens of microseconds,
// asked ten times a page.
func (st *sqliteStore) prepared(ctx context.Context, q string) (*sql.Stmt, error) {
	if stmt, ok := st.stmts.Load(q); ok {
		return stmt.(*sql.Stmt), nil
	}
	stmt, err := st.r.PrepareContext(ctx, q)
	if err != nil {
		return nil, err
	}
	if prev, loaded := st.stmts.LoadOrStore(q, stmt); loaded {
		stmt.Close()
		return prev.(*sql.Stmt), nil
	}
	return stmt, nil
}

// Memory is the Options.Path of a store kept in memory, gone at Close.
const Memory = ":memory:"

// memoryDBs numbers the in-memory databases, each shared by the store's
// writer and readers only.
var memoryDBs atomic.Uint64

// openSQLite opens (or creates) the SQLite store at path: Memory keeps it
// in memory, "" in a private temporary file that Close removes.
func openSQLite(path string) (*sqliteStore, error) {
	st := &sqliteStore{}
	if path == Memory {
		// One named in-memory database shared by the writer and the
		// readers (SQLite's shared cache); it lives while the writer's
		// connection does, which the pool keeps (no lifetime is set).
		dsn := fmt.Sprintf("file:pindex-mem-%d?mode=memory&cache=shared&_busy_timeout=10000", memoryDBs.Add(1))
		return st.open(dsn+"&_stmt_cache_size=64", dsn+"&_query_only=1")
	}
	if path == "" {
		dir, err := os.MkdirTemp("", "pindex-")
		if err != nil {
			return nil, fmt.Errorf("pindex: temp dir: %w", err)
		}
		st.tmpDir, path = dir, filepath.Join(dir, "pindex.db")
	}
	sync := "NORMAL"
	if st.tmpDir != "" {
		sync = "OFF"
	}
	dsn := "file:" + path + "?_journal_mode=WAL&_synchronous=" + sync + "&_busy_timeout=10000&cache=private"
	return st.open(dsn+"&_txlock=immediate&_stmt_cache_size=64", dsn+"&mode=ro&_query_only=1")
}

// open opens the writer (one connection), brings the schema up to date and
// opens the readers.
func (st *sqliteStore) open(wdsn, rdsn string) (*sqliteStore, error) {
	w, err := sql.Open("sqlite3", wdsn)
	if err != nil {
		st.Close()
		return nil, fmt.Errorf("pindex: open: %w", err)
	}
	w.SetMaxOpenConns(1)
	st.w = w
	if err := createSchema(w); err != nil {
		st.Close()
		return nil, fmt.Errorf("pindex: schema: %w", err)
	}
	r, err := sql.Open("sqlite3", rdsn)
	if err != nil {
		st.Close()
		return nil, fmt.Errorf("pindex: open: %w", err)
	}
	r.SetMaxOpenConns(8)
	r.SetMaxIdleConns(8)
	st.r = r
	st.indexReads = indexReads{run: sqlRunner{r}, sql: &sqliteReadSQL}
	return st, nil
}

// Close closes the database, and removes it when it is temporary.
func (st *sqliteStore) Close() error {
	st.stmts.Range(func(_, s any) bool { s.(*sql.Stmt).Close(); return true })
	if st.r != nil {
		st.r.Close()
	}
	if st.w != nil {
		st.w.Close()
	}
	if st.tmpDir != "" {
		os.RemoveAll(st.tmpDir)
	}
	return nil
}

// Meta reads a meta value; ok is false when it is absent.
func (st *sqliteStore) Meta(key string) (string, bool, error) {
	var v string
	err := st.w.QueryRow(`SELECT value FROM meta WHERE key=?`, key).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	return v, err == nil, err
}

// upsertMeta is SetMeta's statement.
const upsertMeta = `INSERT INTO meta (key, value) VALUES (?,?) ON CONFLICT(key) DO UPDATE SET value=excluded.value`

// SetMeta keeps value under key.
func (st *sqliteStore) SetMeta(key, value string) error {
	_, err := st.w.Exec(upsertMeta, key, value)
	return err
}

// SetSupply keeps the node's supply (meta "supply", as JSON).
func (st *sqliteStore) SetSupply(sp Supply) error { return setSupply(st, sp) }

// Record keeps the node's answer to method (meta "rpc:"+method).
func (st *sqliteStore) Record(method string, answer json.RawMessage) error {
	return record(st, method, answer)
}

// Head returns the highest stored height of chain.
func (st *sqliteStore) Head(chain avanet.Chain) (uint64, bool, error) {
	var h sql.NullInt64
	if err := st.w.QueryRow(`SELECT MAX(height) FROM blocks WHERE chain=?`, string(chain)).Scan(&h); err != nil {
		return 0, false, err
	}
	return uint64(h.Int64), h.Valid, nil
}

// blockIDQuery reads a block's id by its chain and height through
// blocks_height, its covering index (see schema).
const blockIDQuery = `SELECT id FROM blocks INDEXED BY blocks_height WHERE chain=? AND height=?`

// BlockIDAt returns the stored id of chain's block at height.
func (st *sqliteStore) BlockIDAt(chain avanet.Chain, height uint64) (string, error) {
	var id string
	err := st.w.QueryRow(blockIDQuery, string(chain), height).Scan(&id)
	return id, err
}

// Write runs fn in one transaction of the writer.
func (st *sqliteStore) Write(ctx context.Context, fn func(Batch) error) error {
	tx, err := st.w.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := fn(&sqliteBatch{tx: tx}); err != nil {
		return err
	}
	return tx.Commit()
}

// SetCurrentValidators keeps subnet's current validators.
func (st *sqliteStore) SetCurrentValidators(ctx context.Context, subnet string, body json.RawMessage, at int64) error {
	_, err := st.w.ExecContext(ctx, `INSERT INTO current (subnet, body, time) VALUES (?,?,?)
		ON CONFLICT(subnet) DO UPDATE SET body=excluded.body, time=excluded.time`, subnet, string(body), at)
	return err
}

// Rollback deletes every row chain's blocks above height made, and totals
// the chain's burned fees (of AVAX, avaxID) again.
func (st *sqliteStore) Rollback(ctx context.Context, avaxID string, chain avanet.Chain, height int64) error {
	tx, err := st.w.BeginTx(ctx, nil)
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

// RewardTxs returns the reward transactions above after whose option block
// is stored, with the kind of the stake each rewards.
func (st *sqliteStore) RewardTxs(ctx context.Context, after int64, limit int) ([]RewardTx, error) {
	return queryRewardTxs(ctx, sqlRunner{st.w}, `SELECT t.id, t.body, b.height, b.time, b.type, COALESCE(s.kind, '')
		FROM txs t JOIN blocks b ON b.chain='P' AND b.height = t.height + 1
		LEFT JOIN stakes s ON s.tx = json_extract(t.body, '$.unsignedTx.txID') AND s.seq = 0
		WHERE t.chain='P' AND t.type=? AND t.height > ? ORDER BY t.height LIMIT ?`, TxRewardValidator, after, limit)
}

// parseMetaUint reads a meta value that is a count of nAVAX.
func parseMetaUint(key, v string) (uint64, error) {
	n, err := strconv.ParseUint(v, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("pindex: meta %s %q: %w", key, v, err)
	}
	return n, nil
}
