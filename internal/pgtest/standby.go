package pgtest

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// Standby starts a streaming hot standby of s, a read replica as
// PostgreSQL's own replication makes one: pg_basebackup copies s's data
// (its replication connection over 127.0.0.1 is trusted: initdb
// --auth=trust), -R makes the copy follow s's WAL, and the copy runs with
// hot_standby on (the default), answering reads and refusing writes. The
// standby is stopped (and its data removed) when the test ends; Stop it
// before s. CatchUp waits for it to replay what s committed.
func (s *Server) Standby(t testing.TB) *Server {
	t.Helper()
	r := &Server{t: t, bin: s.bin, cred: s.cred, primary: s}
	dir, err := os.MkdirTemp("", "avaedge-pgtest-standby-")
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	r.dir = dir
	t.Cleanup(func() { os.RemoveAll(dir) })
	if r.cred != nil {
		if err := os.Chown(dir, int(r.cred.Uid), int(r.cred.Gid)); err != nil {
			t.Fatalf("pgtest: %v", err)
		}
	}
	host, port, _ := strings.Cut(s.Addr, ":")
	cmd := r.command("pg_basebackup", "-D", filepath.Join(dir, "data"), "-R", "-X", "stream", "-c", "fast", "--no-sync",
		"-h", host, "-p", port, "-U", "postgres")
	// -c fast: a checkpoint at once, not one spread over minutes.
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("pgtest: pg_basebackup: %v\n%s", err, out)
	}
	t.Cleanup(r.Stop)
	r.start()
	return r
}

// SameDatabase returns dbURL (a URL of a database of s's primary, or of
// any server) with s's address in place of its host: the same database
// on s.
func (s *Server) SameDatabase(dbURL string) string {
	u, err := url.Parse(dbURL)
	if err != nil {
		s.t.Fatalf("pgtest: %v", err)
	}
	u.Host = s.Addr
	return u.String()
}

// CatchUp waits (up to 30s) until the standby s has replayed every WAL
// record its primary had inserted when CatchUp was called (the insert
// position, not the written one: pgtest's servers commit asynchronously):
// then a read on s sees what the primary had committed.
func (s *Server) CatchUp(t testing.TB) {
	t.Helper()
	if s.primary == nil {
		t.Fatal("pgtest: CatchUp on a server that is not a Standby")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var target string
	if err := queryRow(ctx, s.primary.URL(), `SELECT pg_current_wal_insert_lsn()::text`, &target); err != nil {
		t.Fatalf("pgtest: the primary's WAL position: %v", err)
	}
	c, err := pgx.Connect(ctx, s.URL())
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	defer c.Close(context.Background())
	for {
		var done bool
		err := c.QueryRow(ctx, `SELECT COALESCE(pg_last_wal_replay_lsn() >= $1::pg_lsn, false)`, target).Scan(&done)
		if err == nil && done {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("pgtest: the standby did not replay the primary's WAL up to %s within 30s (last error: %v)", target, err)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// queryRow scans one value the query answers on a connection of its own.
func queryRow(ctx context.Context, dbURL, q string, dst any) error {
	c, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		return err
	}
	defer c.Close(context.Background())
	if err := c.QueryRow(ctx, q).Scan(dst); err != nil {
		return fmt.Errorf("%s: %w", q, err)
	}
	return nil
}
