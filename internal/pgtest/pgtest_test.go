package pgtest

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// TestStart: a started server answers queries in a fresh database, and a
// second database is another one.
func TestStart(t *testing.T) {
	ctx := context.Background()
	s := Start(t)
	a, b := s.Database(t), s.Database(t)
	if a == b {
		t.Fatalf("two databases share the URL %s", a)
	}
	c, err := pgx.Connect(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	if _, err := c.Exec(ctx, "CREATE TABLE x (n int); INSERT INTO x VALUES (7)"); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := c.QueryRow(ctx, "SELECT n FROM x").Scan(&n); err != nil || n != 7 {
		t.Fatalf("got %d, %v; want 7", n, err)
	}
	s.Stop()
	if err := c.Ping(ctx); err == nil {
		t.Error("the connection still answers after Stop")
	}
}

// TestStandby: a hot standby of a started server reads, after CatchUp,
// what the primary committed since the standby started, and refuses
// writes.
func TestStandby(t *testing.T) {
	ctx := context.Background()
	s := Start(t)
	db := s.Database(t)
	r := s.Standby(t)
	c, err := pgx.Connect(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	if _, err := c.Exec(ctx, "CREATE TABLE x (n int); INSERT INTO x VALUES (7)"); err != nil {
		t.Fatal(err)
	}
	r.CatchUp(t)
	rc, err := pgx.Connect(ctx, r.SameDatabase(db))
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close(ctx)
	var n int
	if err := rc.QueryRow(ctx, "SELECT n FROM x").Scan(&n); err != nil || n != 7 {
		t.Fatalf("the standby read %d, %v; want 7", n, err)
	}
	if _, err := rc.Exec(ctx, "INSERT INTO x VALUES (8)"); err == nil || !strings.Contains(err.Error(), "read-only") {
		t.Fatalf("a write on the standby: %v; want a read-only transaction's refusal", err)
	}
}
