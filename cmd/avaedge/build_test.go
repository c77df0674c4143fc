package main

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/core"

	"github.com/avaedge/avaedge/config"
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
	files := func() int {
		es, err := os.ReadDir("/proc/self/fd")
		if err != nil {
			t.Fatal(err)
		}
		return len(es)
	}
	goroutines, fds := runtime.NumGoroutine(), files()
	dir := t.TempDir()
	var cfg config.Config
	cfg.DataDir = dir
	cfg.Redis = rds.URL()
	cfg.KeysFile = filepath.Join(dir, "no-such-keys.yaml")
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	a, err := build(context.Background(), &cfg, slog.New(slog.DiscardHandler))
	if err == nil || !strings.Contains(err.Error(), "no-such-keys.yaml") {
		a.Close()
		t.Fatalf("build = %v; want the keys file's error", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "evmindex.db")); err != nil {
		t.Fatalf("the local world was not built before the failing step: %v", err)
	}
	settle := func(count func() int, want int) int {
		deadline := time.Now().Add(15 * time.Second)
		for n := count(); ; n = count() {
			if n <= want || time.Now().After(deadline) {
				return n
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	if n := settle(runtime.NumGoroutine, goroutines); n > goroutines {
		buf := make([]byte, 1<<20)
		t.Errorf("%d goroutines left running (%d before):\n%s", n-goroutines, goroutines, buf[:runtime.Stack(buf, true)])
	}
	if n := settle(files, fds); n > fds {
		t.Errorf("%d files left open (%d before)", n-fds, fds)
	}
}
