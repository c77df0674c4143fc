package main

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// startEdge runs avaedge with env until the test ends.
func startEdge(t *testing.T, env map[string]string) (pub, admin string, stop func() error) {
	t.Helper()
	return runEdge(t, env, os.Stderr)
}

// runEdge runs avaedge with env, logging to w, until stop is called (or
// the test ends).
func runEdge(t *testing.T, env map[string]string, w io.Writer) (pub, admin string, stop func() error) {
	t.Helper()
	env["AVAEDGE_LISTEN"], env["AVAEDGE_ADMIN_LISTEN"] = "127.0.0.1:0", "127.0.0.1:0"
	ctx, cancel := context.WithCancel(context.Background())
	addrs := make(chan [2]string, 1)
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, "", func(k string) string { return env[k] }, w, func(p, a net.Addr) { addrs <- [2]string{p.String(), a.String()} })
	}()
	var once sync.Once
	var err error
	stop = func() error {
		once.Do(func() { cancel(); err = <-done })
		return err
	}
	select {
	case a := <-addrs:
		t.Cleanup(func() { stop() })
		return "http://" + a[0], "http://" + a[1], stop
	case err := <-done:
		t.Fatalf("avaedge did not start: %v", err)
	case <-time.After(60 * time.Second):
		t.Fatal("avaedge did not start in time")
	}
	return
}

func TestHealthAndMetrics(t *testing.T) {
	pub, admin, _ := startEdge(t, map[string]string{})
	for _, u := range []string{pub + "/healthz", admin + "/healthz", admin + "/readyz"} {
		resp, err := http.Get(u)
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("GET %s: %v %v", u, resp, err)
		}
		resp.Body.Close()
	}
	if resp, err := http.Get(pub + "/v1/chains"); err == nil {
		resp.Body.Close()
	}
	resp, err := http.Get(admin + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(b), "avaedge_requests_total") {
		t.Fatalf("/metrics lacks avaedge_requests_total")
	}
}

// TestGracefulShutdown: a request in flight when shutdown begins is answered.
func TestGracefulShutdown(t *testing.T) {
	release := make(chan struct{})
	entered := make(chan struct{}, 1)
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		entered <- struct{}{}
		<-release
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"chains":[]}`))
	}))
	defer origin.Close()
	pub, _, stop := startEdge(t, map[string]string{"AVAEDGE_DATA_UPSTREAM": origin.URL})
	got := make(chan string, 1)
	go func() {
		resp, err := http.Get(pub + "/v1/chains")
		if err != nil {
			got <- "error: " + err.Error()
			return
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		got <- string(b)
	}()
	<-entered
	stopped := make(chan error, 1)
	go func() { stopped <- stop() }()
	time.Sleep(100 * time.Millisecond) // let Shutdown close the listener
	if _, err := http.Get(pub + "/healthz"); err == nil {
		t.Fatal("new connections still accepted after shutdown began")
	}
	close(release)
	if b := <-got; b != `{"chains":[]}` {
		t.Fatalf("in-flight request got %q", b)
	}
	if err := <-stopped; err != nil {
		t.Fatal(err)
	}
}

// TestShutdownBounded: a request stuck past server.shutdown_timeout (its
// upstream never answers) does not hold shutdown: run returns soon after
// the drain ends, with an error that says so. (The stuck upstream call
// itself may be a cache fill, which outlives its client by design and is
// bounded by the upstream's own timeout.)
func TestShutdownBounded(t *testing.T) {
	entered, release := make(chan struct{}, 1), make(chan struct{})
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case entered <- struct{}{}:
		default:
		}
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer origin.Close()
	defer close(release)
	dir := t.TempDir()
	cfg := filepath.Join(dir, "avaedge.yaml")
	yaml := "listen: 127.0.0.1:0\nadmin_listen: 127.0.0.1:0\ndata_dir: " + dir + "\n" +
		"upstreams:\n  data: {url: " + origin.URL + ", mode: upstream-only, first_byte_timeout: 5m, timeout: 5m}\n" +
		"server: {shutdown_timeout: 1s, write_timeout: 5m}\n"
	if err := os.WriteFile(cfg, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	addrs, done := make(chan string, 1), make(chan error, 1)
	go func() {
		done <- run(ctx, cfg, func(string) string { return "" }, io.Discard, func(p, _ net.Addr) { addrs <- "http://" + p.String() })
	}()
	var pub string
	select {
	case pub = <-addrs:
	case err := <-done:
		t.Fatalf("avaedge did not start: %v", err)
	}
	go func() {
		if resp, err := http.Get(pub + "/v1/chains"); err == nil {
			resp.Body.Close()
		}
	}()
	<-entered
	start := time.Now()
	cancel()
	// 1s of drain plus closing; the bound is generous for a loaded machine
	// and still far below the stuck call's 5 minutes.
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "shutdown") {
			t.Fatalf("run: %v; want a shutdown error for the request still running", err)
		}
		if d := time.Since(start); d < time.Second {
			t.Fatalf("run returned %v after shutdown began; want the 1s drain first", d)
		}
	case <-time.After(time.Second + closeTimeout + 30*time.Second):
		t.Fatal("run still running long after the drain ended")
	}
}

// TestCloseWithinBounded: closing gives up on a closer that hangs, naming
// it, after the closers added after it were closed.
func TestCloseWithinBounded(t *testing.T) {
	hang := make(chan struct{})
	defer close(hang)
	var a app
	var closed []string
	a.onClose("hanging", func() error { <-hang; return nil })
	a.onClose("quick", func() error { closed = append(closed, "quick"); return nil })
	errc := make(chan error, 1)
	go func() { errc <- a.CloseWithin(50 * time.Millisecond) }()
	select {
	case err := <-errc:
		if err == nil || !strings.Contains(err.Error(), "hanging did not close within 50ms") {
			t.Fatalf("CloseWithin: %v; want the hanging closer named", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("CloseWithin waited for a closer that hangs")
	}
	if len(closed) != 1 {
		t.Fatalf("closed %v; want the quick closer closed first", closed)
	}
}

// TestDataDirCreated: a data directory that does not exist yet is created,
// readable by this user only, instead of failing to open its databases.
func TestDataDirCreated(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a", "data")
	pub, _, stop := startEdge(t, map[string]string{"AVAEDGE_DATA_DIR": dir})
	resp, err := http.Get(pub + "/healthz")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("healthz: %v %v", resp, err)
	}
	resp.Body.Close()
	stop()
	fi, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := fi.Mode().Perm(); got != 0o700 {
		t.Fatalf("mode = %v; want 0700", got)
	}
	if _, err := os.Stat(filepath.Join(dir, "evmindex.db")); err != nil {
		t.Fatalf("the EVM index is not in the data directory: %v", err)
	}
}

// TestUpstreamCredentials: the operator's Data API key goes to the Data API
// only, never to the node upstream, which gets its own configured headers.
func TestUpstreamCredentials(t *testing.T) {
	seen := make(chan http.Header, 16)
	record := func(w http.ResponseWriter, r *http.Request) {
		seen <- r.Header.Clone()
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"jsonrpc":"2.0","result":{"networkID":"5"},"id":1}`)
	}
	node := httptest.NewServer(http.HandlerFunc(record))
	defer node.Close()
	data := httptest.NewServer(http.HandlerFunc(record))
	defer data.Close()
	pub, _, _ := startEdge(t, map[string]string{
		"AVAEDGE_NODE_UPSTREAM":         node.URL,
		"AVAEDGE_DATA_UPSTREAM":         data.URL,
		"AVAEDGE_UPSTREAM_API_KEY":      "operator-secret",
		"AVAEDGE_NODE_UPSTREAM_HEADERS": "X-Provider-Key: provider-secret",
	})
	<-seen // the network id learned at start
	resp, err := http.Post(pub+"/ext/info", "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"info.getNodeVersion"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	h := <-seen
	if h.Get("X-Glacier-Api-Key") != "" || h.Get("X-Provider-Key") != "provider-secret" {
		t.Fatalf("node upstream got x-glacier-api-key %q, x-provider-key %q", h.Get("X-Glacier-Api-Key"), h.Get("X-Provider-Key"))
	}
	resp, err = http.Get(pub + "/v1/chains")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	h = <-seen
	if h.Get("X-Glacier-Api-Key") != "operator-secret" || h.Get("X-Provider-Key") != "" {
		t.Fatalf("data upstream got x-glacier-api-key %q, x-provider-key %q", h.Get("X-Glacier-Api-Key"), h.Get("X-Provider-Key"))
	}
}
