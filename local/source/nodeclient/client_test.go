package nodeclient

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"reflect"
	"testing"

	"github.com/avaedge/avaedge/jsonrpc"
	"github.com/avaedge/avaedge/local/vocab/avax"
)

// received is one JSON-RPC call as the fake node received it.
type received struct {
	path, method string
	params       string
}

// fakeNode answers every call with answers[method] and records the calls.
func fakeNode(t *testing.T, answers map[string]string) (*Client, *[]received) {
	t.Helper()
	var calls []received
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			ID     uint64          `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			t.Errorf("request: %v", err)
		}
		calls = append(calls, received{r.URL.Path, req.Method, string(req.Params)})
		a, ok := answers[req.Method]
		if !ok {
			a = `null`
		}
		w.Write([]byte(`{"jsonrpc":"2.0","id":` + jsonID(req.ID) + `,"result":` + a + `}`))
	}))
	t.Cleanup(srv.Close)
	c := New(srv.URL, jsonrpc.ClientOptions{})
	t.Cleanup(c.Close)
	return c, &calls
}

func jsonID(id uint64) string { b, _ := json.Marshal(id); return string(b) }

// TestCalls checks each method's endpoint, method name, arguments and
// decoded answer against avalanchego v1.14.2's shapes.
func TestCalls(t *testing.T) {
	tx := []byte("avax")
	txID := avax.Hash256(tx).String()
	node := "NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg"
	c, calls := fakeNode(t, map[string]string{
		"info.getNetworkID":             `{"networkID":"12345"}`,
		"info.getBlockchainID":          `{"blockchainID":"2eNy1mUFdmaxXNj1eQHUe7Np4gju9sJsEtWQ4MX3ToiNKuADed"}`,
		"info.getNodeID":                `{"nodeID":"` + node + `","nodePOP":{}}`,
		"info.getNodeIP":                `{"ip":"127.0.0.1:9651"}`,
		"info.getNodeVersion":           `{"version":"avalanchego/1.14.2","databaseVersion":"v1.4.5"}`,
		"info.peers":                    `{"numPeers":"1","peers":[{"ip":"10.0.0.3:9651","publicIP":"1.2.3.4:9651","nodeID":"` + node + `"}]}`,
		"platform.getHeight":            `{"height":"42"}`,
		"avm.getBlockByHeight":          `{"block":"0x0102","encoding":"hexnc"}`,
		"avm.getTx":                     `{"tx":"` + avax.EncodeHexNC(tx) + `","encoding":"hexnc"}`,
		"platform.getBlockchains":       `{"blockchains":[{"id":"x","name":"X-Chain","subnetID":"11111111111111111111111111111111LpoYY","vmID":"avm"}]}`,
		"platform.getCurrentSupply":     `{"supply":"720000000000000000","height":"42"}`,
		"platform.getRewardUTXOs":       `{"numFetched":"1","utxos":["` + avax.EncodeHex([]byte{1, 2}) + `"],"encoding":"hex"}`,
		"platform.getValidatorsAt":      `{"` + node + `":{"publicKey":"0x0a0b","weight":"20"}}`,
		"avm.getAssetDescription":       `{"assetID":"2fombhL7aGPwj3KH4bfrmJwW6PVnMobf9Y2fn9GwxiAAJyFDbe","name":"Avalanche","symbol":"AVAX","denomination":"9"}`,
		"platform.getCurrentValidators": `{"validators":[]}`,
		"avm.getTxFee":                  `{"txFee":"1000000","createAssetTxFee":"10000000"}`,
	})
	ctx := context.Background()
	nodeID, _ := avax.ParseNodeID(node)
	tests := []struct {
		name     string
		do       func() (any, error)
		want     any
		wantCall received
	}{
		{"NetworkID", func() (any, error) { return c.Info().NetworkID(ctx) }, uint32(12345), received{"/ext/info", "info.getNetworkID", `{}`}},
		{"BlockchainID", func() (any, error) { return c.Info().BlockchainID(ctx, "X") }, "2eNy1mUFdmaxXNj1eQHUe7Np4gju9sJsEtWQ4MX3ToiNKuADed",
			received{"/ext/info", "info.getBlockchainID", `{"alias":"X"}`}},
		{"NodeID", func() (any, error) { return c.Info().NodeID(ctx) }, node, received{"/ext/info", "info.getNodeID", `{}`}},
		{"NodeIP", func() (any, error) { return c.Info().NodeIP(ctx) }, "127.0.0.1:9651", received{"/ext/info", "info.getNodeIP", `{}`}},
		{"NodeVersion", func() (any, error) { return c.Info().NodeVersion(ctx) }, "avalanchego/1.14.2", received{"/ext/info", "info.getNodeVersion", `{}`}},
		{"Peers", func() (any, error) { return c.Info().Peers(ctx, []string{node}) }, []Peer{{NodeID: node, IP: "10.0.0.3:9651", PublicIP: "1.2.3.4:9651"}},
			received{"/ext/info", "info.peers", `{"nodeIDs":["` + node + `"]}`}},
		{"P.Height", func() (any, error) { return c.P().Height(ctx) }, uint64(42), received{"/ext/bc/P", "platform.getHeight", `{}`}},
		{"X.BlockBytes", func() (any, error) { return c.X().BlockBytes(ctx, 7) }, []byte{1, 2},
			received{"/ext/bc/X", "avm.getBlockByHeight", `{"encoding":"hexnc","height":"7"}`}},
		{"X.TxBytes", func() (any, error) { return c.X().TxBytes(ctx, txID) }, tx, received{"/ext/bc/X", "avm.getTx", `{"encoding":"hexnc","txID":"` + txID + `"}`}},
		{"P.Blockchains", func() (any, error) { return c.P().Blockchains(ctx) }, []Blockchain{{ID: "x", SubnetID: "11111111111111111111111111111111LpoYY"}},
			received{"/ext/bc/P", "platform.getBlockchains", `{}`}},
		{"P.CurrentSupply", func() (any, error) { return c.P().CurrentSupply(ctx) }, Supply{Supply: 720000000000000000, Height: 42},
			received{"/ext/bc/P", "platform.getCurrentSupply", `{}`}},
		{"P.RewardUTXOs", func() (any, error) { return c.P().RewardUTXOs(ctx, txID) }, [][]byte{{1, 2}},
			received{"/ext/bc/P", "platform.getRewardUTXOs", `{"encoding":"hex","txID":"` + txID + `"}`}},
		{"P.ValidatorsAt", func() (any, error) { return c.P().ValidatorsAt(ctx, "s", 3) }, []Validator{{NodeID: nodeID, Weight: 20, PublicKey: []byte{10, 11}}},
			received{"/ext/bc/P", "platform.getValidatorsAt", `{"height":"3","subnetID":"s"}`}},
		{"P.CurrentValidators", func() (any, error) { return c.P().CurrentValidators(ctx, "") }, json.RawMessage(`{"validators":[]}`),
			received{"/ext/bc/P", "platform.getCurrentValidators", `{}`}},
		{"P.CurrentValidatorsOf", func() (any, error) { return c.P().CurrentValidatorsOf(ctx, []string{node}) }, json.RawMessage(`{"validators":[]}`),
			received{"/ext/bc/P", "platform.getCurrentValidators", `{"nodeIDs":["` + node + `"]}`}},
		{"X.AssetDescription", func() (any, error) { return c.X().AssetDescription(ctx, "AVAX") },
			AssetDescription{ID: "2fombhL7aGPwj3KH4bfrmJwW6PVnMobf9Y2fn9GwxiAAJyFDbe", Name: "Avalanche", Symbol: "AVAX"},
			received{"/ext/bc/X", "avm.getAssetDescription", `{"assetID":"AVAX"}`}},
		{"Answer", func() (any, error) { return c.Answer(ctx, "avm.getTxFee") }, json.RawMessage(`{"txFee":"1000000","createAssetTxFee":"10000000"}`),
			received{"/ext/bc/X", "avm.getTxFee", `{}`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			*calls = nil
			got, err := tt.do()
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %#v; want %#v", got, tt.want)
			}
			if len(*calls) != 1 || (*calls)[0] != tt.wantCall {
				t.Errorf("calls %+v; want one: %+v", *calls, tt.wantCall)
			}
		})
	}
}

// TestRefusals checks the answers a decoder refuses.
func TestRefusals(t *testing.T) {
	c, _ := fakeNode(t, map[string]string{
		"platform.getHeight": `{"height":"18446744073709551615"}`,
		"avm.getTx":          `{"tx":"0x0102"}`,
		"info.getNetworkID":  `{"networkID":"4294967296"}`,
	})
	ctx := context.Background()
	if _, err := c.P().Height(ctx); err == nil {
		t.Error("P.Height accepted 2^64-1")
	}
	if _, err := c.X().TxBytes(ctx, avax.Hash256([]byte("other")).String()); err == nil {
		t.Error("X.TxBytes accepted bytes of another tx")
	}
	if _, err := c.Info().NetworkID(ctx); err == nil {
		t.Error("NetworkID accepted 2^32")
	}
	if _, err := c.Answer(ctx, "eth_chainId"); err == nil {
		t.Error("Answer accepted a method of no avalanchego API")
	}
}
