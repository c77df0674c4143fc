package e2e

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/api/info"
	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/crypto/secp256k1"
	"github.com/ava-labs/avalanchego/vms/components/avax"
	"github.com/ava-labs/avalanchego/vms/secp256k1fx"
	"github.com/ava-labs/avalanchego/wallet/subnet/primary"
)

// nodeVersion is the avalanchego release the suite runs as the node upstream.
const nodeVersion = "v1.14.2"

// ewoqKeyHex is the key funded in avalanchego's local network genesis.
const ewoqKeyHex = "56289e99c94b6912bfc12adc093c9b51124f0dc54ac7a766b2bc5ccf558d8027"

// nodeBinary returns the avalanchego binary, building it once per machine
// under the Go build cache's directory, keyed by version. A file lock keeps
// two concurrent runs from building it twice; the build goes to a temporary
// name and is renamed into place, so a half-written binary is never used.
func nodeBinary(t testing.TB) string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOCACHE").Output()
	if err != nil {
		t.Fatalf("go env GOCACHE: %v", err)
	}
	dir := filepath.Join(strings.TrimSpace(string(out)), "avaedge-nodes")
	bin := filepath.Join(dir, "avalanchego-"+nodeVersion)
	if isExecutable(bin) {
		return bin
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	lock, err := os.OpenFile(filepath.Join(dir, "avalanchego-"+nodeVersion+".lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	defer syscall.Flock(int(lock.Fd()), syscall.LOCK_UN)
	if isExecutable(bin) { // built by another run while we waited
		return bin
	}
	start := time.Now()
	mod := t.TempDir()
	steps := [][]string{
		{"go", "mod", "init", "avaedge-node-build"},
		{"go", "get", "github.com/ava-labs/avalanchego/main@" + nodeVersion},
		{"go", "build", "-o", bin + ".tmp", "github.com/ava-labs/avalanchego/main"},
	}
	for _, s := range steps {
		cmd := exec.Command(s[0], s[1:]...)
		cmd.Dir = mod
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("building avalanchego %s: %s: %v\n%s", nodeVersion, strings.Join(s, " "), err, out)
		}
	}
	if err := os.Rename(bin+".tmp", bin); err != nil {
		t.Fatal(err)
	}
	t.Logf("built avalanchego %s in %s", nodeVersion, time.Since(start).Round(time.Second))
	return bin
}

func isExecutable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}

// realNode is a one-node local avalanchego network with an X-Chain
// transaction of ewoq's issued, shared by the node tests.
type realNode struct {
	URI     string
	TxID    ids.ID // ewoq's X-Chain transfer
	BlockID string // the X-Chain block holding it
	To      ids.ShortID
}

var (
	nodeOnce sync.Once
	theNode  *realNode
	nodeErr  error
)

// startNode starts the shared node on first use and stops it after every
// test.
func startNode(t testing.TB) *realNode {
	t.Helper()
	nodeOnce.Do(func() {
		bin := nodeBinary(t)
		theNode, nodeErr = launchNode(bin)
	})
	if nodeErr != nil {
		t.Fatal(nodeErr)
	}
	return theNode
}

func launchNode(bin string) (*realNode, error) {
	dir, err := os.MkdirTemp("", "avaedge-e2e-node-")
	if err != nil {
		return nil, err
	}
	httpPort, stakingPort, err := twoPorts()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, "--network-id=local", "--sybil-protection-enabled=false",
		"--staking-ephemeral-cert-enabled", "--staking-ephemeral-signer-enabled", "--public-ip=127.0.0.1",
		"--fd-limit=16000", "--http-port="+strconv.Itoa(httpPort), "--staking-port="+strconv.Itoa(stakingPort),
		"--data-dir="+dir, "--log-level=warn", "--log-display-level=warn")
	logf, err := os.Create(filepath.Join(dir, "stdout.log"))
	if err != nil {
		return nil, err
	}
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	onExit(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			cmd.Process.Kill()
			<-done
		}
		logf.Close()
		os.RemoveAll(dir)
	})
	n := &realNode{URI: fmt.Sprintf("http://127.0.0.1:%d", httpPort)}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	ic := info.NewClient(n.URI)
	for _, chain := range []string{"P", "X", "C"} {
		for {
			ok, err := ic.IsBootstrapped(ctx, chain)
			if err == nil && ok {
				break
			}
			select {
			case <-done:
				b, _ := os.ReadFile(filepath.Join(dir, "stdout.log"))
				return nil, fmt.Errorf("avalanchego exited: %v\n%s", cmd.ProcessState, tail(string(b), 4000))
			case <-ctx.Done():
				return nil, fmt.Errorf("avalanchego's %s-Chain did not bootstrap in 3 minutes: %v", chain, err)
			case <-time.After(200 * time.Millisecond):
			}
		}
	}
	if err := n.issueXTransfer(ctx); err != nil {
		return nil, err
	}
	return n, nil
}

func twoPorts() (int, int, error) {
	a, err := loopbackPort()
	if err != nil {
		return 0, 0, err
	}
	for {
		b, err := loopbackPort()
		if err != nil || b != a {
			return a, b, err
		}
	}
}

// issueXTransfer sends AVAX from ewoq to a fresh address on the X-Chain
// with avalanchego's wallet, so getTx, getUTXOs and getBalance have real
// data, and finds the block that accepted it.
func (n *realNode) issueXTransfer(ctx context.Context) error {
	raw, _ := hex.DecodeString(ewoqKeyHex)
	key, err := secp256k1.ToPrivateKey(raw)
	if err != nil {
		return err
	}
	kc := secp256k1fx.NewKeychain(key)
	wallet, err := primary.MakeWallet(ctx, n.URI, kc, kc, primary.WalletConfig{})
	if err != nil {
		return fmt.Errorf("wallet: %w", err)
	}
	other, err := secp256k1.NewPrivateKey()
	if err != nil {
		return err
	}
	n.To = other.Address()
	xw := wallet.X()
	tx, err := xw.IssueBaseTx([]*avax.TransferableOutput{{
		Asset: avax.Asset{ID: xw.Builder().Context().AVAXAssetID},
		Out: &secp256k1fx.TransferOutput{Amt: 1_234_567_890, OutputOwners: secp256k1fx.OutputOwners{
			Threshold: 1, Addrs: []ids.ShortID{n.To},
		}},
	}})
	if err != nil {
		return fmt.Errorf("issuing the X-Chain transfer: %w", err)
	}
	n.TxID = tx.ID()
	// The transfer is the newest block's transaction.
	var h struct {
		Height string `json:"height"`
	}
	if err := rawResult(n.URI+"/ext/bc/X", "avm.getHeight", "{}", &h); err != nil {
		return err
	}
	var blk struct {
		Block struct {
			ID  string `json:"id"`
			Txs []struct {
				ID string `json:"id"`
			} `json:"txs"`
		} `json:"block"`
	}
	if err := rawResult(n.URI+"/ext/bc/X", "avm.getBlockByHeight", fmt.Sprintf(`{"height":%q,"encoding":"json"}`, h.Height), &blk); err != nil {
		return err
	}
	for _, t := range blk.Block.Txs {
		if t.ID == n.TxID.String() {
			n.BlockID = blk.Block.ID
		}
	}
	if n.BlockID == "" {
		return errors.New("the X-Chain transfer is not in the newest block")
	}
	return nil
}

// TestNodeBinary builds (once per machine) or finds the avalanchego binary
// and checks it is the expected release. .ci/run runs it on its own first,
// so the build's time is not charged to the suite's timeout.
func TestNodeBinary(t *testing.T) {
	bin := nodeBinary(t)
	out, err := exec.Command(bin, "--version").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "avalanchego/"+strings.TrimPrefix(nodeVersion, "v")) {
		t.Fatalf("%s --version = %q, %v", bin, out, err)
	}
}
