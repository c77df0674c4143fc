package pgtest

import (
	"context"
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
