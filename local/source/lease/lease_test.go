package lease

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/avaedge/avaedge/internal/pgtest"
)

const interval = 200 * time.Millisecond

// start starts n Electors of lease name on url, holders r0..r(n-1), closed
// when the test ends.
func start(t *testing.T, url, name string, n int, m *Metrics) []*Elector {
	t.Helper()
	return startEvery(t, url, name, n, m, interval)
}

func startEvery(t *testing.T, url, name string, n int, m *Metrics, every time.Duration) []*Elector {
	t.Helper()
	var es []*Elector
	for i := range n {
		e := Start(context.Background(), Options{URL: url, Name: name, Holder: fmt.Sprintf("r%d", i), Interval: every, Metrics: m})
		t.Cleanup(e.Close)
		es = append(es, e)
	}
	return es
}

// leader waits up to d until exactly one of es holds the lease, every one
// sees it as the holder, and returns it.
func leader(t *testing.T, es []*Elector, d time.Duration) *Elector {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		var held []*Elector
		for _, e := range es {
			if e.Leader() {
				held = append(held, e)
			}
		}
		if len(held) == 1 {
			agreed := true
			for _, e := range es {
				agreed = agreed && e.Status().Holder == held[0].opts.Holder
			}
			if agreed {
				return held[0]
			}
		}
		if time.Now().After(deadline) {
			var st []string
			for _, e := range es {
				st = append(st, fmt.Sprintf("%s:%+v", e.opts.Holder, e.Status()))
			}
			t.Fatalf("no single agreed holder within %s: %d hold; %s", d, len(held), strings.Join(st, " "))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestTakeover: of three replicas exactly one holds the lease and all see
// it; when its session is terminated (the holder's connection lost, as
// when its process dies) another holds it within 10s and the old one
// stands by; when that one closes, the third takes over.
func TestTakeover(t *testing.T) {
	ctx := context.Background()
	url := pgtest.Start(t).Database(t)
	reg := prometheus.NewRegistry()
	m, err := NewMetrics(reg)
	if err != nil {
		t.Fatal(err)
	}
	es := start(t, url, "evmindex/43114", 3, m)
	first := leader(t, es, 10*time.Second)
	if got := testutil.ToFloat64(m.holder.WithLabelValues("evmindex/43114", first.opts.Holder)); got != 1 {
		t.Errorf("avaedge_index_lease_holder{holder=%q} = %v; want 1", first.opts.Holder, got)
	}

	admin, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	killed := time.Now()
	var ok bool
	if err := admin.QueryRow(ctx, `SELECT pg_terminate_backend(backend) FROM avaedge_leases WHERE name=$1`, "evmindex/43114").Scan(&ok); err != nil || !ok {
		t.Fatalf("terminate the holder's session: %v, %v", ok, err)
	}
	// Taken again (by any replica, the old holder too once it reconnects):
	// the counter of takes moves on.
	for testutil.ToFloat64(m.takeups.WithLabelValues("evmindex/43114")) < 2 {
		if time.Since(killed) > 10*time.Second {
			t.Fatal("the lease was not taken again within 10s")
		}
		time.Sleep(10 * time.Millisecond)
	}
	second := leader(t, es, 10*time.Second)
	took := time.Since(killed)
	t.Logf("takeover after the holder's session was terminated: %s (%s -> %s)", took, first.opts.Holder, second.opts.Holder)
	if took > 10*time.Second {
		t.Errorf("takeover took %s; want < 10s", took)
	}
	for _, e := range es {
		if st := e.Status(); e != second && st.Role != "reader" {
			t.Errorf("%s's status %+v; want role reader", e.opts.Holder, st)
		}
	}

	closed := time.Now()
	second.Close()
	var rest []*Elector
	for _, e := range es {
		if e != second {
			rest = append(rest, e)
		}
	}
	third := leader(t, rest, 10*time.Second)
	t.Logf("takeover after the holder closed: %s (-> %s)", time.Since(closed), third.opts.Holder)
	if got := testutil.ToFloat64(m.takeups.WithLabelValues("evmindex/43114")); got != 3 {
		t.Errorf("avaedge_index_lease_taken_total = %v; want 3", got)
	}
	if n := testutil.CollectAndCount(m.holder); n != 1 {
		t.Errorf("%d avaedge_index_lease_holder series; want 1", n)
	}
}

// TestLeasesIndependent: leases of different names are held independently,
// by one replica or by two.
func TestLeasesIndependent(t *testing.T) {
	url := pgtest.Start(t).Database(t)
	a := start(t, url, "evmindex/1", 2, nil)
	b := start(t, url, "evmindex/2", 2, nil)
	leader(t, a, 10*time.Second)
	leader(t, b, 10*time.Second)
}

// TestFence: the holder's fence passes inside a transaction; a standby's,
// and the old holder's once its session is gone, fail with ErrNotHolder.
func TestFence(t *testing.T) {
	ctx := context.Background()
	url := pgtest.Start(t).Database(t)
	// Checks a minute apart: the Electors never notice the loss below, only
	// the fence can.
	es := startEvery(t, url, "p", 2, nil, time.Minute)
	holder := leader(t, es, 10*time.Second)
	standby := es[0]
	if standby == holder {
		standby = es[1]
	}
	c, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	err = pgx.BeginFunc(ctx, c, func(tx pgx.Tx) error {
		if err := holder.Fence(ctx, tx); err != nil {
			return fmt.Errorf("holder: %w", err)
		}
		if err := standby.Fence(ctx, tx); !errors.Is(err, ErrNotHolder) {
			return fmt.Errorf("standby: %v; want ErrNotHolder", err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// The old holder believes it holds the lease until its next check: the
	// fence reads the lock itself, so it fails at once.
	holder.mu.Lock()
	pid := holder.pid
	holder.mu.Unlock()
	// pg_terminate_backend waits (up to 5s) for the backend to exit.
	if _, err := c.Exec(ctx, `SELECT pg_terminate_backend($1, 5000)`, int32(pid)); err != nil {
		t.Fatal(err)
	}
	if !holder.Leader() {
		t.Fatal("the holder noticed the loss before its next check")
	}
	if err := holder.Fence(ctx, c); !errors.Is(err, ErrNotHolder) {
		t.Errorf("fence of a terminated holder: %v; want ErrNotHolder", err)
	}
}

// TestHolderProcess: the holder is another process, killed with SIGKILL
// (it closes nothing) or hung with SIGSTOP (its kernel still answers TCP);
// a replica standing by here holds the lease within 10s.
func TestHolderProcess(t *testing.T) {
	srv := pgtest.Start(t)
	for _, sig := range []syscall.Signal{syscall.SIGKILL, syscall.SIGSTOP} {
		t.Run(sig.String(), func(t *testing.T) { holderProcess(t, srv.Database(t), sig) })
	}
}

func holderProcess(t *testing.T, url string, sig syscall.Signal) {
	ctx := context.Background()
	child := exec.Command(os.Args[0], "-test.run=^TestHelperHolder$", "-test.v")
	child.Env = append(os.Environ(), "AVAEDGE_LEASE_HELPER_URL="+url)
	out := &strings.Builder{}
	child.Stdout, child.Stderr = out, out
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		child.Process.Signal(syscall.SIGCONT)
		child.Process.Kill()
		child.Wait()
	})
	c, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	for deadline := time.Now().Add(20 * time.Second); ; {
		var holder string
		err := c.QueryRow(ctx, `SELECT holder FROM avaedge_leases WHERE name='n'`).Scan(&holder)
		if err == nil && holder == "child" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the child did not take the lease: %v\n%s", err, out)
		}
		time.Sleep(50 * time.Millisecond)
	}
	es := start(t, url, "n", 1, nil)
	if es[0].Leader() {
		t.Fatal("the lease is held twice")
	}
	killed := time.Now()
	if err := child.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	leader(t, es, 10*time.Second)
	t.Logf("takeover after the holder's process got %s: %s", sig, time.Since(killed))
}

// TestHelperHolder holds lease "n" as "child" until killed, for
// TestHolderProcessKilled; without its environment it does nothing.
func TestHelperHolder(t *testing.T) {
	url := os.Getenv("AVAEDGE_LEASE_HELPER_URL")
	if url == "" {
		return
	}
	e := Start(context.Background(), Options{URL: url, Name: "n", Holder: "child", Interval: interval})
	defer e.Close()
	time.Sleep(time.Minute)
}
