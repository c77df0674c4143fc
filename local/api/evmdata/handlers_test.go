package evmdata

import (
	"slices"

	"context"
	"encoding/json"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/avaedge/avaedge/catalog"

	"github.com/avaedge/avaedge/internal/spectest"
	"github.com/avaedge/avaedge/local/source/devnet/evm"
	"github.com/avaedge/avaedge/local/source/evmindex"
	"github.com/ethereum/go-ethereum/common"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// routes are the Data API patterns of the handlers (catalog/routes.go has the
// real catalogue).
var routes = map[string]string{
	"supportedChains":                 "GET /v1/chains",
	"getChainInfo":                    "GET /v1/chains/{chainId}",
	"getLatestBlocks":                 "GET /v1/chains/{chainId}/blocks",
	"getBlock":                        "GET /v1/chains/{chainId}/blocks/{blockId}",
	"getNativeBalance":                "GET /v1/chains/{chainId}/addresses/{address}/balances:getNative",
	"listErc20Balances":               "GET /v1/chains/{chainId}/addresses/{address}/balances:listErc20",
	"listErc721Balances":              "GET /v1/chains/{chainId}/addresses/{address}/balances:listErc721",
	"listErc1155Balances":             "GET /v1/chains/{chainId}/addresses/{address}/balances:listErc1155",
	"listErc1155Transactions":         "GET /v1/chains/{chainId}/addresses/{address}/transactions:listErc1155",
	"listTransfers":                   "GET /v1/chains/{chainId}/tokens/{address}/transfers",
	"getDeploymentTransaction":        "GET /v1/chains/{chainId}/contracts/{address}/transactions:getDeployment",
	"getTransaction":                  "GET /v1/chains/{chainId}/transactions/{txHash}",
	"getTokenDetails":                 "GET /v1/chains/{chainId}/nfts/collections/{address}/tokens/{tokenId}",
	"listAddressChains":               "GET /v1/address/{address}/chains",
	"listLatestBlocksAllChains":       "GET /v1/blocks",
	"listLatestTransactionsAllChains": "GET /v1/transactions",
	"getTransactionsForBlock":         "GET /v1/chains/{chainId}/blocks/{blockId}/transactions",
	"listLatestTransactions":          "GET /v1/chains/{chainId}/transactions",
	"listTransactions":                "GET /v1/chains/{chainId}/addresses/{address}/transactions",
	"listTransactionsV2":              "GET /v2/chains/{chainId}/addresses/{address}/transactions",
	"listNativeTransactions":          "GET /v1/chains/{chainId}/addresses/{address}/transactions:listNative",
	"listErc20Transactions":           "GET /v1/chains/{chainId}/addresses/{address}/transactions:listErc20",
	"listErc721Transactions":          "GET /v1/chains/{chainId}/addresses/{address}/transactions:listErc721",
	"listInternalTransactions":        "GET /v1/chains/{chainId}/addresses/{address}/transactions:listInternals",
	"listCollectibleBalances":         "GET /v1/chains/{chainId}/addresses/{address}/balances:listCollectibles",
	"getContractMetadata":             "GET /v1/chains/{chainId}/addresses/{address}",
	"listContractDeployments":         "GET /v1/chains/{chainId}/contracts/{address}/deployments",
	"listTokens":                      "GET /v1/chains/{chainId}/nfts/collections/{address}/tokens",
}

// world is a dev chain, its index and the handlers on one test server.
type world struct {
	chain *evm.Chain
	ix    *evmindex.Index
	srv   *httptest.Server // Data API routes plus POST /ext/bc/C/rpc
}

var fixedNow = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// newWorld starts the world; tune, when given, adjusts the chain's index
// options before the index opens.
func newWorld(t testing.TB, tune ...func(*evm.Chain, *evmindex.ChainOptions)) *world {
	t.Helper()
	return newWorldOf(t, evm.Options{}, Options{}, tune...)
}

// newWorldOf starts the world of a chain built with eo, served with the
// handler options ho (Index, Chains and Now are set here).
func newWorldOf(t testing.TB, eo evm.Options, ho Options, tune ...func(*evm.Chain, *evmindex.ChainOptions)) *world {
	t.Helper()
	ctx := context.Background()
	c, err := evm.New(ctx, eo)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	cl := c.Client()
	t.Cleanup(cl.Close)
	co := evmindex.ChainOptions{ChainID: c.ChainID(), Client: cl, PollInterval: 20 * time.Millisecond}
	for _, f := range tune {
		f(c, &co)
	}
	ix, err := evmindex.Open(ctx, evmindex.Options{
		Chains: []evmindex.ChainOptions{co},
		Now:    func() time.Time { return fixedNow },
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	ix.Start(ctx)
	wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := ix.WaitFor(wctx, c.ChainID(), c.Seed().Head); err != nil {
		t.Fatal(err)
	}
	ho.Index, ho.Chains, ho.Now = ix, []ChainInfo{LocalChain(c.ChainID(), "http://127.0.0.1:8080/ext/bc/C/rpc")}, func() time.Time { return fixedNow }
	hs := Handlers(ho)
	// The handlers take validated values: mount them through the catalogue.
	mux := catalog.NewMux(catalog.Catalogue(), hs)
	for op, pattern := range routes {
		if _, ok := hs[op]; !ok {
			t.Fatalf("no handler for %s", op)
		}
		if !slices.ContainsFunc(catalog.Catalogue(), func(r catalog.Route) bool { return r.Name == op && r.Pattern() == pattern }) {
			t.Fatalf("%s: catalogue pattern is not %s", op, pattern)
		}
	}
	mux.Handle("POST /ext/bc/C/rpc", c.Handler())
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return &world{chain: c, ix: ix, srv: srv}
}

// get fetches path and decodes the JSON answer; it fails on another status.
func (w *world) get(t testing.TB, path string, wantStatus int) map[string]any {
	t.Helper()
	resp, err := http.Get(w.srv.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != wantStatus {
		t.Fatalf("GET %s: status %d; want %d: %s", path, resp.StatusCode, wantStatus, body)
	}
	var out map[string]any
	if err := json.Unmarshal(body, &out); err != nil {
		t.Fatalf("GET %s: %v: %s", path, err, body)
	}
	return out
}

var spec = spectest.DataAPI(nil)

// schema compiles #/components/schemas/name of the Data API's glacier.json.
func schema(t testing.TB, name string) *jsonschema.Schema { return spec.Schema(t, name) }

func validate(t testing.TB, name string, v map[string]any) {
	t.Helper()
	// Round-trip through the validator's own decoder (json.Number).
	raw, _ := json.Marshal(v)
	if err := spec.Validate(t, name, raw); err != nil {
		t.Fatalf("answer is not a valid %s: %v\n%s", name, err, raw)
	}
}

func list(v map[string]any, key string) []any {
	l, _ := v[key].([]any)
	return l
}

func TestHandlersSchema(t *testing.T) {
	w := newWorld(t)
	s := w.chain.Seed()
	acc := w.chain.Accounts()
	ewoq, dev1 := acc[0].Address.Hex(), acc[1].Address.Hex()
	deploy, _ := w.ix.Deployment(context.Background(), 43112, s.ChildCreate)
	cases := []struct {
		name, path, schema, list string
	}{
		{"chains", "/v1/chains", "ListChainsResponse", "chains"},
		{"chain", "/v1/chains/43112", "GetChainResponse", ""},
		{"chain by blockchain id", "/v1/chains/2owdGqyG6FFzTHy5qhenDXQcEghvr571KZE3gSfRJERSJinuwC", "GetChainResponse", ""},
		{"blocks", "/v1/chains/43112/blocks?pageSize=3", "ListEvmBlocksResponse", "blocks"},
		{"block", "/v1/chains/43112/blocks/3", "GetEvmBlockResponse", ""},
		{"native", "/v1/chains/43112/addresses/" + ewoq + "/balances:getNative?currency=usd", "GetNativeBalanceResponse", ""},
		{"native at block", "/v1/chains/43112/addresses/" + dev1 + "/balances:getNative?blockNumber=1", "GetNativeBalanceResponse", ""},
		{"erc20", "/v1/chains/43112/addresses/" + ewoq + "/balances:listErc20", "ListErc20BalancesResponse", "erc20TokenBalances"},
		{"erc721", "/v1/chains/43112/addresses/" + ewoq + "/balances:listErc721", "ListErc721BalancesResponse", "erc721TokenBalances"},
		{"erc1155", "/v1/chains/43112/addresses/" + ewoq + "/balances:listErc1155?pageSize=2", "ListErc1155BalancesResponse", "erc1155TokenBalances"},
		{"erc1155 at block", "/v1/chains/43112/addresses/" + ewoq + "/balances:listErc1155?blockNumber=4&contractAddress=" + s.Multi.Hex(), "ListErc1155BalancesResponse", "erc1155TokenBalances"},
		{"erc1155 txs", "/v1/chains/43112/addresses/" + ewoq + "/transactions:listErc1155", "ListErc1155TransactionsResponse", "transactions"},
		{"erc20 transfers", "/v1/chains/43112/tokens/" + s.Token.Hex() + "/transfers", "ListTransfersResponse", "transfers"},
		{"erc721 transfers", "/v1/chains/43112/tokens/" + s.NFT.Hex() + "/transfers", "ListTransfersResponse", "transfers"},
		{"erc1155 transfers", "/v1/chains/43112/tokens/" + s.Multi.Hex() + "/transfers?startBlock=4&endBlock=6", "ListTransfersResponse", "transfers"},
		{"deployment", "/v1/chains/43112/contracts/" + s.Token.Hex() + "/transactions:getDeployment", "GetTransactionResponse", ""},
		{"deployment by factory", "/v1/chains/43112/contracts/" + s.ChildCreate2.Hex() + "/transactions:getDeployment", "GetTransactionResponse", "internalTransactions"},
		{"transaction", "/v1/chains/43112/transactions/" + deploy.TxHash.Hex(), "GetTransactionResponse", "internalTransactions"},
		{"erc721 token", "/v1/chains/43112/nfts/collections/" + s.NFT.Hex() + "/tokens/1", "Erc721Token", ""},
		{"erc1155 token", "/v1/chains/43112/nfts/collections/" + s.Multi.Hex() + "/tokens/3", "Erc1155Token", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v := w.get(t, tc.path, http.StatusOK)
			validate(t, tc.schema, v)
			if tc.list != "" && len(list(v, tc.list)) == 0 {
				t.Fatalf("%s is empty", tc.list)
			}
		})
	}
	errs := []struct {
		name, path string
		status     int
	}{
		{"unknown chain", "/v1/chains/1234/blocks", 404},
		{"unknown chain info", "/v1/chains/1234", 404},
		{"bad address", "/v1/chains/43112/addresses/0x12/balances:listErc721", 400},
		{"page size", "/v1/chains/43112/blocks?pageSize=101", 400},
		{"bad token", "/v1/chains/43112/blocks?pageToken=nope", 400},
		{"bad start", "/v1/chains/43112/tokens/" + s.Token.Hex() + "/transfers?startBlock=-1", 400},
		{"bad currency", "/v1/chains/43112/addresses/" + ewoq + "/balances:getNative?currency=xyz", 400},
		{"no deployment", "/v1/chains/43112/contracts/" + ewoq + "/transactions:getDeployment", 404},
		{"no token", "/v1/chains/43112/nfts/collections/" + s.NFT.Hex() + "/tokens/99", 404},
		{"bad token id", "/v1/chains/43112/nfts/collections/" + s.NFT.Hex() + "/tokens/x", 400},
	}
	for _, tc := range errs {
		t.Run(tc.name, func(t *testing.T) {
			v := w.get(t, tc.path, tc.status)
			if v["statusCode"] != float64(tc.status) || v["error"] == nil || v["message"] == nil {
				t.Fatalf("error body %v", v)
			}
		})
	}
}

func TestSeededValues(t *testing.T) {
	w := newWorld(t)
	s := w.chain.Seed()
	acc := w.chain.Accounts()
	v := w.get(t, "/v1/chains/43112/tokens/"+s.Token.Hex()+"/transfers?pageSize=2", 200)
	tr := list(v, "transfers")
	if len(tr) != 2 || v["nextPageToken"] == nil {
		t.Fatalf("page 1: %v", v)
	}
	first := tr[0].(map[string]any)
	if first["value"] != "100000000000000000000" || first["from"].(map[string]any)["address"] != acc[1].Address.Hex() || first["blockNumber"] != "4" {
		t.Fatalf("newest ADT transfer %v", first)
	}
	v2 := w.get(t, "/v1/chains/43112/tokens/"+s.Token.Hex()+"/transfers?pageSize=2&pageToken="+v["nextPageToken"].(string), 200)
	tr2 := list(v2, "transfers")
	if len(tr2) != 2 || v2["nextPageToken"] != nil || tr2[1].(map[string]any)["from"].(map[string]any)["address"] != "0x0000000000000000000000000000000000000000" {
		t.Fatalf("page 2: %v", v2)
	}
	blocks := list(w.get(t, "/v1/chains/43112/blocks?pageSize=1", 200), "blocks")
	if b := blocks[0].(map[string]any); b["blockNumber"] != "7" || b["blockTimestamp"] != float64(evm.DefaultGenesisTime.Unix()+14) || b["cumulativeTransactions"] != "26" {
		t.Fatalf("head block %v", b)
	}
	tok := w.get(t, "/v1/chains/43112/nfts/collections/"+s.NFT.Hex()+"/tokens/4", 200)
	md := tok["metadata"].(map[string]any)
	if tok["ownerAddress"] != acc[2].Address.Hex() || md["indexStatus"] != "INDEXED" || md["name"] != "Avaedge Dev NFT #4" || !strings.HasPrefix(tok["tokenUri"].(string), "data:application/json;base64,") {
		t.Fatalf("token 4: %v", tok)
	}
}

// TestChecksum: the cached EIP-55 form is go-ethereum's, also once the cache
// was emptied for being full.
func TestChecksum(t *testing.T) {
	for i := range maxChecksums + 10 {
		a := common.BigToAddress(big.NewInt(int64(i*7919 + 1)))
		if got := checksum(a); got != a.Hex() {
			t.Fatalf("checksum(%x) = %s; want %s", a, got, a.Hex())
		}
	}
	if n := len(checksums.m); n > maxChecksums {
		t.Errorf("the cache holds %d; at most %d", n, maxChecksums)
	}
	a := common.HexToAddress("0x8db97c7cece249c2b98bdc0226cc4c2a57bf52fc")
	if got := checksum(a); got != "0x8db97C7cEcE249c2b98bDC0226Cc4C2A57BF52FC" {
		t.Errorf("ewoq's checksum %s", got)
	}
}
