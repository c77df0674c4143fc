package e2e

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/api/info"
	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/constants"
	"github.com/ava-labs/avalanchego/utils/crypto/secp256k1"
	"github.com/ava-labs/avalanchego/utils/formatting/address"
	"github.com/ava-labs/avalanchego/vms/avm"
	"github.com/ava-labs/avalanchego/vms/components/avax"
	"github.com/ava-labs/avalanchego/vms/components/verify"
	"github.com/ava-labs/avalanchego/vms/secp256k1fx"
	"github.com/ava-labs/avalanchego/wallet/subnet/primary"
)

// ownNode is a one-node local network a single test starts and stops.
type ownNode struct {
	*realNode
	cmd  *exec.Cmd
	done chan struct{}
}

// startOwnNode starts a node of the test's own (the shared one must keep
// running) and waits until its chains are bootstrapped.
func startOwnNode(t *testing.T, flags ...string) *ownNode {
	t.Helper()
	bin := nodeBinary(t)
	dir := t.TempDir()
	httpPort, stakingPort, err := twoPorts()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, append([]string{"--network-id=local", "--sybil-protection-enabled=false",
		"--staking-ephemeral-cert-enabled", "--staking-ephemeral-signer-enabled", "--public-ip=127.0.0.1",
		"--fd-limit=16000", "--http-port=" + strconv.Itoa(httpPort), "--staking-port=" + strconv.Itoa(stakingPort),
		"--data-dir=" + dir, "--log-level=warn", "--log-display-level=warn"}, flags...)...)
	logf, err := os.Create(filepath.Join(dir, "stdout.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	n := &ownNode{realNode: &realNode{URI: fmt.Sprintf("http://127.0.0.1:%d", httpPort)}, cmd: cmd, done: make(chan struct{})}
	go func() { cmd.Wait(); logf.Close(); close(n.done) }()
	t.Cleanup(n.stop)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	ic := info.NewClient(n.URI)
	for _, chain := range []string{"P", "X", "C"} {
		for {
			if ok, err := ic.IsBootstrapped(ctx, chain); err == nil && ok {
				break
			}
			select {
			case <-n.done:
				b, _ := os.ReadFile(filepath.Join(dir, "stdout.log"))
				t.Fatalf("avalanchego exited:\n%s", tail(string(b), 4000))
			case <-ctx.Done():
				t.Fatalf("avalanchego's %s-Chain did not bootstrap in 3 minutes", chain)
			case <-time.After(200 * time.Millisecond):
			}
		}
	}
	return n
}

// tracingCChain returns the node flag that gives the C-Chain the call
// tracer (debug_traceBlockByNumber: coreth's "debug-tracer" API, beside its
// default APIs) on an archive node, whose old blocks can be traced: what
// the EVM index needs for internal transactions and factories' creations.
func tracingCChain(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "C"), 0o755); err != nil {
		t.Fatal(err)
	}
	// allow-unprotected-txs: the TeleporterMessenger is deployed by its
	// official keyless transaction, without a chain id (test/sdk/icm-send.mjs).
	config := `{"eth-apis":["eth","eth-filter","net","web3","internal-eth","internal-blockchain","internal-transaction","debug-tracer"],"pruning-enabled":false,"allow-unprotected-txs":true}`
	if err := os.WriteFile(filepath.Join(dir, "C", "config.json"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	return "--chain-config-dir=" + dir
}

// stop ends the node and waits for it.
func (n *ownNode) stop() {
	select {
	case <-n.done:
		return
	default:
	}
	n.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-n.done:
	case <-time.After(20 * time.Second):
		n.cmd.Process.Kill()
		<-n.done
	}
}

// TestFollowedNodeFallback: with AVAEDGE_LOCAL_NODE, node JSON-RPC goes to
// the followed node; once that node is stopped, every info.*, avm.* and
// platform.* method whose answer the index holds gets the node's own answer
// byte for byte (the X-Chain's blocks and transactions in both encodings,
// UTXOs including atomic ones exported from the P-Chain, balances, a
// created asset, the node's own description; the P-Chain's blocks in hex
// and JSON, subnets, chains, total stake), and those only the running node
// knows (peers, uptime, the P-Chain's fee state, validator sets at a
// height) get a JSON-RPC error; the C-Chain's shared memory is the index's
// too (TestWalletThroughEdge checks it with UTXOs in it). Nothing
// answers from the devnet.
func TestFollowedNodeFallback(t *testing.T) {
	n := startOwnNode(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if err := n.issueXTransfer(ctx); err != nil {
		t.Fatal(err)
	}
	raw, _ := hex.DecodeString(ewoqKeyHex)
	key, err := secp256k1.ToPrivateKey(raw)
	if err != nil {
		t.Fatal(err)
	}
	kc := secp256k1fx.NewKeychain(key)
	wallet, err := primary.MakeWallet(ctx, n.URI, kc, kc, primary.WalletConfig{})
	if err != nil {
		t.Fatal(err)
	}
	xctx := wallet.X().Builder().Context()
	owner := secp256k1fx.OutputOwners{Threshold: 1, Addrs: []ids.ShortID{n.To}}
	// A P→X export not yet imported: an atomic UTXO in the X-Chain's
	// shared memory, which avm.getUTXOs lists with sourceChain P.
	exp, err := wallet.P().IssueExportTx(xctx.BlockchainID, []*avax.TransferableOutput{{
		Asset: avax.Asset{ID: xctx.AVAXAssetID}, Out: &secp256k1fx.TransferOutput{Amt: 777_000_000, OutputOwners: owner}}})
	if err != nil {
		t.Fatalf("P→X export: %v", err)
	}
	// An asset beyond AVAX, with its CreateAssetTx (not a BaseTx).
	asset, err := wallet.X().IssueCreateAssetTx("avaedge fallback", "AEFB", 3, map[uint32][]verify.State{
		0: {&secp256k1fx.TransferOutput{Amt: 5_000, OutputOwners: owner}}})
	if err != nil {
		t.Fatalf("create asset: %v", err)
	}
	// A subnet: getSubnet, validates, getCurrentValidators and
	// getValidatorsAt of a subnet, and a CreateSubnetTx's bytes.
	sub, err := wallet.P().IssueCreateSubnetTx(&owner)
	if err != nil {
		t.Fatalf("create subnet: %v", err)
	}
	e := startEdge(t, map[string]string{"AVAEDGE_LOCAL_NODE": n.URI, "AVAEDGE_DATA_DIR": t.TempDir()})

	to, err := address.Format("X", constants.LocalHRP, n.To[:])
	if err != nil {
		t.Fatal(err)
	}
	var h struct {
		Height string `json:"height"`
	}
	if err := rawResult(n.URI+"/ext/bc/X", "avm.getHeight", "{}", &h); err != nil {
		t.Fatal(err)
	}
	// Wait until the index holds the X-Chain's newest block: the Data API
	// lists the new asset's UTXO, made by the last X transaction.
	deadline := time.Now().Add(time.Minute)
	for {
		r := do(t, "GET", e.URL+"/v1/networks/testnet/blockchains/x-chain/utxos?addresses="+to, nil, nil)
		if r.Status == 200 && strings.Contains(string(r.Body), asset.ID().String()) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the index did not reach the new asset in a minute: %s", r)
		}
		time.Sleep(200 * time.Millisecond)
	}

	// And the P-Chain's newest block: the Data API's latest P-Chain block
	// is the node's height.
	var ph struct {
		Height string `json:"height"`
	}
	if err := rawResult(n.URI+"/ext/bc/P", "platform.getHeight", "{}", &ph); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(200 * time.Millisecond) {
		r := do(t, "GET", e.URL+"/v1/networks/testnet/blockchains/p-chain/blocks?pageSize=1", nil, nil)
		if r.Status == 200 && strings.Contains(string(r.Body), `"blockNumber":"`+ph.Height+`"`) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the index did not reach the P-Chain's height %s in a minute: %s", ph.Height, r)
		}
	}

	// While the node runs, every read method of platformvm.yaml through an
	// edge following it is the node's answer. A second edge asks, so that
	// e's cache holds none of those answers when the node is stopped below.
	var pb struct {
		Block struct {
			ID string `json:"id"`
		} `json:"block"`
	}
	if err := rawResult(n.URI+"/ext/bc/P", "platform.getBlockByHeight", fmt.Sprintf(`{"height":%q,"encoding":"json"}`, ph.Height), &pb); err != nil {
		t.Fatal(err)
	}
	live := startEdge(t, map[string]string{"AVAEDGE_LOCAL_NODE": n.URI, "AVAEDGE_DATA_DIR": t.TempDir()})
	checkFollowedPlatform(t, n.URI, live.URL, followedPlatformParams(exp.ID(), sub.ID(), xctx.BlockchainID, ph.Height, pb.Block.ID))

	xPath, infoPath, pPath := "/ext/bc/X", "/ext/info", "/ext/bc/P"
	calls := []struct{ path, method, params string }{
		{infoPath, "info.getNetworkID", "{}"},
		{infoPath, "info.getNetworkName", "{}"},
		{infoPath, "info.getNodeID", "{}"},
		{infoPath, "info.getNodeIP", "{}"},
		{infoPath, "info.getNodeVersion", "{}"},
		{infoPath, "info.getVMs", "{}"},
		{infoPath, "info.upgrades", "{}"},
		{infoPath, "info.acps", "{}"},
		{infoPath, "info.getTxFee", "{}"},
		{infoPath, "info.getBlockchainID", `{"alias":"X"}`},
		{infoPath, "info.isBootstrapped", `{"chain":"X"}`},
		{xPath, "avm.getTxFee", "{}"},
		{xPath, "avm.getHeight", "{}"},
		{xPath, "avm.getBlockByHeight", fmt.Sprintf(`{"height":%q,"encoding":"hex"}`, h.Height)},
		{xPath, "avm.getBlockByHeight", fmt.Sprintf(`{"height":%q,"encoding":"json"}`, h.Height)},
		{xPath, "avm.getBlock", fmt.Sprintf(`{"blockID":%q,"encoding":"json"}`, n.BlockID)},
		{xPath, "avm.getBlock", fmt.Sprintf(`{"blockID":%q,"encoding":"hex"}`, n.BlockID)},
		{xPath, "avm.getTx", fmt.Sprintf(`{"txID":%q,"encoding":"json"}`, n.TxID)},
		{xPath, "avm.getTx", fmt.Sprintf(`{"txID":%q,"encoding":"hex"}`, n.TxID)},
		{xPath, "avm.getTx", fmt.Sprintf(`{"txID":%q,"encoding":"json"}`, asset.ID())},
		{xPath, "avm.getTx", fmt.Sprintf(`{"txID":%q,"encoding":"hex"}`, asset.ID())},
		{xPath, "avm.getTxStatus", fmt.Sprintf(`{"txID":%q}`, asset.ID())},
		{xPath, "avm.getAssetDescription", fmt.Sprintf(`{"assetID":%q}`, asset.ID())},
		{xPath, "avm.getAssetDescription", `{"assetID":"AVAX"}`},
		{xPath, "avm.getBalance", fmt.Sprintf(`{"address":%q,"assetID":"AVAX"}`, to)},
		{xPath, "avm.getBalance", fmt.Sprintf(`{"address":%q,"assetID":%q}`, to, asset.ID())},
		{xPath, "avm.getAllBalances", fmt.Sprintf(`{"address":%q}`, to)},
		{xPath, "avm.getUTXOs", fmt.Sprintf(`{"addresses":[%q],"encoding":"hex"}`, to)},
		{pPath, "platform.getHeight", "{}"},
		{pPath, "platform.getTimestamp", "{}"},
		{pPath, "platform.getTxStatus", fmt.Sprintf(`{"txID":%q}`, exp.ID())},
		{pPath, "platform.getTx", fmt.Sprintf(`{"txID":%q,"encoding":"json"}`, exp.ID())},
		{pPath, "platform.getTx", fmt.Sprintf(`{"txID":%q,"encoding":"hex"}`, exp.ID())},
		{pPath, "platform.getTx", fmt.Sprintf(`{"txID":%q,"encoding":"hexnc"}`, sub.ID())},
		{pPath, "platform.getSubnet", fmt.Sprintf(`{"subnetID":%q}`, sub.ID())},
		{pPath, "platform.getMinStake", "{}"},
		{pPath, "platform.getFeeConfig", "{}"},
		{pPath, "platform.getValidatorFeeConfig", "{}"},
		{pPath, "platform.validates", fmt.Sprintf(`{"subnetID":%q}`, sub.ID())},
		{pPath, "platform.getStakingAssetID", "{}"},
		{pPath, "platform.getCurrentSupply", "{}"},
		{pPath, "platform.getBlockByHeight", fmt.Sprintf(`{"height":%q,"encoding":"hex"}`, ph.Height)},
		{pPath, "platform.getBlockByHeight", fmt.Sprintf(`{"height":%q,"encoding":"json"}`, ph.Height)},
		{pPath, "platform.getSubnets", "{}"},
		{pPath, "platform.getBlockchains", "{}"},
		{pPath, "platform.validates", `{"subnetID":"11111111111111111111111111111111LpoYY"}`},
		{pPath, "platform.validatedBy", fmt.Sprintf(`{"blockchainID":%q}`, xctx.BlockchainID)},
		{pPath, "platform.getTotalStake", `{"subnetID":"11111111111111111111111111111111LpoYY"}`},
		{"/ext/bc/C/avax", "avax.getUTXOs", fmt.Sprintf(`{"addresses":[%q],"sourceChain":"X"}`, "C-"+strings.TrimPrefix(to, "X-"))},
		{xPath, "avm.getUTXOs", fmt.Sprintf(`{"addresses":[%q],"sourceChain":"P","encoding":"hex"}`, to)},
	}
	// The node's own answers, taken directly from it (never through the
	// edge, whose cache would otherwise answer later instead of the index).
	want := make([]reply, len(calls))
	for i, c := range calls {
		want[i] = do(t, "POST", n.URI+c.path, rpcBody(i+1, c.method, c.params), nil)
		if want[i].Status != 200 || !strings.Contains(string(want[i].Body), `"result"`) {
			t.Fatalf("the node itself fails %s %s: %s", c.method, c.params, want[i])
		}
	}
	if !strings.Contains(string(want[len(want)-1].Body), "0x") || strings.Contains(string(want[len(want)-1].Body), `"numFetched":"0"`) {
		t.Fatalf("the node lists no atomic UTXO from the P-Chain export %s: %s", exp.ID(), want[len(want)-1])
	}
	n.stop()
	for i, c := range calls {
		got := do(t, "POST", e.URL+c.path, rpcBody(i+1, c.method, c.params), nil)
		if c.method == "avm.getAllBalances" {
			// The node lists the balances in Go map order (a set of asset
			// ids), which no two calls need share: compare them as a set.
			want[i].Body, got.Body = sortedBalances(t, want[i].Body), sortedBalances(t, got.Body)
		}
		sameAnswer(t, fmt.Sprintf("%s %s with the node stopped", c.method, c.params), want[i], got)
	}
	for _, c := range []struct{ path, method string }{{xPath, "avm.issueTx"}, {pPath, "platform.issueTx"}, {"/ext/bc/C/avax", "avax.issueTx"}} {
		got := do(t, "POST", e.URL+c.path, rpcBody(1, c.method, `{"tx":"0x00","encoding":"hex"}`), nil)
		if got.Status != 200 || !strings.Contains(string(got.Body), "followed node does not answer: "+c.method+" is sent to it") {
			t.Errorf("%s with the node stopped: %s; want the JSON-RPC error saying the node does not answer", c.method, got)
		}
	}
	for _, c := range []struct{ path, method, params string }{
		{pPath, "platform.getFeeState", "{}"}, {pPath, "platform.getValidatorsAt", `{"height":"1"}`},
	} {
		got := do(t, "POST", e.URL+c.path, rpcBody(1, c.method, c.params), nil)
		if got.Status != 200 || !strings.Contains(string(got.Body), `"code":-32000`) || !strings.Contains(string(got.Body), c.method+" is answered by the node only") {
			t.Errorf("%s with the node stopped: %s; want the JSON-RPC error saying only the node answers it", c.method, got)
		}
	}
	for _, m := range []string{"info.peers", "info.uptime"} {
		got := do(t, "POST", e.URL+infoPath, rpcBody(1, m, "{}"), nil)
		if got.Status != 200 || !strings.Contains(string(got.Body), `"code":-32000`) || !strings.Contains(string(got.Body), "followed node does not answer") {
			t.Errorf("%s with the node stopped: %s; want the JSON-RPC error saying the node does not answer", m, got)
		}
	}
	// avalanchego's own client reads the index's answers as it read the
	// node's.
	xc := avm.NewClient(e.URL, "X")
	utxos, _, _, err := xc.GetAtomicUTXOs(ctx, []ids.ShortID{n.To}, "P", 10, ids.ShortEmpty, ids.Empty)
	if err != nil || len(utxos) != 1 {
		t.Fatalf("GetAtomicUTXOs from P with the node stopped: %d UTXOs, %v", len(utxos), err)
	}
	tx, err := xc.GetTx(ctx, asset.ID())
	if err != nil || len(tx) == 0 {
		t.Fatalf("GetTx of the CreateAssetTx with the node stopped: %v", err)
	}
}

// sortedBalances re-renders an avm.getAllBalances answer with its balances
// in asset order.
func sortedBalances(t *testing.T, body []byte) []byte {
	t.Helper()
	var env struct {
		Result struct {
			Balances []struct {
				Asset   string `json:"asset"`
				Balance string `json:"balance"`
			} `json:"balances"`
		} `json:"result"`
	}
	if err := json.Unmarshal(body, &env); err != nil {
		t.Fatalf("avm.getAllBalances answer %q: %v", body, err)
	}
	bs := env.Result.Balances
	sort.Slice(bs, func(i, j int) bool { return bs[i].Asset < bs[j].Asset })
	out, err := json.Marshal(bs)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
