package main

import (
	"bufio"
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/avaedge/avaedge/config"
)

// writeCounter is a listener whose connections count their writes.
type writeCounter struct {
	net.Listener
	writes atomic.Int64
}

func (l *writeCounter) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &countedConn{Conn: c, n: &l.writes}, nil
}

type countedConn struct {
	net.Conn
	n *atomic.Int64
}

func (c *countedConn) Write(p []byte) (int, error) {
	c.n.Add(1)
	return c.Conn.Write(p)
}

// TestHitOneWrite: the public server, as run wires it, sends a cached ~4 KB
// page (more than net/http's 4 KiB connection buffer with its headers) in
// one write, hit after hit on a kept-alive connection, each answer whole.
func TestHitOneWrite(t *testing.T) {
	page := make([]byte, 4096)
	for i := range page {
		page[i] = byte('a' + i%26)
	}
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write(page)
	}))
	defer origin.Close()
	dir := t.TempDir()
	conf := filepath.Join(dir, "edge.yaml")
	os.WriteFile(conf, []byte("local: {disable_dev_chain: true}\nroutes:\n  getLatestBlocks: {cache: immutable}\n"), 0o600)
	env := map[string]string{"AVAEDGE_DATA_UPSTREAM": origin.URL}
	cfg, err := config.Load(conf, func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.NewJSONHandler(io.Discard, nil))
	a, err := build(context.Background(), cfg, log, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	counted := &writeCounter{Listener: ln}
	pub := newServers(cfg, a).public
	go pub.Serve(publicListener(counted))
	defer pub.Close()

	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	br := bufio.NewReader(c)
	get := func() *http.Response {
		t.Helper()
		c.SetDeadline(time.Now().Add(10 * time.Second))
		io.WriteString(c, "GET /v1/chains/43114/blocks?pageSize=10 HTTP/1.1\r\nHost: edge\r\n\r\n")
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || string(body) != string(page) {
			t.Fatalf("answer of %d bytes (err %v); want the origin's %d", len(body), err, len(page))
		}
		return resp
	}
	get() // the miss fills the cache
	for i := range 3 {
		before := counted.writes.Load()
		resp := get()
		if got := resp.Header.Get("X-Cache-Status"); got != "HIT" {
			t.Fatalf("hit %d: X-Cache-Status %q", i, got)
		}
		if n := counted.writes.Load() - before; n != 1 {
			t.Errorf("hit %d written in %d writes; want 1", i, n)
		}
	}
}
