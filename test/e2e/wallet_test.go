package e2e

import (
	"context"
	"encoding/hex"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/constants"
	"github.com/ava-labs/avalanchego/utils/crypto/secp256k1"
	"github.com/ava-labs/avalanchego/utils/units"
	"github.com/ava-labs/avalanchego/vms/components/avax"
	"github.com/ava-labs/avalanchego/vms/secp256k1fx"
	"github.com/ava-labs/avalanchego/wallet/subnet/primary"
)

// TestWalletThroughEdge: following a real node, avalanchego's wallet
// (wallet/subnet/primary, its P-, X- and C-Chain wallets) built over
// avaedge's URL, not the node's, reads its state through avaedge and issues
// through it a P-Chain BaseTx, an X→P export and its import, and a C→P
// export and its import: each is accepted by the node (asked directly) and
// then listed by avaedge's Data API (getTxByHash, and
// listLatestPrimaryNetworkTransactions on the chain that took it).
func TestWalletThroughEdge(t *testing.T) {
	n := startOwnNode(t)
	e := startEdge(t, map[string]string{"AVAEDGE_LOCAL_NODE": n.URI, "AVAEDGE_DATA_DIR": t.TempDir()})
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	raw, _ := hex.DecodeString(ewoqKeyHex)
	key, err := secp256k1.ToPrivateKey(raw)
	if err != nil {
		t.Fatal(err)
	}
	kc := secp256k1fx.NewKeychain(key)
	wallet, err := primary.MakeWallet(ctx, e.URL, kc, kc, primary.WalletConfig{})
	if err != nil {
		t.Fatalf("the wallet over avaedge's URL: %v", err)
	}
	xctx, cctx := wallet.X().Builder().Context(), wallet.C().Builder().Context()
	to := ids.GenerateTestShortID()
	owner := secp256k1fx.OutputOwners{Threshold: 1, Addrs: []ids.ShortID{to}}
	self := secp256k1fx.OutputOwners{Threshold: 1, Addrs: []ids.ShortID{key.Address()}}
	out := func(amt uint64, o secp256k1fx.OutputOwners) *avax.TransferableOutput {
		return &avax.TransferableOutput{Asset: avax.Asset{ID: xctx.AVAXAssetID}, Out: &secp256k1fx.TransferOutput{Amt: amt, OutputOwners: o}}
	}
	type issued struct {
		name, chain, path, status string
		id                        ids.ID
	}
	var txs []issued
	base, err := wallet.P().IssueBaseTx([]*avax.TransferableOutput{out(units.Avax, owner)})
	if err != nil {
		t.Fatalf("P-Chain BaseTx through avaedge: %v", err)
	}
	txs = append(txs, issued{"P BaseTx", "p-chain", "/ext/bc/P", "platform.getTxStatus", base.ID()})
	xExp, err := wallet.X().IssueExportTx(constants.PlatformChainID, []*avax.TransferableOutput{out(2*units.Avax, self)})
	if err != nil {
		t.Fatalf("X→P export through avaedge: %v", err)
	}
	txs = append(txs, issued{"X→P export", "x-chain", "/ext/bc/X", "avm.getTxStatus", xExp.ID()})
	xImp, err := wallet.P().IssueImportTx(xctx.BlockchainID, &self)
	if err != nil {
		t.Fatalf("its import on the P-Chain through avaedge: %v", err)
	}
	txs = append(txs, issued{"P import from X", "p-chain", "/ext/bc/P", "platform.getTxStatus", xImp.ID()})
	cExp, err := wallet.C().IssueExportTx(constants.PlatformChainID, []*secp256k1fx.TransferOutput{{Amt: 3 * units.Avax, OutputOwners: self}})
	if err != nil {
		t.Fatalf("C→P export through avaedge: %v", err)
	}
	txs = append(txs, issued{"C→P export", "c-chain", "/ext/bc/C/avax", "avax.getAtomicTxStatus", cExp.ID()})
	cImp, err := wallet.P().IssueImportTx(cctx.BlockchainID, &self)
	if err != nil {
		t.Fatalf("its import on the P-Chain through avaedge: %v", err)
	}
	txs = append(txs, issued{"P import from C", "p-chain", "/ext/bc/P", "platform.getTxStatus", cImp.ID()})
	// A P→C export, to the wallet's key and to another address, and the
	// C-Chain's import of the key's part: the other stays in the C-Chain's
	// shared memory.
	pExp, err := wallet.P().IssueExportTx(cctx.BlockchainID, []*avax.TransferableOutput{out(units.Avax, self), out(units.Avax, owner)})
	if err != nil {
		t.Fatalf("P→C export through avaedge: %v", err)
	}
	txs = append(txs, issued{"P→C export", "p-chain", "/ext/bc/P", "platform.getTxStatus", pExp.ID()})
	pImp, err := wallet.C().IssueImportTx(constants.PlatformChainID, key.EthAddress())
	if err != nil {
		t.Fatalf("its import on the C-Chain through avaedge: %v", err)
	}
	txs = append(txs, issued{"C import from P", "c-chain", "/ext/bc/C/avax", "avax.getAtomicTxStatus", pImp.ID()})

	// Every write went through avaedge to the node, once, and so did the
	// wallet's reads of its UTXOs.
	want := map[string]int{"platform.issueTx": 4, "avm.issueTx": 1, "avax.issueTx": 2, "platform.getUTXOs": 1, "avm.getUTXOs": 1, "avax.getUTXOs": 1}
	got := forwarded(t, e)
	for route, n := range want {
		if route == "platform.getUTXOs" || route == "avm.getUTXOs" || route == "avax.getUTXOs" {
			if got[route] < n {
				t.Errorf("%s forwarded %d times; want at least %d (the wallet's reads through avaedge)", route, got[route], n)
			}
		} else if got[route] != n {
			t.Errorf("%s forwarded %d times; want %d", route, got[route], n)
		}
	}
	for i, tx := range txs {
		// Accepted by the node itself.
		var st struct{ Status string }
		if err := rawResult(n.URI+tx.path, tx.status, `{"txID":"`+tx.id.String()+`"}`, &st); err != nil || (st.Status != "Committed" && st.Status != "Accepted") {
			t.Errorf("%d %s %s: the node's %s = %q, %v; want accepted", i, tx.name, tx.id, tx.status, st.Status, err)
			continue
		}
		// Then listed by the Data API.
		path := e.URL + "/v1/networks/testnet/blockchains/" + tx.chain
		for deadline := time.Now().Add(time.Minute); ; time.Sleep(200 * time.Millisecond) {
			got := do(t, "GET", path+"/transactions/"+tx.id.String(), nil, nil)
			list := do(t, "GET", path+"/transactions?pageSize=20", nil, nil)
			if got.Status == 200 && strings.Contains(string(got.Body), tx.id.String()) && strings.Contains(string(list.Body), tx.id.String()) {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s %s not listed by the Data API a minute after the node accepted it: %s; list %s", tx.name, tx.id, got, list)
			}
		}
	}
	cChainAtomic(t, e, n, cExp.ID(), pImp.ID(), key.Address(), to)
}

// forwarded sums the edge's avaedge_requests_total answered by the
// upstream (here the followed node), by route.
func forwarded(t *testing.T, e *edge) map[string]int {
	t.Helper()
	r := do(t, "GET", e.Admin+"/metrics", nil, nil)
	out := map[string]int{}
	for _, line := range strings.Split(string(r.Body), "\n") {
		if !strings.HasPrefix(line, "avaedge_requests_total{") || !strings.Contains(line, `source="upstream"`) {
			continue
		}
		_, rest, _ := strings.Cut(line, `route="`)
		route, _, _ := strings.Cut(rest, `"`)
		f := strings.Fields(line)
		v, _ := strconv.ParseFloat(f[len(f)-1], 64)
		out[route] += int(v)
	}
	return out
}
