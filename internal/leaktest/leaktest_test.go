package leaktest

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

// recorder is a testing.TB that keeps what Check reports.
type recorder struct {
	testing.TB
	errs []string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

func TestCheck(t *testing.T) {
	t.Run("nothing left", func(t *testing.T) {
		s := Take(t)
		done := make(chan struct{})
		go func() { <-done }()
		close(done) // the goroutine ends while Check waits
		f, err := os.Open(os.DevNull)
		if err != nil {
			t.Fatal(err)
		}
		f.Close()
		rec := &recorder{TB: t}
		s.Check(rec)
		if len(rec.errs) != 0 {
			t.Fatalf("Check reported %q; want nothing", rec.errs)
		}
	})
	t.Run("a goroutine and a file left", func(t *testing.T) {
		s := Take(t)
		s.wait = 100 * time.Millisecond
		stop := make(chan struct{})
		defer close(stop)
		go leftRunning(stop)
		f, err := os.Open(os.DevNull)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		rec := &recorder{TB: t}
		s.Check(rec)
		all := strings.Join(rec.errs, "\n")
		if len(rec.errs) != 2 || !strings.Contains(all, "1 goroutines left running") || !strings.Contains(all, "leftRunning") ||
			!strings.Contains(all, "1 files left open") || !strings.Contains(all, os.DevNull) {
			t.Fatalf("Check reported %q; want the goroutine with its stack and the file by name", rec.errs)
		}
	})
}

func leftRunning(stop chan struct{}) { <-stop }

func TestCheckIgnore(t *testing.T) {
	s := Take(t).Ignore("leaktest.leftRunning")
	s.wait = 100 * time.Millisecond
	stop := make(chan struct{})
	defer close(stop)
	go leftRunning(stop)
	rec := &recorder{TB: t}
	s.Check(rec)
	if len(rec.errs) != 0 {
		t.Fatalf("Check reported %q; want the ignored goroutine disregarded", rec.errs)
	}
}
