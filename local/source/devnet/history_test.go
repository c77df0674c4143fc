package devnet

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"testing"

	"github.com/avaedge/avaedge/avanet"
	"github.com/avaedge/avaedge/local/source/pindex"
	"github.com/avaedge/avaedge/local/vocab/avax"
)

// TestHistoryConsistent reads the world's index as the Data API does and
// checks it against itself and the world: every UTXO was made by a
// transaction the index holds, and spent by one when spent; every stake,
// subnet, chain, conversion and L1 change has its transaction, of its type.
func TestHistoryConsistent(t *testing.T) {
	w := newWorld(t, Config{})
	ix := w.Index()
	ctx := context.Background()
	tx := func(id string, chain avanet.Chain, typ string) {
		t.Helper()
		got, ok, err := ix.Tx(ctx, id)
		switch {
		case err != nil:
			t.Fatal(err)
		case !ok:
			t.Errorf("tx %s (%s) is not in the index", id, typ)
		case got.Chain != chain || (typ != "" && got.Type != typ):
			t.Errorf("tx %s is a %s %s; want a %s %s", id, got.Chain, got.Type, chain, typ)
		}
	}

	utxos := 0
	for _, c := range []avanet.Chain{avanet.ChainP, avanet.ChainX, avanet.ChainC} {
		us, err := ix.UTXOs(ctx, c, w.Addresses(), true)
		if err != nil {
			t.Fatal(err)
		}
		if len(us) == 0 {
			t.Errorf("no UTXOs on the %s-Chain", c)
		}
		for _, u := range us {
			utxos++
			tx(u.EmittedBy, u.CreatedOn, "")
			if u.Spent {
				tx(u.SpentBy, u.SpentOn, "")
			}
		}
	}
	if utxos < 300 {
		t.Errorf("%d UTXOs; want a rich history", utxos)
	}

	for _, v := range w.Validations() {
		kind := "AddPermissionlessValidatorTx"
		switch {
		case !v.SubnetID.IsEmpty():
			kind = "AddSubnetValidatorTx"
		case v.BLS == nil:
			kind = "AddValidatorTx"
		}
		tx(v.TxID.String(), avanet.ChainP, kind)
		if !v.RewardTxID.IsEmpty() {
			tx(v.RewardTxID.String(), avanet.ChainP, "RewardValidatorTx")
		}
		if v.Removed() {
			tx(v.RemoveTxID.String(), avanet.ChainP, "RemoveSubnetValidatorTx")
		}
	}
	for _, d := range w.Delegations() {
		tx(d.TxID.String(), avanet.ChainP, "AddPermissionlessDelegatorTx")
		if !d.RewardTxID.IsEmpty() {
			tx(d.RewardTxID.String(), avanet.ChainP, "RewardValidatorTx")
		}
	}
	for _, s := range w.Subnets() {
		tx(s.ID.String(), avanet.ChainP, "CreateSubnetTx")
		for _, c := range s.Chains {
			tx(c.ID.String(), avanet.ChainP, "CreateChainTx")
		}
		if s.Conversion != nil {
			tx(s.Conversion.TxID.String(), avanet.ChainP, "ConvertSubnetToL1Tx")
		}
	}
	for _, r := range w.L1Registrations() {
		tx(r.TxID.String(), avanet.ChainP, "RegisterL1ValidatorTx")
	}
	for _, c := range w.L1Changes() {
		tx(c.TxID.String(), avanet.ChainP, c.Kind)
	}

	// Every input of every transaction spends a UTXO the index holds.
	for _, c := range []avanet.Chain{avanet.ChainP, avanet.ChainX} {
		txs, err := ix.Txs(ctx, c, pindex.TxFilter{})
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range txs {
			var body struct {
				Unsigned struct {
					Inputs         []json.RawMessage `json:"inputs"`
					ImportedInputs []json.RawMessage `json:"importedInputs"`
				} `json:"unsignedTx"`
			}
			if err := json.Unmarshal(x.Body, &body); err != nil {
				t.Fatal(err)
			}
			_, consumed, err := ix.TxUTXOs(ctx, x.ID)
			if err != nil {
				t.Fatal(err)
			}
			if want := len(body.Unsigned.Inputs) + len(body.Unsigned.ImportedInputs); len(consumed) != want {
				t.Errorf("%s %s spends %d UTXOs the index holds; it has %d inputs", x.Type, x.ID, len(consumed), want)
			}
		}
	}

	// Every transaction type the index classifies appears.
	for c, want := range map[avanet.Chain][]string{
		avanet.ChainX: {"BaseTx", "CreateAssetTx", "ImportTx", "ExportTx"},
		avanet.ChainP: {"BaseTx", "ImportTx", "ExportTx", "AddValidatorTx", "AddPermissionlessValidatorTx", "AddPermissionlessDelegatorTx",
			"AddSubnetValidatorTx", "RemoveSubnetValidatorTx", "RewardValidatorTx", "CreateSubnetTx", "CreateChainTx", "ConvertSubnetToL1Tx",
			"RegisterL1ValidatorTx", "SetL1ValidatorWeightTx", "IncreaseL1ValidatorBalanceTx", "DisableL1ValidatorTx"},
	} {
		for _, typ := range want {
			txs, err := ix.Txs(ctx, c, pindex.TxFilter{Types: []string{typ}})
			if err != nil || len(txs) == 0 {
				t.Errorf("no %s on the %s-Chain (%v)", typ, c, err)
			}
		}
	}

	// The stakes the index derived are the world's, and completed ones were
	// paid their rewards.
	stakes, err := ix.Stakes(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if want := len(w.Validations()) + len(w.Delegations()) + 2 + 1; len(stakes) != want {
		t.Errorf("%d stakes in the index; want %d (validations, delegations, 2 converted and 1 registered L1 validators)", len(stakes), want)
	}
	now := w.Now().Unix()
	for _, s := range stakes {
		if s.Kind == "delegator" && s.EndKind == "completed" && s.Rewards["DELEGATOR"] == 0 {
			t.Errorf("completed delegation %s: no reward indexed", s.TxID)
		}
		if s.Kind == "validator" && s.End <= now && s.Rewards["VALIDATOR"] == 0 {
			t.Errorf("completed validation %s: no reward indexed", s.TxID)
		}
	}
	if chains, err := ix.ChainsOf(ctx, w.Ewoq()); err != nil || len(chains) != 3 {
		t.Errorf("ewoq has UTXOs on %v (%v); want C, P, X", chains, err)
	}
	for _, c := range []avanet.Chain{avanet.ChainP, avanet.ChainX} {
		if h, ok := ix.Head(c); !ok || (c == avanet.ChainP && h != w.PHeight()) || (c == avanet.ChainX && h != uint64(len(w.XBlocks())-1)) {
			t.Errorf("%s-Chain head %d, %v", c, h, ok)
		}
	}
}

// TestXReplay replays the X-Chain from its transaction bytes: each
// transaction spends UTXOs that exist (made earlier, exported to it, or in
// the genesis), signed by their owners, and keeps every asset's amount
// but for the fee; the balances it leaves are the index's.
func TestXReplay(t *testing.T) {
	w := newWorld(t, Config{})
	ctx := context.Background()
	utxos := map[avax.ID]*avax.UTXO{}
	genesis, err := w.Index().UTXOs(ctx, avanet.ChainX, w.Addresses(), true)
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range genesis {
		if u.Height == 0 {
			p, err := avax.ParseUTXO(u.Bytes)
			if err != nil {
				t.Fatal(err)
			}
			utxos[p.ID()] = p
		}
	}
	// What the P-Chain exported to the X-Chain.
	atomic, err := w.Index().XUTXOs(ctx, avanet.ChainP, w.Ewoq())
	if err != nil {
		t.Fatal(err)
	}
	imported := 0
	for _, b := range w.XBlocks() {
		raw, err := avax.ParseStandardBlock(b.Bytes)
		if err != nil || raw.ID() != b.ID {
			t.Fatalf("block %d: %v", b.Height, err)
		}
	}
	kinds := map[uint32]int{}
	for _, xt := range w.XTxs() {
		tx, err := avax.ParseTx(xt.Bytes)
		if err != nil || tx.ID() != xt.ID {
			t.Fatalf("tx %s: %v", xt.ID, err)
		}
		u := &tx.Unsigned
		kinds[u.TypeID()]++
		hash := sha256.Sum256(u.UnsignedBytes())
		in, out := map[avax.ID]uint64{}, map[avax.ID]uint64{}
		for i, inp := range u.Inputs() {
			id := inp.TxID.Prefix(uint64(inp.OutputIndex))
			spent := utxos[id]
			if u.Import != nil && i >= len(u.Ins) {
				imported++
				spent = &avax.UTXO{TxID: inp.TxID, OutputIndex: inp.OutputIndex, AssetID: inp.AssetID, Out: transferOut(inp.Amount, w.Ewoq())}
			}
			if spent == nil || spent.Out.Amount() != inp.Amount || spent.AssetID != inp.AssetID {
				t.Fatalf("tx %s spends an unknown UTXO %s", xt.ID, id)
			}
			signer, err := avax.RecoverAddress(hash[:], tx.Creds[i][0])
			if err != nil || signer != spent.Out.Owners().Addrs[0] {
				t.Fatalf("tx %s input %d signed by %v, %v; want %v", xt.ID, i, signer, err, spent.Out.Owners().Addrs[0])
			}
			in[inp.AssetID] += inp.Amount
			delete(utxos, id)
		}
		next := uint32(0)
		for _, o := range u.Outs {
			oc := o.Out
			p := &avax.UTXO{TxID: xt.ID, OutputIndex: next, AssetID: o.AssetID, Out: &oc}
			utxos[p.ID()] = p
			out[o.AssetID] += o.Out.Amt
			next++
		}
		if a := u.Asset; a != nil {
			for _, h := range a.Holders {
				oc := h
				p := &avax.UTXO{TxID: xt.ID, OutputIndex: next, AssetID: xt.ID, Out: &oc}
				utxos[p.ID()] = p
				next++
			}
		}
		if e := u.Export; e != nil {
			for _, o := range e.Outs {
				out[o.AssetID] += o.Out.Amt
			}
		}
		for asset, v := range in {
			fee := uint64(0)
			if asset == AVAXAssetID {
				fee = txFee
			}
			if v != out[asset]+fee {
				t.Fatalf("tx %s: %d of %s in, %d out", xt.ID, v, asset, out[asset])
			}
		}
	}
	for _, k := range []uint32{avax.TypeAVMBaseTx, avax.TypeAVMCreateAssetTx, avax.TypeAVMImportTx, avax.TypeAVMExportTx} {
		if kinds[k] == 0 {
			t.Errorf("no X-Chain transaction of type %d", k)
		}
	}
	if imported != 1 || len(atomic) != 0 {
		t.Errorf("%d imported inputs, %d exported to the X-Chain unspent; want the P-Chain's one export, imported", imported, len(atomic))
	}
	// The index's unspent X UTXOs are the replay's.
	unspent, err := w.Index().UTXOs(ctx, avanet.ChainX, w.Addresses(), false)
	if err != nil {
		t.Fatal(err)
	}
	if len(unspent) != len(utxos) {
		t.Fatalf("the index holds %d unspent X UTXOs; the replay %d", len(unspent), len(utxos))
	}
	for _, u := range unspent {
		if _, ok := utxos[avax.ID(avax.MustParseID(u.ID))]; !ok {
			t.Errorf("the index's unspent %s is not the replay's", u.ID)
		}
	}
}
