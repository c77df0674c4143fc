package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The WebSocket cases (docs/websockets.md): ethers v6's WebSocketProvider
// and viem's webSocket transport, unmodified (test/sdk/ws-watch.mjs), watch
// new blocks and an ERC-20's Transfer events at the edge's /ext/bc/C/ws
// while the test makes transfers, in devnet mode (the dev chain's own
// subscriptions), following a real node (its /ext/bc/C/ws) and in proxy
// mode in front of it; and a key that runs out of compute units mid-stream
// gets the documented close (4429).

// wsSeen is what one library saw.
type wsSeen struct {
	Blocks []uint64 `json:"blocks"`
	Events []struct {
		Hash  string `json:"hash"`
		From  string `json:"from"`
		To    string `json:"to"`
		Value string `json:"value"`
	} `json:"events"`
}

// wsWatched is what ws-watch.mjs watch printed.
type wsWatched struct {
	Token string `json:"token"`
	Txs   []struct {
		Hash  string `json:"hash"`
		Block uint64 `json:"block"`
		To    string `json:"to"`
		Value string `json:"value"`
	} `json:"txs"`
	Ethers wsSeen `json:"ethers"`
	Viem   wsSeen `json:"viem"`
}

// wsScript starts test/sdk/ws-watch.mjs with args; it skips (or fails,
// with AVAEDGE_TEST_SDK=required) without node and the packages.
func wsScript(t *testing.T, args ...string) (*exec.Cmd, io.WriteCloser, *bufio.Scanner, *strings.Builder) {
	t.Helper()
	node, err := exec.LookPath("node")
	var pkgErr error
	for _, pkg := range []string{"ethers", "viem", "ws"} {
		if _, err := os.Stat(filepath.Join(sdkDir, "node_modules", pkg)); err != nil && pkgErr == nil {
			pkgErr = err
		}
	}
	if err != nil || pkgErr != nil {
		if os.Getenv("AVAEDGE_TEST_SDK") == "required" {
			t.Fatalf("node or test/sdk's packages are missing (node: %v, packages: %v): run npm ci in test/sdk", err, pkgErr)
		}
		t.Skip("node or test/sdk/node_modules missing: run npm ci in test/sdk")
	}
	cmd := exec.Command(node, append([]string{filepath.Join(sdkDir, "ws-watch.mjs")}, args...)...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr := &strings.Builder{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	return cmd, stdin, sc, stderr
}

// nextLine reads the script's next line of output.
func nextLine(t *testing.T, sc *bufio.Scanner, stderr *strings.Builder) []byte {
	t.Helper()
	if !sc.Scan() {
		t.Fatalf("ws-watch.mjs ended: %v\n%s", sc.Err(), stderr)
	}
	return sc.Bytes()
}

// socketSubscriptions sums the edge's avaedge_ws_subscriptions.
func socketSubscriptions(t *testing.T, e *edge) int {
	t.Helper()
	r := do(t, "GET", e.Admin+"/metrics", nil, nil)
	n := 0
	for _, line := range strings.Split(string(r.Body), "\n") {
		if strings.HasPrefix(line, "avaedge_ws_subscriptions{") {
			f := strings.Fields(line)
			v, _ := strconv.ParseFloat(f[len(f)-1], 64)
			n += int(v)
		}
	}
	return n
}

// watchOver runs ws-watch.mjs watch against e's WebSocket at path, making
// n transfers over rpc once the edge holds the libraries' four new
// subscriptions (two newHeads, two logs), and checks that each library saw
// exactly the transfers' blocks and Transfer events. Every other client's
// subscriptions must have ended.
func watchOver(t *testing.T, e *edge, path, rpc string, n int) {
	t.Helper()
	ws := "ws" + strings.TrimPrefix(e.URL, "http") + path
	// The subscriptions of a previous watch are gone once its clients'
	// closes are read.
	for deadline := time.Now().Add(10 * time.Second); socketSubscriptions(t, e) != 0 && time.Now().Before(deadline); {
		time.Sleep(50 * time.Millisecond)
	}
	before := socketSubscriptions(t, e)
	cmd, stdin, sc, stderr := wsScript(t, "watch", ws, rpc, strconv.Itoa(n))
	if line := nextLine(t, sc, stderr); !strings.Contains(string(line), `"ready":true`) {
		t.Fatalf("ws-watch.mjs: %s", line)
	}
	deadline := time.Now().Add(30 * time.Second)
	for socketSubscriptions(t, e) < before+4 {
		if time.Now().After(deadline) {
			t.Fatalf("the edge holds %d subscriptions 30 s after the libraries subscribed; want %d\n%s", socketSubscriptions(t, e), before+4, stderr)
		}
		time.Sleep(50 * time.Millisecond)
	}
	fmt.Fprintln(stdin)
	var got wsWatched
	line := nextLine(t, sc, stderr)
	if err := json.Unmarshal(line, &got); err != nil {
		t.Fatalf("ws-watch.mjs printed %s: %v\n%s", line, err, stderr)
	}
	cmd.Wait()
	if len(got.Txs) != n {
		t.Fatalf("ws-watch.mjs made %d transfers; want %d", len(got.Txs), n)
	}
	var blocks []uint64
	for _, tx := range got.Txs {
		if !slices.Contains(blocks, tx.Block) {
			blocks = append(blocks, tx.Block)
		}
	}
	slices.Sort(blocks)
	for name, seen := range map[string]wsSeen{"ethers": got.Ethers, "viem": got.Viem} {
		b := slices.Clone(seen.Blocks)
		slices.Sort(b)
		if !slices.Equal(b, blocks) {
			t.Errorf("%s saw blocks %v; want exactly the transfers' %v", name, seen.Blocks, blocks)
		}
		if len(seen.Events) != n {
			t.Errorf("%s saw %d Transfer events; want %d: %+v", name, len(seen.Events), n, seen.Events)
			continue
		}
		for i, ev := range seen.Events {
			tx := got.Txs[i]
			if ev.Hash != tx.Hash || !strings.EqualFold(ev.To, tx.To) || ev.Value != tx.Value {
				t.Errorf("%s's event %d: %+v; want transfer %+v", name, i, ev, tx)
			}
		}
	}
	if stderr.Len() > 0 {
		t.Logf("ws-watch.mjs stderr: %s", stderr)
	}
}

// TestWebSocketDevnet: in devnet mode the dev chain's own subscriptions
// reach ethers and viem through the edge, at /ext/bc/C/ws and at every
// other EVM chain's of the devnet (by its alias, its transfers sent to its
// blockchain id's /rpc).
func TestWebSocketDevnet(t *testing.T) {
	e := startEdge(t, map[string]string{"AVAEDGE_KEYS_FILE": bulkKeysFile(t)})
	watchOver(t, e, "/ext/bc/C/ws", e.URL+"/ext/bc/C/rpc", 5)
	var list struct {
		Subnets []struct {
			Blockchains []struct {
				BlockchainID   string `json:"blockchainId"`
				BlockchainName string `json:"blockchainName"`
				EVMChainID     uint64 `json:"evmChainId"`
			} `json:"blockchains"`
		} `json:"subnets"`
	}
	rep := do(t, "GET", e.URL+"/v1/networks/fuji/subnets?pageSize=100", nil, nil)
	if err := json.Unmarshal(rep.Body, &list); err != nil || rep.Status != 200 {
		t.Fatalf("listSubnets: %s", rep)
	}
	n := 0
	for _, s := range list.Subnets {
		for _, bc := range s.Blockchains {
			if bc.EVMChainID == 0 {
				continue
			}
			n++
			t.Run(bc.BlockchainName, func(t *testing.T) {
				watchOver(t, e, "/ext/bc/"+bc.BlockchainName+"/ws", e.URL+"/ext/bc/"+bc.BlockchainID+"/rpc", 2)
			})
		}
	}
	if n == 0 {
		t.Fatal("the devnet lists no EVM chain besides the C-Chain")
	}
}

// TestWebSocketFollowedNode: following a real node, the edge's
// /ext/bc/C/ws carries the node's C-Chain subscriptions.
func TestWebSocketFollowedNode(t *testing.T) {
	n := startNode(t)
	e := startEdge(t, map[string]string{"AVAEDGE_LOCAL_NODE": n.URI, "AVAEDGE_DATA_DIR": t.TempDir(), "AVAEDGE_KEYS_FILE": bulkKeysFile(t)})
	watchOver(t, e, "/ext/bc/C/ws", e.URL+"/ext/bc/C/rpc", 5)
}

// TestWebSocketProxy: in proxy mode in front of a real node, the same
// through the edge (the node's /ext/bc/C/ws behind it).
func TestWebSocketProxy(t *testing.T) {
	n := startNode(t)
	e := startEdge(t, map[string]string{"AVAEDGE_NODE_UPSTREAM": n.URI, "AVAEDGE_KEYS_FILE": bulkKeysFile(t)})
	watchOver(t, e, "/ext/bc/C/ws", e.URL+"/ext/bc/C/rpc", 5)
}

// TestWebSocketOutOfComputeUnits: a key whose plan allows 20 CU a day
// watches blocks with ethers while the test makes blocks (through another
// client): its notifications are charged 1 CU each until the key runs out,
// when the edge closes the connection with 4429 and the limiter's reason.
func TestWebSocketOutOfComputeUnits(t *testing.T) {
	dir := t.TempDir()
	keys := filepath.Join(dir, "keys.yaml")
	plan := "plans:\n  tiny: {cu_per_day: 20}\n  bulk: {cu_per_minute: 1000000000}\nkeys:\n  - {id: small, key: small-key-secret, plan: tiny}\nanonymous: bulk\n"
	if err := os.WriteFile(keys, []byte(plan), 0o600); err != nil {
		t.Fatal(err)
	}
	e := startEdge(t, map[string]string{"AVAEDGE_KEYS_FILE": keys}, "small-key-secret")
	ws := "ws" + strings.TrimPrefix(e.URL, "http") + "/ext/bc/C/ws"
	cmd, _, sc, stderr := wsScript(t, "close", ws, "small-key-secret")
	if line := nextLine(t, sc, stderr); !strings.Contains(string(line), `"ready":true`) {
		t.Fatalf("ws-watch.mjs: %s", line)
	}
	deadline := time.Now().Add(30 * time.Second)
	for socketSubscriptions(t, e) < 1 {
		if time.Now().After(deadline) {
			t.Fatalf("ethers did not subscribe in 30 s\n%s", stderr)
		}
		time.Sleep(50 * time.Millisecond)
	}
	// Blocks made by an anonymous client, one transfer each.
	nodeScript(t, "", "ws-watch.mjs", "blocks", e.URL+"/ext/bc/C/rpc", "40")
	line := []byte(nil)
	if sc.Scan() {
		line = sc.Bytes()
	}
	cmd.Wait()
	var got struct {
		Blocks int    `json:"blocks"`
		Code   int    `json:"code"`
		Reason string `json:"reason"`
	}
	if err := json.Unmarshal(line, &got); err != nil {
		t.Fatalf("ws-watch.mjs printed %q: %v\n%s", line, err, stderr)
	}
	if got.Code != 4429 || !strings.Contains(got.Reason, "compute units") || got.Blocks == 0 || got.Blocks >= 20 {
		t.Fatalf("ethers saw %d blocks, then close %d %q; want some blocks, then 4429 naming compute units", got.Blocks, got.Code, got.Reason)
	}
	t.Logf("ethers saw %d blocks, then the edge closed with %d %q", got.Blocks, got.Code, got.Reason)
}
