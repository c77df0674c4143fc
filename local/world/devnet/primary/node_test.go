package primary

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	blst "github.com/supranational/blst/bindings/go"

	"github.com/avaedge/avaedge/avanet"
	"github.com/avaedge/avaedge/jsonrpc"
	"github.com/avaedge/avaedge/local/api/node"
	gen "github.com/avaedge/avaedge/local/source/devnet"
	"github.com/avaedge/avaedge/local/source/pindex"
	"github.com/avaedge/avaedge/local/vocab/avax"
)

// mustUTXOs are addr's unspent X-Chain UTXOs in the devnet's index.
func mustUTXOs(t testing.TB, dw *gen.World, addr avax.ShortID) []*pindex.UTXO {
	t.Helper()
	us, err := dw.Index().UTXOs(context.Background(), avanet.ChainX, []avax.ShortID{addr}, false)
	if err != nil {
		t.Fatal(err)
	}
	return us
}

var (
	devnetOnce  sync.Once
	devnetWorld *gen.World
	devnetErr   error
)

func testDevnet(t *testing.T) *gen.World { return benchDevnet(t) }

// benchDevnet returns the default devnet, built once.
func benchDevnet(t testing.TB) *gen.World {
	t.Helper()
	devnetOnce.Do(func() { devnetWorld, devnetErr = gen.New(gen.Config{}) })
	if devnetErr != nil {
		t.Fatal(devnetErr)
	}
	return devnetWorld
}

// xBalance is addr's AVAX on the X-Chain as the devnet's index holds it.
func xBalance(t testing.TB, dw *gen.World, addr avax.ShortID) uint64 {
	t.Helper()
	us, err := dw.Index().UTXOs(context.Background(), avanet.ChainX, []avax.ShortID{addr}, false)
	if err != nil {
		t.Fatal(err)
	}
	var sum uint64
	for _, u := range us {
		if u.AssetID == gen.AVAXAssetID.String() {
			sum += u.Amount
		}
	}
	return sum
}

func TestNodeView(t *testing.T) {
	dw := testDevnet(t)
	w, err := NodeView(dw, "")
	if err != nil {
		t.Fatal(err)
	}
	m := node.Methods(w)

	t.Run("identity", func(t *testing.T) {
		if w.NetworkID != avanet.Local.ID {
			t.Errorf("network %d", w.NetworkID)
		}
		bls, ok := dw.NodeBLS(w.Node.ID)
		if !ok || string(bls.PublicKey) != string(w.Node.PublicKey) {
			t.Fatalf("node %s is not a BLS-keyed devnet node", w.Node.ID)
		}
		pk := new(blst.P1Affine).Uncompress(w.Node.PublicKey)
		sig := new(blst.P2Affine).Uncompress(w.Node.ProofOfPossession)
		if pk == nil || sig == nil || !sig.Verify(true, pk, true, w.Node.PublicKey, gen.DSTPoP) {
			t.Error("the proof of possession does not verify")
		}
		if w.Node.Weights[avax.EmptyID] == 0 {
			t.Error("the node is not a primary validator")
		}
		if len(w.Peers) == 0 {
			t.Fatal("no peers")
		}
		for _, p := range w.Peers {
			if p.NodeID == w.Node.ID {
				t.Error("the node is its own peer")
			}
			if !dw.HasNode(p.NodeID) || len(p.Weights) == 0 {
				t.Errorf("peer %s is not a current devnet validator", p.NodeID)
			}
			if p.IP == w.Node.IP {
				t.Errorf("peer %s shares the node's address", p.NodeID)
			}
		}
	})

	t.Run("chains", func(t *testing.T) {
		for alias, want := range map[string]avax.ID{"X": gen.XChainID, "avm": gen.XChainID, "C": gen.CChainID, "P": avax.EmptyID} {
			got, err := call(t, m, "info.getBlockchainID", `{"alias":"`+alias+`"}`)
			if err != nil || got != `{"blockchainID":"`+want.String()+`"}` {
				t.Errorf("%s: got %s, %v", alias, got, err)
			}
		}
		for _, s := range dw.Subnets() {
			for _, c := range s.Chains {
				if _, err := call(t, m, "info.isBootstrapped", `{"chain":"`+c.ID.String()+`"}`); err != nil {
					t.Errorf("subnet chain %s: %v", c.ID, err)
				}
			}
		}
	})

	t.Run("blocks and txs", func(t *testing.T) {
		blocks := dw.XBlocks()
		got, _ := call(t, m, "avm.getHeight", "")
		if want := fmt.Sprintf(`{"height":"%d"}`, len(blocks)-1); got != want {
			t.Errorf("height: got %s; want %s", got, want)
		}
		for _, b := range blocks {
			got, err := call(t, m, "avm.getBlock", `{"blockID":"`+b.ID.String()+`","encoding":"hexnc"}`)
			if err != nil || !strings.Contains(got, avax.EncodeHexNC(b.Bytes)) {
				t.Fatalf("block %s: %v", b.ID, err)
			}
		}
		for _, tx := range dw.XTxs() {
			got, err := call(t, m, "avm.getTx", `{"txID":"`+tx.ID.String()+`"}`)
			if err != nil || !strings.Contains(got, avax.EncodeHex(tx.Bytes)) {
				t.Fatalf("tx %s: %v", tx.ID, err)
			}
		}
	})

	t.Run("json is the index's", func(t *testing.T) {
		// Every type of X-Chain transaction: its JSON is the one the index
		// holds, which is the one printed from its bytes.
		seen := map[uint32]bool{}
		for _, tx := range dw.XTxs() {
			typ := tx.Tx.Unsigned.TypeID()
			if seen[typ] {
				continue
			}
			seen[typ] = true
			got, err := call(t, m, "avm.getTx", `{"txID":"`+tx.ID.String()+`","encoding":"json"}`)
			_, stored, ok := dw.Index().XTx(tx.ID.String())
			printed, _ := json.Marshal(avax.XJSON{Alias: "X", HRP: "local"}.Tx(tx.Tx, tx.ID))
			if err != nil || !ok || !strings.Contains(got, string(stored)) || string(stored) != string(printed) {
				t.Errorf("tx %s (type %d): got %.300s, %v; the index holds %.300s", tx.ID, typ, got, err, stored)
			}
		}
		if len(seen) != 4 {
			t.Errorf("X-Chain transaction types %v; want the four", seen)
		}
	})

	t.Run("atomic UTXOs", func(t *testing.T) {
		// ewoq's export to the C-Chain is in the C-Chain's shared memory,
		// not the X-Chain's; the P-Chain's export to the X-Chain was imported.
		ewoq := avax.FormatAddress("X", "local", dw.Ewoq())
		for src, want := range map[string]int{"P": 0, "C": 0, "X": len(mustUTXOs(t, dw, dw.Ewoq()))} {
			p, err := getUTXOsPage(t, w, `{"addresses":["`+ewoq+`"],"sourceChain":"`+src+`"}`)
			if err != nil || len(p.UTXOs) != want {
				t.Errorf("from %s: %d UTXOs, %v; want %d", src, len(p.UTXOs), err, want)
			}
		}
	})

	t.Run("balances equal the UTXOs", func(t *testing.T) {
		for _, a := range dw.Addresses() {
			addr := avax.FormatAddress("X", "local", a)
			p, err := getUTXOsPage(t, w, `{"addresses":["`+addr+`"]}`)
			if err != nil {
				t.Fatal(err)
			}
			var sum uint64
			for _, s := range p.UTXOs {
				u, err := avax.ParseUTXO(must(avax.DecodeHex(s)))
				if err != nil {
					t.Fatal(err)
				}
				if u.AssetID == gen.AVAXAssetID {
					sum += u.Out.Amount()
				}
			}
			want := xBalance(t, dw, a)
			got, err := call(t, m, "avm.getBalance", `{"address":"`+addr+`","assetID":"AVAX"}`)
			if err != nil || sum != want || !strings.Contains(got, fmt.Sprintf(`"balance":"%d"`, want)) {
				t.Errorf("%s: UTXOs sum %d, getBalance %s, devnet %d", addr, sum, got, want)
			}
		}
	})
}

func TestNodeViewImpersonating(t *testing.T) {
	dw := testDevnet(t)
	for _, tc := range []struct {
		network, name, hrp string
		id                 uint32
	}{
		{"mainnet", "mainnet", "avax", 1},
		{"fuji", "fuji", "fuji", 5},
		{"testnet", "fuji", "fuji", 5},
		{"local", "local", "local", 12345},
	} {
		t.Run(tc.network, func(t *testing.T) {
			w, err := NodeView(dw, tc.network)
			if err != nil {
				t.Fatal(err)
			}
			net, _ := avanet.ByName(tc.network)
			m := node.Methods(w)
			if got, _ := call(t, m, "info.getNetworkName", ""); got != `{"networkName":"`+tc.name+`"}` {
				t.Errorf("name: got %s", got)
			}
			if got, _ := call(t, m, "info.getNetworkID", ""); got != fmt.Sprintf(`{"networkID":"%d"}`, tc.id) {
				t.Errorf("id: got %s", got)
			}
			got, err := call(t, m, "avm.getAssetDescription", `{"assetID":"AVAX"}`)
			if err != nil || !strings.Contains(got, net.AVAXAssetID) {
				t.Errorf("AVAX: got %s, %v; want id %s", got, err, net.AVAXAssetID)
			}
			ewoq := avax.FormatAddress("X", tc.hrp, dw.Ewoq())
			want := fmt.Sprintf(`"balance":"%d"`, xBalance(t, dw, dw.Ewoq()))
			for _, asset := range []string{"AVAX", net.AVAXAssetID, gen.AVAXAssetID.String()} {
				got, err := call(t, m, "avm.getBalance", `{"address":"`+ewoq+`","assetID":"`+asset+`"}`)
				if err != nil || !strings.Contains(got, want) {
					t.Errorf("balance of %s in %s: got %s, %v; want %s", ewoq, asset, got, err, want)
				}
			}
			p, err := getUTXOsPage(t, w, `{"addresses":["`+ewoq+`"],"limit":1}`)
			if err != nil || p.EndIndex.Address != ewoq {
				t.Errorf("getUTXOs: got %+v, %v", p, err)
			}
			// The JSON of a transaction prints the network's addresses.
			for _, xt := range dw.XTxs() {
				if xt.Tx.Unsigned.Import == nil {
					continue
				}
				got, err := call(t, m, "avm.getTx", `{"txID":"`+xt.ID.String()+`","encoding":"json"}`)
				if err != nil || !strings.Contains(got, `"importedInputs"`) || !strings.Contains(got, `"X-`+tc.hrp+`1`) {
					t.Errorf("the ImportTx's JSON: got %.400s, %v; want X-%s1 addresses", got, err, tc.hrp)
				}
			}
			up, _ := call(t, m, "info.upgrades", "")
			var u map[string]any
			if err := json.Unmarshal([]byte(up), &u); err != nil {
				t.Fatal(err)
			}
			if tc.id == 1 && u["cortinaTime"] != "2023-04-25T15:00:00Z" {
				t.Errorf("mainnet cortina: %v", u["cortinaTime"])
			}
		})
	}
	if _, err := NodeView(dw, "moonnet"); err == nil {
		t.Error("an unknown network: got no error")
	}
}

// call invokes a method directly and returns its result as JSON.
func call(t *testing.T, m map[string]jsonrpc.Method, name, params string) (string, error) {
	t.Helper()
	var p json.RawMessage
	if params != "" {
		p = json.RawMessage(params)
	}
	r, err := m[name](context.Background(), p)
	if err != nil {
		return "", err
	}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatalf("%s: marshal: %v", name, err)
	}
	return string(b), nil
}

type utxoPage struct {
	NumFetched string   `json:"numFetched"`
	UTXOs      []string `json:"utxos"`
	EndIndex   struct {
		Address, UTXO string
	} `json:"endIndex"`
}

func getUTXOsPage(t *testing.T, w *node.View, params string) (utxoPage, error) {
	t.Helper()
	got, err := call(t, node.Methods(w), "avm.getUTXOs", params)
	if err != nil {
		return utxoPage{}, err
	}
	var p utxoPage
	if err := json.Unmarshal([]byte(got), &p); err != nil {
		t.Fatal(err)
	}
	return p, nil
}

func BenchmarkGetUTXOs(b *testing.B) {
	w, err := NodeView(benchDevnet(b), "")
	if err != nil {
		b.Fatal(err)
	}
	m := node.Methods(w)["avm.getUTXOs"]
	params := json.RawMessage(`{"addresses":["X-local18jma8ppw3nhx5r4ap8clazz0dps7rv5u00z96u"],"limit":"10"}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := m(context.Background(), params); err != nil {
			b.Fatal(err)
		}
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
