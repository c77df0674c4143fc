package node

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/avaedge/avaedge/avanet"
	"github.com/avaedge/avaedge/local/source/pindex"
	"github.com/avaedge/avaedge/local/vocab/avax"
)

// fakePIndex is a P-Chain of two blocks (the bytes of one), two transactions, and a supply
// when supply is set; the other reads are not called.
type fakePIndex struct {
	PIndex
	supply bool
}

// pView is a network whose AVAX is avaxID.
func pView(avaxID avax.ID) *View {
	return &View{NetworkID: 12345, Assets: []Asset{{ID: avaxID}}, Chains: []Chain{{ID: avax.EmptyID, Aliases: []string{"P"}}}}
}

func (fakePIndex) Head(c avanet.Chain) (uint64, bool) { return 7, c == avanet.ChainP }

// keptBlock is the P-Chain block the fake index keeps the bytes of, at
// height 8: testdata/pblocks.json's first (a Banff standard block of three
// transactions made with avalanchego's codec).
var keptBlock = func() pBlockCase {
	b, err := os.ReadFile("testdata/pblocks.json")
	if err != nil {
		panic(err)
	}
	var cases []pBlockCase
	if err := json.Unmarshal(b, &cases); err != nil {
		panic(err)
	}
	return cases[0]
}()

func (fakePIndex) Block(_ context.Context, c avanet.Chain, h uint64) (*pindex.Block, bool, error) {
	switch {
	case c == avanet.ChainP && h == 7:
		return &pindex.Block{Chain: c, Height: 7, Time: 1_700_000_123}, true, nil
	case c == avanet.ChainP && h == 8:
		return &pindex.Block{Chain: c, Height: 8, Time: 1_700_000_000, Txs: keptBlock.TxIDs}, true, nil
	}
	return nil, false, nil
}

func (fakePIndex) PBlock(id string, height uint64) ([]byte, json.RawMessage, bool) {
	if id != "" || height != 8 {
		return nil, nil, false
	}
	b, _ := hex.DecodeString(keptBlock.Block)
	return b, json.RawMessage(`{}`), true
}

func (fakePIndex) Tx(_ context.Context, id string) (*pindex.Tx, bool, error) {
	switch id {
	case idOf("p tx").String():
		return &pindex.Tx{ID: id, Chain: avanet.ChainP, Body: []byte(`{"unsignedTx":{"networkID":12345},"credentials":[],"id":"` + id + `"}`)}, true, nil
	case idOf("x tx").String():
		return &pindex.Tx{ID: id, Chain: avanet.ChainX}, true, nil
	case keptBlock.TxIDs[1]:
		return &pindex.Tx{ID: id, Chain: avanet.ChainP, Height: 8, Index: 1}, true, nil
	}
	return nil, false, nil
}

func (f fakePIndex) Supply(context.Context) (pindex.Supply, bool, error) {
	return pindex.Supply{Current: 720_000_000_000_000_000, Height: 7}, f.supply, nil
}

// TestPlatformMethods checks the P-Chain methods answered from an index, in
// avalanchego v1.14.2's shapes (quoted integers, RFC 3339 UTC times, status
// names), and the errors of what the index does not hold.
func TestPlatformMethods(t *testing.T) {
	avaxID := idOf("avax")
	subnet := idOf("subnet")
	for _, tc := range []struct {
		name, method, params string
		supply               bool
		want, wantErr        string
	}{
		{"height", "platform.getHeight", "", false, `{"height":"7"}`, ""},
		{"timestamp", "platform.getTimestamp", `{}`, false, `{"timestamp":"2023-11-14T22:15:23Z"}`, ""},
		{"committed", "platform.getTxStatus", `{"txID":"` + idOf("p tx").String() + `"}`, false, `{"status":"Committed"}`, ""},
		{"an X-Chain tx is unknown", "platform.getTxStatus", `{"txID":"` + idOf("x tx").String() + `"}`, false, `{"status":"Unknown"}`, ""},
		{"unknown", "platform.getTxStatus", `{"txID":"` + idOf("nothing").String() + `"}`, false, `{"status":"Unknown"}`, ""},
		{"bad id", "platform.getTxStatus", `{"txID":"x"}`, false, "", "json: cannot unmarshal object into Go value of type [1]interface {}"}, // as gorilla json2 reads it
		{"tx in json", "platform.getTx", `{"txID":"` + idOf("p tx").String() + `","encoding":"json"}`, false,
			`{"tx":{"unsignedTx":{"networkID":12345},"credentials":[],"id":"` + idOf("p tx").String() + `"},"encoding":"json"}`, ""},
		{"tx in hex, its block's bytes not kept", "platform.getTx", `{"txID":"` + idOf("p tx").String() + `"}`, false, "", "the index keeps no bytes of P-Chain transaction"},
		{"tx in hex", "platform.getTx", `{"txID":"` + keptBlock.TxIDs[1] + `"}`, false, `{"tx":"` + hexTx(keptBlock.Txs[1], avax.EncodeHex) + `","encoding":"hex"}`, ""},
		{"tx in hexnc", "platform.getTx", `{"txID":"` + keptBlock.TxIDs[1] + `","encoding":"hexnc"}`, false, `{"tx":"` + hexTx(keptBlock.Txs[1], avax.EncodeHexNC) + `","encoding":"hexnc"}`, ""},
		{"an X-Chain tx is not found", "platform.getTx", `{"txID":"` + idOf("x tx").String() + `","encoding":"json"}`, false, "", "couldn't get tx: not found"},
		{"supply", "platform.getCurrentSupply", `{}`, true, `{"supply":"720000000000000000","height":"7"}`, ""},
		{"no supply recorded", "platform.getCurrentSupply", `{}`, false, "", "the index holds no supply the node answered"},
		{"subnet supply", "platform.getCurrentSupply", `{"subnetID":"` + subnet.String() + `"}`, true, "", "primary network's supply only"},
		{"staking asset", "platform.getStakingAssetID", `{}`, false, `{"assetID":"` + avaxID.String() + `"}`, ""},
		{"staking asset of the primary network", "platform.getStakingAssetID", `{"subnetID":"11111111111111111111111111111111LpoYY"}`, false, `{"assetID":"` + avaxID.String() + `"}`, ""},
		{"staking asset of a subnet", "platform.getStakingAssetID", `{"subnetID":"` + subnet.String() + `"}`, false, "", "is not built locally"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := call(t, PlatformMethods(fakePIndex{supply: tc.supply}, pView(avaxID)), tc.method, tc.params)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("got %s, %v; want error %q", got, err, tc.wantErr)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Errorf("got %s, %v\nwant %s", got, err, tc.want)
			}
		})
	}
	if _, err := call(t, PlatformMethods(emptyPIndex{}, pView(avaxID)), "platform.getHeight", ""); err == nil || err.Error() != errNoPBlock.Error() {
		t.Errorf("getHeight of an empty index: %v; want %v", err, errNoPBlock)
	}
}

type emptyPIndex struct{ fakePIndex }

func (emptyPIndex) Head(avanet.Chain) (uint64, bool) { return 0, false }

// hexTx is the signed transaction in testdata's hex, encoded by enc.
func hexTx(s string, enc func([]byte) string) string {
	b, _ := hex.DecodeString(s)
	return enc(b)
}
