package node

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"net/netip"
	"testing"
	"time"

	blst "github.com/supranational/blst/bindings/go"

	"github.com/avaedge/avaedge/avanet"
	"github.com/avaedge/avaedge/jsonrpc"
	"github.com/avaedge/avaedge/local/vocab/avax"
)

// fake is a small hand-built X-Chain: two blocks holding one transaction
// each, and UTXOs that exercise the balance rules (a locked output, a
// two-owner output, a second asset) and pagination.
type fake struct {
	blocks [][]byte
	txs    map[avax.ID][]byte
	utxos  map[avax.ID][]*avax.UTXO // by source chain
}

func (f *fake) Block(id avax.ID) ([]byte, bool) {
	for _, b := range f.blocks {
		if avax.Hash256(b) == id {
			return b, true
		}
	}
	return nil, false
}

func (f *fake) BlockAt(h uint64) ([]byte, bool) {
	if h >= uint64(len(f.blocks)) {
		return nil, false
	}
	return f.blocks[h], true
}

func (f *fake) Height() (uint64, bool) { return uint64(len(f.blocks)) - 1, len(f.blocks) > 0 }

func (f *fake) Tx(id avax.ID) ([]byte, bool) { b, ok := f.txs[id]; return b, ok }

func (f *fake) UTXOs(source avax.ID, addr avax.ShortID) []*avax.UTXO {
	var out []*avax.UTXO
	for _, u := range f.utxos[source] {
		for _, a := range u.Out.Owners().Addrs {
			if a == addr {
				out = append(out, u)
			}
		}
	}
	return out
}

var (
	fakeX     = idOf("x chain")
	fakeP     = avax.EmptyID
	fakeC     = idOf("c chain")
	fakeAVAX  = idOf("avax")
	fakeOther = idOf("other asset")
	fakeNow   = time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)

	// alice's key is ewoq's, so her address is the well-known one.
	alice = mustKey("56289e99c94b6912bfc12adc093c9b51124f0dc54ac7a766b2bc5ccf558d8027")
	bob   = mustKey("0000000000000000000000000000000000000000000000000000000000000002")
	carol = mustKey("0000000000000000000000000000000000000000000000000000000000000003")
)

const aliceX = "X-local18jma8ppw3nhx5r4ap8clazz0dps7rv5u00z96u"

func idOf(s string) avax.ID { return sha256.Sum256([]byte(s)) }

func mustKey(h string) *avax.PrivateKey {
	var b [32]byte
	for i := range b {
		var v byte
		for _, c := range h[2*i : 2*i+2] {
			v <<= 4
			switch {
			case c >= '0' && c <= '9':
				v |= byte(c - '0')
			default:
				v |= byte(c-'a') + 10
			}
		}
		b[i] = v
	}
	k, err := avax.NewPrivateKey(b[:])
	if err != nil {
		panic(err)
	}
	return k
}

func out(amount, locktime uint64, threshold uint32, owners ...*avax.PrivateKey) avax.TransferOutput {
	o := avax.TransferOutput{Amt: amount, OutputOwners: avax.OutputOwners{Locktime: locktime, Threshold: threshold}}
	for _, k := range owners {
		o.Addrs = append(o.Addrs, k.Address())
	}
	avax.SortShortIDs(o.Addrs)
	return o
}

func utxo(txID avax.ID, i uint32, asset avax.ID, o avax.TransferOutput) *avax.UTXO {
	return &avax.UTXO{TxID: txID, OutputIndex: i, AssetID: asset, Out: &o}
}

// transfer returns a signed BaseTx in which from spends in and pays to.
func transfer(in *avax.UTXO, from, to *avax.PrivateKey, amount uint64) *avax.Tx {
	tx := &avax.Tx{Unsigned: avax.BaseTx{NetworkID: avanet.Local.ID, BlockchainID: fakeX,
		Outs: []avax.TransferableOutput{{AssetID: in.AssetID, Out: out(amount, 0, 1, to)}},
		Ins:  []avax.TransferableInput{{TxID: in.TxID, OutputIndex: in.OutputIndex, AssetID: in.AssetID, Amount: in.Out.Amount(), SigIndices: []uint32{0}}},
		Memo: []byte("fake")}}
	h := sha256.Sum256(tx.Unsigned.UnsignedBytes())
	tx.Creds = [][][avax.SigLen]byte{{from.SignHash(h[:])}}
	return tx
}

func newFake() *fake {
	genesis := idOf("genesis")
	g0 := utxo(genesis, 0, fakeAVAX, out(1000, 0, 1, alice))
	tx1 := transfer(g0, alice, bob, 900)
	tx2 := transfer(utxo(tx1.ID(), 0, fakeAVAX, out(900, 0, 1, bob)), bob, alice, 800)
	b0 := &avax.StandardBlock{Parent: idOf("stop vertex"), Height: 0, Time: uint64(fakeNow.Unix()) - 100}
	b1 := &avax.StandardBlock{Parent: b0.ID(), Height: 1, Time: uint64(fakeNow.Unix()) - 50, Txs: []avax.Tx{*tx1}}
	b2 := &avax.StandardBlock{Parent: b1.ID(), Height: 2, Time: uint64(fakeNow.Unix()) - 10, Txs: []avax.Tx{*tx2}}
	f := &fake{
		blocks: [][]byte{b0.Bytes(), b1.Bytes(), b2.Bytes()},
		txs:    map[avax.ID][]byte{tx1.ID(): tx1.Bytes(), tx2.ID(): tx2.Bytes()},
		utxos: map[avax.ID][]*avax.UTXO{
			fakeX: {
				utxo(tx2.ID(), 0, fakeAVAX, out(800, 0, 1, alice)),
				utxo(genesis, 1, fakeAVAX, out(50, 0, 1, alice)),
				utxo(genesis, 2, fakeAVAX, out(7, uint64(fakeNow.Unix())+3600, 1, alice)), // locked
				utxo(genesis, 3, fakeAVAX, out(20, 0, 1, alice, carol)),                   // two owners
				utxo(genesis, 4, fakeOther, out(5, 0, 1, alice)),
				utxo(genesis, 5, fakeAVAX, out(3, 0, 1, carol)),
			},
			fakeP: {utxo(idOf("export"), 0, fakeAVAX, out(11, 0, 1, alice))},
		},
	}
	return f
}

// fakeView returns a View over newFake with one BLS-keyed node and two
// peers.
func fakeView() *View {
	f := newFake()
	sk := blst.KeyGen(make([]byte, 32))
	pk := new(blst.P1Affine).From(sk).Compress()
	pop := new(blst.P2Affine).Sign(sk, pk, []byte("BLS_POP_BLS12381G2_XMD:SHA-256_SSWU_RO_POP_")).Compress()
	subnet := idOf("subnet")
	return &View{
		NetworkID: avanet.Local.ID,
		Node: Node{ID: avax.NodeID{1}, PublicKey: pk, ProofOfPossession: pop,
			IP:      netip.MustParseAddrPort("127.0.0.1:9651"),
			Weights: map[avax.ID]uint64{avax.EmptyID: 100}},
		Chains: []Chain{
			{ID: fakeP, Aliases: []string{"P", "platform"}},
			{ID: fakeX, Aliases: []string{"X", "avm"}},
			{ID: fakeC, Aliases: []string{"C", "evm"}},
			{ID: idOf("subnet chain")},
		},
		Peers: []Peer{
			{NodeID: avax.NodeID{2}, IP: netip.MustParseAddrPort("127.0.0.1:9653"), Version: "avalanchego/1.14.1",
				LastSent: fakeNow, LastReceived: fakeNow, ObservedUptime: 90, SupportedACPs: []uint32{194, 23},
				Weights: map[avax.ID]uint64{avax.EmptyID: 300}},
			{NodeID: avax.NodeID{3}, IP: netip.MustParseAddrPort("127.0.0.1:9655"), Version: "avalanchego/1.14.2",
				LastSent: fakeNow, LastReceived: fakeNow, ObservedUptime: 50, ObjectedACPs: []uint32{194},
				TrackedSubnets: []avax.ID{subnet}, Weights: map[avax.ID]uint64{avax.EmptyID: 100, subnet: 7}},
		},
		Assets: []Asset{{ID: fakeAVAX, Alias: "AVAX", Name: "Avalanche", Symbol: "AVAX", Denomination: 9}},
		Blocks: f, Txs: f, UTXOs: f,
		Now: func() time.Time { return fakeNow },
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
