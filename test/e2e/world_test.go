package e2e

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/constants"
	"github.com/ava-labs/avalanchego/vms/platformvm/warp"
	"github.com/ava-labs/avalanchego/vms/platformvm/warp/payload"
)

// ewoqEVM is the funded ewoq key's C-Chain address.
const ewoqEVM = "0x8db97C7cEcE249c2b98bDC0226Cc4C2A57BF52FC"

// cChainIDs are the C-Chain's blockchain ids on mainnet and fuji (the
// real networks' published ids).
var cChainIDs = map[string]string{
	"mainnet": "2q9e4r6Mu3U68nU1fYjgbR6JvwrRx36CohpAX5UQxse55x1Q5",
	"fuji":    "yH8D7ThNJkxmtkuv2jgBa4P1Rn3Qpr4pPr7QYNfcdoS6k6HWp",
}

// world holds identifiers of the local world, discovered by asking a
// local-mode avaedge, from which valid parameters for every route are
// built.
type world struct {
	Network   string // mainnet or fuji
	NodeID    string // an active validator
	PAddr     string // a P-Chain address with UTXOs
	XAddr     string
	L1ConvTx  string // an L1 conversion transaction
	L1        string // the subnet it converted
	PBlock    string // a P-Chain block
	ChainID   string // the local C-Chain's EVM chain id
	NFT       string // an ERC-721 contract ewoq holds a token of
	TokenID   string
	BlockHash string // an EVM block with transactions
	TxHash    string // an EVM transaction
	Warp      []byte // a valid unsigned Warp message from the network's C-Chain
	// Node world (the local node presents itself as network "local").
	XAddrLocal string // ewoq on the X-Chain, local HRP
	XBlockID   string
	XTxID      string
}

var (
	worldMu    sync.Mutex
	worldCache = map[string]*world{}
)

// discover asks the shared local-mode edge for the identifiers of network.
func discover(t testing.TB, network string) *world {
	t.Helper()
	worldMu.Lock()
	defer worldMu.Unlock()
	if w := worldCache[network]; w != nil {
		return w
	}
	base := localEdge(t).URL
	w := &world{Network: network, ChainID: "43112"}
	var vs struct {
		Validators []struct{ NodeID string } `json:"validators"`
	}
	getJSON(t, base+"/v1/networks/"+network+"/validators?pageSize=10&validationStatus=active", &vs)
	if len(vs.Validators) == 0 {
		t.Fatal("the local world lists no active validator")
	}
	w.NodeID = vs.Validators[0].NodeID
	var ds struct {
		Delegators []struct{ RewardAddresses []string } `json:"delegators"`
	}
	getJSON(t, base+"/v1/networks/"+network+"/delegators", &ds)
	for _, d := range ds.Delegators {
		if len(d.RewardAddresses) > 0 {
			w.PAddr = d.RewardAddresses[0]
			break
		}
	}
	if w.PAddr == "" {
		t.Fatal("no delegator reward address in the local world")
	}
	w.XAddr = "X-" + strings.TrimPrefix(w.PAddr, "P-")
	var ss struct {
		Subnets []struct {
			SubnetID                    string `json:"subnetId"`
			IsL1                        bool   `json:"isL1"`
			L1ConversionTransactionHash string `json:"l1ConversionTransactionHash"`
		} `json:"subnets"`
	}
	getJSON(t, base+"/v1/networks/"+network+"/subnets?pageSize=100", &ss)
	for _, s := range ss.Subnets {
		if s.IsL1 && s.L1ConversionTransactionHash != "" {
			w.L1ConvTx, w.L1 = s.L1ConversionTransactionHash, s.SubnetID
		}
	}
	if w.L1ConvTx == "" {
		t.Fatal("no L1 in the local world")
	}
	var blocks struct {
		Blocks []struct {
			BlockHash string `json:"blockHash"`
		} `json:"blocks"`
	}
	getJSON(t, base+"/v1/networks/"+network+"/blockchains/p-chain/blocks?pageSize=1", &blocks)
	if len(blocks.Blocks) == 0 {
		t.Fatal("no P-Chain block in the local world")
	}
	w.PBlock = blocks.Blocks[0].BlockHash
	var nfts struct {
		Erc721TokenBalances []struct{ Address, TokenID string } `json:"erc721TokenBalances"`
	}
	getJSON(t, base+"/v1/chains/43112/addresses/"+ewoqEVM+"/balances:listErc721", &nfts)
	if len(nfts.Erc721TokenBalances) == 0 {
		t.Fatal("ewoq holds no ERC-721 token in the local world")
	}
	w.NFT, w.TokenID = nfts.Erc721TokenBalances[0].Address, nfts.Erc721TokenBalances[0].TokenID
	var txs struct {
		Transactions []struct {
			TxHash    string `json:"txHash"`
			BlockHash string `json:"blockHash"`
		} `json:"transactions"`
	}
	getJSON(t, base+"/v1/chains/43112/addresses/"+ewoqEVM+"/transactions:listErc1155", &txs)
	if len(txs.Transactions) == 0 {
		t.Fatal("ewoq has no ERC-1155 transaction in the local world")
	}
	w.TxHash, w.BlockHash = txs.Transactions[0].TxHash, txs.Transactions[0].BlockHash
	w.Warp = warpMessage(t, network)

	// The node: ewoq's X address and a block with a transaction.
	w.XAddrLocal = "X-local18jma8ppw3nhx5r4ap8clazz0dps7rv5u00z96u"
	var blk struct {
		Block struct {
			ID  string `json:"id"`
			Txs []struct {
				ID string `json:"id"`
			} `json:"txs"`
		} `json:"block"`
	}
	rpcResult(t, base+"/ext/bc/X", "avm.getBlockByHeight", `{"height":"1","encoding":"json"}`, &blk)
	if blk.Block.ID == "" || len(blk.Block.Txs) == 0 {
		t.Fatal("the local X-Chain's block 1 has no id or no transaction")
	}
	w.XBlockID, w.XTxID = blk.Block.ID, blk.Block.Txs[0].ID
	worldCache[network] = w
	return w
}

// warpMessage builds, with avalanchego's own warp package, an unsigned Warp
// message from network's C-Chain carrying an addressed call.
func warpMessage(t testing.TB, network string) []byte {
	t.Helper()
	src, err := ids.FromString(cChainIDs[network])
	if err != nil {
		t.Fatal(err)
	}
	call, err := payload.NewAddressedCall([]byte{0xaa, 0xed}, []byte("avaedge e2e"))
	if err != nil {
		t.Fatal(err)
	}
	msg, err := warp.NewUnsignedMessage(constants.NetworkNameToNetworkID[network], src, call.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	return msg.Bytes()
}

func getJSON(t testing.TB, u string, v any) {
	t.Helper()
	r := do(t, "GET", u, nil, nil)
	if r.Status != 200 {
		t.Fatalf("GET %s = %s", u, r)
	}
	if err := json.Unmarshal(r.Body, v); err != nil {
		t.Fatalf("GET %s: %v", u, err)
	}
}

func rpcResult(t testing.TB, u, method, params string, v any) {
	t.Helper()
	r := do(t, "POST", u, rpcBody(1, method, params), nil)
	var env struct {
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	if r.Status != 200 || json.Unmarshal(r.Body, &env) != nil || env.Result == nil {
		t.Fatalf("%s at %s = %s", method, u, r)
	}
	if err := json.Unmarshal(env.Result, v); err != nil {
		t.Fatal(err)
	}
}

func rpcBody(id int, method, params string) []byte {
	if params == "" {
		return []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q}`, id, method))
	}
	return []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, id, method, params))
}

// call is one request to a route.
type call struct {
	Method string
	Path   string // with the query
	Body   []byte
	// RPCError, when set, is part of the JSON-RPC error message a valid
	// call gets from every world of the suite (a write the local world has
	// no implementation of), instead of a result.
	RPCError string
}

// nodeParams are valid parameters for each info.* and avm.* method, given
// ewoq's X address, an X-Chain block and transaction. Methods absent here
// take no parameters.
func nodeParams(xAddr, blockID, txID string) map[string]string {
	return map[string]string{
		"info.getBlockchainID":    `{"alias":"X"}`,
		"info.isBootstrapped":     `{"chain":"X"}`,
		"info.peers":              `{}`,
		"info.uptime":             `{}`,
		"avm.getAllBalances":      fmt.Sprintf(`{"address":%q}`, xAddr),
		"avm.getAssetDescription": `{"assetID":"AVAX"}`,
		"avm.getBalance":          fmt.Sprintf(`{"address":%q,"assetID":"AVAX"}`, xAddr),
		"avm.getBlock":            fmt.Sprintf(`{"blockID":%q,"encoding":"hex"}`, blockID),
		"avm.getBlockByHeight":    `{"height":"1","encoding":"hex"}`,
		"avm.getTx":               fmt.Sprintf(`{"txID":%q,"encoding":"json"}`, txID),
		"avm.getTxStatus":         fmt.Sprintf(`{"txID":%q}`, txID),
		"avm.getUTXOs":            fmt.Sprintf(`{"addresses":[%q],"limit":5,"encoding":"hex"}`, xAddr),
		"avm.issueTx":             `{"tx":"0x00","encoding":"hex"}`, // no transaction: refused
		// The EVM methods priced apart, on the C-Chain (the dev chain).
		"eth_call":             fmt.Sprintf(`[{"to":%q,"data":"0x"},"latest"]`, ewoqEVM),
		"eth_estimateGas":      fmt.Sprintf(`[{"from":%q,"to":%q,"value":"0x1"}]`, ewoqEVM, ewoqEVM),
		"eth_createAccessList": fmt.Sprintf(`[{"from":%q,"to":%q},"latest"]`, ewoqEVM, ewoqEVM),
		"eth_getLogs":          `[{"fromBlock":"latest"}]`,
		"eth_simulateV1":       fmt.Sprintf(`[{"blockStateCalls":[{"calls":[{"from":%q,"to":%q,"value":"0x1"}]}]},"latest"]`, ewoqEVM, ewoqEVM),
	}
}

// callsFor returns valid requests for a catalogued route in w. It fails the
// test for a route it does not know, so a new route cannot go untested.
func callsFor(t testing.TB, r route, w *world) []call {
	t.Helper()
	n, c := w.Network, w.ChainID
	esc := url.QueryEscape
	get := func(p string) call { return call{Method: "GET", Path: p} }
	switch r.Name {
	case "aggregateSignatures":
		return []call{{Method: "POST", Path: "/v1/signatureAggregator/" + n + "/aggregateSignatures",
			Body: []byte(fmt.Sprintf(`{"message":"%s"}`, hex.EncodeToString(w.Warp)))}}
	case "getAggregatedSignatures":
		return []call{get("/v1/signatureAggregator/" + n + "/aggregateSignatures/" + w.L1ConvTx)}
	case "getDeploymentTransaction":
		return []call{get("/v1/chains/" + c + "/contracts/" + w.NFT + "/transactions:getDeployment")}
	case "listSubnets":
		return []call{get("/v1/networks/" + n + "/subnets?pageSize=5")}
	case "getSubnetById":
		return []call{get("/v1/networks/" + n + "/subnets/" + w.L1)}
	case "listLatestPrimaryNetworkBlocks":
		return []call{get("/v1/networks/" + n + "/blockchains/p-chain/blocks?pageSize=3"), get("/v1/networks/" + n + "/blockchains/x-chain/blocks")}
	case "getBlockById":
		return []call{get("/v1/networks/" + n + "/blockchains/p-chain/blocks/" + w.PBlock)}
	case "listLatestPrimaryNetworkTransactions", "getTxByHash":
		// The devnet has no P- or X-Chain transaction history to list:
		// these answer 503 there (TestDevnetTxRoutes), and from a followed
		// node's index (TestNodeModeSDK).
		return nil
	case "listL1Validators":
		return []call{get("/v1/networks/" + n + "/l1Validators"), get("/v1/networks/" + n + "/l1Validators?subnetId=" + w.L1)}
	case "getUtxosByAddresses":
		return []call{get("/v1/networks/" + n + "/blockchains/p-chain/utxos?addresses=" + esc(w.PAddr)),
			get("/v1/networks/" + n + "/blockchains/x-chain/utxos?includeSpent=true&sortBy=amount&addresses=" + esc(w.XAddr))}
	case "listErc1155Transactions":
		return []call{get("/v1/chains/" + c + "/addresses/" + ewoqEVM + "/transactions:listErc1155")}
	case "listTransfers":
		return []call{get("/v1/chains/" + c + "/tokens/" + w.NFT + "/transfers")}
	case "listErc1155Balances":
		return []call{get("/v1/chains/" + c + "/addresses/" + ewoqEVM + "/balances:listErc1155")}
	case "listErc721Balances":
		return []call{get("/v1/chains/" + c + "/addresses/" + ewoqEVM + "/balances:listErc721")}
	case "getNativeBalance":
		return []call{get("/v1/chains/" + c + "/addresses/" + ewoqEVM + "/balances:getNative")}
	case "listPendingPrimaryNetworkRewards":
		return []call{get("/v1/networks/" + n + "/rewards:listPending?nodeIds=" + w.NodeID)}
	case "getSingleValidatorDetails":
		return []call{get("/v1/networks/" + n + "/validators/" + w.NodeID)}
	case "listDelegators":
		return []call{get("/v1/networks/" + n + "/delegators?pageSize=5")}
	case "getVertexByHeight":
		return []call{get("/v1/networks/" + n + "/blockchains/x-chain/vertices:listByHeight?vertexHeight=1")}
	case "getLatestBlocks":
		return []call{get("/v1/chains/" + c + "/blocks?pageSize=3")}
	case "listPrimaryNetworkBlocksByNodeId":
		return []call{get("/v1/networks/" + n + "/blockchains/p-chain/nodes/" + w.NodeID + "/blocks")}
	case "getTokenDetails":
		return []call{get("/v1/chains/" + c + "/nfts/collections/" + w.NFT + "/tokens/" + w.TokenID)}
	case "getChainIdsForAddresses":
		return []call{get("/v1/networks/" + n + "/addresses:listChainIds?addresses=" + esc(w.PAddr))}
	case "supportedChains":
		return []call{get("/v1/chains")}
	case "getChainInfo":
		return []call{get("/v1/chains/" + c)}
	case "listValidators":
		return []call{get("/v1/networks/" + n + "/validators?pageSize=3&validationStatus=active&sortBy=delegationFee&sortOrder=asc")}
	case "getBlock":
		return []call{get("/v1/chains/" + c + "/blocks/" + w.BlockHash)}
	case "getTransaction":
		return []call{get("/v1/chains/" + c + "/transactions/" + w.TxHash)}
	case "listErc20Balances":
		return []call{get("/v1/chains/" + c + "/addresses/" + ewoqEVM + "/balances:listErc20")}
	case "getEvmChainMetrics":
		return []call{get("/v2/chains/" + c + "/metrics/txCount?timeInterval=day&pageSize=5"),
			get("/v2/chains/" + c + "/metrics/cumulativeContracts?timeInterval=day&pageSize=5"),
			get("/v2/chains/" + c + "/metrics/activeAddresses?timeInterval=hour&pageSize=5")}
	case "listChains":
		return []call{get("/v2/chains")}
	case "getChain":
		return []call{get("/v2/chains/" + c)}
	case "getAvgTps":
		return []call{get("/v1/avg_tps/" + c)}
	}
	if r.Endpoint != "" {
		params := nodeParams(w.XAddrLocal, w.XBlockID, w.XTxID)
		switch r.Name {
		case "evm.rpc":
			return []call{{Method: "POST", Path: r.Path, Body: rpcBody(7, "eth_blockNumber", "[]")},
				{Method: "POST", Path: r.Path, Body: rpcBody(8, "eth_chainId", "[]")}}
		case "avm.issueTx":
			// A write: the suite's worlds are the local one (directly or
			// behind the recording upstream), which issues nothing.
			return []call{{Method: "POST", Path: r.Path, Body: rpcBody(7, r.Name, params[r.Name]),
				RPCError: "avm.issueTx has no local implementation yet"}}
		}
		return []call{{Method: "POST", Path: r.Path, Body: rpcBody(7, r.Name, params[r.Name])}}
	}
	t.Fatalf("catalogued route %s (%s %s) has no request in the e2e suite: add one to callsFor", r.Name, r.Method, r.Path)
	return nil
}
