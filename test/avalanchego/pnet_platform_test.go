package avalanchego

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/constants"
	"github.com/ava-labs/avalanchego/utils/formatting/address"
	"github.com/ava-labs/avalanchego/utils/hashing"
	"github.com/ava-labs/avalanchego/vms/platformvm"
	"github.com/ava-labs/avalanchego/vms/platformvm/block"

	"github.com/avaedge/avaedge/jsonrpc"
	"github.com/avaedge/avaedge/local/api/node"
	"github.com/avaedge/avaedge/local/source/pindex"
)

// pCall is a P-Chain JSON-RPC call: its method and params.
type pCall struct{ method, params string }

// platformCalls are the P-Chain reads the index serves, over what issueAll
// issued: each one's answer from the index must be the node's, byte for
// byte. The balances and UTXOs are those of the addresses the test funded:
// the P-Chain's genesis allocations (ewoq's) are in no transaction a node
// lists, so a followed node's index does not hold them.
func platformCalls(t *testing.T, uri string, in *issued) []pCall {
	pAddr := func(a ids.ShortID) string {
		s, _ := address.Format("P", "local", a[:])
		return s
	}
	h, err := platformvm.NewClient(uri).GetHeight(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	addrs := func(as ...ids.ShortID) string {
		var out []string
		for _, a := range as {
			out = append(out, `"`+pAddr(a)+`"`)
		}
		return "[" + strings.Join(out, ",") + "]"
	}
	calls := []pCall{
		{"platform.getHeight", `{}`},
		{"platform.getTimestamp", `{}`},
		{"platform.getStakingAssetID", `{}`},
		{"platform.getBalance", `{"addresses":` + addrs(in.r2.Address(), in.r3.Address()) + `}`},
		{"platform.getUTXOs", `{"addresses":` + addrs(in.r2.Address(), in.r3.Address()) + `,"limit":1024}`},
		{"platform.getUTXOs", `{"addresses":` + addrs(in.r3.Address(), in.r2.Address()) + `,"limit":1,"encoding":"hexnc"}`},
		{"platform.getUTXOs", `{"addresses":` + addrs(in.r2.Address()) + `,"sourceChain":"X"}`},
		{"platform.getSubnets", `{}`},
		{"platform.getSubnets", `{"ids":["` + in.subnet.String() + `","` + constants.PrimaryNetworkID.String() + `"]}`},
		{"platform.getBlockchains", `{}`},
		{"platform.validatedBy", `{"blockchainID":"` + in.chain.String() + `"}`},
		{"platform.validates", `{"subnetID":"` + in.subnet.String() + `"}`},
		{"platform.validates", `{"subnetID":"` + constants.PrimaryNetworkID.String() + `"}`},
		{"platform.getTotalStake", `{"subnetID":"` + constants.PrimaryNetworkID.String() + `"}`},
		{"platform.getCurrentValidators", `{}`},
		{"platform.getTxStatus", `{"txID":"` + in.subnet.String() + `"}`},
		{"platform.getTx", `{"txID":"` + in.convert.String() + `","encoding":"json"}`},
		{"platform.getTx", `{"txID":"` + in.convert.String() + `","encoding":"hexnc"}`},
		{"platform.getTx", `{"txID":"` + in.subnet.String() + `","encoding":"hexc"}`},
		{"platform.getSubnet", `{"subnetID":"` + in.subnet.String() + `"}`},
		{"platform.getBlock", `{"blockID":"` + pBlockID(t, uri, h) + `","encoding":"hex"}`},
		{"platform.getBlock", `{"blockID":"` + pBlockID(t, uri, h) + `","encoding":"json"}`},
	}
	for height := uint64(1); height <= h; height++ {
		calls = append(calls, pCall{"platform.getBlockByHeight", fmt.Sprintf(`{"height":"%d","encoding":"hex"}`, height)},
			pCall{"platform.getBlockByHeight", fmt.Sprintf(`{"height":"%d","encoding":"json"}`, height)})
		// Every transaction of every block in hex: the bytes the index
		// cuts from its block's.
		for _, tx := range pBlockTxs(t, uri, height) {
			calls = append(calls, pCall{"platform.getTx", `{"txID":"` + tx.String() + `","encoding":"hex"}`})
		}
	}
	return calls
}

// pBlockTxs are the ids of the transactions of the node's P-Chain block at
// height, parsed with avalanchego's block codec.
func pBlockTxs(t *testing.T, uri string, height uint64) []ids.ID {
	b, err := platformvm.NewClient(uri).GetBlockByHeight(context.Background(), height)
	if err != nil {
		t.Fatal(err)
	}
	blk, err := block.Parse(block.Codec, b)
	if err != nil {
		t.Fatalf("P-Chain block %d: %v", height, err)
	}
	var out []ids.ID
	for _, tx := range blk.Txs() {
		out = append(out, tx.ID())
	}
	return out
}

// pBlockID is the id of the node's P-Chain block at height.
func pBlockID(t *testing.T, uri string, height uint64) string {
	b, err := platformvm.NewClient(uri).GetBlockByHeight(context.Background(), height)
	if err != nil {
		t.Fatal(err)
	}
	return ids.ID(hashing.ComputeHash256Array(b)).String()
}

// postRPC posts call to url and returns the answer's body.
func postRPC(t *testing.T, url string, c pCall) []byte {
	body := `{"jsonrpc":"2.0","id":1,"method":"` + c.method + `","params":` + c.params + `}`
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatalf("%s: %v", c.method, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return bytes.TrimSpace(b)
}

// uptimes are the fields of getCurrentValidators a node computes as it is
// asked (its uptime and connection as it sees them now), which the kept
// answer holds as of its reading.
var uptimes = regexp.MustCompile(`"uptime":"[0-9.]+"`)

// nodePlatform returns the node's answers to calls (the P-Chain's, and
// the C-Chain's avax.* ones).
func nodePlatform(t *testing.T, uri string, calls []pCall) [][]byte {
	out := make([][]byte, len(calls))
	for i, c := range calls {
		path := "/ext/bc/P"
		if strings.HasPrefix(c.method, "avax.") {
			path = "/ext/bc/C/avax"
		}
		out[i] = postRPC(t, uri+path, c)
		if bytes.Contains(out[i], []byte(`"error"`)) {
			t.Fatalf("the node's %s %s: %s", c.method, c.params, out[i])
		}
	}
	return out
}

// checkIndexPlatform checks that the index's answers to calls (the local
// world's methods over a followed node's index, node.IndexMethods) are the
// node's, want.
func checkIndexPlatform(t *testing.T, ix *pindex.Index, calls []pCall, want [][]byte) {
	methods, err := node.IndexMethods(context.Background(), ix)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(jsonrpc.NewServer(methods))
	defer srv.Close()
	for i, c := range calls {
		got := postRPC(t, srv.URL, c)
		g, w := got, want[i]
		if c.method == "platform.getCurrentValidators" {
			g, w = uptimes.ReplaceAll(g, []byte(`"uptime":"-"`)), uptimes.ReplaceAll(w, []byte(`"uptime":"-"`))
		}
		if !bytes.Equal(g, w) {
			t.Errorf("%s %s from the index:\n%s\nthe node's:\n%s", c.method, c.params, got, want[i])
		}
	}
}
