package nodeclient

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/avaedge/avaedge/local/vocab/avax"
)

// Fuzz targets for every decoder of a node's answers (the JSON-RPC
// envelope's is jsonrpc's FuzzDecodeAnswer). Their seed corpora
// (testdata/fuzz) are avalanchego v1.14.2's own answers.

// FuzzParseHeight: a height is accepted only when it fits a signed 64-bit
// integer, and then it is the number printed.
func FuzzParseHeight(f *testing.F) {
	for _, s := range []string{"0", "42", "9223372036854775807", "9223372036854775808", "18446744073709551615", "-1", "", "0x10"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		h, err := ParseHeight(s)
		if err != nil {
			return
		}
		if h > math.MaxInt64 {
			t.Fatalf("accepted height %d", h)
		}
		if v, _ := strconv.ParseUint(s, 10, 64); v != h {
			t.Fatalf("ParseHeight(%q) = %d", s, h)
		}
	})
}

// FuzzDecodeHex reads a value in encoding hexnc (getBlockByHeight's block):
// what is accepted prints back as the hex read, in lower case.
func FuzzDecodeHex(f *testing.F) {
	f.Add([]byte(`"0x00000000002000"`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		b, err := decodeHex(raw)
		if err != nil {
			return
		}
		var s string
		json.Unmarshal(raw, &s)
		if got, want := avax.EncodeHexNC(b), "0x"+strings.ToLower(strings.TrimPrefix(s, "0x")); got != want {
			t.Fatalf("%q read as %s", s, got)
		}
	})
}

// FuzzDecodeSignedTx reads getTx's tx in encoding hexnc: accepted bytes hash
// to the id.
func FuzzDecodeSignedTx(f *testing.F) {
	f.Add(avax.Hash256([]byte("avax")).String(), []byte(`"`+avax.EncodeHexNC([]byte("avax"))+`"`))
	f.Fuzz(func(t *testing.T, id string, raw []byte) {
		b, err := decodeSignedTx(id, raw)
		if err == nil && avax.Hash256(b).String() != id {
			t.Fatalf("bytes of another tx accepted for %s", id)
		}
	})
}

// FuzzDecodeValidatorSet reads platform.getValidatorsAt answers: every
// validator accepted has a node id the answer named and a key it printed.
func FuzzDecodeValidatorSet(f *testing.F) {
	f.Add([]byte(`{"NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg":{"publicKey":null,"weight":"5"}}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		vs, err := decodeValidatorSet(raw)
		if err != nil {
			return
		}
		var names map[string]json.RawMessage
		if err := json.Unmarshal(raw, &names); err != nil || len(names) != len(vs) {
			t.Fatalf("%d validators from an answer of %d: %v", len(vs), len(names), err)
		}
		for _, v := range vs {
			if _, ok := names[v.NodeID.String()]; !ok {
				t.Fatalf("validator %s is not in the answer", v.NodeID)
			}
		}
	})
}

// FuzzDecodePeers reads info.peers answers: as many peers as the answer
// lists.
func FuzzDecodePeers(f *testing.F) {
	f.Add([]byte(`{"numPeers":"1","peers":[{"ip":"10.0.0.3:9651","publicIP":"","nodeID":"NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg"}]}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		ps, err := decodePeers(raw)
		if err != nil {
			return
		}
		var r struct {
			Peers []json.RawMessage `json:"peers"`
		}
		if json.Unmarshal(raw, &r); len(r.Peers) != len(ps) {
			t.Fatalf("%d peers from an answer of %d", len(ps), len(r.Peers))
		}
	})
}

// FuzzDecodeNetworkID reads info.getNetworkID answers: an accepted id is
// the number printed.
func FuzzDecodeNetworkID(f *testing.F) {
	f.Add([]byte(`{"networkID":"1"}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		id, err := decodeNetworkID(raw)
		if err != nil {
			return
		}
		var r struct {
			NetworkID string `json:"networkID"`
		}
		json.Unmarshal(raw, &r)
		if r.NetworkID != strconv.FormatUint(uint64(id), 10) {
			t.Fatalf("network id %d from %q", id, r.NetworkID)
		}
	})
}

// FuzzDecodeSupply reads platform.getCurrentSupply answers: an accepted
// height fits a signed 64-bit integer.
func FuzzDecodeSupply(f *testing.F) {
	f.Add([]byte(`{"supply":"720000000000000000","height":"12"}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		s, err := decodeSupply(raw)
		if err == nil && s.Height > math.MaxInt64 {
			t.Fatalf("accepted height %d", s.Height)
		}
	})
}

// FuzzDelegators reads getCurrentValidators answers: the validators with
// delegators, and the merge of their detailed answer, which keeps the
// validators' count.
func FuzzDelegators(f *testing.F) {
	f.Add([]byte(`{"validators":[{"txID":"a","nodeID":"NodeID-1","delegatorCount":"1"}]}`),
		[]byte(`{"validators":[{"txID":"a","nodeID":"NodeID-1","delegatorCount":"1","delegators":[]}]}`))
	f.Fuzz(func(t *testing.T, body, detail []byte) {
		if _, err := delegated(body); err != nil {
			return
		}
		merged, err := mergeDelegators(body, detail)
		if err != nil {
			return
		}
		var before, after struct {
			Validators []json.RawMessage `json:"validators"`
		}
		json.Unmarshal(body, &before)
		if err := json.Unmarshal(merged, &after); err != nil || len(after.Validators) != len(before.Validators) {
			t.Fatalf("merged %d validators of %d: %v", len(after.Validators), len(before.Validators), err)
		}
	})
}

// FuzzDecodeCBlock reads eth_getBlockByNumber's block (coreth's, with its
// blockExtraData): what is accepted has 32-byte hashes, and its number and
// extra data print back as the answer's.
func FuzzDecodeCBlock(f *testing.F) {
	f.Add([]byte(`{"baseFeePerGas":"0x5d21dba00","blockExtraData":"0x","blockGasCost":"0x0","difficulty":"0x1","extDataGasUsed":"0x0",` +
		`"extraData":"0x","gasLimit":"0x7a1200","gasUsed":"0x0","hash":"0x2ea8a84b1c4ee7a9c02da51aaf07ca20cb2e0fb1e4cfd2b7ddb0e8bc3a4b5d42",` +
		`"number":"0x3","parentHash":"0x9a40f4b3b8c3c4f1e2a6d7c9b2e7f35c8e86f5e4c8a4f2c36b0bd6bb2e1e1f7a","timestamp":"0x674db2c0","transactions":[]}`))
	f.Add([]byte(`{"blockExtraData":"0x000000000001","hash":"0x2ea8a84b1c4ee7a9c02da51aaf07ca20cb2e0fb1e4cfd2b7ddb0e8bc3a4b5d42",` +
		`"number":"0x10","parentHash":"0x9a40f4b3b8c3c4f1e2a6d7c9b2e7f35c8e86f5e4c8a4f2c36b0bd6bb2e1e1f7a","timestamp":"0x1"}`))
	f.Add([]byte(`null`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		b, err := decodeCBlock(raw)
		if err != nil {
			return
		}
		var j struct{ Number, BlockExtraData string }
		json.Unmarshal(raw, &j)
		if len(b.Hash) != 66 || len(b.Parent) != 66 {
			t.Fatalf("accepted %s as %+v", raw, b)
		}
		if n, _ := strconv.ParseUint(strings.TrimPrefix(j.Number, "0x"), 16, 64); n != b.Height {
			t.Fatalf("number %q read as %d", j.Number, b.Height)
		}
		if got := avax.EncodeHexNC(b.ExtraData); got != "0x"+strings.ToLower(strings.TrimPrefix(j.BlockExtraData, "0x")) {
			t.Fatalf("blockExtraData %q read as %s", j.BlockExtraData, got)
		}
	})
}
