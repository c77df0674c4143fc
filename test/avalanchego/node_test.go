package avalanchego

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/api/info"
)

// nodeVersion is the avalanchego release the tests run; the binary is built
// once per machine and cached under GOCACHE by version.
const nodeVersion = "v1.14.2"

// nodeBinary returns the cached avalanchego binary, building it (in a
// throw-away module, under a file lock shared by concurrent test runs) when
// it is missing. AVAEDGE_NODE_BIN names another binary.
func nodeBinary(t testing.TB) string {
	t.Helper()
	if p := os.Getenv("AVAEDGE_NODE_BIN"); p != "" {
		return p
	}
	out, err := exec.Command("go", "env", "GOCACHE").Output()
	if err != nil {
		t.Fatalf("go env GOCACHE: %v", err)
	}
	dir := filepath.Join(string(out[:len(out)-1]), "avaedge-nodes")
	bin := filepath.Join(dir, "avalanchego-"+nodeVersion)
	if _, err := os.Stat(bin); err == nil {
		return bin
	}
	if testing.Short() {
		t.Skipf("the avalanchego %s binary is not built yet (%s) and -short forbids a build of several minutes", nodeVersion, bin)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	lock, err := os.OpenFile(bin+".lock", os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	t.Logf("building avalanchego %s into %s (once per machine)", nodeVersion, bin)
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	defer syscall.Flock(int(lock.Fd()), syscall.LOCK_UN)
	if _, err := os.Stat(bin); err == nil {
		return bin // another run built it while we waited
	}
	mod := t.TempDir()
	files := map[string]string{
		"go.mod":   "module avaedge.local/nodebuild\n\ngo 1.26.8\n\nrequire github.com/ava-labs/avalanchego " + nodeVersion + "\n",
		"tools.go": "//go:build tools\n\npackage nodebuild\n\nimport _ \"github.com/ava-labs/avalanchego/main\"\n",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(mod, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tmp := bin + ".tmp." + strconv.Itoa(os.Getpid())
	for _, args := range [][]string{{"mod", "tidy"}, {"build", "-o", tmp, "github.com/ava-labs/avalanchego/main"}} {
		cmd := exec.Command("go", args...)
		cmd.Dir = mod
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go %v: %v\n%s", args, err, out)
		}
	}
	if err := os.Rename(tmp, bin); err != nil {
		t.Fatal(err)
	}
	return bin
}

// localNode is a one-node local network run by a test.
type localNode struct {
	t                   testing.TB
	bin, dir            string
	URI                 string
	httpPort, stakePort int
	cmd                 *exec.Cmd
	exited              chan struct{}
}

func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// startNode starts a fresh one-node local network and waits until its P-,
// X- and C-Chain are bootstrapped. It is stopped at the end of the test.
func startNode(t testing.TB) *localNode {
	t.Helper()
	n := &localNode{t: t, bin: nodeBinary(t), dir: t.TempDir(), httpPort: freePort(t), stakePort: freePort(t)}
	n.URI = "http://127.0.0.1:" + strconv.Itoa(n.httpPort)
	n.start()
	t.Cleanup(n.stop)
	return n
}

// start runs the node on its data directory (again, after stop).
func (n *localNode) start() {
	t := n.t
	t.Helper()
	n.cmd = exec.Command(n.bin, "--network-id=local", "--sybil-protection-enabled=false", "--staking-ephemeral-cert-enabled",
		"--staking-ephemeral-signer-enabled", "--public-ip=127.0.0.1", "--fd-limit=16000",
		"--http-port="+strconv.Itoa(n.httpPort), "--staking-port="+strconv.Itoa(n.stakePort), "--data-dir="+n.dir,
		"--log-level=warn", "--log-display-level=error")
	log, err := os.OpenFile(filepath.Join(n.dir, "stdout.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	n.cmd.Stdout, n.cmd.Stderr = log, log
	if err := n.cmd.Start(); err != nil {
		t.Fatalf("starting avalanchego: %v", err)
	}
	n.exited = make(chan struct{})
	go func() { n.cmd.Wait(); log.Close(); close(n.exited) }()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	c := info.NewClient(n.URI)
	for _, chain := range []string{"P", "X", "C"} {
		for {
			ok, err := c.IsBootstrapped(ctx, chain)
			if err == nil && ok {
				break
			}
			select {
			case <-n.exited:
				b, _ := os.ReadFile(filepath.Join(n.dir, "stdout.log"))
				t.Fatalf("avalanchego exited before bootstrapping:\n%s", b)
			case <-ctx.Done():
				t.Fatalf("%s-Chain not bootstrapped after 90s (last error %v)", chain, err)
			case <-time.After(200 * time.Millisecond):
			}
		}
	}
}

// stop ends the node and waits for it.
func (n *localNode) stop() {
	if n.cmd == nil || n.cmd.Process == nil {
		return
	}
	select {
	case <-n.exited:
		return
	default:
	}
	n.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-n.exited:
	case <-time.After(30 * time.Second):
		n.cmd.Process.Kill()
		<-n.exited
	}
}
