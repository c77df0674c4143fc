package main

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/core"

	"github.com/avaedge/avaedge/config"
	"github.com/avaedge/avaedge/internal/leaktest"
	"github.com/avaedge/avaedge/internal/redistest"
)

// TestBuildFailureClosesWhatItOpened: when a step after the local world
// fails (a keys file that does not exist, read after the local world, Redis
// and the cache are open), build closes what it opened: the dev chain, the
// indexes and their files, Redis's connections. Nothing is left running.
func TestBuildFailureClosesWhatItOpened(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("counts open files in /proc/self/fd")
	}
	rds := redistest.Start(t)
	core.SenderCacher() // go-ethereum's process-wide singleton, not build's
	// go-ethereum's newHeads subscription goroutine may outlive the dev
	// chain's Close (see local's gethSubscriptionExit).
	left := leaktest.Take(t).Ignore("eth/filters.(*Subscription).Unsubscribe")
	dir := t.TempDir()
	var cfg config.Config
	cfg.DataDir = dir
	cfg.Redis = rds.URL()
	cfg.KeysFile = filepath.Join(dir, "no-such-keys.yaml")
	cfg.Defaults()
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	a, err := build(context.Background(), &cfg, slog.New(slog.DiscardHandler), io.Discard)
	if err == nil || !strings.Contains(err.Error(), "no-such-keys.yaml") {
		a.Close()
		t.Fatalf("build = %v; want the keys file's error", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "evmindex.db")); err != nil {
		t.Fatalf("the local world was not built before the failing step: %v", err)
	}
	left.Check(t)
}
