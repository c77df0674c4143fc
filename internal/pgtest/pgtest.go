// Package pgtest starts real PostgreSQL servers for tests, from the
// distribution's packages (initdb and postgres, found on PATH or under
// /usr/lib/postgresql/<version>/bin).
//
// Tests that want PostgreSQL call Start. When PostgreSQL is not installed
// the test is skipped and says so, unless AVAEDGE_TEST_POSTGRES=required
// (set by .ci/run), when it fails. PostgreSQL refuses to run as root, so
// under root the server runs as an unprivileged user (postgres, or nobody)
// in a data directory that user owns.
package pgtest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/avaedge/avaedge/internal/redistest"
	"github.com/jackc/pgx/v5"
)

// Server is one PostgreSQL server started for a test. Its methods are safe
// for concurrent use.
type Server struct {
	// Addr is host:port on 127.0.0.1.
	Addr string

	t    testing.TB
	bin  string
	dir  string
	cred *syscall.Credential
	cmd  *exec.Cmd
	dbs  atomic.Int64 // databases made by Database, for their names
	// primary is the server a Standby replicates (nil: not a standby).
	primary *Server
}

// Required reports whether the environment demands a real PostgreSQL.
func Required() bool { return os.Getenv("AVAEDGE_TEST_POSTGRES") == "required" }

// binDir returns the directory holding initdb and postgres (and
// pg_basebackup, for Standby): PATH's (the directory a link there points
// into), or the newest /usr/lib/postgresql/<version>/bin (Debian keeps
// them off PATH).
func binDir() (string, error) {
	if p, err := exec.LookPath("initdb"); err == nil {
		if _, err := exec.LookPath("postgres"); err == nil {
			if real, err := filepath.EvalSymlinks(p); err == nil {
				p = real
			}
			return filepath.Dir(p), nil
		}
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool { return version(dirs[i]) > version(dirs[j]) })
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "initdb")); err == nil {
			return d, nil
		}
	}
	return "", errors.New("initdb not on PATH nor under /usr/lib/postgresql/*/bin")
}

func version(binDir string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(binDir)))
	return n
}

// Start starts a PostgreSQL server on a free loopback port, stopped (and
// its data removed) when the test ends. It skips the test when PostgreSQL
// is not installed, unless it is required.
func Start(t testing.TB) *Server {
	t.Helper()
	s := newServer(t)
	t.Cleanup(s.Stop)
	t.Cleanup(func() { os.RemoveAll(s.dir) })
	s.start()
	return s
}

func newServer(t testing.TB) *Server {
	t.Helper()
	bin, err := binDir()
	if err != nil {
		if Required() {
			t.Fatalf("pgtest: %v and AVAEDGE_TEST_POSTGRES=required", err)
		}
		t.Skipf("pgtest: PostgreSQL not installed (%v); install postgresql to run this test", err)
	}
	s := &Server{t: t, bin: bin}
	if err := s.init(); err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	return s
}

// shared is the server Shared starts once per test binary.
var shared struct {
	mu  sync.Mutex // guards srv
	srv *Server
}

// Shared returns the test binary's shared server, started by its first
// caller: tests take a fresh Database each. The package's TestMain must
// call StopShared after m.Run, or the server outlives the tests.
func Shared(t testing.TB) *Server {
	t.Helper()
	shared.mu.Lock()
	defer shared.mu.Unlock()
	if shared.srv == nil {
		s := newServer(t)
		s.start()
		shared.srv = s
	}
	return shared.srv
}

// StopShared stops the shared server, if one was started, and removes its
// data.
func StopShared() {
	shared.mu.Lock()
	defer shared.mu.Unlock()
	if s := shared.srv; s != nil {
		s.Stop()
		os.RemoveAll(s.dir)
		shared.srv = nil
	}
}

// init makes the data directory, owned by the user the server runs as, and
// runs initdb in it.
func (s *Server) init() error {
	// Not t.TempDir: its parents are the test user's, closed to another.
	dir, err := os.MkdirTemp("", "avaedge-pgtest-")
	if err != nil {
		return err
	}
	s.dir = dir
	if os.Geteuid() == 0 {
		cred, err := unprivileged()
		if err != nil {
			return err
		}
		s.cred = cred
		if err := os.Chown(dir, int(cred.Uid), int(cred.Gid)); err != nil {
			return err
		}
	}
	data := filepath.Join(dir, "data")
	cmd := s.command("initdb", "-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8",
		"--locale=C", "--no-sync", "--no-instructions")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("initdb: %w\n%s", err, out)
	}
	return nil
}

// unprivileged returns the credentials of the user a server started by
// root runs as: postgres when the packages made it, nobody otherwise.
func unprivileged() (*syscall.Credential, error) {
	for _, name := range []string{"postgres", "nobody"} {
		u, err := user.Lookup(name)
		if err != nil {
			continue
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, nil
	}
	return nil, errors.New("running as root and neither user postgres nor nobody exists to run PostgreSQL")
}

func (s *Server) command(name string, args ...string) *exec.Cmd {
	cmd := exec.Command(filepath.Join(s.bin, name), args...)
	cmd.Dir = s.dir
	cmd.Env = append(os.Environ(), "LC_ALL=C")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if s.cred != nil {
		cmd.SysProcAttr.Credential = s.cred
	}
	return cmd
}

// start runs postgres on a fresh port: loopback TCP only (no Unix socket),
// durability off (a test's data dies with it), shared_buffers and work_mem
// as docs/configuration.md suggests for a small index server (the
// benchmarks' million-transaction indexes).
func (s *Server) start() {
	s.t.Helper()
	port := redistest.FreePort(s.t)
	s.Addr = "127.0.0.1:" + strconv.Itoa(port)
	cmd := s.command("postgres", "-D", filepath.Join(s.dir, "data"), "-p", strconv.Itoa(port),
		"-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories=",
		"-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off",
		"-c", "max_connections=200", "-c", "shared_buffers=256MB", "-c", "work_mem=16MB")
	log, err := os.Create(filepath.Join(s.dir, "postgres.log"))
	if err != nil {
		s.t.Fatalf("pgtest: %v", err)
	}
	defer log.Close()
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		s.t.Fatalf("pgtest: start postgres: %v", err)
	}
	s.cmd = cmd
	if err := s.wait(10 * time.Second); err != nil {
		out, _ := os.ReadFile(filepath.Join(s.dir, "postgres.log"))
		s.t.Fatalf("pgtest: %v\n%s", err, out)
	}
}

// wait returns once the server accepts a connection to its postgres
// database.
func (s *Server) wait(d time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	for {
		c, err := pgx.Connect(ctx, s.url("postgres"))
		if err == nil {
			return c.Close(ctx)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("postgres at %s not ready within %s: %w", s.Addr, d, err)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// Stop stops the server at once (SIGQUIT: immediate shutdown, nothing
// flushed). Safe to call twice.
func (s *Server) Stop() {
	if s.cmd == nil || s.cmd.Process == nil {
		return
	}
	_ = s.cmd.Process.Signal(syscall.SIGQUIT)
	done := make(chan struct{})
	go func() { _ = s.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
		<-done
	}
	s.cmd = nil
}

// Restart starts a stopped server again, on a new port (Addr changes).
func (s *Server) Restart() {
	s.t.Helper()
	s.Stop()
	s.start()
}

func (s *Server) url(db string) string {
	return "postgres://postgres@" + s.Addr + "/" + db + "?sslmode=disable"
}

// URL returns the postgres:// URL of the server's postgres database.
func (s *Server) URL() string { return s.url("postgres") }

// Database creates a fresh, empty database for t and returns its
// postgres:// URL.
func (s *Server) Database(t testing.TB) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := pgx.Connect(ctx, s.URL())
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	defer c.Close(ctx)
	name := "t" + strconv.FormatInt(s.dbs.Add(1), 10)
	if _, err := c.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatalf("pgtest: create database: %v", err)
	}
	return s.url(name)
}

// VacuumAnalyze runs VACUUM ANALYZE over the database at url, as autovacuum
// would after a benchmark's bulk write, but before the measurement rather
// than during it.
func VacuumAnalyze(tb testing.TB, url string) {
	tb.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		tb.Fatal(err)
	}
	defer conn.Close(ctx)
	t0 := time.Now()
	if _, err := conn.Exec(ctx, `VACUUM ANALYZE`); err != nil {
		tb.Fatal(err)
	}
	tb.Logf("VACUUM ANALYZE in %s", time.Since(t0).Round(time.Second))
}
