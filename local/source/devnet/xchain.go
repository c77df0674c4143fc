package devnet

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/avaedge/avaedge/local/avax"
)

// Vertex is a pre-Cortina X-chain vertex with its bytes.
type Vertex struct {
	ID      avax.ID
	Parents []avax.ID
	Height  uint64
	Index   int // position among all vertices, in acceptance order
	Time    int64
	Txs     []avax.ID
	Raw     *avax.Vertex
	Bytes   []byte
}

// XTx is an X-chain BaseTx with its bytes and where it was accepted.
type XTx struct {
	ID    avax.ID
	Tx    *avax.Tx
	Bytes []byte
	Time  int64
	// Container is the vertex or block that holds the transaction; Height
	// its height; InVertex says which of the two it is.
	Container avax.ID
	Height    uint64
	InVertex  bool
}

// Asset is an X-chain asset's metadata.
type Asset struct {
	ID           avax.ID
	Name, Symbol string
	Denomination uint8
}

// Cortina returns when the X-chain moved from vertices to blocks.
func (w *World) Cortina() int64 { return w.genesis + int64(w.cfg.Days/3)*day }

// xWallet tracks unspent X UTXOs per address while transactions are made.
type xWallet struct {
	w       *World
	r       *rand.Rand
	unspent map[avax.ShortID][]*UTXO
}

func (x *xWallet) total(a avax.ShortID) uint64 {
	var t uint64
	for _, u := range x.unspent[a] {
		t += u.Out.Amount()
	}
	return t
}

// transfer makes, signs and applies one BaseTx at time t.
func (x *xWallet) transfer(t int64, height uint64) *XTx {
	w := x.w
	var senders []avax.ShortID
	for _, a := range w.addrs {
		if x.total(a) > 20*nAVAX {
			senders = append(senders, a)
		}
	}
	from := senders[x.r.IntN(len(senders))]
	to := w.addrs[x.r.IntN(len(w.addrs))]
	for to == from {
		to = w.addrs[x.r.IntN(len(w.addrs))]
	}
	limit := min(x.total(from)/4, 5000*nAVAX)
	amount := nAVAX + x.r.Uint64N(limit-nAVAX)
	var (
		ins   []avax.TransferableInput
		spent []*UTXO
		sum   uint64
	)
	for _, u := range x.unspent[from] {
		if sum >= amount+txFee {
			break
		}
		ins = append(ins, avax.TransferableInput{TxID: u.TxID, OutputIndex: u.OutputIndex, AssetID: u.AssetID, Amount: u.Out.Amount(), SigIndices: []uint32{0}})
		spent = append(spent, u)
		sum += u.Out.Amount()
	}
	outs := []avax.TransferableOutput{{AssetID: AVAXAssetID, Out: *transferOut(amount, to)}}
	if rest := sum - amount - txFee; rest > 0 {
		outs = append(outs, avax.TransferableOutput{AssetID: AVAXAssetID, Out: *transferOut(rest, from)})
	}
	tx := &avax.Tx{Unsigned: avax.BaseTx{NetworkID: NetworkID, BlockchainID: XChainID, Outs: outs, Ins: ins,
		Memo: []byte(fmt.Sprintf("avaedge devnet %d", height))}}
	tx.Unsigned.Sort()
	hash := sha256.Sum256(tx.Unsigned.UnsignedBytes())
	key := w.keyOf(from)
	for range tx.Unsigned.Ins {
		tx.Creds = append(tx.Creds, [][avax.SigLen]byte{key.SignHash(hash[:])})
	}
	b := tx.Bytes()
	xt := &XTx{ID: avax.Hash256(b), Tx: tx, Bytes: b, Time: t, Height: height}
	for _, u := range spent {
		u.spend(xt.ID, t, height)
	}
	x.unspent[from] = slices.DeleteFunc(x.unspent[from], func(u *UTXO) bool { return u.Spent })
	for i, o := range tx.Unsigned.Outs {
		out := o.Out
		u := &UTXO{UTXO: avax.UTXO{TxID: xt.ID, OutputIndex: uint32(i), AssetID: o.AssetID, Out: &out},
			ChainID: XChainID, Created: t, CreatedHeight: height}
		w.xUTXOs = append(w.xUTXOs, u)
		owner := out.Addrs[0]
		x.unspent[owner] = append(x.unspent[owner], u)
	}
	w.xTxs[xt.ID] = xt
	w.xTxList = append(w.xTxList, xt)
	return xt
}

func (w *World) buildXChain() error {
	x := &xWallet{w: w, r: w.rng("xchain"), unspent: map[avax.ShortID][]*UTXO{}}
	G, cortina := w.genesis, w.Cortina()
	for i, a := range w.addrs {
		amt := 10_000 * nAVAX
		if i == 0 {
			amt = 100_000_000 * nAVAX
		}
		u := &UTXO{UTXO: avax.UTXO{TxID: AVAXAssetID, OutputIndex: uint32(i), AssetID: AVAXAssetID, Out: transferOut(amt, a)}, ChainID: XChainID, Created: G}
		w.xUTXOs = append(w.xUTXOs, u)
		x.unspent[a] = append(x.unspent[a], u)
	}

	// Vertices, heights 0..V-1, one or two per height.
	V := max(10, w.cfg.Days/3)
	var prev []avax.ID
	for h := range V {
		t := G + int64(h)*(cortina-G)/int64(V)
		k := 1
		if h > 0 {
			k = 1 + x.r.IntN(2)
		}
		var ids []avax.ID
		for range k {
			var txs []*XTx
			if h > 0 {
				for range 1 + x.r.IntN(3) {
					txs = append(txs, x.transfer(t, uint64(h)))
				}
			}
			slices.SortFunc(txs, func(a, b *XTx) int { return bytes.Compare(a.ID[:], b.ID[:]) })
			raw := &avax.Vertex{ChainID: XChainID, Height: uint64(h), Parents: prev}
			v := &Vertex{Parents: prev, Height: uint64(h), Index: len(w.vertices), Time: t, Raw: raw}
			for _, tx := range txs {
				raw.Txs = append(raw.Txs, tx.Bytes)
				v.Txs = append(v.Txs, tx.ID)
			}
			v.Bytes = raw.Bytes()
			v.ID = avax.Hash256(v.Bytes)
			for _, tx := range txs {
				tx.Container, tx.InVertex = v.ID, true
			}
			w.vertices = append(w.vertices, v)
			ids = append(ids, v.ID)
		}
		slices.SortFunc(ids, func(a, b avax.ID) int { return bytes.Compare(a[:], b[:]) })
		prev = ids
	}

	// Post-Cortina blocks every 12 hours until now.
	parent := w.vertices[len(w.vertices)-1].ID
	var prevProposer avax.ID
	for h, t := uint64(0), cortina; t <= w.now; h, t = h+1, t+12*hour {
		var txs []*XTx
		if h > 0 {
			for range 1 + x.r.IntN(2) {
				txs = append(txs, x.transfer(t, h))
			}
		}
		raw := &avax.StandardBlock{Parent: parent, Height: h, Time: uint64(t)}
		for _, tx := range txs {
			raw.Txs = append(raw.Txs, *tx.Tx)
		}
		b := &Block{Parent: parent, Height: h, Time: t, Type: "StandardBlock", Raw: raw, Bytes: raw.Bytes()}
		b.ID = avax.Hash256(b.Bytes)
		b.Size = len(b.Bytes)
		for _, tx := range txs {
			b.Txs = append(b.Txs, tx.ID)
			tx.Container = b.ID
		}
		ph := w.pHeightAt(t)
		if set := w.activeAt(ph); len(set) > 0 {
			b.HasProposer = true
			b.Proposer = set[x.r.IntN(len(set))].NodeID
			b.ProposerID = w.deriveID("xproposer", fmt.Sprint(h))
			b.ProposerParentID = prevProposer
			if prevProposer.IsEmpty() {
				b.ProposerParentID = parent
			}
			b.ProposerPChainHeight = ph
			prevProposer = b.ProposerID
		}
		w.xBlocks = append(w.xBlocks, b)
		parent = b.ID
	}
	return nil
}

// pHeightAt returns the height of the last P block at or before t.
func (w *World) pHeightAt(t int64) uint64 {
	var h uint64
	for _, b := range w.pBlocks {
		if b.Time > t {
			break
		}
		h = b.Height
	}
	return h
}

// Vertices returns the X-chain vertices in acceptance order. The slice is
// shared: do not modify it.
func (w *World) Vertices() []*Vertex { return w.vertices }

// VerticesAt returns the vertices at a height.
func (w *World) VerticesAt(height uint64) []*Vertex {
	var out []*Vertex
	for _, v := range w.vertices {
		if v.Height == height {
			out = append(out, v)
		}
	}
	return out
}

// XBlocks returns the post-Cortina X-chain blocks by height. The slice is
// shared: do not modify it.
func (w *World) XBlocks() []*Block { return w.xBlocks }

// XBlock returns the X block at height.
func (w *World) XBlock(height uint64) (*Block, bool) {
	if height >= uint64(len(w.xBlocks)) {
		return nil, false
	}
	return w.xBlocks[height], true
}

// XTx returns the X-chain transaction with id.
func (w *World) XTx(id avax.ID) (*XTx, bool) { tx, ok := w.xTxs[id]; return tx, ok }

// XTxs returns every X-chain transaction in acceptance order.
func (w *World) XTxs() []*XTx { return w.xTxList }

// XUTXOs returns every X-chain UTXO, spent or not, in creation order. The
// slice is shared: do not modify it.
func (w *World) XUTXOs() []*UTXO { return w.xUTXOs }

// UTXOs returns the UTXOs on chain (PChainID or XChainID) that any of addrs
// may spend, in creation order; spent ones only with includeSpent.
func (w *World) UTXOs(chain avax.ID, addrs []avax.ShortID, includeSpent bool) []*UTXO {
	var src []*UTXO
	switch chain {
	case PChainID:
		src = w.pUTXOs
	case XChainID:
		src = w.xUTXOs
	}
	var out []*UTXO
	for _, u := range src {
		if u.Spent && !includeSpent {
			continue
		}
		if slices.ContainsFunc(u.Out.Owners().Addrs, func(a avax.ShortID) bool { return slices.Contains(addrs, a) }) {
			out = append(out, u)
		}
	}
	return out
}

// Balance returns the sum of the unspent UTXOs of assetID on chain that addr
// owns: what avm.getBalance reports.
func (w *World) Balance(chain avax.ID, addr avax.ShortID, assetID avax.ID) uint64 {
	var t uint64
	for _, u := range w.UTXOs(chain, []avax.ShortID{addr}, false) {
		if u.AssetID == assetID {
			t += u.Out.Amount()
		}
	}
	return t
}

// Asset returns the metadata of an asset; only AVAX exists.
func (w *World) Asset(id avax.ID) (Asset, bool) {
	if id != AVAXAssetID {
		return Asset{}, false
	}
	return Asset{ID: AVAXAssetID, Name: AVAXName, Symbol: AVAXSymbol, Denomination: AVAXDenomination}, true
}
