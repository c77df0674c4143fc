package node

import (
	"bytes"
	"errors"
	"math"
	"testing"

	blst "github.com/supranational/blst/bindings/go"

	"github.com/avaedge/avaedge/local/vocab/avax"
)

// TestFlatten: flatten sums every validator's weight, groups those with a
// BLS key by key (node ids in set order), orders the groups by the
// uncompressed key as avalanchego does, and refuses a set whose total
// overflows, which the node leaves out.
func TestFlatten(t *testing.T) {
	var keys [3][]byte
	for i := range keys {
		sk := blst.KeyGen(bytes.Repeat([]byte{byte(i + 1)}, 32))
		keys[i] = new(blst.P1Affine).From(sk).Compress()
	}
	node := func(b byte) avax.NodeID { return avax.NodeID{b} }
	set := []SetMember{
		{NodeID: node(1), Weight: 10, PublicKey: keys[0]},
		{NodeID: node(2), Weight: 20, PublicKey: keys[1]},
		{NodeID: node(3), Weight: 5},
		{NodeID: node(4), Weight: 7, PublicKey: keys[0]},
		{NodeID: node(5), Weight: 1, PublicKey: keys[2]},
	}
	ws, err := flatten(set)
	if err != nil {
		t.Fatal(err)
	}
	if ws.TotalWeight != 43 || len(ws.Validators) != 3 {
		t.Fatalf("flatten: total %d, %d validators; want 43 and 3", ws.TotalWeight, len(ws.Validators))
	}
	for i, v := range ws.Validators {
		if i > 0 && bytes.Compare(ws.Validators[i-1].key, v.key) >= 0 {
			t.Errorf("validators not ordered by uncompressed key at %d", i)
		}
		pk := new(blst.P1Affine).Uncompress(mustHex(t, v.PublicKey))
		if pk == nil || !bytes.Equal(pk.Serialize(), v.key) {
			t.Errorf("validator %d: key %s is not its uncompressed %x", i, v.PublicKey, v.key)
		}
		if v.PublicKey == avax.EncodeHexNC(keys[0]) && (v.Weight != 17 || len(v.NodeIDs) != 2 || v.NodeIDs[0] != node(1).String() || v.NodeIDs[1] != node(4).String()) {
			t.Errorf("the shared key: %+v; want weight 17 and nodes 1 and 4", v)
		}
	}
	if _, err := flatten([]SetMember{{NodeID: node(1), Weight: math.MaxUint64}, {NodeID: node(2), Weight: 1}}); !errors.Is(err, errWeightOverflow) {
		t.Errorf("flatten of an overflowing set: %v; want errWeightOverflow", err)
	}
	if _, err := flatten([]SetMember{{NodeID: node(1), Weight: 1, PublicKey: []byte{1, 2, 3}}}); !errors.Is(err, errBadBLSKey) {
		t.Errorf("flatten of a bad key: %v; want errBadBLSKey", err)
	}
}

func mustHex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := avax.DecodeHexNC(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
