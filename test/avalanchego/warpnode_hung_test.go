package avalanchego

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/ids"
	avawarp "github.com/ava-labs/avalanchego/vms/platformvm/warp"

	"github.com/avaedge/avaedge/local/api/warp"
	"github.com/avaedge/avaedge/local/source/acp118"
	"github.com/avaedge/avaedge/local/source/warpsource"
)

// countingSource is the node-mode warp Source, counting how its Sign calls
// to one validator ended.
type countingSource struct {
	*warpsource.Node
	node               ids.NodeID
	timeouts, backoffs atomic.Int32
}

func (s *countingSource) Sign(ctx context.Context, nodeID [20]byte, msg []byte) ([]byte, error) {
	sig, err := s.Node.Sign(ctx, nodeID, msg)
	if ids.NodeID(nodeID) == s.node {
		switch {
		case errors.Is(err, acp118.ErrTimeout):
			s.timeouts.Add(1)
		case errors.Is(err, acp118.ErrBackoff):
			s.backoffs.Add(1)
		}
	}
	return sig, err
}

// lookupCounter proxies the followed node's API and counts the info.peers
// calls naming one node: the Source looks a validator's address up there
// once per dial.
type lookupCounter struct {
	node    string
	lookups atomic.Int32
	proxy   *httputil.ReverseProxy
}

func (c *lookupCounter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	if bytes.Contains(body, []byte(`"info.peers"`)) && bytes.Contains(body, []byte(c.node)) {
		c.lookups.Add(1)
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	c.proxy.ServeHTTP(w, r)
}

// clock is a settable clock for the Source's backoff.
type clock struct {
	mu  sync.Mutex // guards now
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// TestNodeWarpHungValidator: the second validator of a real two-node L1 (60
// and 40) hangs (its process stopped: the kernel still accepts its TCP
// connections and takes the bytes sent on them; nothing answers). Within the
// 30s backoff, aggregations that need it wait for it once: each reports the
// quorum error with the 60% that signed, and no other dials it; after the
// period it is dialled and waited for once more, then left alone for twice
// as long; once it runs again, it is dialled after that period and signs.
func TestNodeWarpHungValidator(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	l := startL1Pair(t, ctx)
	target, err := url.Parse(l.node1.URI)
	if err != nil {
		t.Fatal(err)
	}
	lookups := &lookupCounter{node: l.id2.String(), proxy: httputil.NewSingleHostReverseProxy(target)}
	api := httptest.NewServer(lookups)
	defer api.Close()
	clk := &clock{now: time.Unix(1_700_000_000, 0)}
	nw, err := warpsource.NewNode(warpsource.NodeOptions{Index: l.ix, Node: api.URL, Backoff: 30 * time.Second, Now: clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	defer nw.Close()
	src := &countingSource{Node: nw, node: l.id2}
	// A fresh aggregator each time: none answers from its signature cache.
	aggregate := func(quorum uint64) ([]byte, error) {
		return warp.NewAggregator(src, warp.Options{SignerTimeout: 2 * time.Second}).Aggregate(ctx, l.request(quorum))
	}
	signers := func(t *testing.T, signed []byte) int {
		t.Helper()
		m, err := avawarp.ParseMessage(signed)
		if err != nil {
			t.Fatal(err)
		}
		n, err := m.Signature.NumSigners()
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	want := func(t *testing.T, dials, waits, skips int32) {
		t.Helper()
		if d, w, s := lookups.lookups.Load(), src.timeouts.Load(), src.backoffs.Load(); d != dials || w != waits || s != skips {
			t.Fatalf("node 2 dialled %d times, waited for %d times, skipped %d times; want %d, %d, %d", d, w, s, dials, waits, skips)
		}
	}
	short := func(t *testing.T, n int) {
		t.Helper()
		for i := range n {
			_, err := aggregate(100)
			var qe *warp.QuorumError
			if !errors.As(err, &qe) || qe.SignedWeight != 60 || qe.TotalWeight != 100 {
				t.Fatalf("aggregation %d with node 2 hung: %v; want the quorum error of 60/100", i, err)
			}
		}
	}

	signed, err := aggregate(100)
	if err != nil || signers(t, signed) != 2 {
		t.Fatalf("both validators: %v", err)
	}
	want(t, 1, 0, 0)

	if err := l.node2.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	resumed := false
	resume := func() {
		if !resumed {
			resumed = true
			l.node2.cmd.Process.Signal(syscall.SIGCONT)
		}
	}
	t.Cleanup(resume)

	// Five aggregations within the period: one waits (on the kept
	// connection), none dials.
	short(t, 5)
	want(t, 1, 1, 4)
	// The period ends: one aggregation dials it again (the TLS handshake
	// hangs) and waits; the period doubles.
	clk.Add(30 * time.Second)
	short(t, 3)
	want(t, 2, 2, 6)
	clk.Add(30 * time.Second)
	short(t, 2)
	want(t, 2, 2, 8)

	// It runs again: after the doubled period it is dialled and signs.
	resume()
	clk.Add(30 * time.Second)
	signed, err = aggregate(100)
	if err != nil || signers(t, signed) != 2 {
		t.Fatalf("node 2 running again, after the period: %v", err)
	}
	want(t, 3, 2, 8)
}
