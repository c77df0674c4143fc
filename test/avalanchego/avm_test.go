package avalanchego

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/ava-labs/avalanchego/api"
	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/snow"
	"github.com/ava-labs/avalanchego/snow/choices"
	"github.com/ava-labs/avalanchego/utils/constants"
	"github.com/ava-labs/avalanchego/utils/crypto/secp256k1"
	"github.com/ava-labs/avalanchego/utils/formatting"
	"github.com/ava-labs/avalanchego/utils/formatting/address"
	"github.com/ava-labs/avalanchego/utils/hashing"
	"github.com/ava-labs/avalanchego/vms/avm"
	"github.com/ava-labs/avalanchego/vms/avm/block"
	"github.com/ava-labs/avalanchego/vms/avm/fxs"
	"github.com/ava-labs/avalanchego/vms/avm/txs"
	"github.com/ava-labs/avalanchego/vms/components/avax"
	"github.com/ava-labs/avalanchego/vms/nftfx"
	"github.com/ava-labs/avalanchego/vms/propertyfx"
	"github.com/ava-labs/avalanchego/vms/secp256k1fx"

	avajson "github.com/ava-labs/avalanchego/utils/json"

	"github.com/avaedge/avaedge/avanet"
	"github.com/avaedge/avaedge/local/source/devnet"
	"github.com/avaedge/avaedge/local/source/pindex"
	localavax "github.com/avaedge/avaedge/local/vocab/avax"
)

// xUTXOs are addr's X-Chain UTXOs in the devnet's index, spent ones with
// includeSpent.
func xUTXOs(t testing.TB, dw *devnet.World, addr localavax.ShortID, includeSpent bool) []*pindex.UTXO {
	t.Helper()
	us, err := dw.Index().UTXOs(context.Background(), avanet.ChainX, []localavax.ShortID{addr}, includeSpent)
	if err != nil {
		t.Fatal(err)
	}
	return us
}

// xBalance is addr's AVAX on the X-Chain, as the devnet's index holds it.
func xBalance(t testing.TB, dw *devnet.World, addr localavax.ShortID) uint64 {
	t.Helper()
	var sum uint64
	for _, u := range xUTXOs(t, dw, addr, false) {
		if u.AssetID == devnet.AVAXAssetID.String() {
			sum += u.Amount
		}
	}
	return sum
}

// avmParser is the X-Chain's block and transaction parser with its three
// fxs, as the avm VM builds it.
func avmParser(t testing.TB) block.Parser {
	t.Helper()
	p, err := block.NewParser([]fxs.Fx{&secp256k1fx.Fx{}, &nftfx.Fx{}, &propertyfx.Fx{}})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestAVMClient(t *testing.T) {
	uri, _ := serveNode(t, "local")
	dw := devnetWorld(t)
	c := avm.NewClient(uri, "X")
	ctx := context.Background()
	parser := avmParser(t)

	height, err := c.GetHeight(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if want := uint64(len(dw.XBlocks()) - 1); height != want {
		t.Fatalf("getHeight: got %d; want %d", height, want)
	}

	var txIDs []ids.ID
	t.Run("blocks", func(t *testing.T) {
		parent := ids.Empty
		for h := uint64(0); h <= height; h++ {
			raw, err := c.GetBlockByHeight(ctx, h)
			if err != nil {
				t.Fatalf("getBlockByHeight(%d): %v", h, err)
			}
			blk, err := parser.ParseBlock(raw)
			if err != nil {
				t.Fatalf("parse block %d: %v", h, err)
			}
			want, _ := dw.XBlock(h)
			if blk.ID().String() != want.ID.String() || blk.Height() != h || !bytes.Equal(blk.Bytes(), want.Bytes) {
				t.Fatalf("block %d: got id %s height %d; want %s", h, blk.ID(), blk.Height(), want.ID)
			}
			if h > 0 && blk.Parent() != parent {
				t.Errorf("block %d: parent %s; want %s", h, blk.Parent(), parent)
			}
			if uint64(blk.Timestamp().Unix()) != uint64(want.Time) {
				t.Errorf("block %d: time %v; want %d", h, blk.Timestamp(), want.Time)
			}
			parent = blk.ID()
			byID, err := c.GetBlock(ctx, blk.ID())
			if err != nil || !bytes.Equal(byID, raw) {
				t.Fatalf("getBlock(%s): %v", blk.ID(), err)
			}
			for _, tx := range blk.Txs() {
				txIDs = append(txIDs, tx.ID())
			}
		}
		if len(txIDs) == 0 {
			t.Fatal("the blocks hold no transactions")
		}
		if _, err := c.GetBlock(ctx, ids.GenerateTestID()); err == nil || !strings.Contains(err.Error(), "not found") {
			t.Errorf("unknown block: got %v", err)
		}
		if _, err := c.GetBlockByHeight(ctx, height+1); err == nil || !strings.Contains(err.Error(), "couldn't get block at height") {
			t.Errorf("height beyond the tip: got %v", err)
		}
	})

	t.Run("txs", func(t *testing.T) {
		// Every type of transaction: transfers, the Devnet Gold asset,
		// imports from and exports to the P- and C-Chain.
		kinds := map[string]int{}
		for _, xt := range dw.XTxs() {
			id := ids.ID(xt.ID)
			raw, err := c.GetTx(ctx, id)
			if err != nil {
				t.Fatalf("getTx(%s): %v", id, err)
			}
			tx, err := parser.ParseTx(raw)
			if err != nil {
				t.Fatalf("parse tx %s: %v", id, err)
			}
			if tx.ID() != id {
				t.Fatalf("tx id %s; want %s", tx.ID(), id)
			}
			verifySignatures(t, tx)
			kinds[reflect.TypeOf(tx.Unsigned).Elem().Name()]++
			//lint:ignore SA1019 the edge serves the deprecated avm.getTxStatus too; its own client checks it.
			status, err := c.GetTxStatus(ctx, id)
			if err != nil || status != choices.Accepted {
				t.Errorf("getTxStatus(%s): %v, %v", id, status, err)
			}
		}
		if len(kinds) != 4 {
			t.Errorf("transaction types %v; want BaseTx, CreateAssetTx, ImportTx and ExportTx", kinds)
		}
		//lint:ignore SA1019 as above: avm.getTxStatus is deprecated but served.
		status, err := c.GetTxStatus(ctx, ids.GenerateTestID())
		if err != nil || status != choices.Unknown {
			t.Errorf("unknown tx: got %v, %v; want Unknown", status, err)
		}
		if _, err := c.GetTx(ctx, ids.GenerateTestID()); err == nil || !strings.HasSuffix(err.Error(), ": not found") {
			t.Errorf("unknown tx: got %v; want not found", err)
		}
	})

	t.Run("txFee", func(t *testing.T) {
		fee, assetFee, err := c.GetTxFee(ctx)
		if err != nil || fee != 1_000_000 || assetFee != 1_000_000 {
			t.Errorf("got %d, %d, %v", fee, assetFee, err)
		}
	})

	t.Run("assetDescription", func(t *testing.T) {
		for _, ref := range []string{"AVAX", devnet.AVAXAssetID.String()} {
			d, err := c.GetAssetDescription(ctx, ref)
			if err != nil {
				t.Fatal(err)
			}
			if d.AssetID.String() != devnet.AVAXAssetID.String() || d.Name != "Avalanche" || d.Symbol != "AVAX" || d.Denomination != 9 {
				t.Errorf("%s: got %+v", ref, d)
			}
		}
	})

	t.Run("utxos and balances", func(t *testing.T) {
		codec := parser.Codec()
		addrs := make([]ids.ShortID, 0)
		for _, a := range dw.Addresses() {
			addrs = append(addrs, ids.ShortID(a))
		}
		// Page through all addresses at once, three UTXOs at a time,
		// starting from the client's zero index.
		seen := map[ids.ID]*avax.UTXO{}
		startAddr, startUTXO := ids.ShortEmpty, ids.Empty
		for pages := 0; ; pages++ {
			if pages > 1000 {
				t.Fatal("pagination does not end")
			}
			page, endAddr, endUTXO, err := c.GetUTXOs(ctx, addrs, 3, startAddr, startUTXO)
			if err != nil {
				t.Fatal(err)
			}
			for _, b := range page {
				var u avax.UTXO
				if _, err := codec.Unmarshal(b, &u); err != nil {
					t.Fatalf("parse utxo: %v", err)
				}
				seen[u.InputID()] = &u
			}
			if len(page) < 3 {
				break
			}
			startAddr, startUTXO = endAddr, endUTXO
		}
		var want int
		for _, a := range dw.Addresses() {
			want += len(xUTXOs(t, dw, a, false))
		}
		if len(seen) != want {
			t.Errorf("paged %d distinct UTXOs; want %d", len(seen), want)
		}
		for _, addr := range addrs {
			var sum uint64
			var n int
			for _, u := range seen {
				out := u.Out.(*secp256k1fx.TransferOutput)
				if len(out.Addrs) == 1 && out.Addrs[0] == addr && u.AssetID() == ids.ID(devnet.AVAXAssetID) {
					sum += out.Amt
					n++
				}
			}
			//lint:ignore SA1019 the edge serves the deprecated avm.getBalance too; its own client checks it.
			bal, err := c.GetBalance(ctx, addr, "AVAX", false)
			if err != nil {
				t.Fatal(err)
			}
			if uint64(bal.Balance) != sum || len(bal.UTXOIDs) != n {
				t.Errorf("%s: balance %d over %d UTXOs; want %d over %d", addr, bal.Balance, len(bal.UTXOIDs), sum, n)
			}
			if want := xBalance(t, dw, localavax.ShortID(addr)); uint64(bal.Balance) != want {
				t.Errorf("%s: balance %d; devnet says %d", addr, bal.Balance, want)
			}
			//lint:ignore SA1019 the edge serves the deprecated avm.getAllBalances too; its own client checks it.
			all, err := c.GetAllBalances(ctx, addr, false)
			if err != nil {
				t.Fatal(err)
			}
			var avaxBal uint64
			for _, b := range all {
				if b.AssetID == "AVAX" {
					avaxBal = uint64(b.Balance)
				}
			}
			if len(all) == 0 || len(all) > 2 || avaxBal != sum {
				t.Errorf("%s: getAllBalances %+v; want AVAX %d (and Devnet Gold for its holders)", addr, all, sum)
			}
		}
		// One address per call, the bech32 form: the same UTXOs.
		ewoq := ids.ShortID(dw.Ewoq())
		page, endAddr, _, err := c.GetUTXOs(ctx, []ids.ShortID{ewoq}, 0, ids.ShortEmpty, ids.Empty)
		if err != nil {
			t.Fatal(err)
		}
		if want := len(xUTXOs(t, dw, dw.Ewoq(), false)); len(page) != want || endAddr != ewoq {
			t.Errorf("ewoq: %d UTXOs ending at %s; want %d ending at ewoq", len(page), endAddr, want)
		}
		// Atomic UTXOs: the P-Chain's export to the X-Chain was imported;
		// nothing came from the C-Chain.
		for _, src := range []string{"P", "C"} {
			page, endAddr, _, err := c.GetAtomicUTXOs(ctx, []ids.ShortID{ewoq}, src, 10, ids.ShortEmpty, ids.Empty)
			if err != nil || len(page) != 0 || endAddr != ewoq {
				t.Errorf("atomic from %s: got %d, %s, %v", src, len(page), endAddr, err)
			}
		}
		if _, _, _, err := c.GetAtomicUTXOs(ctx, []ids.ShortID{ewoq}, "Q", 10, ids.ShortEmpty, ids.Empty); err == nil {
			t.Error("unknown source chain: got no error")
		}
	})

	t.Run("bech32 address", func(t *testing.T) {
		ewoq := dw.Ewoq()
		addr, err := address.Format("X", constants.LocalHRP, ewoq[:])
		if err != nil {
			t.Fatal(err)
		}
		if addr != "X-local18jma8ppw3nhx5r4ap8clazz0dps7rv5u00z96u" {
			t.Fatalf("ewoq is %s", addr)
		}
		var reply avm.GetBalanceReply
		if err := c.Requester.SendRequest(ctx, "avm.getBalance", &avm.GetBalanceArgs{Address: addr, AssetID: "AVAX"}, &reply); err != nil {
			t.Fatal(err)
		}
		if uint64(reply.Balance) != xBalance(t, dw, dw.Ewoq()) {
			t.Errorf("balance %d", reply.Balance)
		}
	})
}

// verifySignatures checks that every credential signature recovers the key
// that owns the input it spends: an owner of the output in the devnet's
// index (an imported one included).
func verifySignatures(t testing.TB, tx *txs.Tx) {
	t.Helper()
	var ins []*avax.TransferableInput
	switch u := tx.Unsigned.(type) {
	case *txs.BaseTx:
		ins = u.Ins
	case *txs.CreateAssetTx:
		ins = u.Ins
	case *txs.ExportTx:
		ins = u.Ins
	case *txs.ImportTx:
		ins = append(append(ins, u.Ins...), u.ImportedIns...)
	default:
		t.Fatalf("tx %s is a %T", tx.ID(), tx.Unsigned)
	}
	if len(tx.Creds) != len(ins) {
		t.Fatalf("tx %s: %d credentials for %d inputs", tx.ID(), len(tx.Creds), len(ins))
	}
	hash := hashing.ComputeHash256(tx.Unsigned.Bytes())
	for i, in := range ins {
		cred := tx.Creds[i].Credential.(*secp256k1fx.Credential)
		for _, sig := range cred.Sigs {
			pk, err := secp256k1.RecoverPublicKeyFromHash(hash, sig[:])
			if err != nil {
				t.Fatalf("tx %s input %d: %v", tx.ID(), i, err)
			}
			found := false
			for _, u := range xUTXOs(t, world, localavax.ShortID(pk.Address()), true) {
				if u.ID == in.InputID().String() {
					found = true
				}
			}
			if !found {
				t.Errorf("tx %s input %d: signer %s does not own %s:%d", tx.ID(), i, pk.Address(), in.TxID, in.OutputIndex)
			}
		}
	}
}

// TestAVMEndpoints calls avm.getHeight on every X-Chain path.
func TestAVMEndpoints(t *testing.T) {
	uri, _ := serveNode(t, "local")
	for _, p := range append(xPaths, "/ext/bc/"+devnet.XChainID.String()) {
		body := `{"jsonrpc":"2.0","id":1,"method":"avm.getHeight"}`
		resp, err := http.Post(uri+p, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		var r struct {
			Result struct {
				Height string `json:"height"`
			} `json:"result"`
		}
		err = json.NewDecoder(resp.Body).Decode(&r)
		resp.Body.Close()
		if err != nil || r.Result.Height == "" {
			t.Errorf("%s: got %+v, %v", p, r, err)
		}
	}
}

// TestAVMJSONEncoding compares the json encoding of blocks and transactions
// with avalanchego's own JSON of the parsed bytes, initialized the way the
// avm service does (addresses formatted for the X-Chain, fx ids set).
func TestAVMJSONEncoding(t *testing.T) {
	uri, _ := serveNode(t, "local")
	dw := devnetWorld(t)
	c := avm.NewClient(uri, "X")
	ctx := context.Background()
	parser := avmParser(t)

	aliaser := ids.NewAliaser()
	if err := aliaser.Alias(ids.ID(devnet.XChainID), "X"); err != nil {
		t.Fatal(err)
	}
	snowCtx := &snow.Context{NetworkID: constants.LocalID, ChainID: ids.ID(devnet.XChainID), BCLookup: aliaser}
	// The fx ids the avm's txInit sets (vms/avm/tx_init.go).
	initTx := func(tx *txs.Tx) {
		tx.Unsigned.InitCtx(snowCtx)
		var base *txs.BaseTx
		switch u := tx.Unsigned.(type) {
		case *txs.BaseTx:
			base = u
		case *txs.CreateAssetTx:
			base = &u.BaseTx
			for _, st := range u.States {
				st.FxID = secp256k1fx.ID
			}
		case *txs.ImportTx:
			base = &u.BaseTx
			for _, in := range u.ImportedIns {
				in.FxID = secp256k1fx.ID
			}
		case *txs.ExportTx:
			base = &u.BaseTx
			for _, out := range u.ExportedOuts {
				out.FxID = secp256k1fx.ID
			}
		}
		for _, in := range base.Ins {
			in.FxID = secp256k1fx.ID
		}
		for _, out := range base.Outs {
			out.FxID = secp256k1fx.ID
		}
		for _, cred := range tx.Creds {
			cred.FxID = secp256k1fx.ID
		}
	}
	same := func(t *testing.T, what string, got json.RawMessage, want any) {
		t.Helper()
		wantJSON, err := json.Marshal(want)
		if err != nil {
			t.Fatal(err)
		}
		var g, w any
		if err := json.Unmarshal(got, &g); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(wantJSON, &w); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(g, w) {
			t.Errorf("%s:\ngot  %s\nwant %s", what, got, wantJSON)
		}
	}

	for _, h := range []uint64{0, 1, 2, 3, 4, uint64(len(dw.XBlocks()) - 1)} {
		var reply api.GetBlockResponse
		err := c.Requester.SendRequest(ctx, "avm.getBlockByHeight", &api.GetBlockByHeightArgs{Height: avajson.Uint64(h), Encoding: formatting.JSON}, &reply)
		if err != nil {
			t.Fatal(err)
		}
		if reply.Encoding != formatting.JSON {
			t.Errorf("encoding %s", reply.Encoding)
		}
		want, _ := dw.XBlock(h)
		blk, err := parser.ParseBlock(want.Bytes)
		if err != nil {
			t.Fatal(err)
		}
		blk.InitCtx(snowCtx)
		for _, tx := range blk.Txs() {
			initTx(tx)
		}
		same(t, "block", reply.Block, blk)
	}
	// One transaction of each type.
	seen := map[uint32]bool{}
	for _, xt := range dw.XTxs() {
		if seen[xt.Tx.Unsigned.TypeID()] {
			continue
		}
		seen[xt.Tx.Unsigned.TypeID()] = true
		var reply api.GetTxReply
		err := c.Requester.SendRequest(ctx, "avm.getTx", &api.GetTxArgs{TxID: ids.ID(xt.ID), Encoding: formatting.JSON}, &reply)
		if err != nil {
			t.Fatal(err)
		}
		tx, err := parser.ParseTx(xt.Bytes)
		if err != nil {
			t.Fatal(err)
		}
		initTx(tx)
		same(t, "tx", reply.Tx, tx)
	}
}
