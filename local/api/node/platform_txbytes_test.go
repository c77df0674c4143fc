package node

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"os"
	"testing"

	"github.com/avaedge/avaedge/local/vocab/avax"
)

// pBlockCase is a P-Chain block of testdata/pblocks.json, made with
// avalanchego v1.14.2's own block and transaction codec (block.NewBanff*,
// block.NewApricot*, txs.Tx.Sign): its bytes, and each transaction's id and
// signed bytes in the block's order.
type pBlockCase struct {
	Name  string   `json:"name"`
	Block string   `json:"block"`
	TxIDs []string `json:"txIDs"`
	Txs   []string `json:"txs"`
}

func pBlockCases(t testing.TB) []pBlockCase {
	b, err := os.ReadFile("testdata/pblocks.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []pBlockCase
	if err := json.Unmarshal(b, &cases); err != nil {
		t.Fatal(err)
	}
	return cases
}

// TestPTxBytes: every transaction of every kind of P-Chain block (Banff
// standard and proposal, with and without decision transactions, Apricot
// standard, proposal and atomic) is cut from its block's bytes exactly as
// avalanchego signed it; an id not in the block, or a block of another
// kind, is not found.
func TestPTxBytes(t *testing.T) {
	for _, c := range pBlockCases(t) {
		t.Run(c.Name, func(t *testing.T) {
			blk, _ := hex.DecodeString(c.Block)
			var ids []avax.ID
			for _, s := range c.TxIDs {
				ids = append(ids, avax.MustParseID(s))
			}
			for i, id := range ids {
				got, ok := pTxBytes(blk, id, ids)
				want, _ := hex.DecodeString(c.Txs[i])
				if !ok || !bytes.Equal(got, want) {
					t.Errorf("tx %s: %x, %v; want %x", id, got, ok, want)
				}
			}
			other := avax.Hash256([]byte("another tx"))
			if got, ok := pTxBytes(blk, other, append(ids, other)); ok {
				t.Errorf("a tx not in the block found: %x", got)
			}
			commit := append([]byte{0, 0, 0, 0, 0, 31}, blk[6:]...) // a BanffCommitBlock holds none
			if _, ok := pTxBytes(commit, ids[0], ids); ok {
				t.Error("a tx found in a commit block")
			}
		})
	}
}

// FuzzPTxBytes: any bytes and any id list cut nothing that does not hash
// to the id asked for, and never panic.
func FuzzPTxBytes(f *testing.F) {
	for _, c := range pBlockCases(f) {
		blk, _ := hex.DecodeString(c.Block)
		f.Add(blk, c.TxIDs[0])
	}
	f.Add([]byte{0, 0, 0, 0, 0, 29, 0, 0, 0, 0, 0, 0, 0, 0, 255, 255, 255, 255}, "11111111111111111111111111111111LpoYY")
	f.Fuzz(func(t *testing.T, blk []byte, id string) {
		want, err := avax.ParseID(id)
		if err != nil {
			return
		}
		if got, ok := pTxBytes(blk, want, []avax.ID{want, avax.EmptyID}); ok && avax.Hash256(got) != want {
			t.Fatalf("cut %x, whose hash is not %s", got, want)
		}
	})
}

// BenchmarkPTxBytes cuts the last transaction of the three of a Banff
// standard block: every byte hashed once.
func BenchmarkPTxBytes(b *testing.B) {
	c := pBlockCases(b)[0]
	blk, _ := hex.DecodeString(c.Block)
	var ids []avax.ID
	for _, s := range c.TxIDs {
		ids = append(ids, avax.MustParseID(s))
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, ok := pTxBytes(blk, ids[len(ids)-1], ids); !ok {
			b.Fatal("not found")
		}
	}
}
