// Package redistest starts real redis-server processes for tests.
//
// Tests that want Redis call Start. When redis-server is not on PATH the test falls back to
// miniredis and says so, unless AVAEDGE_TEST_REDIS=required (set by .ci/run), when it fails.
package redistest

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"
)

// Server is one Redis server started for a test. It is safe for concurrent use.
type Server struct {
	// Addr is host:port on 127.0.0.1.
	Addr string
	// Real reports whether this is a real redis-server (false: miniredis).
	Real bool

	t    testing.TB
	dir  string
	port int
	args []string
	cmd  *exec.Cmd
	mini *miniredis.Miniredis
}

// Required reports whether the environment demands a real redis-server.
func Required() bool { return os.Getenv("AVAEDGE_TEST_REDIS") == "required" }

// Start starts a redis-server on a free loopback port, stopped when the test ends.
func Start(t testing.TB) *Server {
	t.Helper()
	if _, err := exec.LookPath("redis-server"); err != nil {
		if Required() {
			t.Fatalf("redis-server not on PATH and AVAEDGE_TEST_REDIS=required")
		}
		t.Logf("redistest: redis-server not found, using miniredis")
		m := miniredis.RunT(t)
		return &Server{Addr: m.Addr(), t: t, mini: m}
	}
	s := &Server{t: t, dir: t.TempDir(), port: FreePort(t), Real: true}
	s.Addr = "127.0.0.1:" + strconv.Itoa(s.port)
	s.args = []string{"--port", strconv.Itoa(s.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
		"--dir", s.dir, "--protected-mode", "no"}
	s.start()
	t.Cleanup(s.Stop)
	return s
}

// RequireReal skips (or, when Redis is required, fails) a test that needs a real redis-server.
func (s *Server) RequireReal() {
	s.t.Helper()
	if !s.Real {
		if Required() {
			s.t.Fatal("needs a real redis-server and AVAEDGE_TEST_REDIS=required")
		}
		s.t.Skip("needs a real redis-server")
	}
}

// Client returns a go-redis client for s, closed when the test ends.
func (s *Server) Client() *redis.Client {
	c := redis.NewClient(&redis.Options{Addr: s.Addr})
	s.t.Cleanup(func() { c.Close() })
	return c
}

// URL returns s as a redis:// URL.
func (s *Server) URL() string { return "redis://" + s.Addr + "/0" }

func (s *Server) start() {
	s.t.Helper()
	s.startArgs(s.args...)
}

func (s *Server) startArgs(args ...string) {
	s.t.Helper()
	cmd := exec.Command("redis-server", args...)
	cmd.Dir = s.dir
	if err := cmd.Start(); err != nil {
		s.t.Fatalf("start redis-server: %v", err)
	}
	s.cmd = cmd
	waitPing(s.t, s.Addr)
}

// Stop stops the server (a real one with SIGKILL, so nothing is flushed). Safe to call twice.
func (s *Server) Stop() {
	if s.mini != nil {
		s.mini.Close()
		return
	}
	if s.cmd == nil || s.cmd.Process == nil {
		return
	}
	_ = s.cmd.Process.Kill()
	_ = s.cmd.Wait()
	s.cmd = nil
}

// Pause stops a real server with SIGSTOP: it keeps accepting connections
// and never answers, as a hung Redis does. It is resumed (SIGCONT) when the
// test ends, so Stop can kill it.
func (s *Server) Pause() {
	s.t.Helper()
	s.RequireReal()
	if err := s.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		s.t.Fatalf("SIGSTOP redis-server: %v", err)
	}
	s.t.Cleanup(s.Resume)
}

// Resume continues a server stopped by Pause (SIGCONT). Safe to call twice.
func (s *Server) Resume() {
	if s.cmd != nil && s.cmd.Process != nil {
		_ = s.cmd.Process.Signal(syscall.SIGCONT)
	}
}

// Restart starts a stopped server again on the same port.
func (s *Server) Restart() {
	s.t.Helper()
	if s.mini != nil {
		s.mini.Close() // Restart needs a closed server; closing twice is harmless
		if err := s.mini.Restart(); err != nil {
			s.t.Fatalf("restart miniredis: %v", err)
		}
		return
	}
	s.Stop()
	s.start()
}

// FreePort returns a TCP port on 127.0.0.1 that was free a moment ago.
func FreePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen: %v", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func waitPing(t testing.TB, addr string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond)
		if err == nil {
			fmt.Fprint(c, "PING\r\n")
			_ = c.SetReadDeadline(time.Now().Add(time.Second))
			line, _ := bufio.NewReader(c).ReadString('\n')
			c.Close()
			if strings.HasPrefix(line, "+PONG") {
				return
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("redis at %s did not answer PING within 10s", addr)
}

// Cluster is a Redis Cluster of real redis-server processes started for a test.
type Cluster struct {
	// Addrs are the nodes' host:port addresses (masters only).
	Addrs []string
	Nodes []*Server
}

// StartCluster starts an n-master Redis Cluster (n >= 3) on loopback, stopped when the test ends.
// It skips the test when redis-server or redis-cli is missing, unless Redis is required.
func StartCluster(t testing.TB, n int) *Cluster {
	t.Helper()
	for _, bin := range []string{"redis-server", "redis-cli"} {
		if _, err := exec.LookPath(bin); err != nil {
			if Required() {
				t.Fatalf("%s not on PATH and AVAEDGE_TEST_REDIS=required", bin)
			}
			t.Skipf("%s not on PATH", bin)
		}
	}
	c := &Cluster{}
	for i := 0; i < n; i++ {
		s := &Server{t: t, dir: filepath.Join(t.TempDir()), port: FreePort(t), Real: true}
		s.Addr = "127.0.0.1:" + strconv.Itoa(s.port)
		s.args = []string{"--port", strconv.Itoa(s.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
			"--dir", s.dir, "--protected-mode", "no", "--cluster-enabled", "yes",
			"--cluster-config-file", "nodes.conf", "--cluster-node-timeout", "2000"}
		s.start()
		t.Cleanup(s.Stop)
		c.Nodes = append(c.Nodes, s)
		c.Addrs = append(c.Addrs, s.Addr)
	}
	args := append([]string{"--cluster", "create"}, c.Addrs...)
	args = append(args, "--cluster-replicas", "0", "--cluster-yes")
	if out, err := exec.Command("redis-cli", args...).CombinedOutput(); err != nil {
		t.Fatalf("redis-cli --cluster create: %v\n%s", err, out)
	}
	// Wait until every node reports cluster_state:ok.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for _, a := range c.Addrs {
		cl := redis.NewClient(&redis.Options{Addr: a})
		for {
			info, err := cl.ClusterInfo(ctx).Result()
			if err == nil && strings.Contains(info, "cluster_state:ok") {
				break
			}
			if ctx.Err() != nil {
				cl.Close()
				t.Fatalf("cluster node %s not ok: %v %q", a, err, info)
			}
			time.Sleep(50 * time.Millisecond)
		}
		cl.Close()
	}
	return c
}

// Client returns a go-redis ClusterClient for c, closed when the test ends.
func (c *Cluster) Client(t testing.TB) *redis.ClusterClient {
	cl := redis.NewClusterClient(&redis.ClusterOptions{Addrs: c.Addrs})
	t.Cleanup(func() { cl.Close() })
	return cl
}
