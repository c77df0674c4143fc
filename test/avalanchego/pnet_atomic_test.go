package avalanchego

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/genesis"
	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/constants"
	"github.com/ava-labs/avalanchego/utils/crypto/secp256k1"
	"github.com/ava-labs/avalanchego/utils/formatting/address"
	"github.com/ava-labs/avalanchego/utils/units"
	"github.com/ava-labs/avalanchego/vms/components/avax"
	"github.com/ava-labs/avalanchego/vms/secp256k1fx"
	"github.com/ava-labs/avalanchego/wallet/subnet/primary"

	"github.com/avaedge/avaedge/avanet"
	"github.com/avaedge/avaedge/local/source/pindex"
)

// issueAtomicC issues, with avalanchego's wallet, the C-Chain's atomic
// transactions: an X→C export and the C-Chain's import of it, and a C→P
// export to a fresh key that nobody imports. It returns the calls whose
// answers the index must give as the node does: avax.getAtomicTx (hex and
// hexnc) and avax.getAtomicTxStatus of the three C-Chain-side ones,
// avax.getUTXOs of the C-Chain's shared memory (emptied by the import), and
// platform.getUTXOs of the P-Chain's from the C-Chain (the export's UTXO).
func issueAtomicC(t *testing.T, uri string, in *issued) []pCall {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	// issueAll's keychain: its wallets may have sent ewoq's change to r3.
	kc := secp256k1fx.NewKeychain(genesis.EWOQKey, in.r3)
	w, err := primary.MakeWallet(ctx, uri, kc, kc, primary.WalletConfig{})
	if err != nil {
		t.Fatal(err)
	}
	xctx, cctx := w.X().Builder().Context(), w.C().Builder().Context()
	self := secp256k1fx.OutputOwners{Threshold: 1, Addrs: []ids.ShortID{genesis.EWOQKey.Address()}}
	xExp, err := w.X().IssueExportTx(cctx.BlockchainID, []*avax.TransferableOutput{{Asset: avax.Asset{ID: xctx.AVAXAssetID},
		Out: &secp256k1fx.TransferOutput{Amt: 2 * units.Avax, OutputOwners: self}}})
	if err != nil {
		t.Fatalf("X→C export: %v", err)
	}
	cImp, err := w.C().IssueImportTx(xctx.BlockchainID, genesis.EWOQKey.EthAddress())
	if err != nil {
		t.Fatalf("the C-Chain's import from X: %v", err)
	}
	far, err := secp256k1.NewPrivateKey()
	if err != nil {
		t.Fatal(err)
	}
	cExp, err := w.C().IssueExportTx(constants.PlatformChainID, []*secp256k1fx.TransferOutput{{Amt: units.Avax,
		OutputOwners: secp256k1fx.OutputOwners{Threshold: 1, Addrs: []ids.ShortID{far.Address()}}}})
	if err != nil {
		t.Fatalf("C→P export: %v", err)
	}
	addr := func(chain string, a ids.ShortID) string {
		s, _ := address.Format(chain, "local", a[:])
		return s
	}
	var calls []pCall
	for _, id := range []ids.ID{cImp.ID(), cExp.ID()} {
		calls = append(calls, pCall{"avax.getAtomicTx", fmt.Sprintf(`{"txID":%q}`, id)}, pCall{"avax.getAtomicTx", fmt.Sprintf(`{"txID":%q,"encoding":"hexnc"}`, id)},
			pCall{"avax.getAtomicTxStatus", fmt.Sprintf(`{"txID":%q}`, id)})
	}
	return append(calls, pCall{"avax.getAtomicTxStatus", fmt.Sprintf(`{"txID":%q}`, xExp.ID())},
		pCall{"avax.getUTXOs", fmt.Sprintf(`{"addresses":[%q],"sourceChain":"X"}`, addr("C", genesis.EWOQKey.Address()))},
		pCall{"platform.getUTXOs", fmt.Sprintf(`{"addresses":[%q],"sourceChain":"C"}`, addr("P", far.Address()))})
}

// waitC waits until ix has read the node's C-Chain to its tip.
func waitC(t *testing.T, ctx context.Context, uri string, ix *pindex.Index) {
	t.Helper()
	var tip string
	rpcResult(t, uri+"/ext/bc/C/rpc", "eth_blockNumber", &tip)
	want, err := strconv.ParseUint(strings.TrimPrefix(tip, "0x"), 16, 64)
	if err != nil {
		t.Fatal(err)
	}
	for {
		if h, ok := ix.Head(avanet.ChainC); ok && h >= want {
			return
		}
		select {
		case <-ctx.Done():
			h, _ := ix.Head(avanet.ChainC)
			t.Fatalf("the C-Chain's atomic transactions indexed to %d; the node is at %d", h, want)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// rpcResult calls method without params at url and decodes its result.
func rpcResult(t *testing.T, url, method string, out any) {
	t.Helper()
	body := postRPC(t, url, pCall{method, `[]`})
	var r struct {
		Result json.RawMessage
		Error  *struct{ Message string }
	}
	if err := json.Unmarshal(body, &r); err != nil || r.Error != nil || json.Unmarshal(r.Result, out) != nil {
		t.Fatalf("%s: %s", method, body)
	}
}
