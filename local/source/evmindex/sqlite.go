package evmindex

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"os"
	"path/filepath"
	"sync"

	"github.com/ethereum/go-ethereum/common"
	_ "github.com/mattn/go-sqlite3" // the "sqlite3" driver
)

// sqliteStore is the embedded Store: one SQLite database, one writer
// connection and a pool of readers. It is safe for concurrent use.
type sqliteStore struct {
	w      *sql.DB // the single writer connection
	r      *sql.DB // readers
	tmpDir string  // removed by Close when the store is temporary

	// mu serializes the writes; it guards icmSeq, the counter of
	// icm_messages.ord.
	mu     sync.Mutex
	icmSeq uint32
}

var _ Store = (*sqliteStore)(nil)

// openSQLite opens (or creates) the SQLite store at path ("": a private
// temporary file that Close removes: an index as volatile as memory, but
// with WAL's concurrent readers), migrating one an earlier version wrote
// and logging it to log.
func openSQLite(path string, log *slog.Logger) (*sqliteStore, error) {
	st := &sqliteStore{}
	if path == "" {
		dir, err := os.MkdirTemp("", "evmindex-")
		if err != nil {
			return nil, fmt.Errorf("evmindex: temp dir: %w", err)
		}
		st.tmpDir, path = dir, filepath.Join(dir, "index.db")
	}
	if err := st.open(path, log); err != nil {
		st.Close()
		return nil, err
	}
	return st, nil
}

func (st *sqliteStore) open(path string, log *slog.Logger) error {
	sync := "NORMAL"
	if st.tmpDir != "" {
		sync = "OFF"
	}
	dsn := "file:" + path + "?_journal_mode=WAL&_synchronous=" + sync + "&_busy_timeout=10000&_foreign_keys=0&cache=private"
	w, err := sql.Open("sqlite3", dsn+"&_txlock=immediate")
	if err != nil {
		return fmt.Errorf("evmindex: open %s: %w", path, err)
	}
	w.SetMaxOpenConns(1)
	w.SetConnMaxLifetime(0)
	st.w = w
	if _, err := w.Exec(schema + nativeSchema); err != nil {
		return fmt.Errorf("evmindex: schema: %w", err)
	}
	if err := migrate(context.Background(), w, log); err != nil {
		return fmt.Errorf("evmindex: %w", err)
	}
	if err := st.loadICM(); err != nil {
		return err
	}
	if _, err := w.Exec("PRAGMA cache_size=-65536; PRAGMA temp_store=MEMORY"); err != nil {
		return fmt.Errorf("evmindex: pragmas: %w", err)
	}
	// Readers keep their prepared statements (a listing's joins cost more
	// to prepare than to run a page of) and 8 MiB of pages each.
	r, err := sql.Open("sqlite3", dsn+"&mode=ro&_query_only=1&_stmt_cache_size=64&_cache_size=-8192")
	if err != nil {
		return fmt.Errorf("evmindex: open %s: %w", path, err)
	}
	r.SetMaxOpenConns(8)
	r.SetMaxIdleConns(8)
	st.r = r
	return nil
}

// Close closes the database, and removes it when it is temporary.
func (st *sqliteStore) Close() error {
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

// loadICM reads the store's last message counter, once at open.
func (st *sqliteStore) loadICM() error {
	var n int64
	if err := st.w.QueryRow(`SELECT COALESCE(MAX(ord & 4294967295), 0) FROM icm_messages`).Scan(&n); err != nil {
		return fmt.Errorf("evmindex: icm messages: %w", err)
	}
	st.icmSeq = uint32(n)
	return nil
}

// Chain registers chainID in the chains table unless it is there.
func (st *sqliteStore) Chain(ctx context.Context, chainID, startBlock uint64, traced bool) (uint64, bool, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	var start uint64
	var trace bool
	err := st.w.QueryRowContext(ctx, `SELECT start_block, trace FROM chains WHERE chain_id=?`, chainID).Scan(&start, &trace)
	if errors.Is(err, sql.ErrNoRows) {
		_, err = st.w.ExecContext(ctx, `INSERT INTO chains (chain_id, start_block, trace) VALUES (?,?,?)`, chainID, startBlock, traced)
		return startBlock, traced, err
	}
	return start, trace, err
}

func (st *sqliteStore) SetTraced(ctx context.Context, chainID uint64, traced bool) error {
	st.mu.Lock()
	defer st.mu.Unlock()
	_, err := st.w.ExecContext(ctx, `UPDATE chains SET trace=? WHERE chain_id=?`, traced, chainID)
	return err
}

func (st *sqliteStore) Head(ctx context.Context, chainID uint64) (uint64, uint64, bool, error) {
	var n, cum sql.NullInt64
	err := st.w.QueryRowContext(ctx, `SELECT number, cum_txs FROM blocks WHERE chain_id=? ORDER BY number DESC LIMIT 1`, chainID).Scan(&n, &cum)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return 0, 0, false, err
	}
	return uint64(n.Int64), uint64(cum.Int64), n.Valid, nil
}

func (st *sqliteStore) KnownTokens(ctx context.Context, chainID uint64) ([]Token, error) {
	rows, err := st.w.QueryContext(ctx, `SELECT address, kind, name, symbol FROM tokens WHERE chain_id=?`, chainID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Token
	for rows.Next() {
		var a []byte
		var t Token
		if err := rows.Scan(&a, &t.Kind, &t.Name, &t.Symbol); err != nil {
			return nil, err
		}
		t.Address = common.BytesToAddress(a)
		out = append(out, t)
	}
	return out, rows.Err()
}

// Announced returns the last blockchain id each of chainID's messengers
// announced.
func (st *sqliteStore) Announced(ctx context.Context, chainID uint64) (map[common.Address]common.Hash, error) {
	rows, err := st.w.QueryContext(ctx, `SELECT messenger, chain FROM icm_events WHERE chain_id=? AND kind=? ORDER BY block_number, log_index`, chainID, ICMBlockchainID)
	return readAnnounced(rows, err)
}

func (st *sqliteStore) BlockHash(ctx context.Context, chainID, n uint64) (common.Hash, error) {
	var h []byte
	err := st.w.QueryRowContext(ctx, `SELECT hash FROM blocks WHERE chain_id=? AND number=?`, chainID, n).Scan(&h)
	if err != nil {
		return common.Hash{}, fmt.Errorf("stored block %d: %w", n, err)
	}
	return common.BytesToHash(h), nil
}

// Write runs fn in one transaction of the writer.
func (st *sqliteStore) Write(ctx context.Context, chainID uint64, fn func(Batch) error) error {
	st.mu.Lock()
	defer st.mu.Unlock()
	tx, err := st.w.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("store: %w", err)
	}
	defer tx.Rollback()
	b := &sqliteBatch{st: st, tx: tx, ctx: ctx, chainID: chainID}
	defer b.close()
	if err := fn(b); err != nil {
		return fmt.Errorf("store: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("store: commit: %w", err)
	}
	return nil
}

func (st *sqliteStore) ICMBackfill(ctx context.Context, chainID uint64) (uint64, uint64, bool, error) {
	var next, end int64
	err := st.w.QueryRowContext(ctx, `SELECT next_block, end_block FROM icm_backfill WHERE chain_id=?`, chainID).Scan(&next, &end)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, 0, false, nil
	}
	if err != nil {
		return 0, 0, false, err
	}
	return uint64(next), uint64(end), true, nil
}

func (st *sqliteStore) PutNFTs(ctx context.Context, chainID uint64, nfts []NFT) error {
	st.mu.Lock()
	defer st.mu.Unlock()
	for _, n := range nfts {
		meta, _ := json.Marshal(n.Metadata)
		if _, err := st.w.ExecContext(ctx, `INSERT OR REPLACE INTO nfts VALUES (?,?,?,?,?,?,?)`, chainID, n.Contract.Bytes(), idBytes(n.TokenID),
			n.TokenURI, n.Status, string(meta), n.Updated); err != nil {
			return err
		}
	}
	return nil
}

func (st *sqliteStore) RecordBalance(ctx context.Context, chainID uint64, addr common.Address, block uint64, bal *big.Int) (bool, error) {
	if !st.mu.TryLock() {
		return false, nil
	}
	defer st.mu.Unlock()
	_, err := st.w.ExecContext(ctx, `INSERT OR REPLACE INTO native_balances (chain_id, address, block, balance) VALUES (?,?,?,?)`,
		chainID, addr.Bytes(), block, bal.String())
	return err == nil, err
}
