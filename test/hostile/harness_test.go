// Package hostile tries avaedge as an attacker would: the real binary, built
// once and run as a process on loopback ports, in front of counting httptest
// upstreams and a real redis-server. Each finding of the hostile-client
// review gets a test here that shows it closed.
//
// To add a case: start an Upstream (NewUpstream, with a handler when the
// default answer does not fit), start the edge with StartEdge (environment,
// config YAML, keys file YAML), send requests to Edge.URL, and assert on the
// answers, Upstream.Calls and Edge.Log. Everything stays on 127.0.0.1 and
// every test is bounded in count and time.
package hostile

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// binary is the avaedge binary built by TestMain.
var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "avaedge-hostile-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "avaedge")
	build := exec.Command("go", "build", "-o", binary, "github.com/avaedge/avaedge/cmd/avaedge")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "hostile: building avaedge:", err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// EdgeOptions says how to start the edge.
type EdgeOptions struct {
	// Env is added to the process's environment, from which every other
	// AVAEDGE_ variable is removed (AVAEDGE_LISTEN and AVAEDGE_ADMIN_LISTEN
	// are 127.0.0.1:0 unless given; the bound ports are read from the log).
	Env map[string]string
	// Config, when set, is YAML written to a file passed with -config.
	Config string
	// Keys, when set, is a keys file (YAML) passed as AVAEDGE_KEYS_FILE.
	Keys string
}

// Edge is one running avaedge process, stopped when the test ends.
type Edge struct {
	// URL and Admin are the public and admin base URLs (http://127.0.0.1:port).
	URL, Admin string

	cmd  *exec.Cmd
	log  *lockedBuf // the process's stderr (JSON log lines)
	done chan struct{}
	// held, while set, is a channel the stderr reader waits on before its
	// next line (HoldLog).
	held atomic.Pointer[chan struct{}]
}

// StartEdge starts the binary and waits until it logs its bound addresses.
func StartEdge(t *testing.T, o EdgeOptions) *Edge {
	t.Helper()
	dir := t.TempDir()
	env := map[string]string{"AVAEDGE_LISTEN": "127.0.0.1:0", "AVAEDGE_ADMIN_LISTEN": "127.0.0.1:0"}
	for k, v := range o.Env {
		env[k] = v
	}
	var args []string
	if o.Config != "" {
		p := filepath.Join(dir, "config.yaml")
		if err := os.WriteFile(p, []byte(o.Config), 0o600); err != nil {
			t.Fatal(err)
		}
		args = append(args, "-config", p)
	}
	if o.Keys != "" {
		p := filepath.Join(dir, "keys.yaml")
		if err := os.WriteFile(p, []byte(o.Keys), 0o600); err != nil {
			t.Fatal(err)
		}
		env["AVAEDGE_KEYS_FILE"] = p
	}
	cmd := exec.Command(binary, args...)
	// The edge sees only the configuration the test gives it.
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "AVAEDGE_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	e := &Edge{cmd: cmd, log: &lockedBuf{}, done: make(chan struct{})}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	started := make(chan [2]string, 1)
	go func() {
		defer close(e.done)
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for {
			if c := e.held.Load(); c != nil {
				<-*c
			}
			if !sc.Scan() {
				break
			}
			line := sc.Text()
			e.log.WriteString(line + "\n")
			var m struct{ Msg, Listen, Admin string }
			if json.Unmarshal([]byte(line), &m) == nil && m.Msg == "avaedge started" {
				started <- [2]string{m.Listen, m.Admin}
			}
		}
		cmd.Wait()
	}()
	t.Cleanup(func() { e.Stop(t) })
	select {
	case a := <-started:
		e.URL, e.Admin = "http://"+a[0], "http://"+a[1]
	case <-e.done:
		t.Fatalf("avaedge exited before it started:\n%s", e.Log())
	case <-time.After(60 * time.Second):
		t.Fatalf("avaedge did not start within 60s:\n%s", e.Log())
	}
	return e
}

// Stop ends the process (SIGTERM, then SIGKILL after 10s). Safe to call twice.
func (e *Edge) Stop(t *testing.T) {
	select {
	case <-e.done:
		return
	default:
	}
	e.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-e.done:
	case <-time.After(10 * time.Second):
		// SIGQUIT makes the Go runtime write every goroutine's stack to
		// stderr, which the log holds: where the edge is stuck.
		e.cmd.Process.Signal(syscall.SIGQUIT)
		select {
		case <-e.done:
		case <-time.After(5 * time.Second):
			e.cmd.Process.Kill()
			<-e.done
		}
		t.Errorf("avaedge did not stop within 10s of SIGTERM; its log and goroutines:\n%s", e.Log())
	}
}

// HoldLog stops reading the process's stderr, so its writes there block
// once the pipe is full, until the returned release is called (at the end
// of the test at the latest).
func (e *Edge) HoldLog(t *testing.T) (release func()) {
	c := make(chan struct{})
	e.held.Store(&c)
	var once sync.Once
	release = func() {
		once.Do(func() {
			e.held.Store(nil)
			close(c)
		})
	}
	t.Cleanup(release)
	return release
}

// Log returns what the process has logged so far.
func (e *Edge) Log() string { return e.log.String() }

// LogCount counts the log lines containing s.
func (e *Edge) LogCount(s string) int { return strings.Count(e.Log(), s) }

// Metric returns the value of an unlabelled metric on the admin listener,
// or -1 when it is absent.
func (e *Edge) Metric(t *testing.T, name string) float64 {
	t.Helper()
	resp, err := http.Get(e.Admin + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		var v float64
		if f := strings.Fields(sc.Text()); len(f) == 2 && f[0] == name {
			fmt.Sscan(f[1], &v)
			return v
		}
	}
	return -1
}

// Upstream is an httptest upstream that counts and records the requests it
// receives.
type Upstream struct {
	*httptest.Server
	total atomic.Int64
	mu    sync.Mutex // guards paths and reqs
	paths map[string]int
	reqs  []Received
}

// Received is one request as an Upstream received it.
type Received struct {
	Method string
	URI    string // the request target as sent: escaped path and raw query
	Header http.Header
	Body   []byte
}

// NewUpstream starts an upstream answering with h, or, when h is nil, with
// a small JSON object for GETs and a JSON-RPC result for POSTs.
func NewUpstream(t *testing.T, h http.Handler) *Upstream {
	t.Helper()
	if h == nil {
		h = http.HandlerFunc(defaultAnswer)
	}
	u := &Upstream{paths: map[string]int{}}
	u.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u.total.Add(1)
		body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		r.Body = io.NopCloser(bytes.NewReader(body))
		u.mu.Lock()
		u.paths[r.Method+" "+r.URL.Path]++
		u.reqs = append(u.reqs, Received{r.Method, r.RequestURI, r.Header.Clone(), body})
		u.mu.Unlock()
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(u.Close)
	return u
}

// Calls is how many requests the upstream has received.
func (u *Upstream) Calls() int64 { return u.total.Load() }

// Received returns the requests received so far, in order.
func (u *Upstream) Received() []Received {
	u.mu.Lock()
	defer u.mu.Unlock()
	return append([]Received(nil), u.reqs...)
}

// CallsTo is how many requests for "METHOD /path" it has received.
func (u *Upstream) CallsTo(methodPath string) int {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.paths[methodPath]
}

func defaultAnswer(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	if r.Method == http.MethodPost {
		var req struct{ ID json.RawMessage }
		json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(&req)
		if len(req.ID) == 0 {
			req.ID = json.RawMessage("1")
		}
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"networkID":"1"}}`, req.ID)
		return
	}
	fmt.Fprintf(w, `{"path":%q}`, r.URL.Path)
}

// proxyEnv points every service at u (proxy mode: no local world).
func proxyEnv(u *Upstream) map[string]string {
	return map[string]string{
		"AVAEDGE_DATA_UPSTREAM":    u.URL,
		"AVAEDGE_METRICS_UPSTREAM": u.URL,
		"AVAEDGE_NODE_UPSTREAM":    u.URL,
	}
}

// keysFile is a keys file with n keys "key-0".."key-<n-1>" on a plan that
// no test reaches the limits of, and anonymous clients on the same plan
// when anonymous is true.
func keysFile(n int, anonymous bool) string {
	var b strings.Builder
	b.WriteString("plans:\n  roomy: {cu_per_minute: 100000000, cu_per_day: 1000000000, rps: 100000, burst: 100000}\nkeys:\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "  - {id: k%d, key: key-%d, plan: roomy}\n", i, i)
	}
	if anonymous {
		b.WriteString("anonymous: roomy\n")
	}
	return b.String()
}

// getWithKey sends GET url with key as x-glacier-api-key and returns the
// answer with its body read.
func getWithKey(t *testing.T, url, key string) (*http.Response, string) {
	t.Helper()
	return send(t, http.MethodGet, url, map[string]string{"x-glacier-api-key": key})
}

// send sends a request without a body with headers h and returns the
// answer with its body read.
func send(t *testing.T, method, url string, h map[string]string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest(method, url, nil)
	for k, v := range h {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp, string(b)
}

// timedGet sends one GET and returns its status and duration; the body is
// read whole.
func timedGet(ctx context.Context, c *http.Client, url, key string) (int, time.Duration, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, 0, err
	}
	if key != "" {
		req.Header.Set("x-glacier-api-key", key)
	}
	start := time.Now()
	resp, err := c.Do(req)
	if err != nil {
		return 0, time.Since(start), err
	}
	_, err = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode, time.Since(start), err
}

// quantile returns the q-quantile (0..1) of ds, nearest rank.
func quantile(ds []time.Duration, q float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	i := int(q*float64(len(s))+0.5) - 1
	return s[min(max(i, 0), len(s)-1)]
}

// ms formats a duration in milliseconds for logs.
func ms(d time.Duration) string { return fmt.Sprintf("%.2fms", float64(d)/float64(time.Millisecond)) }

// lockedBuf is a bytes.Buffer safe for concurrent use.
type lockedBuf struct {
	mu sync.Mutex // guards b
	b  bytes.Buffer
}

func (l *lockedBuf) WriteString(s string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.b.WriteString(s)
}

func (l *lockedBuf) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
