package avax

import (
	"bytes"
	"encoding/hex"
	"errors"
	"os"
	"strings"
	"testing"
)

// goldenAtomicBatch reads testdata/atomic_batch.hex: a block's extra data
// (an import then an export) that coreth's own codec wrote
// (test/avalanchego TestAtomicCodec -atomic-golden).
func goldenAtomicBatch(t testing.TB) []byte {
	t.Helper()
	s, err := os.ReadFile("testdata/atomic_batch.hex")
	if err != nil {
		t.Fatal(err)
	}
	b, err := hex.DecodeString(strings.TrimSpace(string(s)))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestParseAtomicTxs(t *testing.T) {
	b := goldenAtomicBatch(t)
	txs, err := ParseAtomicTxs(b, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(txs) != 2 || txs[0].Type() != "ImportTx" || txs[1].Type() != "ExportTx" {
		t.Fatalf("%d transactions", len(txs))
	}
	imp, exp := txs[0], txs[1]
	if imp.NetworkID != 12345 || len(imp.Import.Ins) != 2 || imp.Import.Ins[0].Amount != 5000 || len(imp.Import.Outs) != 2 ||
		imp.Import.Outs[0].Amount != 4000 || imp.Import.Outs[0].Address != [20]byte{1} {
		t.Errorf("import: %+v", imp.Import)
	}
	if !exp.Chain.IsEmpty() || len(exp.Export.Ins) != 2 || exp.Export.Ins[0].Nonce != 4 || exp.Export.Outs[0].Out.Amt != 8000 ||
		exp.Export.Outs[0].Out.Locktime != 7 || len(exp.Creds) != 2 {
		t.Errorf("export: %+v", exp.Export)
	}
	for _, tx := range txs {
		if !bytes.Equal(tx.Signed, tx.Bytes()) || tx.ID() != Hash256(tx.Bytes()) {
			t.Errorf("%s: signed bytes differ from its encoding", tx.Type())
		}
		alone, err := ParseAtomicTxs(tx.Signed, false)
		if err != nil || len(alone) != 1 || alone[0].ID() != tx.ID() {
			t.Errorf("%s alone: %v", tx.Type(), err)
		}
	}
	if !bytes.Equal(AtomicTxsBytes(txs), b) {
		t.Error("AtomicTxsBytes does not give the batch back")
	}
	if txs, err := ParseAtomicTxs(nil, true); err != nil || txs != nil {
		t.Errorf("no extra data: %v %v", txs, err)
	}
	if _, err := ParseAtomicTxs([]byte{0, 0, 0, 0, 0, 0}, true); !errors.Is(err, ErrNoAtomicTxs) {
		t.Errorf("an empty batch: %v; want ErrNoAtomicTxs", err)
	}
	for _, bad := range [][]byte{b[:len(b)-1], append(append([]byte{}, b...), 0), {0, 1, 0, 0, 0, 1}, {0, 0, 0, 0, 0, 1, 0, 0, 0, 9}} {
		if _, err := ParseAtomicTxs(bad, true); err == nil {
			t.Errorf("%x: accepted", Clip(hex.EncodeToString(bad)))
		}
	}
	if _, err := ParseAtomicTxs([]byte{0, 0, 0xff, 0xff, 0xff, 0xff}, true); !errors.Is(err, ErrTooLong) {
		t.Errorf("a batch claiming 2^32-1 transactions: %v; want ErrTooLong", err)
	}
}

// FuzzParseAtomicTxs: the C-Chain's atomic decoder never panics, is quick,
// and re-encodes what it accepts to the same bytes, in both formats.
func FuzzParseAtomicTxs(f *testing.F) {
	b := goldenAtomicBatch(f)
	f.Add(b, true)
	txs, _ := ParseAtomicTxs(b, true)
	for _, tx := range txs {
		f.Add(tx.Signed, false)
	}
	f.Add([]byte{0, 0, 0, 0, 0, 0}, true)
	f.Fuzz(func(t *testing.T, b []byte, batch bool) {
		var txs []*AtomicTx
		var err error
		within(t, hex.EncodeToString(b), func() { txs, err = ParseAtomicTxs(b, batch) })
		if err != nil || len(b) == 0 {
			return
		}
		again := txs[0].Bytes()
		if batch {
			again = AtomicTxsBytes(txs)
		}
		if !bytes.Equal(again, b) {
			t.Fatalf("ParseAtomicTxs(%x, %v) re-encodes to %x", b, batch, again)
		}
		for _, tx := range txs {
			if !bytes.Equal(tx.Signed, tx.Bytes()) {
				t.Fatalf("signed bytes %x; encoding %x", tx.Signed, tx.Bytes())
			}
		}
	})
}
