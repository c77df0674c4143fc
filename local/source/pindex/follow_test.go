package pindex

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/binary"
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

// fakeNode answers the JSON-RPC methods the index calls with a P-avanet.Chain of
// BaseTx blocks in avalanchego's JSON encoding: block h spends the output of
// block h-1 and pays h*10 to owner. Blocks from fork on belong to
// generation gen, so changing gen models a network started afresh.
type fakeNode struct {
	mu     sync.Mutex
	height uint64 // P-avanet.Chain tip
	fork   uint64
	gen    int
	// badParent, when not zero, is a height whose block names a parent
	// that is not the block below it.
	badParent uint64
	// pHeight, when set, is platform.getHeight's answer instead of height;
	// pHeights counts the calls.
	pHeight  string
	pHeights int
	// rewardAt, when not zero, is the height of a proposal block with a
	// RewardValidatorTx of the genesis staker stakingTx, whose commit block
	// follows; rewardCalls counts platform.getRewardUTXOs.
	rewardAt    uint64
	rewardCalls int
}

// The fake network's genesis: its X- and C-avanet.Chain's CreateChainTxs, and a
// staker that no block lists, rewarded at fakeNode.rewardAt.
var (
	stakingTx   = avax.Hash256([]byte("genesis staker"))
	genesisTxID = map[string]avax.ID{"X-avanet.Chain": fakeX, "C-avanet.Chain": fakeC}
)

// rewardUTXOs are what the genesis staker's reward pays owner: the
// validation reward, then its delegation fees.
func rewardUTXOs() []*avax.UTXO {
	var out []*avax.UTXO
	for i, amount := range []uint64{700, 30} {
		out = append(out, &avax.UTXO{TxID: stakingTx, OutputIndex: uint32(1 + i), AssetID: fakeAVAX,
			Out: &avax.TransferOutput{Amt: amount, OutputOwners: avax.OutputOwners{Threshold: 1, Addrs: []avax.ShortID{owner}}}})
	}
	return out
}

var (
	fakeX    = avax.Hash256([]byte("x chain"))
	fakeC    = avax.Hash256([]byte("c chain"))
	fakeAVAX = avax.Hash256([]byte("avax"))
	owner    = avax.ShortID{1, 2, 3}
)

func (n *fakeNode) id(kind string, h uint64) avax.ID {
	gen := 1
	if h >= n.fork {
		gen = n.gen
	}
	return avax.Hash256([]byte(fmt.Sprintf("%s %d gen %d", kind, h, gen)))
}

func (n *fakeNode) block(h uint64) map[string]any {
	b := map[string]any{"id": n.id("block", h).String(), "parentID": n.id("block", h-1).String(), "height": h, "time": 1000 + h, "txs": []any{}}
	if h != 0 && h == n.badParent {
		b["parentID"] = n.id("elsewhere", h-1).String()
	}
	if h == 0 {
		return b
	}
	switch {
	case n.rewardAt != 0 && h == n.rewardAt:
		delete(b, "txs")
		b["tx"] = map[string]any{"id": n.id("tx", h).String(), "credentials": []any{}, "unsignedTx": map[string]any{"txID": stakingTx.String()}}
		return b
	case n.rewardAt != 0 && h == n.rewardAt+1:
		delete(b, "txs")
		return b
	}
	out := map[string]any{"assetID": fakeAVAX.String(), "fxID": "spdxUxVJQbX85MGxMHbKw1sHxMnSqJ3QBzDyDYEP3h6TLuxqQ",
		"output": map[string]any{"addresses": []string{avax.FormatAddress("P", "local", owner)}, "amount": h * 10, "locktime": 0, "threshold": 1}}
	in := map[string]any{"txID": n.id("tx", h-1).String(), "outputIndex": 0, "assetID": fakeAVAX.String(),
		"fxID": "spdxUxVJQbX85MGxMHbKw1sHxMnSqJ3QBzDyDYEP3h6TLuxqQ", "input": map[string]any{"amount": (h - 1) * 10, "signatureIndices": []int{0}}}
	b["txs"] = []any{map[string]any{"id": n.id("tx", h).String(), "credentials": []any{}, "unsignedTx": map[string]any{
		"networkID": 12345, "blockchainID": avax.EmptyID.String(), "outputs": []any{out}, "inputs": []any{in}, "memo": "0x"}}}
	return b
}

func (n *fakeNode) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n.mu.Lock()
	defer n.mu.Unlock()
	body, _ := io.ReadAll(r.Body)
	var req struct {
		ID     json.RawMessage   `json:"id"`
		Method string            `json:"method"`
		Params map[string]string `json:"params"`
	}
	json.Unmarshal(body, &req)
	var result any
	switch req.Method {
	case "info.getNetworkID":
		result = map[string]string{"networkID": "12345"}
	case "info.getBlockchainID":
		result = map[string]string{"blockchainID": map[string]avax.ID{"X": fakeX, "C": fakeC}[req.Params["alias"]].String()}
	case "avm.getAssetDescription":
		result = map[string]string{"assetID": fakeAVAX.String()}
	case "avm.getHeight":
		result = map[string]string{"height": "0"}
	case "platform.getHeight":
		n.pHeights++
		result = map[string]string{"height": cmp.Or(n.pHeight, strconv.FormatUint(n.height, 10))}
	case "platform.getCurrentValidators":
		result = map[string]any{"validators": []any{}}
	case "platform.getCurrentSupply":
		result = map[string]string{"supply": "360000000000000000", "height": strconv.FormatUint(n.height, 10)}
	case "platform.getBlockchains":
		result = map[string]any{"blockchains": []any{
			map[string]string{"id": fakeX.String(), "name": "X-avanet.Chain", "subnetID": avax.EmptyID.String(), "vmID": "jvYyfQTxGMJLuGWa55kdP2p2zSUYsQ5Raupu4TW34ZAUBAbtq"},
			map[string]string{"id": fakeC.String(), "name": "C-avanet.Chain", "subnetID": avax.EmptyID.String(), "vmID": "mgj786NP7uDwBCcq6YwThhaN8FLyybkCa4zBWTQbNgmK6k9A6"},
			map[string]string{"id": avax.Hash256([]byte("a subnet's chain")).String(), "name": "sub", "subnetID": fakeX.String(), "vmID": "x"}}}
	case "platform.getTx":
		for name, id := range genesisTxID {
			if req.Params["txID"] == id.String() {
				result = map[string]any{"encoding": "json", "tx": map[string]any{"id": id.String(), "credentials": []any{}, "unsignedTx": map[string]any{
					"networkID": 12345, "blockchainID": avax.EmptyID.String(), "outputs": []any{}, "inputs": []any{}, "memo": "0x",
					"subnetID": avax.EmptyID.String(), "chainName": name, "vmID": "jvYyfQTxGMJLuGWa55kdP2p2zSUYsQ5Raupu4TW34ZAUBAbtq",
					"fxIDs": []any{}, "genesisData": "eyJjb25maWciOnsiY2hhaW5JZCI6NDMxMTJ9fQ==", "subnetAuthorization": map[string]any{"signatureIndices": []any{}}}}}
			}
		}
		if result == nil {
			fmt.Fprintf(w, `{"jsonrpc":"2.0","error":{"code":-32000,"message":"not found"},"id":%s}`, req.ID)
			return
		}
	case "platform.getRewardUTXOs":
		n.rewardCalls++
		utxos := []string{}
		if n.rewardAt != 0 && n.height > n.rewardAt && req.Params["txID"] == stakingTx.String() {
			for _, u := range rewardUTXOs() {
				utxos = append(utxos, avax.EncodeHex(u.Bytes()))
			}
		}
		result = map[string]any{"numFetched": strconv.Itoa(len(utxos)), "utxos": utxos, "encoding": "hex"}
	case "avm.getBlockByHeight", "platform.getBlockByHeight":
		h, _ := strconv.ParseUint(req.Params["height"], 10, 64)
		if req.Method == "platform.getBlockByHeight" && h > n.height {
			fmt.Fprintf(w, `{"jsonrpc":"2.0","error":{"code":-32000,"message":"couldn't get block at height %d: not found"},"id":%s}`, h, req.ID)
			return
		}
		b := n.block(h)
		if req.Method == "avm.getBlockByHeight" {
			b = map[string]any{"id": fakeX.String(), "parentID": avax.EmptyID.String(), "height": 0, "time": 1000, "txs": []any{}}
		}
		if req.Params["encoding"] == "json" {
			result = map[string]any{"block": b, "encoding": "json"}
		} else {
			typ := uint32(32) // BanffStandardBlock
			switch {
			case n.rewardAt != 0 && h == n.rewardAt:
				typ = 29 // BanffProposalBlock
			case n.rewardAt != 0 && h == n.rewardAt+1:
				typ = 31 // BanffCommitBlock
			}
			raw := binary.BigEndian.AppendUint32([]byte{0, 0}, typ)
			sum := sha256.Sum256([]byte(fmt.Sprint(b)))
			result = map[string]any{"block": avax.EncodeHexNC(append(raw, sum[:]...)), "encoding": "hexnc"}
		}
	case "avm.getTx":
		// The X-avanet.Chain's genesis: the AVAX CreateAssetTx, whose signed bytes
		// are "avax" (fakeAVAX is their hash), allocating 7 AVAX to owner.
		if req.Params["txID"] != fakeAVAX.String() {
			fmt.Fprintf(w, `{"jsonrpc":"2.0","error":{"code":-32000,"message":"not found"},"id":%s}`, req.ID)
			return
		}
		if req.Params["encoding"] == "json" {
			result = map[string]any{"encoding": "json", "tx": map[string]any{"id": fakeAVAX.String(), "credentials": nil,
				"unsignedTx": map[string]any{"networkID": 12345, "blockchainID": avax.EmptyID.String(), "outputs": []any{}, "inputs": []any{},
					"memo": "0x", "name": "Avalanche", "symbol": "AVAX", "denomination": 9,
					"initialStates": []any{map[string]any{"fxIndex": 0, "fxID": "spdxUxVJQbX85MGxMHbKw1sHxMnSqJ3QBzDyDYEP3h6TLuxqQ",
						"outputs": []any{map[string]any{"addresses": []string{avax.FormatAddress("X", "local", owner)}, "amount": 7_000_000_000, "locktime": 0, "threshold": 1}}}}}}}
		} else {
			result = map[string]any{"encoding": "hexnc", "tx": avax.EncodeHexNC([]byte("avax"))}
		}
	default:
		fmt.Fprintf(w, `{"jsonrpc":"2.0","error":{"code":-32601,"message":"no method %s"},"id":%s}`, req.Method, req.ID)
		return
	}
	out, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "result": result, "id": req.ID})
	w.Write(out)
}

func unspent(t *testing.T, ix *Index) []string {
	t.Helper()
	us, err := ix.UTXOs(context.Background(), avanet.ChainP, []avax.ShortID{owner}, false)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, u := range us {
		out = append(out, u.TxID+":"+strconv.FormatUint(u.Amount, 10))
	}
	return out
}

func TestFollowResumeRollbackOffline(t *testing.T) {
	eachStoreAt(t, testFollowResumeRollbackOffline)
}

func testFollowResumeRollbackOffline(t *testing.T, store func() Store) {
	node := &fakeNode{height: 5, fork: 1 << 62, gen: 1}
	srv := httptest.NewServer(node)
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	open := func() *Index {
		ix, err := Open(ctx, Options{Node: srv.URL, Store: store(), PollInterval: 10 * time.Millisecond, CommitBlocks: 2})
		if err != nil {
			t.Fatal(err)
		}
		return ix
	}
	ix := open()
	ix.Start(ctx)
	if err := ix.WaitFor(ctx, avanet.ChainP, 5); err != nil {
		t.Fatal(err)
	}
	want := node.id("tx", 5).String() + ":50"
	if got := unspent(t, ix); len(got) != 1 || got[0] != want {
		t.Fatalf("unspent = %v; want [%s]", got, want)
	}
	all, _ := ix.UTXOs(ctx, avanet.ChainP, []avax.ShortID{owner}, true)
	if len(all) != 5 {
		t.Fatalf("with spent: %d UTXOs; want 5", len(all))
	}
	ix.Close()

	// The network starts afresh: same blocks up to 2, others from 3, and
	// its tip (4) below the index's head (5).
	node.mu.Lock()
	node.fork, node.gen, node.height = 3, 2, 4
	node.mu.Unlock()
	ix = open()
	if h, _ := ix.Head(avanet.ChainP); h != 5 {
		t.Fatalf("resumed head = %d; want 5", h)
	}
	ix.Start(ctx)
	deadline := time.Now().Add(20 * time.Second)
	for {
		b, ok, _ := ix.Block(ctx, avanet.ChainP, 4)
		if ok && b.ID == node.id("block", 4).String() {
			if _, still, _ := ix.Block(ctx, avanet.ChainP, 5); !still {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("index did not roll back to the new network: block 4 = %+v", b)
		}
		time.Sleep(20 * time.Millisecond)
	}
	want = node.id("tx", 4).String() + ":40"
	if got := unspent(t, ix); len(got) != 1 || got[0] != want {
		t.Fatalf("after the rollback unspent = %v; want [%s]", got, want)
	}
	old := avax.Hash256([]byte("tx 5 gen 1")).String()
	if _, ok, _ := ix.Tx(ctx, old); ok {
		t.Fatalf("tx %s of the old network is still indexed", old)
	}
	if _, ok, _ := ix.Tx(ctx, node.id("tx", 2).String()); !ok {
		t.Fatalf("tx of block 2, common to both networks, was rolled back")
	}
	ix.Close()

	// The node goes away: the index opens from its store and answers.
	srv.Close()
	ix = open()
	defer ix.Close()
	if h, ok := ix.Head(avanet.ChainP); !ok || h != 4 {
		t.Fatalf("offline head = %d, %v; want 4", h, ok)
	}
	if got := unspent(t, ix); len(got) != 1 || got[0] != want {
		t.Fatalf("offline unspent = %v; want [%s]", got, want)
	}
	if n := ix.Network(); n.ID != 12345 || n.XChainID != fakeX.String() || n.HRP != "local" {
		t.Fatalf("offline network = %+v", n)
	}
}

func TestOpenWithoutNodeOrStore(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	srv.Close()
	_, err := Open(context.Background(), Options{Node: srv.URL, Path: t.TempDir() + "/pindex.db"})
	if err == nil {
		t.Fatal("Open succeeded with neither a node nor a stored network")
	}
}

// following returns an Index in memory following node, once it has indexed
// chain up to height.
func following(t *testing.T, ctx context.Context, node *fakeNode, chain avanet.Chain, height uint64) *Index {
	t.Helper()
	srv := httptest.NewServer(node)
	t.Cleanup(srv.Close)
	ix, err := Open(ctx, Options{Node: srv.URL, PollInterval: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	ix.Start(ctx)
	if err := ix.WaitFor(ctx, chain, height); err != nil {
		t.Fatal(err)
	}
	return ix
}

// TestXGenesisUTXOs: the X-avanet.Chain's genesis allocations, which no block
// lists, are indexed as UTXOs of the AVAX CreateAssetTx.
func TestXGenesisUTXOs(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ix := following(t, ctx, &fakeNode{height: 1, fork: 1 << 62, gen: 1}, avanet.ChainX, 0)
	us, err := ix.UTXOs(ctx, avanet.ChainX, []avax.ShortID{owner}, false)
	if err != nil || len(us) != 1 || us[0].TxID != fakeAVAX.String() || us[0].Amount != 7_000_000_000 || us[0].Height != 0 ||
		us[0].ID != fakeAVAX.Prefix(0).String() {
		t.Fatalf("X genesis UTXOs: %+v, %v", us, err)
	}
	if b, ok, err := ix.Block(ctx, avanet.ChainX, 0); err != nil || !ok || len(b.Txs) != 0 {
		t.Fatalf("the genesis block lists %v (%v, %v); the node's lists none", b, ok, err)
	}
}

// TestHeightBeyondInt64: a node that answers a height past the store's
// integers (as int64 it would be negative, below the index's head) gets an
// error, not a rollback of the whole index.
func TestHeightBeyondInt64(t *testing.T) {
	node := &fakeNode{height: 5, fork: 1 << 62, gen: 1}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ix := following(t, ctx, node, avanet.ChainP, 5)
	for _, h := range []string{"18446744073709551615", "9223372036854775808"} {
		node.mu.Lock()
		node.pHeight, node.pHeights = h, 0
		node.mu.Unlock()
		for asked := 0; asked < 3; {
			if ctx.Err() != nil {
				t.Fatal("the follower stopped asking for the height")
			}
			time.Sleep(10 * time.Millisecond)
			node.mu.Lock()
			asked = node.pHeights
			node.mu.Unlock()
		}
		if got, ok := ix.Head(avanet.ChainP); !ok || got != 5 {
			t.Fatalf("after the node answered height %s: head %d, %v; want 5", h, got, ok)
		}
		if _, ok, _ := ix.Block(ctx, avanet.ChainP, 5); !ok {
			t.Fatalf("after the node answered height %s: block 5 is gone", h)
		}
	}
}
