package e2e

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/avaedge/avaedge/internal/pgtest"
)

// binary is the avaedge binary TestMain builds once for every test.
var binary string

// repoRoot is the avaedge module's root, two levels above this module.
var repoRoot, _ = filepath.Abs("../..")

func TestMain(m *testing.M) {
	os.Exit(runMain(m))
}

func runMain(m *testing.M) int {
	flag.Parse()
	dir, err := os.MkdirTemp("", "avaedge-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	binary = filepath.Join(dir, "avaedge")
	start := time.Now()
	cmd := exec.Command("go", "build", "-o", binary, "github.com/avaedge/avaedge/cmd/avaedge")
	cmd.Dir = repoRoot
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "e2e: building avaedge:", err)
		return 1
	}
	if testing.Verbose() {
		fmt.Fprintf(os.Stderr, "e2e: built avaedge in %s\n", time.Since(start).Round(time.Millisecond))
	}
	code := m.Run()
	stopShared()
	pgtest.StopShared()
	return code
}

// edge is one avaedge process.
type edge struct {
	URL   string // public base URL, http://127.0.0.1:port
	Admin string // admin base URL
	Env   map[string]string

	cmd     *exec.Cmd
	log     *syncBuffer
	secrets []string
	done    chan struct{}
}

// syncBuffer collects a process's stderr.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// freePort returns a loopback port nobody listens on right now.
func freePort(t testing.TB) int {
	t.Helper()
	p, err := loopbackPort()
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func loopbackPort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// startEdge runs the avaedge binary with env (plus free listen addresses)
// until the test ends, and waits for /healthz on both listeners. Secrets
// are strings (client keys) that must never appear in its log; the log is
// checked when the process stops.
func startEdge(t testing.TB, env map[string]string, secrets ...string) *edge {
	t.Helper()
	e := launchEdge(t, env, secrets...)
	t.Cleanup(func() { e.stop(t) })
	return e
}

// launchEdge is startEdge without the cleanup, for processes shared by
// several tests (stopped by stopShared).
func launchEdge(t testing.TB, env map[string]string, secrets ...string) *edge {
	t.Helper()
	return launchEdgeArgs(t, nil, env, secrets...)
}

// startEdgeArgs is startEdge with command-line arguments (-config FILE).
func startEdgeArgs(t testing.TB, args []string, env map[string]string, secrets ...string) *edge {
	t.Helper()
	e := launchEdgeArgs(t, args, env, secrets...)
	t.Cleanup(func() { e.stop(t) })
	return e
}

func launchEdgeArgs(t testing.TB, args []string, env map[string]string, secrets ...string) *edge {
	t.Helper()
	e := &edge{Env: map[string]string{}, log: &syncBuffer{}, secrets: secrets, done: make(chan struct{})}
	for k, v := range env {
		e.Env[k] = v
	}
	pub, adm := freePort(t), freePort(t)
	e.Env["AVAEDGE_LISTEN"] = "127.0.0.1:" + strconv.Itoa(pub)
	e.Env["AVAEDGE_ADMIN_LISTEN"] = "127.0.0.1:" + strconv.Itoa(adm)
	onPostgres := indexOnPostgres(t, e.Env)
	e.URL = "http://" + e.Env["AVAEDGE_LISTEN"]
	e.Admin = "http://" + e.Env["AVAEDGE_ADMIN_LISTEN"]
	e.cmd = exec.Command(binary, args...)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "AVAEDGE_") {
			e.cmd.Env = append(e.cmd.Env, kv)
		}
	}
	for k, v := range e.Env {
		e.cmd.Env = append(e.cmd.Env, k+"="+v)
	}
	e.cmd.Stdout, e.cmd.Stderr = e.log, e.log
	if err := e.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { e.cmd.Wait(); close(e.done) }()
	deadline := time.Now().Add(90 * time.Second)
	for _, u := range []string{e.URL + "/healthz", e.Admin + "/healthz"} {
		for {
			resp, err := http.Get(u)
			if err == nil {
				resp.Body.Close()
				if resp.StatusCode == 200 {
					break
				}
			}
			select {
			case <-e.done:
				t.Fatalf("avaedge exited before serving %s: %v\n%s", u, e.cmd.ProcessState, e.log)
			case <-time.After(50 * time.Millisecond):
			}
			if time.Now().After(deadline) {
				e.kill()
				t.Fatalf("avaedge did not answer %s in 90s\n%s", u, e.log)
			}
		}
	}
	if onPostgres {
		waitRole(t, e, "writer", 30*time.Second)
	}
	return e
}

// indexOnPostgres, under AVAEDGE_E2E_INDEX=postgres (.ci/run's second pass
// of the followed-node tests), gives a replica following a node without an
// AVAEDGE_INDEX_URL of its own a database of the shared PostgreSQL: one per
// data directory, so a replica started again on its directory finds its
// index. It reports whether it did.
func indexOnPostgres(t testing.TB, env map[string]string) bool {
	if os.Getenv("AVAEDGE_E2E_INDEX") != "postgres" || env["AVAEDGE_LOCAL_NODE"] == "" || env["AVAEDGE_INDEX_URL"] != "" {
		return false
	}
	pgDBs.mu.Lock()
	defer pgDBs.mu.Unlock()
	key := env["AVAEDGE_DATA_DIR"]
	u, ok := pgDBs.byDir[key]
	if !ok || key == "" {
		u = pgtest.Shared(t).Database(t)
		pgDBs.byDir[key] = u
	}
	env["AVAEDGE_INDEX_URL"] = u
	return true
}

// pgDBs are the databases indexOnPostgres gave, by data directory.
var pgDBs = struct {
	mu    sync.Mutex // guards byDir
	byDir map[string]string
}{byDir: map[string]string{}}

// waitRole waits until e's /readyz names role as its part in the fleet.
func waitRole(t testing.TB, e *edge, role string, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		got := fleetRole(e)
		if got == role {
			return
		}
		if time.Now().After(deadline) {
			e.kill()
			t.Fatalf("avaedge's /readyz did not name it the index's %s within %s (role %q)\n%s", role, within, got, tail(e.log.String(), 4000))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// stop sends SIGTERM, waits for the drain, and checks the log holds none of
// the secrets.
func (e *edge) stop(t testing.TB) {
	select {
	case <-e.done:
	default:
		e.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-e.done:
		case <-time.After(15 * time.Second):
			e.kill()
			t.Errorf("avaedge did not stop within 15s of SIGTERM")
		}
	}
	log := e.log.String()
	for _, s := range e.secrets {
		if s != "" && strings.Contains(log, s) {
			t.Errorf("avaedge logged a client key")
		}
	}
	if t.Failed() && testing.Verbose() {
		t.Logf("avaedge log (last 4 KB):\n%s", tail(log, 4096))
	}
}

func (e *edge) kill() {
	e.cmd.Process.Kill()
	<-e.done
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

// The local-mode edge is shared by the tests that only read from it.
var (
	sharedMu    sync.Mutex
	sharedLocal *edge
	sharedStops []func()
)

// localEdge returns the shared local-mode avaedge (no upstreams, in-memory
// state), the source of the world's identifiers and the upstream the
// recording upstreams forward to. Every test's client is 127.0.0.1, so its
// keys file gives anonymous clients a plan large enough for the whole suite;
// the modes without a keys file run their own process (noKeysLocal).
func localEdge(t testing.TB) *edge {
	t.Helper()
	sharedMu.Lock()
	defer sharedMu.Unlock()
	if sharedLocal == nil {
		dir, err := os.MkdirTemp("", "avaedge-e2e-keys-")
		if err != nil {
			t.Fatal(err)
		}
		keys := filepath.Join(dir, "keys.yaml")
		if err := os.WriteFile(keys, []byte(bulkPlan), 0o600); err != nil {
			t.Fatal(err)
		}
		sharedStops = append(sharedStops, func() { os.RemoveAll(dir) })
		sharedLocal = launchEdge(t, map[string]string{"AVAEDGE_KEYS_FILE": keys})
		e := sharedLocal
		sharedStops = append(sharedStops, func() {
			e.cmd.Process.Signal(syscall.SIGTERM)
			select {
			case <-e.done:
			case <-time.After(15 * time.Second):
				e.kill()
			}
		})
	}
	return sharedLocal
}

// bulkKeysFile writes a keys file whose anonymous plan no sweep of the
// whole catalogue reaches the limits of.
func bulkKeysFile(t testing.TB) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "keys.yaml")
	if err := os.WriteFile(p, []byte(bulkPlan), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// bulkPlan is a keys file of one plan, for anonymous clients, that no test
// reaches the limits of.
const bulkPlan = "plans:\n  bulk: {cu_per_minute: 1000000000, cu_per_day: 100000000000}\nanonymous: bulk\n"

// noKeysLocal starts a local-mode avaedge of the test's own with no keys
// file: the published plans, the anonymous client metered per IP.
func noKeysLocal(t testing.TB, secrets ...string) *edge {
	t.Helper()
	return startEdge(t, map[string]string{}, secrets...)
}

// onExit registers f to run after every test.
func onExit(f func()) {
	sharedMu.Lock()
	defer sharedMu.Unlock()
	sharedStops = append(sharedStops, f)
}

func stopShared() {
	sharedMu.Lock()
	defer sharedMu.Unlock()
	for i := len(sharedStops) - 1; i >= 0; i-- {
		sharedStops[i]()
	}
}

// reply is one HTTP answer.
type reply struct {
	Status int
	Header http.Header
	Body   []byte
}

func (r reply) String() string {
	return fmt.Sprintf("%d %s %.600s", r.Status, r.Header.Get("Content-Type"), r.Body)
}

// do sends one request and reads the whole answer.
func do(t testing.TB, method, url string, body []byte, hdr map[string]string) reply {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, rd)
	if err != nil {
		t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: reading the body: %v", method, url, err)
	}
	return reply{resp.StatusCode, resp.Header, b}
}
