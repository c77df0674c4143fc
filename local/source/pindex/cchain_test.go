package pindex

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/avaedge/avaedge/avanet"
	"github.com/avaedge/avaedge/local/vocab/avax"
)

// fakeCNode is fakeNode with a C-Chain: blocks 0..height, block 2 holding
// an export to the P-Chain and block 3 an import from the X-Chain (coreth's
// blockExtraData), blocks from fork on of generation gen.
type fakeCNode struct {
	*fakeNode
	cmu     sync.Mutex
	cHeight uint64
	cFork   uint64
	cGen    int
}

var (
	cExport = &avax.AtomicTx{NetworkID: 12345, BlockchainID: fakeC, Chain: avax.EmptyID,
		Export: &avax.AtomicExport{Ins: []avax.EVMInput{{Address: [20]byte{9}, Amount: 1000, AssetID: fakeAVAX, Nonce: 1}},
			Outs: []avax.TransferableOutput{{AssetID: fakeAVAX, Out: avax.TransferOutput{Amt: 900, OutputOwners: avax.OutputOwners{Threshold: 1, Addrs: []avax.ShortID{owner}}}}}},
		Creds: [][][avax.SigLen]byte{{{1}}}}
	cImport = &avax.AtomicTx{NetworkID: 12345, BlockchainID: fakeC, Chain: fakeX,
		Import: &avax.AtomicImport{Ins: []avax.TransferableInput{{TxID: avax.Hash256([]byte("x export")), OutputIndex: 1, AssetID: fakeAVAX, Amount: 500, SigIndices: []uint32{0}}},
			Outs: []avax.EVMOutput{{Address: [20]byte{9}, Amount: 400, AssetID: fakeAVAX}}},
		Creds: [][][avax.SigLen]byte{{{2}}}}
)

func init() {
	cExport.Signed, cImport.Signed = cExport.Bytes(), cImport.Bytes()
}

func (n *fakeCNode) hash(h uint64) string {
	gen := 1
	if h >= n.cFork {
		gen = n.cGen
	}
	id := avax.Hash256([]byte(fmt.Sprintf("c %d gen %d", h, gen)))
	return avax.EncodeHexNC(id[:])
}

func (n *fakeCNode) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var req struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params []any           `json:"params"`
	}
	if json.Unmarshal(body, &req); r.URL.Path != "/ext/bc/C/rpc" {
		r.Body = io.NopCloser(bytes.NewReader(body))
		n.fakeNode.ServeHTTP(w, r)
		return
	}
	n.cmu.Lock()
	defer n.cmu.Unlock()
	var result any
	switch req.Method {
	case "eth_blockNumber":
		result = "0x" + strconv.FormatUint(n.cHeight, 16)
	case "eth_getBlockByNumber":
		h, _ := strconv.ParseUint(req.Params[0].(string)[2:], 16, 64)
		if h > n.cHeight {
			break
		}
		extra := []byte{}
		if n.hash(h) == (&fakeCNode{cFork: 1 << 62}).hash(h) {
			switch h {
			case 2:
				extra = avax.AtomicTxsBytes([]*avax.AtomicTx{cExport})
			case 3:
				extra = avax.AtomicTxsBytes([]*avax.AtomicTx{cImport})
			}
		}
		parent := avax.EncodeHexNC(make([]byte, 32))
		if h > 0 {
			parent = n.hash(h - 1)
		}
		result = map[string]any{"number": "0x" + strconv.FormatUint(h, 16), "hash": n.hash(h), "parentHash": parent,
			"timestamp": "0x" + strconv.FormatUint(2000+h, 16), "blockExtraData": avax.EncodeHexNC(extra)}
	default:
		fmt.Fprintf(w, `{"jsonrpc":"2.0","error":{"code":-32601,"message":"no method %s"},"id":%s}`, req.Method, req.ID)
		return
	}
	out, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "result": result, "id": req.ID})
	w.Write(out)
}

// TestFollowCAtomicTxs: the index follows the C-Chain's atomic
// transactions: an export's transaction, its bytes and the UTXO it puts
// into the P-Chain's shared memory, an import's transaction and its spend;
// a C-Chain started afresh rolls them back, and they are indexed again.
func TestFollowCAtomicTxs(t *testing.T) {
	node := &fakeCNode{fakeNode: &fakeNode{height: 1, fork: 1 << 62, gen: 1}, cHeight: 4, cFork: 1 << 62, cGen: 1}
	srv := httptest.NewServer(node)
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ix, err := Open(ctx, Options{Node: srv.URL, PollInterval: 10 * time.Millisecond, CommitBlocks: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	ix.Start(ctx)
	waitC := func(h uint64) {
		t.Helper()
		for {
			if got, ok := ix.Head(avanet.ChainC); ok && got == h {
				return
			}
			if ctx.Err() != nil {
				t.Fatalf("the C-Chain's head never reached %d", h)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	waitC(4)
	exp, imp := cExport.ID().String(), cImport.ID().String()
	for _, c := range []struct {
		id, typ string
		height  uint64
		signed  []byte
	}{{exp, TxCExport, 2, cExport.Signed}, {imp, TxCImport, 3, cImport.Signed}} {
		tx, ok, err := ix.Tx(ctx, c.id)
		if err != nil || !ok || tx.Chain != avanet.ChainC || tx.Type != c.typ || tx.Height != c.height || tx.Time != int64(2000+c.height) {
			t.Fatalf("%s: %+v %v %v", c.typ, tx, ok, err)
		}
		if b, err := tx.AtomicBytes(); err != nil || string(b) != string(c.signed) {
			t.Errorf("%s: AtomicBytes %x %v", c.typ, b, err)
		}
	}
	us, err := ix.UTXOs(ctx, avanet.ChainP, []avax.ShortID{owner}, false)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, u := range us {
		found = found || (u.TxID == exp && u.CreatedOn == avanet.ChainC && u.Amount == 900)
	}
	if !found {
		t.Errorf("the export's UTXO is not in the P-Chain's shared memory: %+v", us)
	}
	emitted, consumed, err := ix.TxUTXOs(ctx, exp)
	if err != nil || len(emitted) != 1 || len(consumed) != 0 {
		t.Errorf("the export's UTXOs: %d emitted, %d consumed, %v", len(emitted), len(consumed), err)
	}
	txs, err := ix.Txs(ctx, avanet.ChainC, TxFilter{})
	if err != nil || len(txs) != 2 || txs[0].ID != imp {
		t.Fatalf("C-Chain txs %v %v; want the import then the export", txs, err)
	}

	// The C-Chain starts afresh from block 3, without atomic transactions
	// there, and its tip below the index's head: the import goes.
	node.cmu.Lock()
	node.cFork, node.cGen, node.cHeight = 3, 2, 3
	node.cmu.Unlock()
	for {
		if _, ok, _ := ix.Tx(ctx, imp); !ok {
			break
		}
		if ctx.Err() != nil {
			t.Fatal("the import was never rolled back")
		}
		time.Sleep(5 * time.Millisecond)
	}
	node.cmu.Lock()
	node.cHeight = 6
	node.cmu.Unlock()
	waitC(6)
	if _, ok, _ := ix.Tx(ctx, exp); !ok {
		t.Error("the export, below the fork, was rolled back")
	}
	if txs, _ := ix.Txs(ctx, avanet.ChainC, TxFilter{}); len(txs) != 1 {
		t.Errorf("%d C-Chain txs after the rollback; want 1", len(txs))
	}
}
