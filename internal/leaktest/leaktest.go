// Package leaktest checks that the code under test left nothing open: the
// goroutines it started have ended and the files it opened (databases,
// sockets) are closed. Take notes the goroutines and counts the open files;
// Check looks again, waiting a bounded time for them to settle, and reports
// what is left: the stacks of goroutines that were not running at Take, and
// the open files' names. Open files are counted in /proc/self/fd, so the
// package works on Linux only.
package leaktest

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// Settle bounds how long Check waits for goroutines to end and files to
// close.
const Settle = 15 * time.Second

// Snapshot is what was running and open when Take was called.
type Snapshot struct {
	files  int
	stacks map[string]string // by "goroutine N"
	wait   time.Duration     // how long Check waits; Settle
	ignore []string
}

// Take counts the goroutines and open files now. It fails t when open files
// cannot be counted (not Linux).
func Take(t testing.TB) *Snapshot {
	t.Helper()
	return &Snapshot{files: openFiles(t), stacks: stacks(), wait: Settle}
}

// Ignore makes Check disregard new goroutines whose stack contains frame: a
// third party's goroutine that outlives its owner's Close by design. Say
// why at the call.
func (s *Snapshot) Ignore(frame string) *Snapshot {
	s.ignore = append(s.ignore, frame)
	return s
}

// left returns the stacks of the goroutines that were not running at Take
// and are not ignored.
func (s *Snapshot) left() []string {
	var out []string
	for id, g := range stacks() {
		if _, old := s.stacks[id]; old || slices.ContainsFunc(s.ignore, func(f string) bool { return strings.Contains(g, f) }) {
			continue
		}
		out = append(out, g)
	}
	return out
}

// Check fails t when, after waiting up to Settle, goroutines that were not
// running at Take still run, or more files are open than then.
func (s *Snapshot) Check(t testing.TB) {
	t.Helper()
	if _, ok := settle(func() int { return len(s.left()) }, 0, s.wait); !ok {
		left := s.left()
		t.Errorf("%d goroutines left running:\n%s", len(left), strings.Join(left, "\n\n"))
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
