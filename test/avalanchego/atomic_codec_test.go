package avalanchego

import (
	"bytes"
	"encoding/hex"
	"flag"
	"os"
	"testing"

	"github.com/ava-labs/avalanchego/graft/coreth/plugin/evm/atomic"
	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/crypto/secp256k1"
	avaxcomp "github.com/ava-labs/avalanchego/vms/components/avax"
	"github.com/ava-labs/avalanchego/vms/secp256k1fx"
	"github.com/ava-labs/libevm/common"

	"github.com/avaedge/avaedge/local/vocab/avax"
)

var writeAtomicGolden = flag.String("atomic-golden", "", "write the atomic batch TestAtomicCodec builds to this file (hex)")

// atomicTxs builds an import and an export as coreth's atomic codec holds
// them, signed by a key, each with two inputs and two outputs.
func atomicTxs(t *testing.T) []*atomic.Tx {
	t.Helper()
	key, err := secp256k1.NewPrivateKey()
	if err != nil {
		t.Fatal(err)
	}
	asset, x, c := ids.GenerateTestID(), ids.GenerateTestID(), ids.GenerateTestID()
	owner := secp256k1fx.OutputOwners{Locktime: 7, Threshold: 1, Addrs: []ids.ShortID{key.Address()}}
	imp := &atomic.UnsignedImportTx{NetworkID: 12345, BlockchainID: c, SourceChain: x,
		ImportedInputs: []*avaxcomp.TransferableInput{
			{UTXOID: avaxcomp.UTXOID{TxID: ids.GenerateTestID(), OutputIndex: 1}, Asset: avaxcomp.Asset{ID: asset},
				In: &secp256k1fx.TransferInput{Amt: 5000, Input: secp256k1fx.Input{SigIndices: []uint32{0}}}},
			{UTXOID: avaxcomp.UTXOID{TxID: ids.GenerateTestID(), OutputIndex: 0}, Asset: avaxcomp.Asset{ID: asset},
				In: &secp256k1fx.TransferInput{Amt: 7, Input: secp256k1fx.Input{SigIndices: []uint32{0}}}},
		},
		Outs: []atomic.EVMOutput{{Address: common.Address{1}, Amount: 4000, AssetID: asset}, {Address: common.Address{2}, Amount: 1, AssetID: asset}}}
	exp := &atomic.UnsignedExportTx{NetworkID: 12345, BlockchainID: c, DestinationChain: ids.Empty,
		Ins: []atomic.EVMInput{{Address: common.Address{3}, Amount: 9000, AssetID: asset, Nonce: 4}, {Address: common.Address{4}, Amount: 1, AssetID: asset, Nonce: 0}},
		ExportedOutputs: []*avaxcomp.TransferableOutput{
			{Asset: avaxcomp.Asset{ID: asset}, Out: &secp256k1fx.TransferOutput{Amt: 8000, OutputOwners: owner}},
			{Asset: avaxcomp.Asset{ID: asset}, Out: &secp256k1fx.TransferOutput{Amt: 2, OutputOwners: owner}},
		}}
	var txs []*atomic.Tx
	for _, u := range []atomic.UnsignedAtomicTx{imp, exp} {
		tx := &atomic.Tx{UnsignedAtomicTx: u}
		if err := tx.Sign(atomic.Codec, [][]*secp256k1.PrivateKey{{key}, {key}}); err != nil {
			t.Fatal(err)
		}
		txs = append(txs, tx)
	}
	return txs
}

// TestAtomicCodec: avaedge's decoder of the C-Chain's atomic transactions
// reads what coreth's own codec writes, a block's batch and each
// transaction alone: the same ids (sha256 of the signed bytes), fields and
// bytes again when it encodes them.
func TestAtomicCodec(t *testing.T) {
	txs := atomicTxs(t)
	batch, err := atomic.Codec.Marshal(atomic.CodecVersion, txs)
	if err != nil {
		t.Fatal(err)
	}
	if *writeAtomicGolden != "" {
		if err := os.WriteFile(*writeAtomicGolden, []byte(hex.EncodeToString(batch)+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := avax.ParseAtomicTxs(batch, true)
	if err != nil {
		t.Fatalf("ParseAtomicTxs of coreth's batch: %v", err)
	}
	if len(got) != len(txs) {
		t.Fatalf("%d transactions; want %d", len(got), len(txs))
	}
	for i, want := range txs {
		g := got[i]
		if g.ID().String() != want.ID().String() {
			t.Errorf("tx %d: id %s; coreth's %s", i, g.ID(), want.ID())
		}
		if !bytes.Equal(g.Signed, want.SignedBytes()) || !bytes.Equal(g.Bytes(), want.SignedBytes()) {
			t.Errorf("tx %d: signed bytes differ from coreth's", i)
		}
		if !bytes.Equal(g.UnsignedBytes(), want.Bytes()) {
			t.Errorf("tx %d: unsigned bytes differ from coreth's", i)
		}
		alone, err := avax.ParseAtomicTx(want.SignedBytes())
		if err != nil || alone.ID() != g.ID() {
			t.Errorf("tx %d alone: %v", i, err)
		}
		if len(g.Creds) != 2 || len(g.Creds[0]) != 1 {
			t.Errorf("tx %d: credentials %d", i, len(g.Creds))
		}
	}
	imp, exp := txs[0].UnsignedAtomicTx.(*atomic.UnsignedImportTx), txs[1].UnsignedAtomicTx.(*atomic.UnsignedExportTx)
	gi, ge := got[0], got[1]
	if gi.Import == nil || gi.Chain != avax.ID(imp.SourceChain) || gi.NetworkID != 12345 || gi.BlockchainID != avax.ID(imp.BlockchainID) ||
		len(gi.Import.Ins) != 2 || gi.Import.Ins[0].TxID != avax.ID(imp.ImportedInputs[0].TxID) || gi.Import.Ins[0].Amount != 5000 ||
		len(gi.Import.Outs) != 2 || gi.Import.Outs[0].Address != imp.Outs[0].Address || gi.Import.Outs[0].Amount != 4000 {
		t.Errorf("import decoded as %+v", gi.Import)
	}
	if ge.Export == nil || ge.Chain != avax.ID(exp.DestinationChain) || len(ge.Export.Ins) != 2 || ge.Export.Ins[0].Nonce != 4 ||
		len(ge.Export.Outs) != 2 || ge.Export.Outs[0].Out.Amt != 8000 || ge.Export.Outs[0].Out.Locktime != 7 ||
		ge.Export.Outs[0].Out.Addrs[0] != avax.ShortID(exp.ExportedOutputs[0].Out.(*secp256k1fx.TransferOutput).Addrs[0]) {
		t.Errorf("export decoded as %+v", ge.Export)
	}
	if again := avax.AtomicTxsBytes(got); !bytes.Equal(again, batch) {
		t.Errorf("AtomicTxsBytes differs from coreth's batch")
	}
	// Coreth's pre-ApricotPhase5 extra data: one transaction alone.
	single, err := avax.ParseAtomicTxs(txs[1].SignedBytes(), false)
	if err != nil || len(single) != 1 || single[0].ID() != avax.ID(txs[1].ID()) {
		t.Errorf("a single transaction's extra data: %v", err)
	}
}
