package main

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/avaedge/avaedge/local/source/lease"
	"github.com/avaedge/avaedge/local/vocab/pagetoken"
)

// secretsTable keeps the secrets the replicas sharing an index database
// share: the page tokens' (name 'pagetoken').
const secretsTable = `CREATE TABLE IF NOT EXISTS avaedge_secrets (
	name text PRIMARY KEY,
	value text NOT NULL
)`

// secretsLock serializes the creation of avaedge_secrets by replicas
// starting together (CREATE TABLE IF NOT EXISTS races on the catalog
// otherwise).
var secretsLock = lease.Key("secrets")

// postgresSecret reads the page tokens' secret the replicas sharing the
// index database at url share, storing a new one first if none is there
// (the first replica's wins).
func postgresSecret(ctx context.Context, url string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	defer conn.Close(context.Background())
	var s string
	err = pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, secretsLock); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, secretsTable); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `INSERT INTO avaedge_secrets (name, value) VALUES ('pagetoken', $1) ON CONFLICT (name) DO NOTHING`,
			string(newSecret())); err != nil {
			return err
		}
		return tx.QueryRow(ctx, `SELECT value FROM avaedge_secrets WHERE name = 'pagetoken'`).Scan(&s)
	})
	if err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	if len(s) < pagetoken.MinSecret {
		return nil, fmt.Errorf("postgres: avaedge_secrets holds %d bytes for the page tokens; want at least %d", len(s), pagetoken.MinSecret)
	}
	return []byte(s), nil
}
