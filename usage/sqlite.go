package usage

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"time"

	_ "github.com/mattn/go-sqlite3" // the "sqlite3" driver
)

// sqliteStore keeps usage in usage.db in the data directory, for an edge
// without Redis: it survives restarts. Retention is that of Redis (minutes
// 48h, hours 35 days, days 400 days; log lines LogsPerKey per key and
// LogMaxAge), applied at each write.
type sqliteStore struct {
	db         *sql.DB
	logsPerKey int
	logMaxAge  time.Duration
}

const sqliteSchema = `
CREATE TABLE IF NOT EXISTS usage_counts (
	identity TEXT NOT NULL,
	level INTEGER NOT NULL,
	start INTEGER NOT NULL,
	field TEXT NOT NULL,
	value INTEGER NOT NULL,
	PRIMARY KEY (identity, level, start, field)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS usage_logs (
	identity TEXT NOT NULL,
	at INTEGER NOT NULL,
	id TEXT NOT NULL,
	line BLOB NOT NULL,
	PRIMARY KEY (identity, at, id)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS usage_counts_level_start ON usage_counts (level, start);
CREATE INDEX IF NOT EXISTS usage_logs_at ON usage_logs (at);`

func openSQLite(dir string, logsPerKey int, logMaxAge time.Duration) (*sqliteStore, error) {
	path := filepath.Join(dir, "usage.db")
	db, err := sql.Open("sqlite3", "file:"+path+"?_journal_mode=WAL&_synchronous=NORMAL&_busy_timeout=10000&_txlock=immediate")
	if err != nil {
		return nil, fmt.Errorf("usage: opening %s: %w", path, err)
	}
	db.SetMaxOpenConns(1)
	if _, err := db.Exec(sqliteSchema); err != nil {
		db.Close()
		return nil, fmt.Errorf("usage: creating the schema in %s: %w", path, err)
	}
	return &sqliteStore{db: db, logsPerKey: logsPerKey, logMaxAge: logMaxAge}, nil
}

func (s *sqliteStore) close() error { return s.db.Close() }

func (s *sqliteStore) write(ctx context.Context, b *batch, now time.Time) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("usage: sqlite: %w", err)
	}
	defer tx.Rollback()
	add, err := tx.PrepareContext(ctx, `INSERT INTO usage_counts (identity, level, start, field, value) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (identity, level, start, field) DO UPDATE SET value = value + excluded.value`)
	if err != nil {
		return fmt.Errorf("usage: sqlite: %w", err)
	}
	for k, f := range b.counts {
		for name, v := range f {
			if _, err := add.ExecContext(ctx, k.identity, int(k.level), k.start, name, v); err != nil {
				return fmt.Errorf("usage: sqlite: %w", err)
			}
		}
	}
	put, err := tx.PrepareContext(ctx, `INSERT OR REPLACE INTO usage_logs (identity, at, id, line) VALUES (?, ?, ?, ?)`)
	if err != nil {
		return fmt.Errorf("usage: sqlite: %w", err)
	}
	for id, lines := range b.logs {
		for _, l := range lines {
			if _, err := put.ExecContext(ctx, id, l.At, l.ID, []byte(l.JSON)); err != nil {
				return fmt.Errorf("usage: sqlite: %w", err)
			}
		}
		// The newest LogsPerKey lines of the key are kept.
		if _, err := tx.ExecContext(ctx, `DELETE FROM usage_logs WHERE identity = ? AND at < (
			SELECT at FROM usage_logs WHERE identity = ? ORDER BY at DESC LIMIT 1 OFFSET ?)`, id, id, s.logsPerKey-1); err != nil {
			return fmt.Errorf("usage: sqlite: %w", err)
		}
	}
	for lv, l := range levels {
		if _, err := tx.ExecContext(ctx, `DELETE FROM usage_counts WHERE level = ? AND start < ?`, lv, now.Add(-l.retention).Unix()); err != nil {
			return fmt.Errorf("usage: sqlite: %w", err)
		}
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM usage_logs WHERE at < ?`, now.Add(-s.logMaxAge).UnixMilli()); err != nil {
		return fmt.Errorf("usage: sqlite: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("usage: sqlite: %w", err)
	}
	return nil
}

func (s *sqliteStore) buckets(ctx context.Context, identity string, lv level, from, to int64) (map[int64]map[string]int64, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT start, field, value FROM usage_counts WHERE identity = ? AND level = ? AND start >= ? AND start < ?`,
		identity, int(lv), from/levels[lv].seconds*levels[lv].seconds, to)
	if err != nil {
		return nil, fmt.Errorf("usage: sqlite: %w", err)
	}
	defer rows.Close()
	out := map[int64]map[string]int64{}
	for rows.Next() {
		var start, v int64
		var field string
		if err := rows.Scan(&start, &field, &v); err != nil {
			return nil, fmt.Errorf("usage: sqlite: %w", err)
		}
		if out[start] == nil {
			out[start] = map[string]int64{}
		}
		out[start][field] = v
	}
	return out, rows.Err()
}

func (s *sqliteStore) logs(ctx context.Context, identity string, q logQuery) ([]logLine, error) {
	// The primary key (identity, at, id) orders the lines as newer does
	// (ids compared as bytes): a page is one range of the index.
	at, id := int64(maxLogTime)+1, ""
	if q.after != nil {
		at, id = q.after.At, q.after.ID
	}
	rows, err := s.db.QueryContext(ctx, `SELECT at, id, line FROM usage_logs WHERE identity = ? AND at >= ? AND at < ? AND (at, id) < (?, ?)
		ORDER BY at DESC, id DESC LIMIT ?`, identity, q.from, q.to, at, id, q.limit)
	if err != nil {
		return nil, fmt.Errorf("usage: sqlite: %w", err)
	}
	defer rows.Close()
	var out []logLine
	for rows.Next() {
		var l logLine
		if err := rows.Scan(&l.At, &l.ID, &l.JSON); err != nil {
			return nil, fmt.Errorf("usage: sqlite: %w", err)
		}
		out = append(out, l)
	}
	return out, rows.Err()
}

func (s *sqliteStore) identities(ctx context.Context, from, to int64) ([]string, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT DISTINCT identity FROM usage_counts WHERE level = ? AND start >= ? AND start < ? ORDER BY identity`,
		int(dayLevel), from/86400*86400, to)
	if err != nil {
		return nil, fmt.Errorf("usage: sqlite: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("usage: sqlite: %w", err)
		}
		out = append(out, id)
	}
	return out, rows.Err()
}
