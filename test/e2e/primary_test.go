package e2e

import (
	be "encoding/binary"
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/formatting"
)

// primaryIDs are the identifiers the reads of primaryReads name.
type primaryIDs struct {
	Network      string
	PAddr, XAddr string // with their chain prefixes
	NodeID       string
	AssetID      string
	BlockchainID string
	ValidationID string
}

// primaryRead is one read of a primary-network route (those issue 26
// built, and the transactions list's l1ValidationId filter): the route,
// its request, and the chainkit operation that makes it.
type primaryRead struct {
	name, route, method, path, body, op string
	args                                map[string]any
}

// primaryReads are chainkit's reads of the primary-network routes for ids.
func primaryReads(ids primaryIDs) []primaryRead {
	n := ids.Network
	nets := "/v1/networks/" + n
	esc := url.QueryEscape
	g := func(name, route, path, op string, args map[string]any) primaryRead {
		args["network"] = n
		return primaryRead{name: name, route: route, method: "GET", path: path, op: op, args: args}
	}
	body := func(addr string) string { return fmt.Sprintf(`{"addresses":%q}`, addr) }
	pn := "data.primaryNetwork."
	reads := []primaryRead{
		g("networkDetails", "getNetworkDetails", nets, pn+"getNetworkDetails", map[string]any{}),
		g("blockchains", "listBlockchains", nets+"/blockchains?pageSize=100", pn+"listBlockchains", map[string]any{"pageSize": 100}),
		g("blockchain", "getBlockchainById", nets+"/blockchains/"+ids.BlockchainID, pn+"getBlockchainById", map[string]any{"blockchainId": ids.BlockchainID}),
		{name: "supply", route: "getAvaxSupply", method: "GET", path: "/v1/avax/supply", op: "avaxSupply.get", args: map[string]any{}},
		g("asset", "getAssetDetails", nets+"/blockchains/x-chain/assets/"+ids.AssetID, pn+"getAssetDetails",
			map[string]any{"blockchainId": "x-chain", "assetId": ids.AssetID}),
		g("assetTxs", "listAssetTransactions", nets+"/blockchains/x-chain/assets/"+ids.AssetID+"/transactions?pageSize=10", pn+"transactions.listAssetTransactions",
			map[string]any{"blockchainId": "x-chain", "assetId": ids.AssetID, "pageSize": 10}),
		g("balancesP", "getBalancesByAddresses", nets+"/blockchains/p-chain/balances?addresses="+esc(ids.PAddr), pn+"balances.listByAddresses",
			map[string]any{"blockchainId": "p-chain", "addresses": ids.PAddr}),
		g("balancesX", "getBalancesByAddresses", nets+"/blockchains/x-chain/balances?addresses="+esc(ids.XAddr), pn+"balances.listByAddresses",
			map[string]any{"blockchainId": "x-chain", "addresses": ids.XAddr}),
		g("balancesC", "getBalancesByAddresses", nets+"/blockchains/c-chain/balances?addresses="+esc(ids.XAddr), pn+"balances.listByAddresses",
			map[string]any{"blockchainId": "c-chain", "addresses": ids.XAddr}),
		g("lastActivityX", "getLastActivityTimestampByAddresses", nets+"/blockchains/x-chain/lastActivityTimestampByAddresses?addresses="+esc(ids.XAddr),
			pn+"utxos.getLastActivityTimestampByAddresses", map[string]any{"blockchainId": "x-chain", "addresses": ids.XAddr}),
		{name: "lastActivityP", route: "getLastActivityTimestampByAddressesV2", method: "POST",
			path: nets + "/blockchains/p-chain/lastActivityTimestampByAddresses", body: body(ids.PAddr), op: pn + "utxos.getLastActivityTimestampByAddressesV2",
			args: map[string]any{"network": n, "blockchainId": "p-chain", "primaryNetworkAddressesBodyDto": map[string]any{"addresses": ids.PAddr}}},
		{name: "utxosV2", route: "getUtxosByAddressesV2", method: "POST", path: nets + "/blockchains/p-chain/utxos?pageSize=20", body: body(ids.PAddr),
			op: pn + "utxos.listByAddressesV2", args: map[string]any{"network": n, "blockchainId": "p-chain", "pageSize": 20,
				"primaryNetworkAddressesBodyDto": map[string]any{"addresses": ids.PAddr}}},
		g("stakingTxs", "listActivePrimaryNetworkStakingTransactions", nets+"/blockchains/p-chain/transactions:listStaking?pageSize=10",
			pn+"transactions.listActiveStakingTransactions", map[string]any{"blockchainId": "p-chain", "pageSize": 10}),
		g("stakingTxsOf", "listActivePrimaryNetworkStakingTransactions", nets+"/blockchains/p-chain/transactions:listStaking?pageSize=10&addresses="+esc(ids.PAddr),
			pn+"transactions.listActiveStakingTransactions", map[string]any{"blockchainId": "p-chain", "pageSize": 10, "addresses": ids.PAddr}),
		g("rewards", "listHistoricalPrimaryNetworkRewards", nets+"/rewards?pageSize=100&addresses="+esc(ids.PAddr), pn+"rewards.listHistoricalRewards",
			map[string]any{"addresses": ids.PAddr, "pageSize": 100}),
		g("vertices", "listLatestXChainVertices", nets+"/blockchains/x-chain/vertices", pn+"vertices.listLatest", map[string]any{"blockchainId": "x-chain"}),
		g("verticesAt", "getVertexByHeight", nets+"/blockchains/x-chain/vertices:listByHeight?vertexHeight=0", pn+"vertices.listByHeight",
			map[string]any{"blockchainId": "x-chain", "vertexHeight": 0}),
		g("blocksOfNode", "listPrimaryNetworkBlocksByNodeId", nets+"/blockchains/p-chain/nodes/"+ids.NodeID+"/blocks", pn+"blocks.listByNodeId",
			map[string]any{"blockchainId": "p-chain", "nodeId": ids.NodeID}),
		g("l1ValidationTxs", "listLatestPrimaryNetworkTransactions", nets+"/blockchains/p-chain/transactions?l1ValidationId="+ids.ValidationID,
			pn+"transactions.listLatest", map[string]any{"blockchainId": "p-chain", "l1ValidationId": ids.ValidationID}),
	}
	return reads
}

// checkPrimaryReads makes each read of reads against base over HTTP (its
// answer must be 200 and pass glacier.json's schema) and through chainkit
// (whose strict schemas must accept it), and returns the HTTP answers by
// read name.
func checkPrimaryReads(t *testing.T, base string, reads []primaryRead) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	var calls []sdkCall
	for _, r := range reads {
		var body []byte
		if r.body != "" {
			body = []byte(r.body)
		}
		rep := do(t, r.method, base+r.path, body, nil)
		if rep.Status != http.StatusOK {
			t.Errorf("%s %s = %s; want 200", r.method, r.path, rep)
			continue
		}
		if known, err := specFor("data").validate(t, r.route, http.StatusOK, rep.Body); !known || err != nil {
			t.Errorf("%s %s: the answer does not match glacier.json's %s: %v (known %v)\n%.1500s", r.method, r.path, r.route, err, known, rep.Body)
		}
		out[r.name] = rep.Body
		calls = append(calls, sdkCall{Name: r.name, Op: r.op, Args: r.args})
	}
	sdkCallsWith(t, "chainkit", base, calls)
	return out
}

// checkNotFound: the spec's 404 in the Data API's format.
func checkNotFound(t *testing.T, base, path, route string) {
	t.Helper()
	rep := do(t, "GET", base+path, nil, nil)
	var e struct {
		StatusCode int    `json:"statusCode"`
		Error      string `json:"error"`
	}
	if rep.Status != http.StatusNotFound || json.Unmarshal(rep.Body, &e) != nil || e.StatusCode != 404 || e.Error != "Not Found" {
		t.Errorf("GET %s = %s; want the spec's 404", path, rep)
	}
	if known, err := specFor("data").validate(t, route, http.StatusNotFound, rep.Body); known && err != nil {
		t.Errorf("GET %s: the 404 does not match glacier.json's: %v", path, err)
	}
}

// balancesOf gets the balances answer at u (it must be 200) and adds up
// its amounts per part and asset.
func balancesOf(t *testing.T, u string) map[string]map[string]*big.Int {
	t.Helper()
	rep := do(t, "GET", u, nil, nil)
	if rep.Status != http.StatusOK {
		t.Fatalf("GET %s = %s; want 200", u, rep)
	}
	body := rep.Body
	var b struct {
		Balances map[string][]struct{ AssetID, Amount string } `json:"balances"`
	}
	if err := json.Unmarshal(body, &b); err != nil {
		t.Fatalf("balances %s: %v", body, err)
	}
	out := map[string]map[string]*big.Int{}
	for part, items := range b.Balances {
		for _, it := range items {
			v, _ := new(big.Int).SetString(it.Amount, 10)
			if out[part] == nil {
				out[part] = map[string]*big.Int{}
			}
			if out[part][it.AssetID] == nil {
				out[part][it.AssetID] = new(big.Int)
			}
			out[part][it.AssetID].Add(out[part][it.AssetID], v)
		}
	}
	return out
}

// coreWallet makes Core wallet's primary-network calls through
// @avalabs/glacier-sdk: P- and X-Chain balances, the latest transactions of
// an address, one by hash. Each must answer 200.
func coreWallet(t *testing.T, base, network, pAddr, xAddr string) {
	t.Helper()
	res := sdkCallsWith(t, "glacier", base, []sdkCall{
		{"balancesP", "primaryNetworkBalances.getBalancesByAddresses", map[string]any{"network": network, "blockchainId": "p-chain", "addresses": pAddr}},
		{"balancesX", "primaryNetworkBalances.getBalancesByAddresses", map[string]any{"network": network, "blockchainId": "x-chain", "addresses": xAddr}},
		{"txsP", "primaryNetworkTransactions.listLatestPrimaryNetworkTransactions", map[string]any{"network": network, "blockchainId": "p-chain", "addresses": pAddr}},
		{"txsX", "primaryNetworkTransactions.listLatestPrimaryNetworkTransactions", map[string]any{"network": network, "blockchainId": "x-chain", "addresses": xAddr}},
	})
	var txs struct {
		Transactions []struct{ TxHash string } `json:"transactions"`
	}
	decode(t, res["txsX"], &txs)
	if len(txs.Transactions) == 0 {
		t.Fatalf("Core wallet: no X-Chain transaction of %s: %s", xAddr, res["txsX"].Result)
	}
	got := sdkCallsWith(t, "glacier", base, []sdkCall{{"tx", "primaryNetworkTransactions.getTxByHash",
		map[string]any{"network": network, "blockchainId": "x-chain", "txHash": txs.Transactions[0].TxHash}}})
	if !strings.Contains(string(got["tx"].Result), txs.Transactions[0].TxHash) {
		t.Errorf("Core wallet getTxByHash: %s", got["tx"].Result)
	}
}

// TestPrimaryRoutesDevnet: in devnet mode, under mainnet's and fuji's
// names, every primary-network route issue 26 built answers 200, passes
// glacier.json's schemas and chainkit's, and says what the devnet holds:
// its completed stakes' rewards (each paid by a RewardValidatorTx
// getTxByHash finds), a supply that is its genesis plus the rewards less
// the fees burned, balances equal to the UTXOs avm.getUTXOs lists, no
// vertex; Core wallet's calls answer through glacier-sdk.
func TestPrimaryRoutesDevnet(t *testing.T) {
	base := localEdge(t).URL
	for _, network := range []string{"fuji", "mainnet"} {
		t.Run(network, func(t *testing.T) {
			w := discover(t, network)
			ids := primaryIDs{Network: network, PAddr: w.PAddr, XAddr: w.XAddr, NodeID: w.NodeID, AssetID: w.AssetID,
				BlockchainID: w.BlockchainID, ValidationID: w.ValidationID}
			got := checkPrimaryReads(t, base, primaryReads(ids))
			checkNotFound(t, base, "/v1/networks/"+network+"/blockchains/x-chain/vertices/"+noVertex, "getVertexByHash")
			checkNotFound(t, base, "/v1/networks/"+network+"/blockchains/"+noVertex, "getBlockchainById")

			var rewards struct {
				HistoricalRewards []struct{ RewardTxHash, RewardType, TxHash string } `json:"historicalRewards"`
			}
			json.Unmarshal(got["rewards"], &rewards)
			if len(rewards.HistoricalRewards) == 0 {
				t.Fatalf("%s has no historical reward: %s", w.PAddr, got["rewards"])
			}
			for _, r := range rewards.HistoricalRewards {
				var tx struct{ TxType string }
				getJSON(t, base+"/v1/networks/"+network+"/blockchains/p-chain/transactions/"+r.RewardTxHash, &tx)
				if tx.TxType != "RewardValidatorTx" {
					t.Errorf("reward %+v paid by a %s", r, tx.TxType)
				}
			}
			var s map[string]string
			json.Unmarshal(got["supply"], &s)
			nano := func(k string) *big.Int {
				whole, frac, _ := strings.Cut(s[k], ".")
				v, ok := new(big.Int).SetString(whole+(frac + "000000000")[:9], 10)
				if !ok {
					t.Fatalf("supply %s = %q", k, s[k])
				}
				return v
			}
			want := new(big.Int).Add(nano("genesisUnlock"), nano("totalRewards"))
			want.Sub(want, nano("totalPBurned")).Sub(want, nano("totalXBurned"))
			if nano("totalSupply").Cmp(want) != 0 || s["genesisUnlock"] != "360000000" || nano("totalRewards").Sign() == 0 {
				t.Errorf("the devnet's supply %v: want its genesis plus the rewards less the burned fees", s)
			}
			var vs struct{ Vertices []any }
			json.Unmarshal(got["vertices"], &vs)
			if len(vs.Vertices) != 0 {
				t.Errorf("vertices of a linear X-Chain: %s", got["vertices"])
			}
			coreWallet(t, base, network, w.PAddr, w.XAddr)
		})
	}
	// The devnet's node methods read the same UTXOs: ewoq's X-Chain balance
	// is what avm.getUTXOs lists.
	ewoq := "X-local18jma8ppw3nhx5r4ap8clazz0dps7rv5u00z96u"
	sums := balancesOf(t, base+"/v1/networks/fuji/blockchains/x-chain/balances?addresses="+ewoq)
	checkNodeUTXOs(t, base, "X", "", ewoq, "U8iRqJoiJm8xZHAacmvYyZVwqQx6uDNtQeP3CQ6fcgQk3JqnK", sums["unlocked"], sums["locked"])
}

// localAVAX is the local network's AVAX asset id.
const localAVAX = "2fombhL7aGPwj3KH4bfrmJwW6PVnMobf9Y2fn9GwxiAAJyFDbe"

// nodeUTXOSums returns the amounts, per asset, of the UTXOs a node lists
// for addr on chain (P: platform.getUTXOs, X: avm.getUTXOs), from
// sourceChain's shared memory when it is not "". AVAX counts under
// avaxAs when it is not "" (the devnet answers under each network's id).
func nodeUTXOSums(t *testing.T, uri, chain, sourceChain, addr, avaxAs string) map[string]*big.Int {
	t.Helper()
	params := map[string]any{"addresses": []string{addr}, "limit": 1024, "encoding": "hex"}
	if sourceChain != "" {
		params["sourceChain"] = sourceChain
	}
	p, _ := json.Marshal(params)
	method := map[string]string{"P": "platform.getUTXOs", "X": "avm.getUTXOs"}[chain]
	var r struct {
		UTXOs []string `json:"utxos"`
	}
	rpcResult(t, uri+"/ext/bc/"+chain, method, string(p), &r)
	sums := map[string]*big.Int{}
	for _, s := range r.UTXOs {
		b, err := formatting.Decode(formatting.Hex, s)
		// Codec version, tx id, output index, asset id, then the output: a
		// secp256k1fx TransferOutput (7), or a stakeable LockOut (22)
		// around one.
		if err != nil || len(b) < 2+32+4+32+4+8 {
			t.Fatalf("%s UTXO %q: %v", method, s, err)
		}
		asset := ids.ID(b[38:70]).String()
		if asset == localAVAX && avaxAs != "" {
			asset = avaxAs
		}
		o := b[70:]
		if be.BigEndian.Uint32(o) == 22 && len(o) >= 4+8+4+8 {
			o = o[4+8:]
		}
		if be.BigEndian.Uint32(o) != 7 {
			t.Fatalf("%s UTXO %s: output type %d", method, s, be.BigEndian.Uint32(o))
		}
		if sums[asset] == nil {
			sums[asset] = new(big.Int)
		}
		sums[asset].Add(sums[asset], new(big.Int).SetUint64(be.BigEndian.Uint64(o[4:])))
	}
	return sums
}

// checkNodeUTXOs: the balance parts of a balances answer add up, per
// asset, to the UTXOs the node lists (nodeUTXOSums).
func checkNodeUTXOs(t *testing.T, uri, chain, sourceChain, addr, avaxAs string, parts ...map[string]*big.Int) {
	t.Helper()
	got := map[string]*big.Int{}
	for _, part := range parts {
		for asset, v := range part {
			if got[asset] == nil {
				got[asset] = new(big.Int)
			}
			got[asset].Add(got[asset], v)
		}
	}
	want := nodeUTXOSums(t, uri, chain, sourceChain, addr, avaxAs)
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("%s's balance on the %s-Chain (shared memory from %q): %v; the node's UTXOs sum to %v", addr, chain, sourceChain, got, want)
	}
}
