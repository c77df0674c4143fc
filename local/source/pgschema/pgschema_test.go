package pgschema

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/avaedge/avaedge/internal/pgtest"
)

func connect(t *testing.T, url string) *pgx.Conn {
	t.Helper()
	c, err := pgx.Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	return c
}

// Statements that fail when run twice: a version applied twice fails.
var versions = []Version{
	{`CREATE TABLE a (n bigint PRIMARY KEY)`},
	{`CREATE TABLE b (n bigint PRIMARY KEY)`, `INSERT INTO b VALUES (1)`},
}

// TestMigrate: a fresh database is brought to the last version, once; a
// reader knowing it passes Check, one knowing less is refused (newer), one
// knowing more waits (behind); a writer knowing less refuses to migrate.
func TestMigrate(t *testing.T) {
	ctx := context.Background()
	srv := pgtest.Start(t)
	c := connect(t, srv.Database(t))
	if err := Check(ctx, c, "evmindex", 2); !errors.Is(err, ErrBehind) {
		t.Fatalf("Check before any migration: %v; want ErrBehind", err)
	}
	if found, err := Migrate(ctx, c, "evmindex", versions, slog.Default()); err != nil || found != 0 {
		t.Fatalf("Migrate = %d, %v; want 0, nil", found, err)
	}
	if found, err := Migrate(ctx, c, "evmindex", versions, nil); err != nil || found != 2 {
		t.Fatalf("Migrate again = %d, %v; want 2, nil (nothing applied)", found, err)
	}
	var n int
	if err := c.QueryRow(ctx, `SELECT count(*) FROM b`).Scan(&n); err != nil || n != 1 {
		t.Fatalf("rows of b: %d, %v; want 1", n, err)
	}
	tests := []struct {
		known int
		want  error
		msg   string
	}{
		{2, nil, ""},
		{1, ErrNewer, "pgschema: evmindex: version 2 stored, this avaedge knows 1: the schema is newer than this avaedge knows"},
		{3, ErrBehind, "pgschema: evmindex: version 2 stored, this avaedge knows 3: the schema is older"},
	}
	for _, tt := range tests {
		err := Check(ctx, c, "evmindex", tt.known)
		if !errors.Is(err, tt.want) || (tt.msg != "" && (err == nil || len(err.Error()) < len(tt.msg) || err.Error()[:len(tt.msg)] != tt.msg)) {
			t.Errorf("Check(known %d) = %v; want %v (%q)", tt.known, err, tt.want, tt.msg)
		}
	}
	if _, err := Migrate(ctx, c, "evmindex", versions[:1], nil); !errors.Is(err, ErrNewer) {
		t.Errorf("Migrate knowing version 1 of 2: %v; want ErrNewer", err)
	}
	if err := Check(ctx, c, "pindex", 0); err != nil {
		t.Errorf("another component's Check: %v; want nil (versions are per component)", err)
	}
}

// TestMigrateFails: a version whose statement fails leaves nothing of it
// and the version before.
func TestMigrateFails(t *testing.T) {
	ctx := context.Background()
	c := connect(t, pgtest.Start(t).Database(t))
	bad := []Version{versions[0], {`CREATE TABLE c (n bigint)`, `INSERT INTO nowhere VALUES (1)`}}
	if _, err := Migrate(ctx, c, "x", bad, nil); err == nil {
		t.Fatal("Migrate with a failing version succeeded")
	}
	if err := Check(ctx, c, "x", 1); err != nil {
		t.Errorf("Check(1) after the failed version 2: %v; want nil", err)
	}
	var exists bool
	if err := c.QueryRow(ctx, `SELECT to_regclass('c') IS NOT NULL`).Scan(&exists); err != nil || exists {
		t.Errorf("table c of the failed version exists: %v, %v", exists, err)
	}
}

// TestMigrateTogether: writers starting together migrate once, those of
// two components too.
func TestMigrateTogether(t *testing.T) {
	ctx := context.Background()
	url := pgtest.Start(t).Database(t)
	var conns []*pgx.Conn
	for range 4 {
		conns = append(conns, connect(t, url))
	}
	var wg sync.WaitGroup
	errs := make([]error, len(conns))
	for i, c := range conns {
		component, vs := "evmindex", versions[:1]
		if i%2 == 1 {
			component, vs = "pindex", []Version{{`CREATE TABLE p (n bigint)`}, {`CREATE TABLE q (n bigint)`}}
		}
		wg.Go(func() { _, errs[i] = Migrate(ctx, c, component, vs, nil) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("writer %d: %v", i, err)
		}
	}
	if err := Check(ctx, conns[0], "evmindex", 1); err != nil {
		t.Error(err)
	}
	if err := Check(ctx, conns[0], "pindex", 2); err != nil {
		t.Error(err)
	}
}
