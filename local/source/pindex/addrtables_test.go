package pindex

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"

	"github.com/avaedge/avaedge/avanet"
	"github.com/avaedge/avaedge/local/vocab/avax"
)

// addrWorld writes a random P/X history through the index's write path:
// transfers on each chain (outputs to one or two of a few addresses),
// exports from X to P and their imports, one import stored before its
// export (the P-avanet.Chain follower ahead of the X-avanet.Chain's).
type addrWorld struct {
	t       testing.TB
	ix      *Index
	net     avanet.Network
	r       *rand.Rand
	addrs   []avax.ShortID
	heights map[avanet.Chain]uint64
	unspent map[avanet.Chain][]addrUTXO // spendable by a BaseTx or ExportTx
	pending []addrUTXO                  // exported to P, not imported yet
	k       int
}

type addrUTXO struct {
	tx     string
	index  uint32
	amount uint64
}

func (w *addrWorld) id(kind string, n int) string {
	return avax.Hash256(fmt.Appendf(nil, "addr world %s %d", kind, n)).String()
}

func (w *addrWorld) out(c avanet.Chain, amount uint64) map[string]any {
	n := 1 + w.r.IntN(2)
	var as []string
	for _, i := range w.r.Perm(len(w.addrs))[:n] {
		as = append(as, avax.FormatAddress(string(c), w.net.HRP, w.addrs[i]))
	}
	return map[string]any{"assetID": w.net.AVAXAssetID, "fxID": avax.SECP256K1FxID.String(),
		"output": map[string]any{"addresses": as, "amount": amount, "locktime": 0, "threshold": 1}}
}

func (w *addrWorld) in(u addrUTXO) map[string]any {
	return map[string]any{"txID": u.tx, "outputIndex": u.index, "assetID": w.net.AVAXAssetID, "fxID": avax.SECP256K1FxID.String(),
		"input": map[string]any{"amount": u.amount, "signatureIndices": []int{0}}}
}

// block makes chain's next block of one tx.
func (w *addrWorld) block(c avanet.Chain, tx map[string]any) *RawBlock {
	w.heights[c]++
	h := w.heights[c]
	raw, err := json.Marshal(map[string]any{"id": w.id(string(c)+" block", int(h)), "parentID": w.id(string(c)+" block", int(h-1)),
		"height": h, "time": 1000 + h, "txs": []any{tx}})
	if err != nil {
		w.t.Fatal(err)
	}
	return &RawBlock{Height: h, JSON: raw, Type: "BanffStandardBlock", Size: 100}
}

func (w *addrWorld) append(c avanet.Chain, b *RawBlock) {
	if err := w.ix.Append(context.Background(), c, []*RawBlock{b}); err != nil {
		w.t.Fatal(err)
	}
}

func (w *addrWorld) take(c avanet.Chain) addrUTXO {
	i := w.r.IntN(len(w.unspent[c]))
	u := w.unspent[c][i]
	w.unspent[c] = slices.Delete(w.unspent[c], i, i+1)
	return u
}

func (w *addrWorld) chainID(c avanet.Chain) string {
	if c == avanet.ChainX {
		return w.net.XChainID
	}
	return avax.EmptyID.String()
}

// transfer spends one UTXO of c into two outputs.
func (w *addrWorld) transfer(c avanet.Chain) (string, map[string]any) {
	u := w.take(c)
	w.k++
	id := w.id("transfer", w.k)
	paid := u.amount / 3
	w.unspent[c] = append(w.unspent[c], addrUTXO{id, 0, paid}, addrUTXO{id, 1, u.amount - paid - 1})
	return id, map[string]any{"id": id, "unsignedTx": map[string]any{"networkID": w.net.ID, "blockchainID": w.chainID(c),
		"outputs": []any{w.out(c, paid), w.out(c, u.amount-paid-1)}, "inputs": []any{w.in(u)}, "memo": "0x"}}
}

// export spends an X UTXO into one output exported to P.
func (w *addrWorld) export() (addrUTXO, map[string]any) {
	u := w.take(avanet.ChainX)
	w.k++
	id := w.id("export", w.k)
	e := addrUTXO{id, 0, u.amount - 1}
	return e, map[string]any{"id": id, "unsignedTx": map[string]any{"networkID": w.net.ID, "blockchainID": w.net.XChainID,
		"outputs": []any{}, "inputs": []any{w.in(u)}, "memo": "0x", "destinationChain": avax.EmptyID.String(),
		"exportedOutputs": []any{w.out(avanet.ChainP, e.amount)}}}
}

// importTx imports e on P into one P output.
func (w *addrWorld) importTx(e addrUTXO) map[string]any {
	w.k++
	id := w.id("import", w.k)
	w.unspent[avanet.ChainP] = append(w.unspent[avanet.ChainP], addrUTXO{id, 0, e.amount - 1})
	return map[string]any{"id": id, "unsignedTx": map[string]any{"networkID": w.net.ID, "blockchainID": avax.EmptyID.String(),
		"outputs": []any{w.out(avanet.ChainP, e.amount-1)}, "inputs": []any{}, "memo": "0x", "sourceChain": w.net.XChainID,
		"importedInputs": []any{w.in(e)}}}
}

func (w *addrWorld) genesis() {
	for _, c := range []avanet.Chain{avanet.ChainX, avanet.ChainP} {
		var outs []any
		for range 6 {
			outs = append(outs, w.out(c, 1_000_000_000))
		}
		id := w.id("genesis", len(c))
		var tx map[string]any
		if c == avanet.ChainX {
			id = w.net.AVAXAssetID
			var inner []any
			for _, o := range outs {
				inner = append(inner, o.(map[string]any)["output"])
			}
			tx = map[string]any{"id": id, "unsignedTx": map[string]any{"networkID": w.net.ID, "blockchainID": w.net.XChainID, "outputs": []any{},
				"inputs": []any{}, "memo": "0x", "name": "Avalanche", "symbol": "AVAX", "denomination": 9,
				"initialStates": []any{map[string]any{"fxIndex": 0, "fxID": avax.SECP256K1FxID.String(), "outputs": inner}}}}
		} else {
			tx = map[string]any{"id": id, "unsignedTx": map[string]any{"networkID": w.net.ID, "blockchainID": avax.EmptyID.String(),
				"outputs": outs, "inputs": []any{}, "memo": "0x"}}
		}
		for i := range outs {
			w.unspent[c] = append(w.unspent[c], addrUTXO{id, uint32(i), 1_000_000_000})
		}
		raw, _ := json.Marshal(tx)
		b0, _ := json.Marshal(map[string]any{"id": w.id(string(c)+" block", 0), "parentID": avax.EmptyID.String(), "height": 0, "time": 1000, "txs": []any{}})
		w.append(c, &RawBlock{JSON: b0, Genesis: []json.RawMessage{raw}, Type: "BanffStandardBlock", Size: 100})
	}
}

// steps writes n random transactions.
func (w *addrWorld) steps(n int) {
	for range n {
		switch k := w.r.IntN(10); {
		case k < 4:
			_, tx := w.transfer(avanet.ChainX)
			w.append(avanet.ChainX, w.block(avanet.ChainX, tx))
		case k < 7:
			_, tx := w.transfer(avanet.ChainP)
			w.append(avanet.ChainP, w.block(avanet.ChainP, tx))
		case k < 9 || len(w.pending) == 0:
			e, tx := w.export()
			w.pending = append(w.pending, e)
			w.append(avanet.ChainX, w.block(avanet.ChainX, tx))
		default:
			i := w.r.IntN(len(w.pending))
			e := w.pending[i]
			w.pending = slices.Delete(w.pending, i, i+1)
			w.append(avanet.ChainP, w.block(avanet.ChainP, w.importTx(e)))
		}
	}
}

// checkAddressTables compares what the address tables answer with the
// UTXO and spend rows they stand for: an address's txs (those that made or
// spent a UTXO it may spend, newest first) and its unspent UTXOs.
func checkAddressTables(t *testing.T, ix *Index, addrs []avax.ShortID, when string) {
	t.Helper()
	ctx := context.Background()
	col := func(q string, args ...any) []string {
		rows, err := sqliteOf(ix).r.Query(q, args...)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		out := []string{}
		for rows.Next() {
			var s string
			if err := rows.Scan(&s); err != nil {
				t.Fatal(err)
			}
			out = append(out, s)
		}
		return out
	}
	for _, c := range []avanet.Chain{avanet.ChainP, avanet.ChainX} {
		for _, a := range addrs {
			want := col(`SELECT t.id FROM txs t WHERE t.chain=? AND t.id IN (
				SELECT COALESCE(u.emitted_by, u.tx) FROM utxos u JOIN utxo_addrs a ON a.utxo = u.id WHERE a.addr=?
				UNION SELECT s.tx FROM spends s JOIN utxo_addrs a ON a.utxo = s.utxo WHERE a.addr=?) ORDER BY t.height DESC, t.idx DESC`,
				string(c), a.String(), a.String())
			if got := txIDs(t, ix, c, a); !slices.Equal(got, want) {
				t.Fatalf("%s: %s's %s txs\n got %v\nwant %v", when, a, c, got, want)
			}
			if len(want) > 3 {
				first, err := ix.Txs(ctx, c, TxFilter{Addrs: []avax.ShortID{a}, BlockRange: BlockRange{Limit: 2}})
				if err != nil || len(first) != 2 {
					t.Fatalf("%s: %s's %s txs, first page of two: %v, %v", when, a, c, first, err)
				}
				after := first[1].Pos()
				page, err := ix.Txs(ctx, c, TxFilter{Addrs: []avax.ShortID{a}, BlockRange: BlockRange{Limit: 2, After: &after}})
				if err != nil || len(page) != 2 || page[0].ID != want[2] || page[1].ID != want[3] {
					t.Fatalf("%s: %s's %s txs, second page of two: %v, %v; want %v", when, a, c, page, err, want[2:4])
				}
			}
			want = col(`SELECT a.utxo FROM utxo_addrs a LEFT JOIN spends s ON s.utxo = a.utxo
				WHERE a.addr=? AND a.chain=? AND s.utxo IS NULL ORDER BY a.utxo`, a.String(), string(c))
			us, err := ix.UTXOs(ctx, c, []avax.ShortID{a}, false)
			if err != nil {
				t.Fatal(err)
			}
			got := []string{}
			for _, u := range us {
				got = append(got, u.ID)
			}
			slices.Sort(got)
			if !slices.Equal(got, want) {
				t.Fatalf("%s: %s's unspent %s UTXOs\n got %v\nwant %v", when, a, c, got, want)
			}
			// The table itself, which UTXOs reads (and checks again).
			if rows := col(`SELECT utxo FROM utxo_unspent WHERE addr=? AND chain=? ORDER BY utxo`, a.String(), string(c)); !slices.Equal(rows, want) {
				t.Fatalf("%s: %s's utxo_unspent rows on %s\n got %v\nwant %v", when, a, c, rows, want)
			}
		}
		// Two addresses: each tx once.
		two := addrs[:2]
		want := col(`SELECT t.id FROM txs t WHERE t.chain=? AND t.id IN (
			SELECT COALESCE(u.emitted_by, u.tx) FROM utxos u JOIN utxo_addrs a ON a.utxo = u.id WHERE a.addr IN (?,?)
			UNION SELECT s.tx FROM spends s JOIN utxo_addrs a ON a.utxo = s.utxo WHERE a.addr IN (?,?)) ORDER BY t.height DESC, t.idx DESC`,
			string(c), two[0].String(), two[1].String(), two[0].String(), two[1].String())
		if got := txIDs(t, ix, c, two...); !slices.Equal(got, want) {
			t.Fatalf("%s: two addresses' %s txs\n got %v\nwant %v", when, c, got, want)
		}
	}
}

// txIDs lists the ids of chain's txs of addrs, newest first.
func txIDs(t *testing.T, ix *Index, chain avanet.Chain, addrs ...avax.ShortID) []string {
	t.Helper()
	txs, err := ix.Txs(context.Background(), chain, TxFilter{Addrs: addrs})
	if err != nil {
		t.Fatal(err)
	}
	ids := []string{}
	for _, tx := range txs {
		ids = append(ids, tx.ID)
	}
	return ids
}

// TestAddressTables: the address tables the write path keeps (addr_txs,
// utxo_unspent) answer exactly what the UTXO and spend rows say, after a
// random history with cross-chain transfers, after an import stored before
// its export, after a rollback of either chain, and in a store of the
// previous version, which they are filled in at open.
func TestAddressTables(t *testing.T) {
	ctx := context.Background()
	net := avanet.Network{ID: 12345, Name: "local", HRP: "local", XChainID: fakeX.String(), CChainID: fakeC.String(), AVAXAssetID: fakeAVAX.String()}
	path := filepath.Join(t.TempDir(), "pindex.db")
	ix, err := Open(ctx, Options{Network: &net, Path: path})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { ix.Close() }()
	w := &addrWorld{t: t, ix: ix, net: net, r: rand.New(rand.NewPCG(3, 30)), heights: map[avanet.Chain]uint64{}, unspent: map[avanet.Chain][]addrUTXO{}}
	for i := range 5 {
		w.addrs = append(w.addrs, avax.ShortID{0xad, byte(i)})
	}
	w.genesis()
	w.steps(300)
	checkAddressTables(t, ix, w.addrs, "after 300 txs")

	// The P-avanet.Chain imports an export the X-avanet.Chain's block has not brought
	// yet.
	e, export := w.export()
	xb := w.block(avanet.ChainX, export)
	w.append(avanet.ChainP, w.block(avanet.ChainP, w.importTx(e)))
	w.append(avanet.ChainX, xb)
	checkAddressTables(t, ix, w.addrs, "after an import stored before its export")

	// Rollbacks: P's spends above its middle height are undone, so the
	// X-avanet.Chain UTXOs they imported are unspent again; then X's (whose
	// exports P's remaining blocks did not import, as a node's would not).
	hp := int64(w.heights[avanet.ChainP] / 2)
	if err := ix.st.Rollback(ctx, net.AVAXAssetID, avanet.ChainP, hp); err != nil {
		t.Fatal(err)
	}
	checkAddressTables(t, ix, w.addrs, "after a P-avanet.Chain rollback")
	var hx int64
	if err := sqliteOf(ix).r.QueryRow(`SELECT COALESCE(MAX(u.height), 0) FROM spends s JOIN utxos u ON u.id = s.utxo WHERE s.chain='P' AND u.created_on='X'`).
		Scan(&hx); err != nil {
		t.Fatal(err)
	}
	if err := ix.st.Rollback(ctx, net.AVAXAssetID, avanet.ChainX, max(hx, int64(w.heights[avanet.ChainX])-20)); err != nil {
		t.Fatal(err)
	}
	checkAddressTables(t, ix, w.addrs, "after an X-avanet.Chain rollback")

	// A store of version 2: no address tables; opening it fills them.
	var n int
	if err := sqliteOf(ix).r.QueryRow(`SELECT COUNT(*) FROM addr_txs`).Scan(&n); err != nil || n < 100 {
		t.Fatalf("addr_txs has %d rows, %v", n, err)
	}
	ix.Close()
	st, err := openSQLite(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.w.Exec(`DELETE FROM addr_txs; DELETE FROM utxo_unspent; UPDATE meta SET value='2' WHERE key='schema'`); err != nil {
		t.Fatal(err)
	}
	st.Close()
	if ix, err = Open(ctx, Options{Network: &net, Path: path}); err != nil {
		t.Fatal(err)
	}
	var schema string
	if err := sqliteOf(ix).r.QueryRow(`SELECT value FROM meta WHERE key='schema'`).Scan(&schema); err != nil || schema != "3" {
		t.Fatalf("schema %q, %v", schema, err)
	}
	checkAddressTables(t, ix, w.addrs, "after the upgrade from version 2")
	if err := sqliteOf(ix).r.QueryRow(`SELECT COUNT(*) FROM addr_txs`).Scan(&n); err != nil || n < 100 {
		t.Fatalf("addr_txs has %d rows after the upgrade, %v", n, err)
	}
}

// sqliteOf returns ix's SQLite store, for reading it directly.
func sqliteOf(ix *Index) *sqliteStore { return ix.st.(*sqliteStore) }

// TestPos: a place packs its height and its index, the genesis
// transactions' negative ones included, and reads them back.
func TestPos(t *testing.T) {
	for _, c := range []struct {
		h uint64
		i int
	}{{0, -3}, {0, 0}, {7, 12}, {1<<40 - 1, 1<<23 - 1}, {5, -1 << 23}} {
		p := PosOf(c.h, c.i)
		if p.Height() != c.h || p.Index() != c.i {
			t.Fatalf("PosOf(%d, %d) reads back %d, %d", c.h, c.i, p.Height(), p.Index())
		}
	}
	if !(PosOf(1, -1) < PosOf(1, 0) && PosOf(1, 5) < PosOf(2, -4)) {
		t.Fatal("places do not sort as the listings do")
	}
}
