package e2e

import (
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
	Vertex    string // an X-Chain vertex
	AssetID   string // an X-Chain asset ewoq's X address holds
	// BlockchainID is a chain of the local world: the dev chain's.
	BlockchainID string
	// ValidationID and L1NodeID are an L1 validator's.
	ValidationID, L1NodeID string
	// IcmMessage is an ICM message: the first listIcmMessages lists, or
	// a placeholder while the local world lists none (noLocalYet).
	IcmMessage string
	// Node world (the local node presents itself as network "local").
	XAddrLocal string // ewoq on the X-Chain, local HRP
	XBlockID   string
	XTxID      string
}

// noVertex is a well-formed vertex hash that names no vertex of the local
// world.
const noVertex = "11111111111111111111111111111111LpoYY"

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
	discoverMore(t, base, w)

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

// discoverMore finds the identifiers of the routes beyond the seeds': a
// vertex, an X-Chain asset, a blockchain, an L1 validator, an ICM message.
func discoverMore(t testing.TB, base string, w *world) {
	t.Helper()
	nets := base + "/v1/networks/" + w.Network
	var vs struct {
		Vertices []struct {
			VertexHash string `json:"vertexHash"`
		} `json:"vertices"`
	}
	getJSON(t, nets+"/blockchains/x-chain/vertices:listByHeight?vertexHeight=1", &vs)
	// The devnet's X-Chain is linear from its genesis: it has no vertex,
	// and a well-formed id stands for one (404).
	w.Vertex = noVertex
	if len(vs.Vertices) > 0 {
		w.Vertex = vs.Vertices[0].VertexHash
	}
	var utxos struct {
		Utxos []struct {
			Asset struct {
				AssetID string `json:"assetId"`
			} `json:"asset"`
		} `json:"utxos"`
	}
	getJSON(t, nets+"/blockchains/x-chain/utxos?addresses="+url.QueryEscape(w.XAddr), &utxos)
	if len(utxos.Utxos) == 0 {
		t.Fatalf("%s holds no X-Chain UTXO in the local world", w.XAddr)
	}
	w.AssetID = utxos.Utxos[0].Asset.AssetID
	var chains struct {
		Chains []struct {
			ChainID         string `json:"chainId"`
			PlatformChainID string `json:"platformChainId"`
		} `json:"chains"`
	}
	getJSON(t, base+"/v1/chains", &chains)
	for _, c := range chains.Chains {
		if c.ChainID == w.ChainID {
			w.BlockchainID = c.PlatformChainID
		}
	}
	if w.BlockchainID == "" {
		t.Fatalf("/v1/chains lists no chain %s", w.ChainID)
	}
	var l1 struct {
		Validators []struct {
			ValidationID string `json:"validationId"`
			NodeID       string `json:"nodeId"`
		} `json:"validators"`
	}
	getJSON(t, nets+"/l1Validators?subnetId="+w.L1, &l1)
	if len(l1.Validators) == 0 {
		t.Fatalf("the L1 %s has no validator in the local world", w.L1)
	}
	w.ValidationID, w.L1NodeID = l1.Validators[0].ValidationID, l1.Validators[0].NodeID
	// Until the local world lists ICM messages (noLocalYet), a well-formed
	// message id stands in.
	w.IcmMessage = "acf1c8b06f9aec48e9fcbefbbe576ae8a7ca3b327fcae111396e7cc99956674d"
	var msgs struct {
		Messages []struct {
			MessageID string `json:"messageId"`
		} `json:"messages"`
	}
	if r := do(t, "GET", base+"/v1/icm/messages?pageSize=1", nil, nil); r.Status == 200 {
		if err := json.Unmarshal(r.Body, &msgs); err == nil && len(msgs.Messages) > 0 {
			w.IcmMessage = msgs.Messages[0].MessageID
		}
	}
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
