package evmindex

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"strings"
	"sync"

	"github.com/ethereum/go-ethereum/common"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/avaedge/avaedge/local/source/pgschema"
)

// pgStore is the PostgreSQL store, for a fleet of replicas sharing one
// index (local.index_url): one writer, elected by a lease (local/source/lease),
// many readers. Amounts are numeric(78,0), bytes bytea (pg_schema.go). It
// is safe for concurrent use: it serializes its writes; reads run beside
// them on the pool and see what a write committed.
type pgStore struct {
	pool *pgxpool.Pool

	// mu serializes the writes; it guards icmSeq, the counter of
	// icm_messages.ord, and written and analyzed.
	mu     sync.Mutex
	icmSeq uint32
	// written counts the statements committed by this store; analyzed is
	// written at the last ANALYZE (analyzeAfter).
	written, analyzed int64

	fence Fence // nil: none; set at open
}

var _ Store = (*pgStore)(nil)

// OpenPostgres connects to the database at url (a postgres:// URL), brings
// its schema to this version and returns the store, for Options.Store. The
// caller holds the writer's lease.
func OpenPostgres(ctx context.Context, url string, log *slog.Logger, fence Fence) (Store, error) {
	st, err := openPostgres(ctx, url, log)
	if err != nil {
		return nil, err
	}
	st.fence = fence
	return st, nil
}

// Fence is run first in each of the follower's transactions (Write,
// Rollback) of the PostgreSQL store: an error (the replica no longer holds
// the writer's lease: lease.Elector.Fence) aborts the transaction, so a
// writer that lost the lease and does not know it yet commits nothing.
type Fence func(ctx context.Context, tx pgx.Tx) error

func openPostgres(ctx context.Context, url string, log *slog.Logger) (*pgStore, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("evmindex: postgres: %w", err)
	}
	setSessionDefaults(cfg)
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("evmindex: postgres: %w", err)
	}
	st := &pgStore{pool: pool}
	if err := MigratePostgres(ctx, pool, log); err != nil {
		pool.Close()
		return nil, err
	}
	var n int64
	if err := pool.QueryRow(ctx, `SELECT COALESCE(MAX(ord & 4294967295), 0) FROM icm_messages`).Scan(&n); err != nil {
		pool.Close()
		return nil, fmt.Errorf("evmindex: postgres: icm messages: %w", err)
	}
	st.icmSeq = uint32(n)
	return st, nil
}

// OpenPostgresReplica connects to a read replica of the EVM index's
// database at url (a hot standby of OpenPostgres's), for
// Options.Replica: its schema must be this version (pgschema.OpenReplica:
// a newer one is refused). The store only reads: a write there fails.
func OpenPostgresReplica(ctx context.Context, url string) (Store, error) {
	pool, err := pgschema.OpenReplica(ctx, url, pgComponent, len(pgVersions), setSessionDefaults)
	if err != nil {
		return nil, fmt.Errorf("evmindex: %w", err)
	}
	return &pgStore{pool: pool}, nil
}

// setSessionDefaults sets sessionSettings in cfg, unless the URL set them.
func setSessionDefaults(cfg *pgxpool.Config) {
	for k, v := range sessionSettings {
		if _, set := cfg.ConnConfig.RuntimeParams[k]; !set {
			cfg.ConnConfig.RuntimeParams[k] = v
		}
	}
}

// Close closes the store's connections.
func (st *pgStore) Close() error {
	st.pool.Close()
	return nil
}

// Chain registers chainID unless it is there; it returns the stored first
// block and tracing.
func (st *pgStore) Chain(ctx context.Context, chainID, startBlock uint64, traced bool) (uint64, bool, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	var start uint64
	var trace bool
	err := st.pool.QueryRow(ctx, `INSERT INTO chains (chain_id, start_block, trace) VALUES ($1, $2, $3)
		ON CONFLICT (chain_id) DO UPDATE SET chain_id = EXCLUDED.chain_id RETURNING start_block, trace`, chainID, startBlock, traced).Scan(&start, &trace)
	return start, trace, err
}

// SetTraced records whether chainID's blocks are traced from now on.
func (st *pgStore) SetTraced(ctx context.Context, chainID uint64, traced bool) error {
	st.mu.Lock()
	defer st.mu.Unlock()
	_, err := st.pool.Exec(ctx, `UPDATE chains SET trace=$1 WHERE chain_id=$2`, traced, chainID)
	return err
}

// Head returns chainID's highest stored block and its cumulative
// transactions.
func (st *pgStore) Head(ctx context.Context, chainID uint64) (uint64, uint64, bool, error) {
	var n, cum uint64
	err := st.pool.QueryRow(ctx, `SELECT number, cum_txs FROM blocks WHERE chain_id=$1 ORDER BY number DESC LIMIT 1`, chainID).Scan(&n, &cum)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, 0, false, nil
	}
	return n, cum, err == nil, err
}

// KnownTokens returns chainID's stored tokens.
func (st *pgStore) KnownTokens(ctx context.Context, chainID uint64) ([]Token, error) {
	rows, err := st.pool.Query(ctx, `SELECT address, kind, name, symbol FROM tokens WHERE chain_id=$1`, chainID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Token
	for rows.Next() {
		var a []byte
		var kind int16
		var t Token
		if err := rows.Scan(&a, &kind, &t.Name, &t.Symbol); err != nil {
			return nil, err
		}
		t.Address, t.Kind = common.BytesToAddress(a), TokenKind(kind)
		out = append(out, t)
	}
	return out, rows.Err()
}

// Announced returns the last blockchain id each of chainID's messengers
// announced.
func (st *pgStore) Announced(ctx context.Context, chainID uint64) (map[common.Address]common.Hash, error) {
	rows, err := st.query(ctx, `SELECT messenger, chain FROM icm_events WHERE chain_id=$1 AND kind=$2 ORDER BY block_number, log_index`,
		chainID, int16(ICMBlockchainID))
	return readAnnounced(rows, err)
}

// BlockHash returns the hash of chainID's stored block n.
func (st *pgStore) BlockHash(ctx context.Context, chainID, n uint64) (common.Hash, error) {
	var h []byte
	if err := st.pool.QueryRow(ctx, `SELECT hash FROM blocks WHERE chain_id=$1 AND number=$2`, chainID, n).Scan(&h); err != nil {
		return common.Hash{}, fmt.Errorf("stored block %d: %w", n, err)
	}
	return common.BytesToHash(h), nil
}

// Write runs fn in one transaction: its rows are sent in pipelined
// batches (one round trip per pgBatchSize statements, not one a row) and
// committed when fn returns nil.
func (st *pgStore) Write(ctx context.Context, chainID uint64, fn func(Batch) error) error {
	st.mu.Lock()
	defer st.mu.Unlock()
	var sent int64
	err := pgx.BeginFunc(ctx, st.pool, func(tx pgx.Tx) error {
		if err := st.fenced(ctx, tx); err != nil {
			return err
		}
		b := newPGBatch(ctx, st, tx, chainID)
		if err := fn(b); err != nil {
			return err
		}
		sent = b.p.Sent
		return b.flush()
	})
	if err != nil {
		return fmt.Errorf("store: %w", err)
	}
	st.written += sent
	return st.analyzeAfter(ctx)
}

// sessionSettings are the planner settings of the store's sessions, unless
// the URL sets them (options or a parameter of the same name): the
// listings are short index reads, which JIT compilation (its threshold met
// by a large table's estimates) slows by milliseconds, and an index's
// pages are read at random at the cost of sequential ones on an SSD or
// from memory.
var sessionSettings = map[string]string{"jit": "off", "random_page_cost": "1.1"}

// analyzeFloor is the statements written before the store's first
// ANALYZE (a variable for the tests).
var analyzeFloor int64 = 50_000

// analyzeAfter refreshes the planner's statistics of the index's tables
// once the statements written since the last ANALYZE reach the number
// written before it (at least analyzeFloor): during a catch-up the index
// is analyzed each time it doubles, a log of its size in all, so that the
// planner sees its tables' sizes and keys right away (autovacuum analyzes
// a table only once a tenth of it changed, and not at once), and following
// at the head, one block a write, it leaves the statistics to autovacuum.
// The caller holds mu.
func (st *pgStore) analyzeAfter(ctx context.Context) error {
	if st.written-st.analyzed < max(analyzeFloor, st.analyzed) {
		return nil
	}
	if _, err := st.pool.Exec(ctx, `ANALYZE `+strings.Join(pgTables, ", ")); err != nil {
		return fmt.Errorf("store: analyze: %w", err)
	}
	st.analyzed = st.written
	return nil
}

// ICMBackfill returns the blocks of chainID whose messenger events are
// still to be read.
func (st *pgStore) ICMBackfill(ctx context.Context, chainID uint64) (uint64, uint64, bool, error) {
	var next, end uint64
	err := st.pool.QueryRow(ctx, `SELECT next_block, end_block FROM icm_backfill WHERE chain_id=$1`, chainID).Scan(&next, &end)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, 0, false, nil
	}
	return next, end, err == nil, err
}

// PutNFTs keeps NFTs' URIs and metadata as read.
func (st *pgStore) PutNFTs(ctx context.Context, chainID uint64, nfts []NFT) error {
	st.mu.Lock()
	defer st.mu.Unlock()
	var q pgx.Batch
	for _, n := range nfts {
		meta, _ := json.Marshal(n.Metadata)
		q.Queue(`INSERT INTO nfts (chain_id, contract, token_id, token_uri, status, metadata, updated) VALUES ($1,$2,$3,$4,$5,$6,$7)
			ON CONFLICT (chain_id, contract, token_id) DO UPDATE SET token_uri=EXCLUDED.token_uri, status=EXCLUDED.status,
			metadata=EXCLUDED.metadata, updated=EXCLUDED.updated`, chainID, n.Contract.Bytes(), idBytes(n.TokenID), n.TokenURI, n.Status, string(meta), n.Updated)
	}
	return st.pool.SendBatch(ctx, &q).Close()
}

// RecordBalance keeps a native balance the node answered, unless a write
// is under way (false then, without waiting).
func (st *pgStore) RecordBalance(ctx context.Context, chainID uint64, addr common.Address, block uint64, bal *big.Int) (bool, error) {
	if !st.mu.TryLock() {
		return false, nil
	}
	defer st.mu.Unlock()
	_, err := st.pool.Exec(ctx, `INSERT INTO native_balances (chain_id, address, block, balance) VALUES ($1,$2,$3,$4)
		ON CONFLICT (chain_id, address, block) DO UPDATE SET balance=EXCLUDED.balance`, chainID, addr.Bytes(), block, num(bal))
	return err == nil, err
}

// num is an amount as a numeric parameter; nil is NULL.
func num(b *big.Int) pgtype.Numeric {
	if b == nil {
		return pgtype.Numeric{}
	}
	return pgtype.Numeric{Int: b, Valid: true}
}

// fenced runs the store's Fence, if any, in tx.
func (st *pgStore) fenced(ctx context.Context, tx pgx.Tx) error {
	if st.fence == nil {
		return nil
	}
	return st.fence(ctx, tx)
}
