package followed

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"

	"github.com/avaedge/avaedge/avanet"
	"github.com/avaedge/avaedge/internal/leaktest"
)

// localNode answers what a node of avalanchego's local network answers
// about its network (its id, its X- and C-Chain, AVAX), with its C-Chain
// down when cDown, and an error to every other call, which the followers
// survive (they retry).
func localNode(t *testing.T, cDown bool) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var call struct {
			ID     json.RawMessage   `json:"id"`
			Method string            `json:"method"`
			Params map[string]string `json:"params"`
		}
		b, _ := io.ReadAll(r.Body)
		json.Unmarshal(b, &call)
		result := map[string]string{"info.getNetworkID": `{"networkID":"12345"}`, "eth_chainId": `"0xa868"`,
			"avm.getAssetDescription": fmt.Sprintf(`{"assetID":%q}`, avanet.Local.AVAXAssetID)}[call.Method]
		if call.Method == "info.getBlockchainID" {
			result = fmt.Sprintf(`{"blockchainID":%q}`, avanet.Local.ChainID(avanet.Chain(call.Params["alias"])))
		}
		switch {
		case cDown && r.URL.Path == "/ext/bc/C/rpc":
			http.Error(w, "chain not bootstrapped", http.StatusServiceUnavailable)
		case result == "":
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32000,"message":"down"}}`, call.ID)
		default:
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":%s}`, call.ID, result)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestOpen follows a node of the local network: the world is that network,
// answering as itself, with the node's C-Chain (43112, what eth_chainId
// says, or what avanet knows of the network while the C-Chain is down) as
// its one real chain, pending until the index is ready; its node methods
// are a real network's. Close leaves nothing running.
func TestOpen(t *testing.T) {
	for _, cDown := range []bool{false, true} {
		t.Run(fmt.Sprintf("C-Chain down %v", cDown), func(t *testing.T) {
			node := localNode(t, cDown)
			left := leaktest.Take(t)
			w, err := Open(context.Background(), Options{Node: node.URL, Path: filepath.Join(t.TempDir(), "pindex.db"), Logger: slog.New(slog.DiscardHandler)})
			if err != nil {
				t.Fatal(err)
			}
			if n := w.Index().Network(); n.ID != avanet.Local.ID || n.XChainID != avanet.Local.XChainID {
				t.Errorf("network %+v", n)
			}
			if ds := w.DataSource(); ds.AnyNetwork || ds.Source == nil {
				t.Errorf("data source %+v; want the index, as itself", ds)
			}
			if _, hrp := w.Stakes(); hrp("mainnet") != avanet.Local.HRP {
				t.Errorf("stakers' HRP for mainnet %q; want the network's own", hrp("mainnet"))
			}
			chains, known := w.EVMChains()
			if len(chains) != 1 || known != nil {
				t.Fatalf("chains %+v, known %v; want the C-Chain", chains, known)
			}
			if c := chains[0]; c.Index.ChainID != avanet.Local.EVMChainID || !c.CChain || !c.Real || !c.Pending || c.RPC != nil ||
				c.Metrics.BlockchainID != avanet.Local.CChainID || c.Index.RPCURL != node.URL+"/ext/bc/C/rpc" {
				t.Errorf("the C-Chain: %+v", c)
			}
			nm, err := w.Node(context.Background(), "mainnet")
			if err != nil || !nm.Real || nm.Methods["info.getNetworkID"] == nil {
				t.Errorf("node methods: real %v, %d methods, %v", nm.Real, len(nm.Methods), err)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			left.Check(t)
		})
	}
}

// TestOpenWithoutNode: a node that does not answer and no stored index is
// an error, and nothing is left running.
func TestOpenWithoutNode(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	defer srv.Close()
	left := leaktest.Take(t)
	if _, err := Open(context.Background(), Options{Node: srv.URL, Logger: slog.New(slog.DiscardHandler)}); err == nil {
		t.Fatal("Open succeeded without a node or a store")
	}
	left.Check(t)
}
