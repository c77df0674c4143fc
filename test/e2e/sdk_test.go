package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// sdkDir holds the Node.js drivers and their npm packages.
var sdkDir = filepath.Join(repoRoot, "test", "sdk")

// nodeScript runs one of test/sdk's scripts with node and returns its
// stdout. apiKey, when set, is the SDK's apiKey. A failing script fails the
// test with its output. Without node or the npm packages the test is
// skipped, unless AVAEDGE_TEST_SDK=required.
func nodeScript(t testing.TB, apiKey, script string, args ...string) []byte {
	t.Helper()
	out, err := runNodeScript(t, apiKey, script, args...)
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", script, strings.Join(args, " "), err, out)
	}
	return out
}

func runNodeScript(t testing.TB, apiKey, script string, args ...string) ([]byte, error) {
	t.Helper()
	node, err := exec.LookPath("node")
	var pkgErr error
	for _, pkg := range []string{"@avalabs/avacloud-sdk", "@avalanche-sdk/chainkit", "@avalabs/glacier-sdk", "ethers"} {
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
	cmd := exec.Command(node, append([]string{filepath.Join(sdkDir, script)}, args...)...)
	cmd.Env = append(os.Environ(), "AVAEDGE_SDK_API_KEY="+apiKey)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	if err != nil {
		return []byte(stdout.String() + stderr.String()), err
	}
	return []byte(stdout.String()), nil
}

// conformance runs the SDK over every Data and Metrics route of base.
func conformance(t *testing.T, base, apiKey string, networks ...string) {
	t.Helper()
	for _, network := range networks {
		t.Run(network, func(t *testing.T) {
			out := nodeScript(t, apiKey, "conformance.mjs", base, network)
			if !strings.Contains(string(out), " passed, 0 failed") {
				t.Fatalf("SDK conformance did not report a clean run:\n%s", out)
			}
		})
	}
}

// TestSDKLocal: the official SDK, without an apiKey, over local mode.
// Each network gets its own process: one run costs about half of the
// anonymous plan's 6,000 CU a minute.
func TestSDKLocal(t *testing.T) {
	for _, network := range []string{"fuji", "mainnet", "testnet"} {
		conformance(t, noKeysLocal(t).URL, "", network)
	}
}

// TestSDKProxy: the official SDK through avaedge proxying a recording
// upstream; no client key reaches the upstream.
func TestSDKProxy(t *testing.T) {
	rec := newRecorder(t, localEdge(t).URL)
	e := startEdge(t, map[string]string{
		"AVAEDGE_DATA_UPSTREAM": rec.URL, "AVAEDGE_METRICS_UPSTREAM": rec.URL, "AVAEDGE_NODE_UPSTREAM": rec.URL,
	})
	conformance(t, e.URL, "", "fuji")
	if len(rec.requests("/v1/")) == 0 || len(rec.requests("/v2/")) == 0 {
		t.Fatal("the SDK's calls did not reach the upstream")
	}
}

// TestSDKKeysFile: with a keys file, the SDK configured with a known key
// passes the whole run and a configured SDK with an unknown key is refused.
func TestSDKKeysFile(t *testing.T) {
	const key = "e2e-known-key-7f3a"
	e := startEdge(t, map[string]string{"AVAEDGE_KEYS_FILE": keysFile(t, key, false)}, key)
	conformance(t, e.URL, key, "fuji")
	out, err := runNodeScript(t, "e2e-unknown-key", "conformance.mjs", e.URL, "fuji")
	if err == nil || !strings.Contains(string(out), "401") {
		t.Fatalf("an unknown key was not refused with 401:\n%.2000s", out)
	}
}

// TestEthers: ethers v6 on /ext/bc/C/rpc of local mode reads the chain id
// and block number, sends a transfer from ewoq and reads the recipient's
// balance; the Data API then lists the transfer and the balance.
func TestEthers(t *testing.T) {
	e := startEdge(t, map[string]string{})
	out := nodeScript(t, "", "ethers.mjs", e.URL)
	var res struct {
		ChainID      string `json:"chainId"`
		From         string `json:"from"`
		BlockBefore  uint64 `json:"blockBefore"`
		TxHash       string `json:"txHash"`
		Status       int    `json:"status"`
		ReceiptBlock uint64 `json:"receiptBlock"`
		To           string `json:"to"`
		Value        string `json:"value"`
		Balance      string `json:"balance"`
	}
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("ethers.mjs printed %s: %v", out, err)
	}
	if res.ChainID != "43112" || !strings.EqualFold(res.From, ewoqEVM) || res.Status != 1 ||
		res.ReceiptBlock <= res.BlockBefore || res.Balance != res.Value {
		t.Fatalf("ethers run: %+v", res)
	}
	// The indexer follows the chain: the Data API answers the new state.
	deadline := time.Now().Add(30 * time.Second)
	for {
		bal := do(t, "GET", e.URL+"/v1/chains/43112/addresses/"+res.To+"/balances:getNative", nil, nil)
		tx := do(t, "GET", e.URL+"/v1/chains/43112/transactions/"+res.TxHash, nil, nil)
		var b struct {
			NativeTokenBalance struct{ Balance string } `json:"nativeTokenBalance"`
		}
		json.Unmarshal(bal.Body, &b)
		if bal.Status == 200 && tx.Status == 200 && b.NativeTokenBalance.Balance == res.Value {
			checkAnswer(t, routeNamed(t, "getTransaction"), call{Method: "GET"}, tx, 200)
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the Data API did not show the transfer in 30s: balance %s, transaction %s", bal, tx)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// routeNamed returns the catalogue's route name.
func routeNamed(t testing.TB, name string) route {
	t.Helper()
	for _, r := range catalogue() {
		if r.Name == name {
			return r
		}
	}
	t.Fatalf("no route %s in the catalogue", name)
	return route{}
}

// keysFile writes a keys file with one key on plan pro and, when anonymous
// is set, anonymous access on plan free.
// smallKey is a key of every keys file on a plan of smallQuota CU a day: three
// 20-CU calls.
const (
	smallKey   = "e2e-small-quota-key-5d1e"
	smallQuota = 60
)

func keysFile(t testing.TB, key string, anonymous bool) string {
	t.Helper()
	body := "plans:\n  free: {cu_per_minute: 8000, cu_per_day: 2000000}\n  pro: {cu_per_minute: 20000, cu_per_day: 25000000}\n" +
		"  small: {cu_per_day: " + strconv.Itoa(smallQuota) + "}\n" +
		"keys:\n  - {id: e2e, key: \"" + key + "\", plan: pro}\n  - {id: e2e-small, key: \"" + smallKey + "\", plan: small}\n"
	if anonymous {
		body += "anonymous: free\n"
	}
	p := filepath.Join(t.TempDir(), "keys.yaml")
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}
