package main

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/avaedge/avaedge/config"
	"github.com/avaedge/avaedge/internal/pgtest"
	"github.com/avaedge/avaedge/internal/redistest"
)

// TestPageTokenSecret: the secret comes from config, else the keys file,
// else Redis (the first replica's, read by the next), else the index's
// PostgreSQL database (likewise), else the data directory (made at first start, read again at the next), else the
// process; a source that fails is skipped.
func TestPageTokenSecret(t *testing.T) {
	ctx := context.Background()
	log := slog.New(slog.DiscardHandler)
	dir := t.TempDir()
	keys := filepath.Join(dir, "keys.yaml")
	if err := os.WriteFile(keys, []byte("plans:\n  p: {cu_per_minute: 5}\npage_token_secret: keys-file-secret-0123\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	rds := redistest.Start(t)
	rdb := redis.NewClient(&redis.Options{Addr: rds.Addr})
	defer rdb.Close()
	down := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", MaxRetries: -1})
	defer down.Close()
	get := func(t *testing.T, cfg *config.Config, rdb redis.UniversalClient) (string, string) {
		t.Helper()
		s, src, err := pageTokenSecret(ctx, cfg, rdb, log)
		if err != nil {
			t.Fatal(err)
		}
		return string(s), src
	}

	if s, src := get(t, &config.Config{PageTokenSecret: "config-secret-0123456", KeysFile: keys}, rdb); s != "config-secret-0123456" || src != "config" {
		t.Fatalf("with config: %q from %s", s, src)
	}
	if s, src := get(t, &config.Config{KeysFile: keys}, rdb); s != "keys-file-secret-0123" || src != "keys file" {
		t.Fatalf("with the keys file: %q from %s", s, src)
	}
	first, src := get(t, &config.Config{DataDir: dir}, rdb)
	if second, _ := get(t, &config.Config{}, rdb); src != "redis" || len(first) != 64 || second != first {
		t.Fatalf("two replicas on one Redis: %q from %s, then %q; want one shared secret", first, src, second)
	}
	if _, err := os.Stat(filepath.Join(dir, pageTokenFile)); err == nil {
		t.Fatal("the data directory got a secret while Redis holds the shared one")
	}
	index := pgtest.Start(t).Database(t)
	withIndex := func() *config.Config { c := &config.Config{DataDir: dir}; c.Local.IndexURL = index; return c }
	first, src = get(t, withIndex(), down)
	if second, _ := get(t, withIndex(), nil); src != "postgres" || len(first) != 64 || second != first {
		t.Fatalf("two replicas on one index database, Redis down: %q from %s, then %q; want one shared secret", first, src, second)
	}
	gone := &config.Config{DataDir: dir}
	gone.Local.IndexURL = "postgres://postgres@127.0.0.1:1/none?sslmode=disable&connect_timeout=1"
	made, src := get(t, gone, down)
	if again, _ := get(t, &config.Config{DataDir: dir}, nil); src != "data directory" || len(made) != 64 || again != made {
		t.Fatalf("with the data directory (Redis down): %q from %s, then %q; want one kept secret", made, src, again)
	}
	if fi, err := os.Stat(filepath.Join(dir, pageTokenFile)); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("%s: %v, %v; want readable by this user only", pageTokenFile, fi, err)
	}
	a, src := get(t, &config.Config{}, nil)
	if b, _ := get(t, &config.Config{}, nil); src != "process" || a == b {
		t.Fatalf("with nothing: %q from %s, then %q; want a fresh secret each time", a, src, b)
	}
}
