package node

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/avaedge/avaedge/avanet"
	"github.com/avaedge/avaedge/local/source/nodeclient"
	"github.com/avaedge/avaedge/local/source/pindex"
	"github.com/avaedge/avaedge/local/vocab/avax"
)

// TestAtomicMethodsFromIndex: with the followed node down, avax.getAtomicTx
// and avax.getAtomicTxStatus answer from the index's C-Chain atomic
// transactions in coreth's formats (the signed bytes in the encoding asked,
// the block's height as a quoted number; json refused as coreth refuses
// it), and a transaction the index does not hold is Unknown, or coreth's
// "could not find tx".
func TestAtomicMethodsFromIndex(t *testing.T) {
	ctx := context.Background()
	net := avanet.Local
	ix, err := pindex.Open(ctx, pindex.Options{Network: &net, Path: pindex.Memory})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	avaxID, c := avax.MustParseID(net.AVAXAssetID), avax.MustParseID(net.CChainID)
	exp := &avax.AtomicTx{NetworkID: net.ID, BlockchainID: c, Chain: avax.EmptyID, Creds: [][][avax.SigLen]byte{{{1}}},
		Export: &avax.AtomicExport{Ins: []avax.EVMInput{{Address: [20]byte{1}, Amount: 10, AssetID: avaxID}},
			Outs: []avax.TransferableOutput{{AssetID: avaxID, Out: avax.TransferOutput{Amt: 9, OutputOwners: avax.OutputOwners{Threshold: 1, Addrs: []avax.ShortID{{2}}}}}}}}
	exp.Signed = exp.Bytes()
	hash := func(i byte) string { return avax.EncodeHexNC(append(make([]byte, 31), i)) }
	if err := ix.AppendC(ctx, []*nodeclient.CBlock{{Height: 0, Hash: hash(1), Parent: hash(0)},
		{Height: 1, Hash: hash(2), Parent: hash(1), ExtraData: avax.AtomicTxsBytes([]*avax.AtomicTx{exp})}}); err != nil {
		t.Fatal(err)
	}
	methods, err := IndexMethods(ctx, ix)
	if err != nil {
		t.Fatal(err)
	}
	call := func(name, params string) (string, error) {
		r, err := methods[name](ctx, json.RawMessage(params))
		if err != nil {
			return "", err
		}
		b, _ := json.Marshal(r)
		return string(b), nil
	}
	id := exp.ID().String()
	for params, want := range map[string]string{
		`{"txID":"` + id + `"}`:                    `{"tx":"` + avax.EncodeHex(exp.Signed) + `","encoding":"hex","blockHeight":"1"}`,
		`{"txID":"` + id + `","encoding":"hexnc"}`: `{"tx":"` + avax.EncodeHexNC(exp.Signed) + `","encoding":"hexnc","blockHeight":"1"}`,
		`{"txID":"` + id + `","encoding":"hexc"}`:  `{"tx":"` + avax.EncodeHex(exp.Signed) + `","encoding":"hexc","blockHeight":"1"}`,
	} {
		if got, err := call("avax.getAtomicTx", params); err != nil || got != want {
			t.Errorf("avax.getAtomicTx %s = %s, %v; want %s", params, got, err, want)
		}
	}
	if _, err := call("avax.getAtomicTx", `{"txID":"`+id+`","encoding":"json"}`); err == nil || err.Error() != "unsupported encoding in method" {
		t.Errorf("avax.getAtomicTx json: %v; want coreth's unsupported encoding", err)
	}
	if got, err := call("avax.getAtomicTxStatus", `{"txID":"`+id+`"}`); err != nil || got != `{"status":"Accepted","blockHeight":"1"}` {
		t.Errorf("avax.getAtomicTxStatus = %s, %v", got, err)
	}
	other := avax.Hash256([]byte("other")).String()
	if got, err := call("avax.getAtomicTxStatus", `{"txID":"`+other+`"}`); err != nil || got != `{"status":"Unknown"}` {
		t.Errorf("avax.getAtomicTxStatus of an unknown tx = %s, %v", got, err)
	}
	if _, err := call("avax.getAtomicTx", `{"txID":"`+other+`"}`); err == nil || !strings.HasPrefix(err.Error(), "could not find tx "+other) {
		t.Errorf("avax.getAtomicTx of an unknown tx: %v", err)
	}
	// The export's UTXO is in the P-Chain's shared memory, from the C-Chain.
	var utxos struct{ UTXOs []string }
	r, err := methods["platform.getUTXOs"](ctx, json.RawMessage(`{"addresses":["`+avax.FormatAddress("P", net.HRP, avax.ShortID{2})+`"],"sourceChain":"C"}`))
	if b, _ := json.Marshal(r); err != nil || json.Unmarshal(b, &utxos) != nil || len(utxos.UTXOs) != 1 {
		t.Errorf("platform.getUTXOs from C: %s, %v", b, err)
	}
}
