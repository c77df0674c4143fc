package node

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/avaedge/avaedge/local/vocab/avax"
)

func TestBalances(t *testing.T) {
	m := Methods(fakeView())
	aliceID := alice.Address().String()
	aliceFuji := avax.FormatAddress("X", "fuji", alice.Address())
	for _, tc := range []struct {
		name, method, params string
		want, wantErr        string
	}{
		// 800 + 50 are spendable; 7 is locked, 20 has two owners.
		{"single owner, unlocked", "avm.getBalance", `{"address":"` + aliceX + `","assetID":"AVAX"}`, `"balance":"850"`, ""},
		{"includePartial", "avm.getBalance", `{"address":"` + aliceX + `","assetID":"AVAX","includePartial":true}`, `"balance":"877"`, ""},
		{"by asset id and cb58 address", "avm.getBalance", `{"address":"` + aliceID + `","assetID":"` + fakeAVAX.String() + `"}`, `"balance":"850"`, ""},
		{"other asset", "avm.getBalance", `{"address":"` + aliceX + `","assetID":"` + fakeOther.String() + `"}`, `"balance":"5"`, ""},
		{"unknown asset alias", "avm.getBalance", `{"address":"` + aliceX + `","assetID":"DOGE"}`, "", "asset 'DOGE' not found"},
		{"wrong hrp", "avm.getBalance", `{"address":"` + aliceFuji + `","assetID":"AVAX"}`, "",
			`problem parsing address '` + aliceFuji + `': couldn't parse address "` + aliceFuji + `": expected hrp "local" but got "fuji"`},
		{"another chain's address", "avm.getBalance", `{"address":"P-local18jma8ppw3nhx5r4ap8clazz0dps7rv5u00z96u","assetID":"AVAX"}`, "", "mismatched chainIDs"},
		{"all balances", "avm.getAllBalances", `{"address":"` + aliceX + `"}`, `{"balances":[{"asset":"` + fakeOther.String() + `","balance":"5"},{"asset":"AVAX","balance":"850"}]}`, ""},
		{"all balances, partial", "avm.getAllBalances", `{"address":"` + aliceX + `","includePartial":true}`, `{"asset":"AVAX","balance":"877"}`, ""},
		{"all balances of an empty address", "avm.getAllBalances", `{"address":"` + bob.Address().String() + `"}`, `{"balances":[]}`, ""},
		{"asset by alias", "avm.getAssetDescription", `{"assetID":"AVAX"}`, `{"assetID":"` + fakeAVAX.String() + `","name":"Avalanche","symbol":"AVAX","denomination":"9"}`, ""},
		{"asset by id", "avm.getAssetDescription", `{"assetID":"` + fakeAVAX.String() + `"}`, `"denomination":"9"`, ""},
		{"asset param name is case-insensitive", "avm.getAssetDescription", `{"assetId":"AVAX"}`, `"symbol":"AVAX"`, ""},
		{"asset id of a transfer", "avm.getAssetDescription", `{"assetID":"` + txIDs()[0].String() + `"}`, "", "transaction doesn't create an asset"},
		{"unknown asset id", "avm.getAssetDescription", `{"assetID":"` + idOf("nothing").String() + `"}`, "", "not found"},
		{"tx fee", "avm.getTxFee", "", `{"txFee":"1000000","createAssetTxFee":"1000000"}`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := call(t, m, tc.method, tc.params)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("got %s, %v; want error %q", got, err, tc.wantErr)
				}
				return
			}
			if err != nil || !strings.Contains(got, tc.want) {
				t.Errorf("got %s, %v\nwant it to contain %s", got, err, tc.want)
			}
		})
	}
}

// txIDs returns the fake's transaction ids in block order.
func txIDs() []avax.ID {
	f := newFake()
	var out []avax.ID
	for _, b := range f.blocks[1:] {
		blk, _ := avax.ParseStandardBlock(b)
		out = append(out, blk.Txs[0].ID())
	}
	return out
}

func TestBlocksAndTxs(t *testing.T) {
	f := newFake()
	m := Methods(fakeView())
	b1 := f.blocks[1]
	id1 := avax.Hash256(b1)
	tx := txIDs()[0]
	txBytes := f.txs[tx]
	for _, tc := range []struct {
		name, method, params string
		want, wantErr        string
	}{
		{"height", "avm.getHeight", "", `{"height":"2"}`, ""},
		{"block by height, default hex", "avm.getBlockByHeight", `{"height":"1"}`, `{"block":"` + avax.EncodeHex(b1) + `","encoding":"hex"}`, ""},
		{"block by height, number height", "avm.getBlockByHeight", `{"height":1,"encoding":"hexnc"}`, `{"block":"` + avax.EncodeHexNC(b1) + `","encoding":"hexnc"}`, ""},
		{"block by id, hexc", "avm.getBlock", `{"blockID":"` + id1.String() + `","encoding":"hexc"}`, `{"block":"` + avax.EncodeHex(b1) + `","encoding":"hexc"}`, ""},
		{"block by id, HEX in capitals", "avm.getBlock", `{"blockID":"` + id1.String() + `","encoding":"HEX"}`, `"encoding":"hex"`, ""},
		{"block json", "avm.getBlock", `{"blockID":"` + id1.String() + `","encoding":"json"}`, `"height":1,`, ""},
		{"block beyond the tip", "avm.getBlockByHeight", `{"height":"3"}`, "", "couldn't get block at height 3: not found"},
		{"unknown block", "avm.getBlock", `{"blockID":"` + idOf("none").String() + `"}`, "", "couldn't get block with id " + idOf("none").String() + ": not found"},
		{"tx hex", "avm.getTx", `{"txID":"` + tx.String() + `"}`, `{"tx":"` + avax.EncodeHex(txBytes) + `","encoding":"hex"}`, ""},
		{"tx json", "avm.getTx", `{"txID":"` + tx.String() + `","encoding":"json"}`, `"signatureIndices":[0]`, ""},
		{"tx unknown", "avm.getTx", `{"txID":"` + idOf("none").String() + `"}`, "", "not found"},
		{"tx without id", "avm.getTx", `{}`, "", "nil transaction ID"},
		{"status accepted", "avm.getTxStatus", `{"txID":"` + tx.String() + `"}`, `{"status":"Accepted"}`, ""},
		{"status unknown", "avm.getTxStatus", `{"txID":"` + idOf("none").String() + `"}`, `{"status":"Unknown"}`, ""},
		{"status without id", "avm.getTxStatus", ``, "", "nil transaction ID"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := call(t, m, tc.method, tc.params)
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("got %s, %v; want error %q", got, err, tc.wantErr)
				}
				return
			}
			if err != nil || !strings.Contains(got, tc.want) {
				t.Errorf("got %s, %v\nwant it to contain %s", got, err, tc.want)
			}
		})
	}

	t.Run("tx json shape", func(t *testing.T) {
		got, err := call(t, m, "avm.getTx", `{"txID":"`+tx.String()+`","encoding":"json"}`)
		if err != nil {
			t.Fatal(err)
		}
		var r struct {
			Tx struct {
				Unsigned struct {
					NetworkID    json.Number `json:"networkID"`
					BlockchainID string      `json:"blockchainID"`
					Outputs      []struct {
						AssetID, FxID string
						Output        struct {
							Addresses []string
							Amount    json.Number
						}
					}
					Memo string
				} `json:"unsignedTx"`
				Credentials []struct {
					Credential struct{ Signatures []string }
				}
				ID string
			}
		}
		dec := json.NewDecoder(strings.NewReader(got))
		dec.UseNumber()
		if err := dec.Decode(&r); err != nil {
			t.Fatal(err)
		}
		u := r.Tx.Unsigned
		if u.NetworkID != "12345" || u.BlockchainID != fakeX.String() || r.Tx.ID != tx.String() || u.Memo != "0x66616b65" {
			t.Errorf("got %+v", r.Tx)
		}
		bobX := avax.FormatAddress("X", "local", bob.Address())
		if len(u.Outputs) != 1 || u.Outputs[0].Output.Addresses[0] != bobX || u.Outputs[0].Output.Amount != "900" ||
			u.Outputs[0].FxID != "spdxUxVJQbX85MGxMHbKw1sHxMnSqJ3QBzDyDYEP3h6TLuxqQ" {
			t.Errorf("outputs %+v", u.Outputs)
		}
		if len(r.Tx.Credentials) != 1 || len(r.Tx.Credentials[0].Credential.Signatures[0]) != 2+2*65 {
			t.Errorf("credentials %+v", r.Tx.Credentials)
		}
	})

	t.Run("not linearized", func(t *testing.T) {
		w := fakeView()
		w.Blocks = nil
		m := Methods(w)
		for _, method := range []string{"avm.getHeight", "avm.getBlockByHeight", "avm.getBlock"} {
			if _, err := call(t, m, method, ""); err == nil || err.Error() != "chain is not linearized" {
				t.Errorf("%s: got %v", method, err)
			}
		}
	})
}

type utxoPage struct {
	NumFetched string   `json:"numFetched"`
	UTXOs      []string `json:"utxos"`
	EndIndex   struct {
		Address, UTXO string
	} `json:"endIndex"`
	SourceChain string `json:"sourceChain"`
	Encoding    string `json:"encoding"`
}

func getUTXOsPage(t *testing.T, w *View, params string) (utxoPage, error) {
	t.Helper()
	got, err := call(t, Methods(w), "avm.getUTXOs", params)
	if err != nil {
		return utxoPage{}, err
	}
	var p utxoPage
	if err := json.Unmarshal([]byte(got), &p); err != nil {
		t.Fatal(err)
	}
	return p, nil
}

func TestGetUTXOs(t *testing.T) {
	w := fakeView()
	carolX := avax.FormatAddress("X", "local", carol.Address())
	both := `"addresses":["` + aliceX + `","` + carolX + `"]`
	// alice has 5 UTXOs, carol 2; the two-owner one is shared: 6 distinct.
	const distinct = 6

	t.Run("all at once", func(t *testing.T) {
		for _, limit := range []string{``, `,"limit":0`, `,"limit":"2000"`, `,"limit":1024`} {
			p, err := getUTXOsPage(t, w, `{`+both+limit+`}`)
			if err != nil {
				t.Fatal(err)
			}
			if p.NumFetched != fmt.Sprint(distinct) || len(p.UTXOs) != distinct || p.Encoding != "hex" {
				t.Errorf("limit %q: got %s UTXOs (%d), encoding %s; want %d", limit, p.NumFetched, len(p.UTXOs), p.Encoding, distinct)
			}
			for _, s := range p.UTXOs {
				b, err := avax.DecodeHex(s)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := avax.ParseUTXO(b); err != nil {
					t.Errorf("utxo %s: %v", s, err)
				}
			}
		}
	})

	t.Run("pages from the client's zero index", func(t *testing.T) {
		seen := map[string]int{}
		start := `"startIndex":{"address":"111111111111111111116DBWJs","utxo":"11111111111111111111111111111111LpoYY"}`
		for range 10 {
			p, err := getUTXOsPage(t, w, `{`+both+`,"limit":"2",`+start+`}`)
			if err != nil {
				t.Fatal(err)
			}
			for _, u := range p.UTXOs {
				seen[u]++
			}
			if !strings.HasPrefix(p.EndIndex.Address, "X-local1") {
				t.Errorf("endIndex.address %q is not an X-Chain address", p.EndIndex.Address)
			}
			if len(p.UTXOs) < 2 {
				break
			}
			start = `"startIndex":{"address":"` + p.EndIndex.Address + `","utxo":"` + p.EndIndex.UTXO + `"}`
		}
		if len(seen) != distinct {
			t.Errorf("paged %d distinct UTXOs; want %d", len(seen), distinct)
		}
		// Only the two-owner UTXO may come twice: once for each owner's
		// part of the pages (the node guarantees no uniqueness across
		// calls).
		for u, n := range seen {
			parsed, err := avax.ParseUTXO(must(avax.DecodeHex(u)))
			if err != nil {
				t.Fatal(err)
			}
			if owners := len(parsed.Out.Owners().Addrs); n > owners {
				t.Errorf("utxo %s with %d owners seen %d times", u, owners, n)
			}
		}
	})

	t.Run("empty page", func(t *testing.T) {
		p, err := getUTXOsPage(t, w, `{"addresses":["`+avax.FormatAddress("X", "local", bob.Address())+`"]}`)
		if err != nil {
			t.Fatal(err)
		}
		if p.NumFetched != "0" || p.UTXOs == nil || len(p.UTXOs) != 0 || p.EndIndex.Address != avax.FormatAddress("X", "local", bob.Address()) ||
			p.EndIndex.UTXO != avax.EmptyID.String() {
			t.Errorf("got %+v", p)
		}
	})

	t.Run("atomic from P", func(t *testing.T) {
		for _, src := range []string{"P", "platform", fakeP.String()} {
			p, err := getUTXOsPage(t, w, `{"addresses":["`+aliceX+`"],"sourceChain":"`+src+`"}`)
			if err != nil {
				t.Fatal(err)
			}
			// avalanchego v1.14.2's GetUTXOsReply has no sourceChain: the
			// answer does not echo it (a real node's answer showed it).
			if p.NumFetched != "1" || p.SourceChain != "" {
				t.Errorf("%s: got %+v", src, p)
			}
		}
		p, err := getUTXOsPage(t, w, `{"addresses":["`+aliceX+`"],"sourceChain":"C"}`)
		if err != nil || p.NumFetched != "0" {
			t.Errorf("from C: got %+v, %v", p, err)
		}
	})

	t.Run("hexnc", func(t *testing.T) {
		p, err := getUTXOsPage(t, w, `{"addresses":["`+aliceX+`"],"encoding":"hexnc","limit":1}`)
		if err != nil {
			t.Fatal(err)
		}
		if p.Encoding != "hexnc" || !strings.HasPrefix(p.UTXOs[0], "0x0000") {
			t.Errorf("got %+v", p)
		}
		if _, err := avax.ParseUTXO(must(avax.DecodeHex(avax.EncodeHex(mustHexNC(p.UTXOs[0]))))); err != nil {
			t.Error(err)
		}
	})

	for _, tc := range []struct{ name, params, wantErr string }{
		{"no addresses", `{}`, "no addresses provided"},
		{"too many addresses", `{"addresses":[` + strings.Repeat(`"`+aliceX+`",`, 1024) + `"` + aliceX + `"]}`, "number of addresses given, 1025, exceeds maximum, 1024"},
		{"unknown source chain", `{"addresses":["` + aliceX + `"],"sourceChain":"Q"}`, `problem parsing source chainID "Q": there is no ID with alias: Q`},
		{"json encoding", `{"addresses":["` + aliceX + `"],"encoding":"json"}`, "unsupported encoding in method"},
		{"bad start utxo", `{"addresses":["` + aliceX + `"],"startIndex":{"address":"` + aliceX + `","utxo":"nope"}}`, "couldn't parse start index utxo"},
		{"bad start address", `{"addresses":["` + aliceX + `"],"startIndex":{"address":"X-nope","utxo":""}}`, `couldn't parse start index address "X-nope"`},
		{"bad address", `{"addresses":["nope"]}`, `couldn't parse address "nope"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := getUTXOsPage(t, w, tc.params); err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("got %v; want %q", err, tc.wantErr)
			}
		})
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func mustHexNC(s string) []byte {
	var b []byte
	if _, err := fmt.Sscanf(strings.TrimPrefix(s, "0x"), "%x", &b); err != nil {
		panic(err)
	}
	return b
}
