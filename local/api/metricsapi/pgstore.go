package metricsapi

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/avaedge/avaedge/local/source/pgschema"
)

// pgComponent names the Metrics history's schema in avaedge_schema.
const pgComponent = "metricsapi"

// pgVersions are the PostgreSQL store's schema versions. Version 1: the
// records (as the SQLite store's metrics_blocks) and the rollbacks the
// writer made, in order, which the other replicas' engines undo too.
var pgVersions = []pgschema.Version{{
	`CREATE TABLE metrics_blocks (
		chain_id bigint NOT NULL,
		number bigint NOT NULL,
		rec bytea NOT NULL,
		PRIMARY KEY (chain_id, number)
	)`,
	`CREATE TABLE metrics_rollbacks (
		seq bigserial PRIMARY KEY,
		chain_id bigint NOT NULL,
		from_block bigint NOT NULL
	)`,
}}

// pgStore keeps the records in PostgreSQL, shared by a fleet's replicas
// (Options.URL).
type pgStore struct {
	pool *pgxpool.Pool
	// read is the pool a standby's Refresh reads: a read replica's
	// (Options.ReadURL), else pool.
	read *pgxpool.Pool
}

// querier runs a query (a *pgxpool.Pool).
type querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// pgTimeout bounds each of the store's statements, which run under the
// Engine's write lock.
const pgTimeout = 10 * time.Second

// openPGStore opens the store at url, its schema migrated, and its
// standby's reads at readURL, a read replica of url's database ("": url).
func openPGStore(ctx context.Context, url, readURL string, log *slog.Logger) (*pgStore, error) {
	pool, err := pgxpool.New(ctx, url)
	if err != nil {
		return nil, fmt.Errorf("metricsapi: postgres: %w", err)
	}
	if _, err := pgschema.Migrate(ctx, pool, pgComponent, pgVersions, log); err != nil {
		pool.Close()
		return nil, fmt.Errorf("metricsapi: %w", err)
	}
	s := &pgStore{pool: pool, read: pool}
	if readURL != "" {
		if s.read, err = pgschema.OpenReplica(ctx, readURL, pgComponent, len(pgVersions), nil); err != nil {
			pool.Close()
			return nil, fmt.Errorf("metricsapi: %w", err)
		}
	}
	return s, nil
}

func (s *pgStore) close() error {
	if s.read != s.pool {
		s.read.Close()
	}
	s.pool.Close()
	return nil
}

func (s *pgStore) put(chainID uint64, r *blockRec, names []string) error {
	ctx, cancel := context.WithTimeout(context.Background(), pgTimeout)
	defer cancel()
	_, err := s.pool.Exec(ctx, `INSERT INTO metrics_blocks (chain_id, number, rec) VALUES ($1, $2, $3)
		ON CONFLICT (chain_id, number) DO UPDATE SET rec = EXCLUDED.rec`, int64(chainID), int64(r.number), encodeRec(r, names))
	if err != nil {
		return fmt.Errorf("metricsapi: storing block %d of chain %d: %w", r.number, chainID, err)
	}
	return nil
}

// dropFrom deletes the blocks and records the rollback, in one
// transaction.
func (s *pgStore) dropFrom(chainID, from uint64) error {
	if from > 1<<63-1 {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), pgTimeout)
	defer cancel()
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `DELETE FROM metrics_blocks WHERE chain_id = $1 AND number >= $2`, int64(chainID), int64(from)); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `INSERT INTO metrics_rollbacks (chain_id, from_block) VALUES ($1, $2)`, int64(chainID), int64(from))
		return err
	})
	if err != nil {
		return fmt.Errorf("metricsapi: deleting blocks >= %d of chain %d: %w", from, chainID, err)
	}
	return nil
}

func (s *pgStore) load(fn func(chainID, number uint64, rec []byte) error) error {
	return loadAfter(context.Background(), s.pool, -1, -1, fn)
}

// loadAfter calls fn for the blocks of chainID (every chain when -1)
// stored in db numbered above after, in chain and block order.
func loadAfter(ctx context.Context, db querier, chainID, after int64, fn func(chainID, number uint64, rec []byte) error) error {
	rows, err := db.Query(ctx, `SELECT chain_id, number, rec FROM metrics_blocks WHERE ($1 < 0 OR chain_id = $1) AND number > $2
		ORDER BY chain_id, number`, chainID, after)
	if err != nil {
		return fmt.Errorf("metricsapi: loading blocks: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var c, n int64
		var rec []byte
		if err := rows.Scan(&c, &n, &rec); err != nil {
			return fmt.Errorf("metricsapi: loading blocks: %w", err)
		}
		if err := fn(uint64(c), uint64(n), rec); err != nil {
			return err
		}
	}
	return rows.Err()
}

// rollbacksAfter returns the lowest block the rollbacks of chainID
// recorded in db after seq undid, and the last rollback's seq (seq when
// none).
func rollbacksAfter(ctx context.Context, db querier, chainID uint64, seq int64) (from uint64, last int64, any bool, err error) {
	var f, l *int64
	err = db.QueryRow(ctx, `SELECT MIN(from_block), MAX(seq) FROM metrics_rollbacks WHERE chain_id = $1 AND seq > $2`, int64(chainID), seq).Scan(&f, &l)
	if err != nil || f == nil {
		return 0, seq, false, err
	}
	return uint64(*f), *l, true, nil
}

// standbyState is what a standby's Refresh has read of the shared store:
// the last rollback it undid, by chain.
type standbyState struct {
	rollbackSeq map[uint64]int64
}

// initStandby reads the last rollback of each chain the shared store
// recorded, before New replays the records: those before it are undone in
// what it loads.
func (e *Engine) initStandby(ctx context.Context, pg *pgStore) error {
	e.standby.rollbackSeq = map[uint64]int64{}
	for _, c := range e.list {
		_, last, _, err := rollbacksAfter(ctx, pg.pool, c.EVMChainID, 0)
		if err != nil {
			return err
		}
		e.standby.rollbackSeq[c.EVMChainID] = last
	}
	return nil
}

// Refresh reads what the fleet's writer stored since the last call (the
// shared store of Options.URL, on its read replica when Options.ReadURL
// names one): it undoes the rollbacks the writer recorded, then applies
// the blocks stored above each chain's head. A replica calls it every
// second while it stands by. Without Options.URL it does nothing.
func (e *Engine) Refresh(ctx context.Context) error {
	pg, ok := e.store.(*pgStore)
	if !ok {
		return nil
	}
	return e.refresh(ctx, pg.read)
}

// RefreshPrimary is Refresh reading Options.URL itself, never the read
// replica: a replica calls it once before it leads, so that the engine
// the writer feeds holds every block the last writer stored.
func (e *Engine) RefreshPrimary(ctx context.Context) error {
	pg, ok := e.store.(*pgStore)
	if !ok {
		return nil
	}
	return e.refresh(ctx, pg.pool)
}

// refresh is Refresh reading db.
func (e *Engine) refresh(ctx context.Context, db querier) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, c := range e.list {
		id, cs := c.EVMChainID, e.chains[c.EVMChainID]
		from, last, rolled, err := rollbacksAfter(ctx, db, id, e.standby.rollbackSeq[id])
		if err != nil {
			return err
		}
		if rolled {
			e.rollbackRecs(cs, id, from)
			e.standby.rollbackSeq[id] = last
		}
		after := int64(-1)
		if n := len(cs.blocks); n > 0 {
			after = int64(cs.blocks[n-1].number)
		}
		err = loadAfter(ctx, db, int64(id), after, func(_, number uint64, raw []byte) error {
			rec, err := decodeRec(number, raw, &e.ids)
			if err != nil {
				return fmt.Errorf("%w: chain %d block %d", err, id, number)
			}
			e.applyRec(cs, rec)
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}
