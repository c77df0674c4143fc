package local

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/avaedge/avaedge/avanet"
	"github.com/avaedge/avaedge/catalog"
	"github.com/avaedge/avaedge/internal/pgtest"
	"github.com/avaedge/avaedge/local/source/devnet/evm"
	"github.com/jackc/pgx/v5"
)

// TestFleetOneWriter: two replicas of a followed network share the EVM
// index in PostgreSQL: exactly one is the writer; the reader answers the
// blocks the writer indexed, the same bytes; when the writer closes, the
// reader becomes the writer within 10s and indexes the chain's next block.
func TestFleetOneWriter(t *testing.T) {
	ctx := context.Background()
	c, build := fleetChain(t, pgtest.Start(t).Database(t), "")
	a, b := build(), build()
	writer, reader := roles(t, a, b)
	latest := func(h *Handler) (uint64, string) {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/v1/chains/99998/blocks?pageSize=1", nil))
		var v struct {
			Blocks []struct {
				Number string `json:"blockNumber"`
			} `json:"blocks"`
		}
		json.Unmarshal(rec.Body.Bytes(), &v)
		if rec.Code != http.StatusOK || len(v.Blocks) == 0 {
			return 0, rec.Body.String()
		}
		n, _ := strconv.ParseUint(v.Blocks[0].Number, 10, 64)
		return n, rec.Body.String()
	}
	head := c.Seed().Head
	waitFor(t, 20*time.Second, "the reader to answer the writer's head", func() bool {
		n, body := latest(reader)
		_, wbody := latest(writer)
		return n >= head && body == wbody
	})
	// The metrics history the writer's engine stored, the reader's
	// engine reads.
	metrics := func(h *Handler) string {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/v2/chains/99998/metrics/txCount?timeInterval=hour&pageSize=5", nil))
		return strconv.Itoa(rec.Code) + " " + rec.Body.String()
	}
	waitFor(t, 10*time.Second, "the reader's metrics to equal the writer's", func() bool {
		m := metrics(writer)
		return strings.HasPrefix(m, "200 ") && strings.Contains(m, `"value"`) && m == metrics(reader)
	})
	// A block indexed after both started reaches the reader's engine from
	// the shared store.
	blk, err := c.Commit(ctx)
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, "the reader's metrics engine to read the writer's next block", func() bool {
		h, ok := reader.wired.engine.Head(99998)
		return ok && h == blk.NumberU64()
	})
	closed := time.Now()
	writer.Close()
	waitFor(t, 10*time.Second, "the reader to become the writer", func() bool {
		st, _ := reader.IndexLease()
		return st.Role == "writer"
	})
	t.Logf("takeover after the writer closed: %s", time.Since(closed))
	if blk, err = c.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, "the new writer to index the next block", func() bool {
		n, _ := latest(reader)
		return n >= blk.NumberU64()
	})
}

// fleetChain starts a fake followed node and an EVM chain (99998) and
// returns the chain and a builder of replicas following them, their index
// at url (read at readURL, "" for url), closed when the test ends, with
// the Data and Metrics APIs local.
func fleetChain(t *testing.T, url, readURL string) (*evm.Chain, func() *Handler) {
	t.Helper()
	ctx := context.Background()
	node := fakeNode(t, avanet.Local.EVMChainID)
	c, err := evm.New(ctx, evm.Options{ChainID: 99998})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	rpcSrv := httptest.NewServer(c.Handler())
	t.Cleanup(rpcSrv.Close)
	return c, func() *Handler {
		h, err := Build(ctx, BuildOptions{Node: node.URL, IndexURL: url, IndexReadURL: readURL, Logger: slog.New(slog.DiscardHandler),
			EVMChains: []EVMChain{{ChainID: 99998, RPC: rpcSrv.URL}}, LocalMode: map[catalog.Service]bool{catalog.Data: true, catalog.Metrics: true}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { h.Close() })
		return h
	}
}

// roles waits until exactly one of a and b is the writer and returns it
// first.
func roles(t *testing.T, a, b *Handler) (writer, reader *Handler) {
	t.Helper()
	waitFor(t, 10*time.Second, "exactly one writer", func() bool {
		sa, _ := a.IndexLease()
		sb, _ := b.IndexLease()
		writer, reader = a, b
		if sb.Role == "writer" {
			writer, reader = b, a
		}
		return (sa.Role == "writer") != (sb.Role == "writer")
	})
	return writer, reader
}

func waitFor(t *testing.T, d time.Duration, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("waited %s for %s", d, what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// countingNode serves fakeNode's answers and counts the P- and X-Chain
// height polls (platform.getHeight, avm.getHeight): a follower's.
func countingNode(t *testing.T) (*httptest.Server, *atomic.Int64) {
	inner := fakeNode(t, avanet.Local.EVMChainID)
	var polls atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if bytes.Contains(body, []byte(`"platform.getHeight"`)) || bytes.Contains(body, []byte(`"avm.getHeight"`)) {
			polls.Add(1)
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		inner.Config.Handler.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, &polls
}

// TestFleetPXIndex: two replicas of a followed network share its P/X
// index in PostgreSQL under the one lease: only the writer polls its node
// for the P- and X-Chain's heights, the index's rows are in the database
// (schema pindex), and when the writer closes the other takes over and
// polls.
func TestFleetPXIndex(t *testing.T) {
	ctx := context.Background()
	url := pgtest.Start(t).Database(t)
	build := func(node string) *Handler {
		h, err := Build(ctx, BuildOptions{Node: node, IndexURL: url, Logger: slog.New(slog.DiscardHandler),
			LocalMode: map[catalog.Service]bool{catalog.Data: true}})
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	nodeA, pollsA := countingNode(t)
	nodeB, pollsB := countingNode(t)
	a, b := build(nodeA.URL), build(nodeB.URL)
	t.Cleanup(func() { a.Close(); b.Close() })
	writer, _ := roles(t, a, b)
	wpolls, rpolls := pollsA, pollsB
	if writer == b {
		wpolls, rpolls = pollsB, pollsA
	}
	waitFor(t, 10*time.Second, "the writer to poll its node", func() bool { return wpolls.Load() >= 2 })
	time.Sleep(time.Second)
	if n := rpolls.Load(); n != 0 {
		t.Fatalf("the reader polled its node %d times; only the writer follows", n)
	}
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var network string
	if err := conn.QueryRow(ctx, `SELECT value FROM pindex.meta WHERE key='network'`).Scan(&network); err != nil || !strings.Contains(network, avanet.Local.XChainID) {
		t.Fatalf("the stored network %q, %v", network, err)
	}
	writer.Close()
	waitFor(t, 10*time.Second, "the reader to take over and poll its node", func() bool { return rpolls.Load() >= 2 })
}
