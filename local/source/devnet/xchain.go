package devnet

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/avaedge/avaedge/avanet"
	"github.com/avaedge/avaedge/local/source/pindex"
	"github.com/avaedge/avaedge/local/vocab/avax"
)

// XTx is an X-Chain transaction with its bytes and the block that holds it.
type XTx struct {
	ID     avax.ID
	Tx     *avax.Tx
	Bytes  []byte
	Time   int64
	Block  avax.ID
	Height uint64
}

// The devnet's own X-Chain asset, created by ewoq in block 2.
const (
	goldName         = "Devnet Gold"
	goldSymbol       = "DGLD"
	goldDenomination = 2
)

// Amounts of the atomic history: each address moves part of its X-Chain
// genesis allocation to the P-Chain in block 1; ewoq sends some AVAX to the
// C-Chain's shared memory, and some back from the P-Chain.
const (
	ewoqToP   = 10_000_000 * nAVAX
	otherToP  = 1_000_000 * nAVAX
	ewoqToC   = 1_000 * nAVAX
	ewoqFromP = 5_000 * nAVAX
)

// xWallet holds the unspent X-Chain UTXOs of the world's addresses while the
// history is made, oldest first.
type xWallet struct {
	w       *World
	r       *rand.Rand
	unspent map[avax.ShortID][]*avax.UTXO
}

func (x *xWallet) total(a avax.ShortID, asset avax.ID) uint64 {
	var t uint64
	for _, u := range x.unspent[a] {
		if u.AssetID == asset {
			t += u.Out.Amount()
		}
	}
	return t
}

// take spends a's UTXOs of asset, oldest first, until they cover amount,
// and returns the inputs and their sum.
func (x *xWallet) take(a avax.ShortID, asset avax.ID, amount uint64) ([]avax.TransferableInput, uint64, error) {
	var (
		ins []avax.TransferableInput
		sum uint64
	)
	kept := x.unspent[a][:0]
	for _, u := range x.unspent[a] {
		if u.AssetID != asset || sum >= amount {
			kept = append(kept, u)
			continue
		}
		ins = append(ins, avax.TransferableInput{TxID: u.TxID, OutputIndex: u.OutputIndex, AssetID: u.AssetID, Amount: u.Out.Amount(), SigIndices: []uint32{0}})
		sum += u.Out.Amount()
	}
	x.unspent[a] = kept
	if sum < amount {
		return nil, 0, fmt.Errorf("devnet: %s holds %d of %s on the X-Chain; a transaction needs %d", a, sum, asset, amount)
	}
	return ins, sum, nil
}

// xSpend is what one address pays into an X-Chain transaction.
type xSpend struct {
	asset  avax.ID
	amount uint64 // besides the fee, which AVAX pays
}

// issue makes, signs and records a transaction from `from`, which pays each
// of spends plus the fee and gets its change back; outs go to others, ext
// extends the BaseTx. A CreateAssetTx's holders and an ImportTx's inputs
// are in ext.
func (x *xWallet) issue(h *history, b *xBlock, from avax.ShortID, memo string, spends []xSpend, outs []avax.TransferableOutput, ext func(u *avax.BaseTx)) (*XTx, error) {
	w := x.w
	need := map[avax.ID]uint64{AVAXAssetID: txFee}
	var assets []avax.ID
	for _, s := range spends {
		need[s.asset] += s.amount
	}
	for id := range need {
		assets = append(assets, id)
	}
	slices.SortFunc(assets, func(a, b avax.ID) int { return bytes.Compare(a[:], b[:]) })
	u := avax.BaseTx{NetworkID: NetworkID, BlockchainID: XChainID, Memo: []byte(memo), Outs: outs}
	if ext != nil {
		ext(&u)
	}
	// An import pays its fee from what it imports.
	if u.Import != nil {
		need[AVAXAssetID] -= txFee
	}
	for _, asset := range assets {
		if need[asset] == 0 {
			continue
		}
		ins, sum, err := x.take(from, asset, need[asset])
		if err != nil {
			return nil, err
		}
		u.Ins = append(u.Ins, ins...)
		if rest := sum - need[asset]; rest > 0 {
			u.Outs = append(u.Outs, avax.TransferableOutput{AssetID: asset, Out: *transferOut(rest, from)})
		}
	}
	u.Sort()
	tx := &avax.Tx{Unsigned: u}
	hash := sha256.Sum256(tx.Unsigned.UnsignedBytes())
	key := w.keyOf(from)
	for range tx.Unsigned.Inputs() {
		tx.Creds = append(tx.Creds, [][avax.SigLen]byte{key.SignHash(hash[:])})
	}
	raw := tx.Bytes()
	xt := &XTx{ID: avax.Hash256(raw), Tx: tx, Bytes: raw, Time: b.time, Height: b.height}
	for i, o := range tx.Unsigned.Outs {
		out := o.Out
		x.receive(&avax.UTXO{TxID: xt.ID, OutputIndex: uint32(i), AssetID: o.AssetID, Out: &out})
	}
	next := uint32(len(tx.Unsigned.Outs))
	if a := tx.Unsigned.Asset; a != nil {
		for i := range a.Holders {
			out := a.Holders[i]
			x.receive(&avax.UTXO{TxID: xt.ID, OutputIndex: next + uint32(i), AssetID: xt.ID, Out: &out})
		}
	}
	if e := tx.Unsigned.Export; e != nil && e.DestinationChain == PChainID {
		for i, o := range e.Outs {
			out := o.Out
			h.toP[out.Addrs[0]] = append(h.toP[out.Addrs[0]], &avax.UTXO{TxID: xt.ID, OutputIndex: next + uint32(i), AssetID: o.AssetID, Out: &out})
		}
	}
	b.txs = append(b.txs, xt)
	return xt, nil
}

// receive adds u to its owner's unspent UTXOs.
func (x *xWallet) receive(u *avax.UTXO) {
	owner := u.Out.Owners().Addrs[0]
	x.unspent[owner] = append(x.unspent[owner], u)
}

// transfer sends a random amount of AVAX between two random addresses.
func (x *xWallet) transfer(h *history, b *xBlock) error {
	w := x.w
	var senders []avax.ShortID
	for _, a := range w.addrs {
		if x.total(a, AVAXAssetID) > 20*nAVAX {
			senders = append(senders, a)
		}
	}
	from := senders[x.r.IntN(len(senders))]
	to := w.addrs[x.r.IntN(len(w.addrs))]
	for to == from {
		to = w.addrs[x.r.IntN(len(w.addrs))]
	}
	limit := min(x.total(from, AVAXAssetID)/4, 5000*nAVAX)
	amount := nAVAX + x.r.Uint64N(limit-nAVAX)
	_, err := x.issue(h, b, from, fmt.Sprintf("avaedge devnet %d", b.height), []xSpend{{AVAXAssetID, amount}},
		[]avax.TransferableOutput{{AssetID: AVAXAssetID, Out: *transferOut(amount, to)}}, nil)
	return err
}

// xBlock collects one X-Chain block's transactions.
type xBlock struct {
	height uint64
	time   int64
	txs    []*XTx
}

// xGenesisAllocation is each address's AVAX at the X-Chain's genesis.
func (w *World) xGenesisAllocation(i int) uint64 {
	if i == 0 {
		return 100_000_000 * nAVAX
	}
	return 2_000_000 * nAVAX
}

// buildXChain makes the X-Chain: linear from its genesis, as avalanchego
// v1.14 starts a local network, a block every 12 hours until now. Block 1
// moves part of every address's allocation to the P-Chain, block 2 creates
// Devnet Gold, block 3 transfers some, block 4 exports AVAX to the
// C-Chain, the block after the P-Chain's export to the X-Chain imports it;
// every other block carries one or two AVAX transfers.
func (h *history) buildXChain() error {
	w := h.w
	x := &xWallet{w: w, r: w.rng("xchain"), unspent: map[avax.ShortID][]*avax.UTXO{}}
	js := avax.XJSON{Alias: "X", HRP: avanet.Local.HRP}
	genesisJSON, err := x.genesis(js)
	if err != nil {
		return err
	}
	var parent avax.ID
	xb := &xBuild{}
	for height, t := uint64(0), w.genesis; t <= w.now; height, t = height+1, t+12*hour {
		b := &xBlock{height: height, time: t}
		if err := x.fill(h, b, xb); err != nil {
			return fmt.Errorf("devnet: X-Chain block %d: %w", height, err)
		}
		blk, rb, err := h.sealXBlock(b, parent, js)
		if err != nil {
			return err
		}
		if height == 0 {
			rb.Genesis = []json.RawMessage{genesisJSON}
		}
		w.xBlocks = append(w.xBlocks, blk)
		w.raw[avanet.ChainX] = append(w.raw[avanet.ChainX], rb)
		parent = blk.ID
	}
	if !xb.imported {
		return fmt.Errorf("devnet: no X-Chain block after the P-Chain's export at %d", h.fromP.Time)
	}
	return nil
}

// genesis makes the X-Chain's genesis transaction, AVAX's CreateAssetTx
// holding every address's allocation, receives its outputs and returns its
// JSON.
func (x *xWallet) genesis(js avax.XJSON) (json.RawMessage, error) {
	w := x.w
	var holders []avax.TransferOutput
	for i, a := range w.addrs {
		holders = append(holders, *transferOut(w.xGenesisAllocation(i), a))
	}
	genesis := &avax.Tx{Unsigned: avax.BaseTx{NetworkID: NetworkID, BlockchainID: XChainID, Memo: []byte{},
		Asset: &avax.CreateAsset{Name: AVAXName, Symbol: AVAXSymbol, Denomination: AVAXDenomination, Holders: holders}}}
	genesis.Unsigned.Sort()
	for i, o := range genesis.Unsigned.Asset.Holders {
		out := o
		x.receive(&avax.UTXO{TxID: AVAXAssetID, OutputIndex: uint32(i), AssetID: AVAXAssetID, Out: &out})
	}
	return json.Marshal(js.Tx(genesis, AVAXAssetID))
}

// xBuild is what buildXChain's blocks carry from one to the next.
type xBuild struct {
	gold     avax.ID // Devnet Gold's asset id, from block 2
	imported bool    // the P-Chain's export is imported
}

// fill issues block b's transactions (see buildXChain).
func (x *xWallet) fill(h *history, b *xBlock, xb *xBuild) error {
	w := x.w
	var err error
	switch {
	case b.height == 0: // the genesis: no transactions
	case b.height == 1:
		for i, a := range w.addrs {
			amount := otherToP
			if i == 0 {
				amount = ewoqToP
			}
			_, err = x.issue(h, b, a, "to the P-Chain", []xSpend{{AVAXAssetID, amount}}, nil, func(u *avax.BaseTx) {
				u.Export = &avax.Export{DestinationChain: PChainID, Outs: []avax.TransferableOutput{{AssetID: AVAXAssetID, Out: *transferOut(amount, a)}}}
			})
			if err != nil {
				break
			}
		}
	case b.height == 2:
		var xt *XTx
		xt, err = x.issue(h, b, w.addrs[0], "", nil, nil, func(u *avax.BaseTx) {
			u.Asset = &avax.CreateAsset{Name: goldName, Symbol: goldSymbol, Denomination: goldDenomination,
				Holders: []avax.TransferOutput{*transferOut(1_000_000_00, w.addrs[0]), *transferOut(250_000_00, w.addrs[1])}}
		})
		if err == nil {
			xb.gold = xt.ID
		}
	case b.height == 3:
		_, err = x.issue(h, b, w.addrs[0], "gold", []xSpend{{xb.gold, 12_345_00}},
			[]avax.TransferableOutput{{AssetID: xb.gold, Out: *transferOut(12_345_00, w.addrs[2])}}, nil)
	case b.height == 4:
		_, err = x.issue(h, b, w.addrs[0], "to the C-Chain", []xSpend{{AVAXAssetID, ewoqToC}}, nil, func(u *avax.BaseTx) {
			u.Export = &avax.Export{DestinationChain: CChainID, Outs: []avax.TransferableOutput{{AssetID: AVAXAssetID, Out: *transferOut(ewoqToC, w.addrs[0])}}}
		})
	case !xb.imported && b.time > h.fromP.Time:
		xb.imported = true
		in := avax.TransferableInput{TxID: h.fromP.ID, OutputIndex: 1, AssetID: AVAXAssetID, Amount: ewoqFromP, SigIndices: []uint32{0}}
		_, err = x.issue(h, b, w.addrs[0], "", nil, []avax.TransferableOutput{{AssetID: AVAXAssetID, Out: *transferOut(ewoqFromP-txFee, w.addrs[0])}},
			func(u *avax.BaseTx) {
				u.Import = &avax.Import{SourceChain: PChainID, Ins: []avax.TransferableInput{in}}
			})
	default:
		for range 1 + x.r.IntN(2) {
			if err = x.transfer(h, b); err != nil {
				break
			}
		}
	}
	return err
}

// sealXBlock makes block b, after parent, and its raw form for the index,
// and records its transactions.
func (h *history) sealXBlock(b *xBlock, parent avax.ID, js avax.XJSON) (*Block, *pindex.RawBlock, error) {
	w := h.w
	raw := &avax.StandardBlock{Parent: parent, Height: b.height, Time: uint64(b.time)}
	for _, xt := range b.txs {
		raw.Txs = append(raw.Txs, *xt.Tx)
	}
	blk := &Block{Parent: parent, Height: b.height, Time: b.time, Type: "StandardBlock", Raw: raw, Bytes: raw.Bytes()}
	blk.ID = avax.Hash256(blk.Bytes)
	blk.Size = len(blk.Bytes)
	rb := &pindex.RawBlock{Height: b.height, Bytes: blk.Bytes, TxBytes: map[string][]byte{}}
	var err error
	if rb.JSON, err = json.Marshal(js.Block(raw, blk.ID)); err != nil {
		return nil, nil, err
	}
	for _, xt := range b.txs {
		blk.Txs = append(blk.Txs, xt.ID)
		xt.Block = blk.ID
		w.xTxs[xt.ID] = xt
		w.xTxList = append(w.xTxList, xt)
		rb.TxBytes[xt.ID.String()] = xt.Bytes
	}
	return blk, rb, nil
}

// XBlocks returns the X-Chain's blocks by height. The slice is shared: do
// not modify it.
func (w *World) XBlocks() []*Block { return w.xBlocks }

// XBlock returns the X block at height.
func (w *World) XBlock(height uint64) (*Block, bool) {
	if height >= uint64(len(w.xBlocks)) {
		return nil, false
	}
	return w.xBlocks[height], true
}

// XTx returns the X-Chain transaction with id.
func (w *World) XTx(id avax.ID) (*XTx, bool) { tx, ok := w.xTxs[id]; return tx, ok }

// XTxs returns every X-Chain transaction in acceptance order.
func (w *World) XTxs() []*XTx { return w.xTxList }
