package pindex

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/avaedge/avaedge/avanet"
)

// logBuffer is a slog destination safe for the followers' goroutines.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// waitLog waits until the log holds all of parts on one line.
func waitLog(t *testing.T, l *logBuffer, d time.Duration, parts ...string) string {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		for _, line := range strings.Split(l.String(), "\n") {
			all := true
			for _, p := range parts {
				all = all && strings.Contains(line, p)
			}
			if all {
				return line
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no log line with %q after %s; the log:\n%s", parts, d, l.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// countBlockCalls counts the platform.getBlockByHeight calls h serves.
func countBlockCalls(h http.Handler, n *atomic.Int64) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if bytes.Contains(body, []byte(`"platform.getBlockByHeight"`)) {
			n.Add(1)
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		h.ServeHTTP(w, r)
	})
}

// A node whose block names a parent other than the block below it (a node
// that changed its chain between two reads, or a broken one) must be an
// error the follower logs and retries at its pace, not a silent loop: the
// follower used to reconcile, find nothing to roll back, and fetch the same
// blocks again at once, forever, without a log line. Height 4 starts a
// commit (the parent is checked against the store), height 3 is inside one.
func TestCatchUpParentMismatchIsAnError(t *testing.T) {
	for _, bad := range []uint64{4, 3} {
		t.Run(fmt.Sprintf("height%d", bad), func(t *testing.T) {
			node := &fakeNode{height: 6, fork: 1 << 62, gen: 1, badParent: bad}
			var calls atomic.Int64
			srv := httptest.NewServer(countBlockCalls(node, &calls))
			defer srv.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			logs := &logBuffer{}
			ix, err := Open(ctx, Options{Node: srv.URL, Path: t.TempDir() + "/pindex.db", PollInterval: 10 * time.Millisecond,
				CommitBlocks: 2, ValidatorsInterval: time.Hour, Logger: slog.New(slog.NewTextHandler(logs, nil))})
			if err != nil {
				t.Fatal(err)
			}
			defer ix.Close()
			ix.Start(ctx)
			line := waitLog(t, logs, 10*time.Second, "indexing failed", "chain=P", "parent")
			if want := node.id("elsewhere", bad-1).String(); !strings.Contains(line, want) {
				t.Errorf("the error does not name the parent the node gave, %s: %s", want, line)
			}
			if h, _ := ix.Head(avanet.ChainP); h >= bad {
				t.Fatalf("head %d: block %d, whose parent is not block %d, was indexed", h, bad, bad-1)
			}
			before := calls.Load()
			time.Sleep(time.Second)
			if n := calls.Load() - before; n > 20 {
				t.Fatalf("%d platform.getBlockByHeight calls in one second while the error persists; want the retry's pace", n)
			}
			node.mu.Lock()
			node.badParent = 0
			node.mu.Unlock()
			wctx, wcancel := context.WithTimeout(ctx, 10*time.Second)
			defer wcancel()
			if err := ix.WaitFor(wctx, avanet.ChainP, 6); err != nil {
				t.Fatalf("the index did not reach the tip once the node was consistent: %v", err)
			}
		})
	}
}

// A node that accepts a connection and never answers must not stall the
// follower without a word, whatever the HTTP client: each call is bounded.
func TestCallTimeout(t *testing.T) {
	node := &fakeNode{height: 3, fork: 1 << 62, gen: 1}
	var hang atomic.Bool
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if hang.Load() {
			select {
			case <-r.Context().Done():
			case <-release:
			}
			return
		}
		node.ServeHTTP(w, r)
	}))
	defer srv.Close()
	defer close(release)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	logs := &logBuffer{}
	ix, err := Open(ctx, Options{Node: srv.URL, Path: t.TempDir() + "/pindex.db", PollInterval: 10 * time.Millisecond,
		ValidatorsInterval: time.Hour, HTTPClient: &http.Client{}, CallTimeout: 200 * time.Millisecond,
		Logger: slog.New(slog.NewTextHandler(logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	hang.Store(true)
	ix.Start(ctx)
	waitLog(t, logs, 5*time.Second, "node does not answer", "chain=P", "deadline exceeded")
	hang.Store(false)
	wctx, wcancel := context.WithTimeout(ctx, 10*time.Second)
	defer wcancel()
	if err := ix.WaitFor(wctx, avanet.ChainP, 3); err != nil {
		t.Fatalf("the index did not catch up once the node answered: %v", err)
	}
}

// Catching up over many batches, each fetched while the one before is
// written, stores every block once, in order, with the UTXO set of the
// last.
func TestCatchUpManyBatches(t *testing.T) {
	node := &fakeNode{height: 60, fork: 1 << 62, gen: 1}
	srv := httptest.NewServer(node)
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ix, err := Open(ctx, Options{Node: srv.URL, Path: t.TempDir() + "/pindex.db", PollInterval: 10 * time.Millisecond,
		CommitBlocks: 7, Concurrency: 3, ValidatorsInterval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	ix.Start(ctx)
	if err := ix.WaitFor(ctx, avanet.ChainP, 60); err != nil {
		t.Fatal(err)
	}
	for h := uint64(0); h <= 60; h++ {
		b, ok, err := ix.Block(ctx, avanet.ChainP, h)
		if err != nil || !ok || b.ID != node.id("block", h).String() {
			t.Fatalf("block %d = %+v, %v, %v; want id %s", h, b, ok, err, node.id("block", h))
		}
	}
	want := node.id("tx", 60).String() + ":600"
	if got := unspent(t, ix); len(got) != 1 || got[0] != want {
		t.Fatalf("unspent = %v; want [%s]", got, want)
	}
}

// Catching up keeps its connections to the node: with Go's default
// transport (two idle connections per host) many of the concurrent calls
// opened a connection of their own (63 here, about 190 for 1,000 blocks of a
// real node).
func TestCatchUpReusesConnections(t *testing.T) {
	node := &fakeNode{height: 300, fork: 1 << 62, gen: 1}
	srv := httptest.NewUnstartedServer(node)
	var conns atomic.Int64
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ix, err := Open(ctx, Options{Node: srv.URL, Path: t.TempDir() + "/pindex.db", PollInterval: 10 * time.Millisecond,
		CommitBlocks: 50, Concurrency: 8, ValidatorsInterval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	ix.Start(ctx)
	if err := ix.WaitFor(ctx, avanet.ChainP, 300); err != nil {
		t.Fatal(err)
	}
	// Eight fetches at once, the X-avanet.Chain's poll and the validators'.
	if n := conns.Load(); n > 2*8+4 {
		t.Fatalf("%d connections to the node to fetch 301 blocks; want at most %d", n, 2*8+4)
	}
}
