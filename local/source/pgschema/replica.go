package pgschema

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// replicaWait bounds how long OpenReplica waits for a read replica to
// replay the writer's migration (a variable for the tests).
var replicaWait = 30 * time.Second

// OpenReplica opens a pool over a read replica at url (a hot standby of
// the writer's database) for component's reads, which know version known:
// a schema newer than known is refused as on the primary (ErrNewer,
// wrapped); one older (the replica has not replayed the writer's
// migration yet) is waited for, up to 30s, then refused (ErrBehind,
// wrapped). The check runs on a connection of url as given (the search
// path Migrate ran on); configure (nil: none) then adjusts the pool's
// config (its sessions' settings). Nothing is written: a standby refuses
// writes.
func OpenReplica(ctx context.Context, url, component string, known int, configure func(*pgxpool.Config)) (*pgxpool.Pool, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("pgschema: %s: read replica: %w", component, err)
	}
	if err := waitReplica(ctx, cfg.ConnConfig.Copy(), component, known); err != nil {
		return nil, err
	}
	if configure != nil {
		configure(cfg)
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("pgschema: %s: read replica: %w", component, err)
	}
	return pool, nil
}

// waitReplica checks the replica's schema (Check) until it is known's,
// waiting while it is behind, up to replicaWait.
func waitReplica(ctx context.Context, cfg *pgx.ConnConfig, component string, known int) error {
	ctx, cancel := context.WithTimeout(ctx, replicaWait)
	defer cancel()
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return fmt.Errorf("pgschema: %s: read replica: %w", component, err)
	}
	defer conn.Close(context.Background())
	for {
		err := Check(ctx, conn, component, known)
		if err == nil {
			return nil
		}
		if !errors.Is(err, ErrBehind) {
			return fmt.Errorf("read replica: %w", err)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("read replica: waited %s for it to replay the writer's migration: %w", replicaWait, err)
		case <-time.After(100 * time.Millisecond):
		}
	}
}
