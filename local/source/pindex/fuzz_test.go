package pindex

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/avaedge/avaedge/avanet"
	"github.com/avaedge/avaedge/local/vocab/avax"
	"github.com/avaedge/avaedge/local/vocab/warpmsg"
)

// Fuzz targets for every reader of the followed node's answers beyond
// nodeclient's decoders (whose targets are nodeclient's). Their seed
// corpora (testdata/fuzz) are avalanchego v1.14.2's own answers: a local
// node's after the transactions test/avalanchego issues, and the L1
// transactions of avalanchego's vms/platformvm/txs/*_test.json in blocks.

// FuzzApplyBlock applies a getBlockByHeight answer in encoding json (the
// block), with its bytes (hexnc, decoded), to a real store in a transaction
// that is rolled back.
func FuzzApplyBlock(f *testing.F) {
	st, err := openSQLite(filepath.Join(f.TempDir(), "fuzz.db"))
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { st.Close() })
	// The local network's ids, which the seeds' exports and assets name.
	net, err := networkOf(12345, "2eNy1mUFdmaxXNj1eQHUe7Np4gju9sJsEtWQ4MX3ToiNKuADed",
		"2owdGqyG6FFzTHy5qhenDXQcEghvr571KZE3gSfRJERSJinuwC", "2fombhL7aGPwj3KH4bfrmJwW6PVnMobf9Y2fn9GwxiAAJyFDbe")
	if err != nil {
		f.Fatal(err)
	}
	banff := append([]byte{0, 0, 0, 0, 0, 32}, make([]byte, 32)...)
	node := &fakeNode{height: 3, fork: 1 << 62, gen: 1}
	for h := uint64(0); h <= 2; h++ {
		js, _ := json.Marshal(node.block(h))
		f.Add(js, banff, false)
	}
	// avalanchego's vectors carry a placeholder message; these carry real
	// L1 messages, so that their decoding is reached.
	f.Add(l1Seed(f, "register_l1_validator_tx_test.json", &warpmsg.RegisterL1Validator{SubnetID: [32]byte{1}, NodeID: make([]byte, 20),
		Expiry: 1, RemainingBalanceOwner: warpmsg.PChainOwner{Threshold: 1, Addresses: [][20]byte{{2}}}, Weight: 5}), banff, false)
	f.Add(l1Seed(f, "set_l1_validator_weight_tx_test.json", &warpmsg.L1ValidatorWeight{ValidationID: [32]byte{3}, Nonce: 1}), banff, false)
	f.Fuzz(func(t *testing.T, js, raw []byte, x bool) {
		chain := avanet.ChainP
		if x {
			chain = avanet.ChainX
		}
		var h struct {
			Height uint64 `json:"height"`
		}
		json.Unmarshal(js, &h)
		tx, err := st.w.Begin()
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback()
		w := &writer{b: &sqliteBatch{tx: tx}, net: &net}
		b, err := w.apply(chain, &RawBlock{Height: h.Height, JSON: js, Bytes: raw}, 0)
		if err != nil {
			return
		}
		var n int
		if err := tx.QueryRow(`SELECT COUNT(*) FROM blocks WHERE chain=? AND height=? AND id=?`, string(chain), b.Height, b.ID).Scan(&n); err != nil || n != 1 {
			t.Fatalf("applied block %d %s: %d rows, %v", b.Height, b.ID, n, err)
		}
	})
}

// l1Seed returns a block holding the transaction of testdata/file, its
// placeholder message replaced by a Warp message carrying m.
func l1Seed(f *testing.F, file string, m warpmsg.L1Message) []byte {
	f.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", file))
	if err != nil {
		f.Fatal(err)
	}
	msg := (&warpmsg.Message{UnsignedMessage: *warpmsg.NewL1Unsigned(12345, m)}).Bytes()
	unsigned := bytes.Replace(raw, []byte(`"0x6d657373616765"`), []byte(`"0x`+hex.EncodeToString(msg)+`"`), 1)
	if bytes.Equal(unsigned, raw) {
		f.Fatalf("%s has no placeholder message", file)
	}
	js, err := json.Marshal(map[string]any{"id": "khh2sTngRXXNq5QZBSUqbUSWVya1PjyPLQoiotDLX3WDoGPBe", "parentID": avax.EmptyID.String(),
		"height": 1, "time": 1795628706, "txs": []any{map[string]any{"id": "2b11Fna4CpWi1hpyMq64JD7jDZrbK43thN93F2Li1yTmyZDN6j",
			"unsignedTx": json.RawMessage(unsigned), "credentials": []any{}}}})
	if err != nil {
		f.Fatal(err)
	}
	return js
}

// FuzzNetworkOf reads the network from info.getNetworkID,
// info.getBlockchainID and avm.getAssetDescription answers (their
// decoders' targets are nodeclient's).
func FuzzNetworkOf(f *testing.F) {
	f.Add("12345", "2eNy1mUFdmaxXNj1eQHUe7Np4gju9sJsEtWQ4MX3ToiNKuADed", "2owdGqyG6FFzTHy5qhenDXQcEghvr571KZE3gSfRJERSJinuwC",
		"2fombhL7aGPwj3KH4bfrmJwW6PVnMobf9Y2fn9GwxiAAJyFDbe")
	f.Fuzz(func(t *testing.T, id, x, c, asset string) {
		v, err := strconv.ParseUint(id, 10, 32)
		if err != nil {
			return
		}
		n, err := networkOf(uint32(v), x, c, asset)
		if err != nil {
			return
		}
		if n.XChainID != x || n.CChainID != c || n.AVAXAssetID != asset {
			t.Fatalf("network %+v from %q %q %q", n, x, c, asset)
		}
		for _, s := range []string{x, c, asset} {
			if id, err := avax.ParseID(s); err != nil || id.String() != s {
				t.Fatalf("network %+v accepted the id %q (%v)", n, s, err)
			}
		}
	})
}
