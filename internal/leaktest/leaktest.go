// Package leaktest checks that the code under test left nothing open: the
// goroutines it started have ended and the files it opened (databases,
// sockets) are closed. Take counts both before; Check counts again, waiting
// a bounded time for them to settle, and reports what is left with the new
// goroutines' stacks and the open files' names. Open files are counted in
// /proc/self/fd, so the package works on Linux only.
package leaktest

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// Settle bounds how long Check waits for goroutines to end and files to
// close.
const Settle = 15 * time.Second

// Snapshot is what was running and open when Take was called.
type Snapshot struct {
	goroutines int
	files      int
	stacks     map[string]string // by "goroutine N"
	wait       time.Duration     // how long Check waits; Settle
}

// Take counts the goroutines and open files now. It fails t when open files
// cannot be counted (not Linux).
func Take(t testing.TB) *Snapshot {
	t.Helper()
	return &Snapshot{goroutines: runtime.NumGoroutine(), files: openFiles(t), stacks: stacks(), wait: Settle}
}

// Check fails t when, after waiting up to Settle, more goroutines are
// running or more files are open than at Take.
func (s *Snapshot) Check(t testing.TB) {
	t.Helper()
	if n, ok := settle(runtime.NumGoroutine, s.goroutines, s.wait); !ok {
		var b strings.Builder
		for id, g := range stacks() {
			if _, old := s.stacks[id]; !old {
				b.WriteString(g + "\n\n")
			}
		}
		t.Errorf("%d goroutines left running (%d before):\n%s", n-s.goroutines, s.goroutines, b.String())
	}
	if n, ok := settle(func() int { return openFiles(t) }, s.files, s.wait); !ok {
		t.Errorf("%d files left open (%d before): %s", n-s.files, s.files, fileNames())
	}
}

// settle waits until count() is at most want, and returns the last count.
func settle(count func() int, want int, wait time.Duration) (int, bool) {
	deadline := time.Now().Add(wait)
	for {
		n := count()
		if n <= want || time.Now().After(deadline) {
			return n, n <= want
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func openFiles(t testing.TB) int {
	t.Helper()
	es, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatalf("leaktest: counting open files: %v", err)
	}
	return len(es)
}

// fileNames names the open file descriptors' targets.
func fileNames() string {
	es, _ := os.ReadDir("/proc/self/fd")
	names := make([]string, 0, len(es))
	for _, e := range es {
		target, _ := os.Readlink(filepath.Join("/proc/self/fd", e.Name()))
		names = append(names, target)
	}
	return strings.Join(names, " ")
}

// stacks returns every goroutine's stack by its "goroutine N" line.
func stacks() map[string]string {
	buf := make([]byte, 4<<20)
	out := map[string]string{}
	for _, g := range strings.Split(string(buf[:runtime.Stack(buf, true)]), "\n\n") {
		id, _, _ := strings.Cut(g, " [")
		out[id] = g
	}
	return out
}
