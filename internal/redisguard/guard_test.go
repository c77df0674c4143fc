package redisguard_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/avaedge/avaedge/internal/redisguard"
	"github.com/avaedge/avaedge/internal/redistest"
)

// deadline is the per-call deadline the edge gives Redis calls.
const deadline = 50 * time.Millisecond

// setup returns a client of a real redis-server with the edge's timeouts and
// a guard installed, the guard's state changes, and its log.
func setup(t *testing.T) (*redistest.Server, *redis.Client, *redisguard.Guard, chan bool, *syncBuf) {
	t.Helper()
	srv := redistest.Start(t)
	srv.RequireReal()
	rdb := redis.NewClient(&redis.Options{
		Addr:                  srv.Addr,
		ContextTimeoutEnabled: true,
		ReadTimeout:           200 * time.Millisecond,
		WriteTimeout:          200 * time.Millisecond,
		DialTimeout:           200 * time.Millisecond,
		PoolTimeout:           200 * time.Millisecond,
		MaxRetries:            1,
	})
	changes := make(chan bool, 16)
	log := &syncBuf{}
	g := redisguard.New(redisguard.Options{
		ProbeTimeout:  50 * time.Millisecond,
		ProbeInterval: 50 * time.Millisecond,
		OnChange:      func(up bool) { changes <- up },
		Logger:        slog.New(slog.NewTextHandler(log, nil)),
	})
	g.Install(rdb)
	t.Cleanup(func() {
		srv.Resume()
		g.Close()
		rdb.Close()
	})
	if err := rdb.Set(context.Background(), "k", "v", 0).Err(); err != nil {
		t.Fatalf("healthy SET: %v", err)
	}
	return srv, rdb, g, changes, log
}

func call(rdb redis.UniversalClient) (time.Duration, error) {
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	start := time.Now()
	_, err := rdb.Get(ctx, "k").Result()
	return time.Since(start), err
}

func wait(t *testing.T, changes chan bool, want bool, within time.Duration) {
	t.Helper()
	select {
	case got := <-changes:
		if got != want {
			t.Fatalf("guard changed to up=%v; want up=%v", got, want)
		}
	case <-time.After(within):
		t.Fatalf("guard did not change to up=%v within %v", want, within)
	}
}

// TestHungRedis: with Redis under SIGSTOP, the first call ends at its own
// deadline and trips the guard, every later call fails at once with
// ErrUnavailable, and the guard closes by itself once Redis answers again.
func TestHungRedis(t *testing.T) {
	srv, rdb, g, changes, log := setup(t)
	srv.Pause()

	took, err := call(rdb)
	if err == nil {
		t.Fatal("GET on a stopped Redis succeeded")
	}
	if took > deadline+100*time.Millisecond {
		t.Fatalf("first call on a hung Redis took %v; want its deadline %v (+100ms)", took, deadline)
	}
	wait(t, changes, false, time.Second)
	if g.Up() {
		t.Fatal("guard up after a timeout")
	}

	var worst time.Duration
	for i := 0; i < 200; i++ {
		took, err := call(rdb)
		if !errors.Is(err, redisguard.ErrUnavailable) {
			t.Fatalf("call %d while tripped: err %v; want ErrUnavailable", i, err)
		}
		worst = max(worst, took)
	}
	if worst > 5*time.Millisecond {
		t.Fatalf("slowest call while tripped took %v; want it to fail at once", worst)
	}
	t.Logf("hung Redis: first call %v, slowest of 200 tripped calls %v", took, worst)

	// Several probes fail while Redis stays stopped; none of them logs.
	time.Sleep(300 * time.Millisecond)
	if g.Up() {
		t.Fatal("guard closed while Redis is still stopped")
	}
	srv.Resume()
	resumed := time.Now()
	wait(t, changes, true, 2*time.Second)
	t.Logf("guard closed %v after SIGCONT", time.Since(resumed).Round(time.Millisecond))
	if _, err := call(rdb); err != nil {
		t.Fatalf("GET after recovery: %v", err)
	}
	out := log.String()
	if n := strings.Count(out, "redis not answering"); n != 1 {
		t.Fatalf("%d trip warnings; want 1:\n%s", n, out)
	}
	if n := strings.Count(out, "redis answers again"); n != 1 {
		t.Fatalf("%d recovery lines; want 1:\n%s", n, out)
	}
}

// TestTrippedCommands: while tripped, pipelines, transactions and scripts
// fail at once too, and the error is on every command.
func TestTrippedCommands(t *testing.T) {
	srv, rdb, _, changes, _ := setup(t)
	srv.Pause()
	call(rdb)
	wait(t, changes, false, time.Second)
	ctx := context.Background() // no deadline: a tripped guard must not wait anyway

	start := time.Now()
	pipe := rdb.Pipeline()
	get := pipe.Get(ctx, "k")
	incr := pipe.Incr(ctx, "n")
	if _, err := pipe.Exec(ctx); !errors.Is(err, redisguard.ErrUnavailable) {
		t.Fatalf("pipeline: %v; want ErrUnavailable", err)
	}
	for _, c := range []redis.Cmder{get, incr} {
		if !errors.Is(c.Err(), redisguard.ErrUnavailable) {
			t.Fatalf("pipelined %s: %v; want ErrUnavailable", c.Name(), c.Err())
		}
	}
	tx := rdb.TxPipeline()
	tx.Incr(ctx, "n")
	if _, err := tx.Exec(ctx); !errors.Is(err, redisguard.ErrUnavailable) {
		t.Fatalf("transaction: %v; want ErrUnavailable", err)
	}
	script := redis.NewScript(`return redis.call('GET', KEYS[1])`)
	if err := script.Run(ctx, rdb, []string{"k"}).Err(); !errors.Is(err, redisguard.ErrUnavailable) {
		t.Fatalf("script: %v; want ErrUnavailable", err)
	}
	// A call that waited for the paused server would take a read timeout
	// (200ms) at least; the three together take less than one, however
	// loaded the machine.
	if took := time.Since(start); took >= 200*time.Millisecond {
		t.Fatalf("tripped pipeline, transaction and script took %v; want no wait for the server (its 200ms read timeout)", took)
	}
}

// TestNotTripped: Redis's own answers (a missing key, an error reply) and a
// caller's cancellation do not trip the guard.
func TestNotTripped(t *testing.T) {
	_, rdb, g, _, _ := setup(t)
	ctx := context.Background()
	if err := rdb.Get(ctx, "absent").Err(); !errors.Is(err, redis.Nil) {
		t.Fatalf("GET absent: %v; want redis.Nil", err)
	}
	if err := rdb.Incr(ctx, "k").Err(); err == nil || !strings.Contains(err.Error(), "not an integer") {
		t.Fatalf("INCR of a string: %v; want an error reply", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if err := rdb.Get(cctx, "k").Err(); !errors.Is(err, context.Canceled) {
		t.Fatalf("GET with a cancelled context: %v; want context.Canceled", err)
	}
	if !g.Up() {
		t.Fatal("guard tripped by an answer or a cancellation")
	}
}

// TestRefused: a Redis that is gone (connections refused) trips the guard
// as well, and a restarted one closes it.
func TestRefused(t *testing.T) {
	srv, rdb, g, changes, _ := setup(t)
	srv.Stop()
	if _, err := call(rdb); err == nil {
		t.Fatal("GET on a stopped server succeeded")
	}
	wait(t, changes, false, time.Second)
	if _, err := call(rdb); !errors.Is(err, redisguard.ErrUnavailable) {
		t.Fatalf("second call: %v; want ErrUnavailable", err)
	}
	srv.Restart()
	wait(t, changes, true, 3*time.Second)
	if !g.Up() {
		t.Fatal("guard still tripped after the restart")
	}
	if _, err := call(rdb); err != nil && !errors.Is(err, redis.Nil) {
		t.Fatalf("GET after restart: %v", err)
	}
}

// TestConcurrentTrip: many callers hitting a hung Redis at once start one
// probe and write one warning, and none waits past its own deadline.
func TestConcurrentTrip(t *testing.T) {
	srv, rdb, _, changes, log := setup(t)
	srv.Pause()
	var wg sync.WaitGroup
	took := make([]time.Duration, 50)
	for i := range took {
		wg.Add(1)
		go func() {
			defer wg.Done()
			took[i], _ = call(rdb)
		}()
	}
	wg.Wait()
	worst := time.Duration(0)
	for _, d := range took {
		worst = max(worst, d)
	}
	if worst > deadline+150*time.Millisecond {
		t.Fatalf("slowest of 50 concurrent calls on a hung Redis took %v; want about %v", worst, deadline)
	}
	wait(t, changes, false, time.Second)
	select {
	case up := <-changes:
		t.Fatalf("second change (up=%v) while Redis is stopped", up)
	case <-time.After(200 * time.Millisecond):
	}
	if n := strings.Count(log.String(), "redis not answering"); n != 1 {
		t.Fatalf("%d trip warnings; want 1", n)
	}
	t.Logf("50 concurrent calls on a hung Redis: slowest %v", worst)
}

// syncBuf is a bytes.Buffer safe for concurrent writes.
type syncBuf struct {
	mu sync.Mutex // guards b
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
