package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/avaedge/avaedge/internal/accesslog"
)

// stderr is the process's stderr in a test: it keeps what is written, and
// while held, writes of access log lines wait (other log lines pass).
type stderr struct {
	mu   sync.Mutex // guards buf and held
	buf  bytes.Buffer
	held chan struct{} // closed to let access log lines through; nil when not held
}

func (s *stderr) Write(b []byte) (int, error) {
	s.mu.Lock()
	held := s.held
	s.mu.Unlock()
	if held != nil && bytes.Contains(b, []byte(`"msg":"request"`)) {
		<-held
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.Write(b)
}

// requests returns the access log lines written so far.
func (s *stderr) requests(t *testing.T) []map[string]any {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []map[string]any
	sc := bufio.NewScanner(bytes.NewReader(s.buf.Bytes()))
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("log line %q: %v", sc.Text(), err)
		}
		if m["msg"] == "request" {
			out = append(out, m)
		}
	}
	return out
}

func origin(t *testing.T) *httptest.Server {
	t.Helper()
	o := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"blocks":[]}`)
	}))
	t.Cleanup(o.Close)
	return o
}

func get(t *testing.T, u string) *http.Response {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s", u, resp.Status)
	}
	return resp
}

func setAccessLogOptions(t *testing.T, o accesslog.Options) {
	old := accessLogOptions
	accessLogOptions = o
	t.Cleanup(func() { accessLogOptions = old })
}

// TestAccessLogWrittenAtShutdown: lines still queued when shutdown begins
// are written before run returns.
func TestAccessLogWrittenAtShutdown(t *testing.T) {
	setAccessLogOptions(t, accesslog.Options{FlushEvery: 1 << 62}) // written at shutdown or never
	var w stderr
	pub, _, stop := runEdge(t, map[string]string{"AVAEDGE_DATA_UPSTREAM": origin(t).URL}, &w)
	var ids []string
	for range 10 {
		ids = append(ids, get(t, pub+"/v1/chains/43114/blocks?pageSize=10").Header.Get("X-Request-Id"))
	}
	if got := w.requests(t); len(got) != 0 {
		t.Fatalf("%d lines written before shutdown; want them queued", len(got))
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	got := w.requests(t)
	if len(got) != len(ids) {
		t.Fatalf("%d access log lines after shutdown; want %d", len(got), len(ids))
	}
	for i, m := range got {
		want := map[string]any{"request_id": ids[i], "level": "INFO", "method": "GET", "path": "/v1/chains/43114/blocks",
			"service": "data", "route": "getLatestBlocks", "status": 200.0, "source": "upstream", "cache": "MISS",
			"bytes": 13.0, "key_id": "anonymous", "client": "127.0.0.1"}
		if i > 0 {
			want["source"], want["cache"] = "cache", "HIT"
		}
		for k, v := range want {
			if m[k] != v {
				t.Errorf("line %d: %s = %v; want %v", i, k, m[k], v)
			}
		}
		if d, ok := m["duration"].(float64); !ok || d <= 0 {
			t.Errorf("line %d: duration %v", i, m["duration"])
		}
		if _, err := time.Parse(time.RFC3339Nano, fmt.Sprint(m["time"])); err != nil {
			t.Errorf("line %d: time %v: %v", i, m["time"], err)
		}
	}
}

// TestAccessLogBlocked: while the log's destination takes nothing, every
// request is still answered; the lines that do not fit are dropped, counted
// in avaedge_access_log_dropped_total and said in the next line written.
func TestAccessLogBlocked(t *testing.T) {
	setAccessLogOptions(t, accesslog.Options{MaxPending: 8 << 10}) // about 25 lines
	w := &stderr{held: make(chan struct{})}
	pub, admin, stop := runEdge(t, map[string]string{"AVAEDGE_DATA_UPSTREAM": origin(t).URL}, w)
	const n = 300
	for range n {
		get(t, pub+"/v1/chains/43114/blocks?pageSize=10") // answered although the log is stuck
	}
	lost := droppedLines(t, admin)
	if lost == 0 || lost >= n {
		t.Fatalf("%v of %d lines dropped with the log stuck; want some, not all", lost, n)
	}
	close(w.held)
	// The first line queued once the writer has taken the queue says the
	// drops.
	sent := n
	for {
		before := droppedLines(t, admin)
		get(t, pub+"/v1/chains/43114/blocks?pageSize=10")
		sent++
		if droppedLines(t, admin) == before {
			break
		}
	}
	lost = droppedLines(t, admin)
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	got := w.requests(t)
	said := 0.0
	for _, m := range got {
		if d, ok := m["dropped"].(float64); ok {
			said += d
		}
	}
	if len(got)+int(lost) != sent || said != lost {
		t.Fatalf("%d requests: %d lines written, %v dropped (metric), %v said dropped; want written+dropped = requests and the drops said",
			sent, len(got), lost, said)
	}
}

// droppedLines reads avaedge_access_log_dropped_total from the admin
// listener.
func droppedLines(t *testing.T, admin string) float64 {
	t.Helper()
	resp, err := http.Get(admin + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "avaedge_access_log_dropped_total "); ok {
			var f float64
			fmt.Sscan(v, &f)
			return f
		}
	}
	t.Fatal("no avaedge_access_log_dropped_total on /metrics")
	return 0
}
