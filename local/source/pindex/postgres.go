package pindex

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/avaedge/avaedge/avanet"
	"github.com/avaedge/avaedge/local/source/pgschema"
)

// pgStore is the PostgreSQL store, for a fleet of replicas sharing one
// index (local.index_url): one writer, elected by a lease
// (local/source/lease), many readers. Its tables are in the schema pindex
// (pg_schema.go). It is safe for concurrent use: it serializes its
// writes; reads run beside them on the pool and see what a write
// committed.
type pgStore struct {
	indexReads // on the pool
	pool       *pgxpool.Pool
	// mu serializes the follower's transactions (Write, Rollback).
	mu    sync.Mutex
	fence Fence // nil: none
}

var _ Store = (*pgStore)(nil)

// Fence is run first in each of the follower's transactions (Write,
// Rollback) of the PostgreSQL store: an error (the replica no longer holds
// the writer's lease: lease.Elector.Fence) aborts the transaction, so a
// writer that lost the lease and does not know it yet commits nothing.
type Fence func(ctx context.Context, tx pgx.Tx) error

// OpenPostgres connects to the database at url (a postgres:// URL), brings
// the P/X index's schema to this version and returns the store, for
// Options.Store. Its follower's transactions run fence first (nil: none).
func OpenPostgres(ctx context.Context, url string, log *slog.Logger, fence Fence) (Store, error) {
	st, err := openPostgres(ctx, url, log)
	if err != nil {
		return nil, err
	}
	st.fence = fence
	return st, nil
}

func openPostgres(ctx context.Context, url string, log *slog.Logger) (*pgStore, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("pindex: postgres: %w", err)
	}
	// The migration runs on a connection of the default search_path:
	// avaedge_schema is shared by every component.
	conn, err := pgx.ConnectConfig(ctx, cfg.ConnConfig.Copy())
	if err != nil {
		return nil, fmt.Errorf("pindex: postgres: %w", err)
	}
	err = MigratePostgres(ctx, conn, log)
	conn.Close(ctx)
	if err != nil {
		return nil, err
	}
	cfg.ConnConfig.RuntimeParams["search_path"] = pgNamespace
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("pindex: postgres: %w", err)
	}
	return newPGStore(pool), nil
}

// OpenPostgresReplica connects to a read replica of the P/X index's
// database at url (a hot standby of OpenPostgres's), for Options.Replica:
// its schema must be this version (pgschema.OpenReplica: a newer one is
// refused). The store only reads: a write there fails.
func OpenPostgresReplica(ctx context.Context, url string) (Store, error) {
	pool, err := pgschema.OpenReplica(ctx, url, pgComponent, len(pgVersions), func(cfg *pgxpool.Config) {
		cfg.ConnConfig.RuntimeParams["search_path"] = pgNamespace
	})
	if err != nil {
		return nil, fmt.Errorf("pindex: %w", err)
	}
	return newPGStore(pool), nil
}

// newPGStore is the store over pool, its shared reads run there.
func newPGStore(pool *pgxpool.Pool) *pgStore {
	return &pgStore{indexReads: indexReads{run: pgRunner{pool}, sql: &pgReadSQL}, pool: pool}
}

// Close closes the store's connections.
func (st *pgStore) Close() error {
	st.pool.Close()
	return nil
}

// fenced runs the store's Fence, if any, in tx.
func (st *pgStore) fenced(ctx context.Context, tx pgx.Tx) error {
	if st.fence == nil {
		return nil
	}
	return st.fence(ctx, tx)
}

// pgUpsertMeta is SetMeta's statement.
const pgUpsertMeta = `INSERT INTO meta (key, value) VALUES ($1,$2) ON CONFLICT (key) DO UPDATE SET value=EXCLUDED.value`

// Meta reads a meta value; ok is false when it is absent.
func (st *pgStore) Meta(key string) (string, bool, error) {
	return st.readMeta(context.Background(), key)
}

// SetMeta keeps value under key. The values kept outside the follower's
// transactions (the network, the node's answers) are the node's own:
// replicas of one network write the same.
func (st *pgStore) SetMeta(key, value string) error {
	_, err := st.pool.Exec(context.Background(), pgUpsertMeta, key, value)
	return err
}

// Upgrade records the version of the derived tables (meta "schema", as the
// SQLite store does): the PostgreSQL store's first version has them all.
func (st *pgStore) Upgrade(ctx context.Context, _ string, _ *slog.Logger) error {
	_, err := st.pool.Exec(ctx, `INSERT INTO meta (key, value) VALUES ('schema', $1) ON CONFLICT (key) DO NOTHING`, strconv.Itoa(schemaVersion))
	return err
}

// SetSupply keeps the node's supply (meta "supply", as JSON).
func (st *pgStore) SetSupply(sp Supply) error { return setSupply(st, sp) }

// Record keeps the node's answer to method (meta "rpc:"+method).
func (st *pgStore) Record(method string, answer json.RawMessage) error {
	return record(st, method, answer)
}

// Head returns the highest stored height of chain.
func (st *pgStore) Head(chain avanet.Chain) (uint64, bool, error) {
	var h int64
	err := st.pool.QueryRow(context.Background(), `SELECT height FROM blocks WHERE chain=$1 ORDER BY height DESC LIMIT 1`, string(chain)).Scan(&h)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, false, nil
	}
	return uint64(h), err == nil, err
}

// BlockIDAt returns the stored id of chain's block at height.
func (st *pgStore) BlockIDAt(chain avanet.Chain, height uint64) (string, error) {
	var id string
	err := st.pool.QueryRow(context.Background(), `SELECT id FROM blocks WHERE chain=$1 AND height=$2`, string(chain), int64(height)).Scan(&id)
	return id, err
}

// Write runs fn in one transaction, fenced: its rows are sent in
// pipelined batches (pgBatch) and committed when fn returns nil.
func (st *pgStore) Write(ctx context.Context, fn func(Batch) error) error {
	st.mu.Lock()
	defer st.mu.Unlock()
	return pgx.BeginFunc(ctx, st.pool, func(tx pgx.Tx) error {
		if err := st.fenced(ctx, tx); err != nil {
			return err
		}
		b := newPGBatch(ctx, tx)
		if err := fn(b); err != nil {
			return err
		}
		return b.flush()
	})
}

// SetCurrentValidators keeps subnet's current validators.
func (st *pgStore) SetCurrentValidators(ctx context.Context, subnet string, body json.RawMessage, at int64) error {
	_, err := st.pool.Exec(ctx, `INSERT INTO current (subnet, body, time) VALUES ($1,$2,$3)
		ON CONFLICT (subnet) DO UPDATE SET body=EXCLUDED.body, time=EXCLUDED.time`, subnet, string(body), at)
	return err
}

// Rollback deletes every row chain's blocks above height made, puts back
// what they spent, and totals the chain's burned fees again, in one
// fenced transaction.
func (st *pgStore) Rollback(ctx context.Context, avaxID string, chain avanet.Chain, height int64) error {
	st.mu.Lock()
	defer st.mu.Unlock()
	return pgx.BeginFunc(ctx, st.pool, func(tx pgx.Tx) error {
		if err := st.fenced(ctx, tx); err != nil {
			return err
		}
		// The unspent rows of the UTXOs the deleted spends spent (those
		// made above height go with their own rows).
		if _, err := tx.Exec(ctx, `INSERT INTO utxo_unspent (addr, chain, utxo, created_on, height)
			SELECT a, u.chain, u.id, u.created_on, u.height FROM spends s JOIN utxos u ON u.id = s.utxo,
				unnest(string_to_array(NULLIF(u.addresses, ''), ',')) a
			WHERE s.chain=$1 AND s.height>$2 ON CONFLICT DO NOTHING`, string(chain), height); err != nil {
			return fmt.Errorf("pindex: rollback unspent UTXOs: %w", err)
		}
		for _, t := range heightTables {
			if t[1][0] == '\'' && t[1] != "'"+string(chain)+"'" {
				continue
			}
			if _, err := tx.Exec(ctx, `DELETE FROM `+t[0]+` WHERE `+t[1]+`=$1 AND height>$2`, string(chain), height); err != nil {
				return fmt.Errorf("pindex: rollback %s: %w", t[0], err)
			}
		}
		if chain == avanet.ChainP {
			if _, err := tx.Exec(ctx, `UPDATE meta SET value=LEAST(value::bigint, $1)::text WHERE key='rewards_height'`, height-1); err != nil {
				return fmt.Errorf("pindex: rollback rewards_height: %w", err)
			}
		}
		if err := pgResetBurned(ctx, tx, avaxID, chain); err != nil {
			return fmt.Errorf("pindex: rollback burned fees: %w", err)
		}
		return nil
	})
}

// RewardTxs returns the reward transactions above after whose option block
// is stored, with the kind of the stake each rewards.
func (st *pgStore) RewardTxs(ctx context.Context, after int64, limit int) ([]RewardTx, error) {
	return queryRewardTxs(ctx, st.run, `SELECT t.id, t.body, b.height, b.time, b.type, COALESCE(s.kind, '')
		FROM txs t JOIN blocks b ON b.chain='P' AND b.height = t.height + 1
		LEFT JOIN stakes s ON s.tx = (t.body::jsonb #>> '{unsignedTx,txID}') AND s.seq = 0
		WHERE t.chain='P' AND t.type=$1 AND t.height > $2 ORDER BY t.height LIMIT $3`, TxRewardValidator, after, limit)
}
