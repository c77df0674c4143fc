package e2e

import (
	"encoding/json"
	"fmt"
	"math/big"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"
)

// evmActivity is what test/sdk/evm-activity.mjs did with ethers from ewoq:
// a native transfer to To, an ERC-20 sent to To, an NFT minted to To, and
// two contracts created through a factory.
type evmActivity struct {
	ChainID string `json:"chainId"`
	From    string `json:"from"`
	To      string `json:"to"`
	Txs     map[string]struct {
		Hash  string `json:"hash"`
		Block uint64 `json:"block"`
	} `json:"txs"`
	NativeValue  string `json:"nativeValue"`
	Token        string `json:"token"`
	TokenValue   string `json:"tokenValue"`
	NFT          string `json:"nft"`
	NFTTokenID   string `json:"nftTokenId"`
	Factory      string `json:"factory"`
	ChildValue   string `json:"childValue"`
	ChildCreate  string `json:"childCreate"`
	ChildCreate2 string `json:"childCreate2"`
}

// makeEVMActivity runs evm-activity.mjs on the EVM JSON-RPC endpoint rpc.
func makeEVMActivity(t *testing.T, rpc string) *evmActivity {
	t.Helper()
	out := nodeScript(t, "", "evm-activity.mjs", rpc)
	var a evmActivity
	if err := json.Unmarshal(out, &a); err != nil || len(a.Txs) != 9 {
		t.Fatalf("evm-activity.mjs printed %s: %v", out, err)
	}
	return &a
}

// waitIndexed waits until base's EVM index holds every transaction of a.
func waitIndexed(t *testing.T, base string, a *evmActivity) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for _, tx := range a.Txs {
		for {
			if r := do(t, "GET", base+"/v1/chains/"+a.ChainID+"/transactions/"+tx.Hash, nil, nil); r.Status == 200 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the EVM index did not hold %s (block %d) in a minute", tx.Hash, tx.Block)
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
}

// sdkCallsWith runs calls through test/sdk/calls.mjs with one SDK
// (avacloud, chainkit or glacier) against base.
func sdkCallsWith(t *testing.T, sdk, base string, calls []sdkCall) map[string]sdkResult {
	t.Helper()
	return sdkCallsAs(t, sdk, "", base, calls)
}

// sdkCallsAs is sdkCallsWith with the SDK configured with apiKey.
func sdkCallsAs(t *testing.T, sdk, apiKey, base string, calls []sdkCall) map[string]sdkResult {
	t.Helper()
	spec, err := json.Marshal(calls)
	if err != nil {
		t.Fatal(err)
	}
	out, runErr := runNodeScript(t, apiKey, "calls.mjs", "--sdk", sdk, base, string(spec))
	res := map[string]sdkResult{}
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("calls.mjs --sdk %s: %v, %v\n%.3000s", sdk, runErr, err, out)
	}
	for _, c := range calls {
		if r := res[c.Name]; !r.OK {
			t.Errorf("%s SDK %s (%s %v): %s", sdk, c.Name, c.Op, c.Args, r.Error)
		}
	}
	return res
}

// activityRead is one EVM read: the catalogue's route, its path, and the
// chainkit operation that reads it.
type activityRead struct {
	name, route, path, op string
	args                  map[string]any
}

// activityReads are chainkit's EVM read operations, each with what it reads of
// a, on chain c.
func activityReads(a *evmActivity, c string) []activityRead {
	ch := "/v1/chains/" + c
	arg := func(kv ...any) map[string]any {
		m := map[string]any{"chainId": c}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		return m
	}
	native := fmt.Sprint(a.Txs["native"].Block)
	return []activityRead{
		{"chains", "supportedChains", "/v1/chains", "data.evm.chains.list", map[string]any{}},
		{"chainsFuji", "supportedChains", "/v1/chains?network=fuji", "data.evm.chains.list", map[string]any{"network": "fuji"}},
		{"chain", "getChainInfo", ch, "data.evm.chains.get", arg()},
		{"addressChains", "listAddressChains", "/v1/address/" + a.To + "/chains", "data.evm.address.chains.list", map[string]any{"address": a.To}},
		{"blocks", "getLatestBlocks", ch + "/blocks", "data.evm.blocks.listLatest", arg()},
		{"block", "getBlock", ch + "/blocks/" + native, "data.evm.blocks.get", arg("blockId", native)},
		{"blockTxs", "getTransactionsForBlock", ch + "/blocks/" + native + "/transactions", "data.evm.blocks.listTransactions", arg("blockId", native)},
		{"blocksAll", "listLatestBlocksAllChains", "/v1/blocks", "data.evm.blocks.listLatestAllChains", map[string]any{}},
		{"tx", "getTransaction", ch + "/transactions/" + a.Txs["tokenTransfer"].Hash, "data.evm.transactions.get", arg("txHash", a.Txs["tokenTransfer"].Hash)},
		{"latest", "listLatestTransactions", ch + "/transactions?status=success", "data.evm.transactions.listLatest", arg("status", "success")},
		{"latestAll", "listLatestTransactionsAllChains", "/v1/transactions", "data.evm.transactions.listLatestAllChains", map[string]any{}},
		{"txsTo", "listTransactions", ch + "/addresses/" + a.To + "/transactions?pageSize=100", "data.evm.address.transactions.list", arg("address", a.To, "pageSize", 100)},
		{"txsFrom", "listTransactions", ch + "/addresses/" + a.From + "/transactions?pageSize=100", "data.evm.address.transactions.list", arg("address", a.From, "pageSize", 100)},
		{"txsFactory", "listTransactions", ch + "/addresses/" + a.Factory + "/transactions?sortOrder=asc", "data.evm.address.transactions.list", arg("address", a.Factory, "sortOrder", "asc")},
		{"nativeTo", "listNativeTransactions", ch + "/addresses/" + a.To + "/transactions:listNative", "data.evm.address.transactions.listNative", arg("address", a.To)},
		{"erc20To", "listErc20Transactions", ch + "/addresses/" + a.To + "/transactions:listErc20", "data.evm.address.transactions.listErc20", arg("address", a.To)},
		{"erc721To", "listErc721Transactions", ch + "/addresses/" + a.To + "/transactions:listErc721", "data.evm.address.transactions.listErc721", arg("address", a.To)},
		{"erc1155From", "listErc1155Transactions", ch + "/addresses/" + a.From + "/transactions:listErc1155", "data.evm.address.transactions.listErc1155", arg("address", a.From)},
		{"internalFactory", "listInternalTransactions", ch + "/addresses/" + a.Factory + "/transactions:listInternals", "data.evm.address.transactions.listInternal", arg("address", a.Factory)},
		{"nativeBalance", "getNativeBalance", ch + "/addresses/" + a.To + "/balances:getNative", "data.evm.address.balances.getNative", arg("address", a.To)},
		{"erc20Balances", "listErc20Balances", ch + "/addresses/" + a.To + "/balances:listErc20", "data.evm.address.balances.listErc20", arg("address", a.To)},
		{"erc721Balances", "listErc721Balances", ch + "/addresses/" + a.To + "/balances:listErc721", "data.evm.address.balances.listErc721", arg("address", a.To)},
		{"erc1155Balances", "listErc1155Balances", ch + "/addresses/" + a.To + "/balances:listErc1155", "data.evm.address.balances.listErc1155", arg("address", a.To)},
		{"collectiblesTo", "listCollectibleBalances", ch + "/addresses/" + a.To + "/balances:listCollectibles", "data.evm.address.balances.listCollectibles", arg("address", a.To)},
		{"deploymentsFrom", "listContractDeployments", ch + "/contracts/" + a.From + "/deployments?pageSize=100", "data.evm.address.contracts.listDeployments", arg("address", a.From, "pageSize", 100)},
		{"metaToken", "getContractMetadata", ch + "/addresses/" + a.Token, "data.evm.contracts.getMetadata", arg("address", a.Token)},
		{"metaChild", "getContractMetadata", ch + "/addresses/" + a.ChildCreate2, "data.evm.contracts.getMetadata", arg("address", a.ChildCreate2)},
		{"deployment", "getDeploymentTransaction", ch + "/contracts/" + a.ChildCreate + "/transactions:getDeployment", "data.evm.contracts.getDeploymentTransaction", arg("address", a.ChildCreate)},
		{"transfers", "listTransfers", ch + "/tokens/" + a.Token + "/transfers", "data.evm.contracts.listTransfers", arg("address", a.Token)},
		{"nftTokens", "listTokens", ch + "/nfts/collections/" + a.NFT + "/tokens", "data.nfts.list", arg("address", a.NFT)},
		{"nftToken", "getTokenDetails", ch + "/nfts/collections/" + a.NFT + "/tokens/" + a.NFTTokenID, "data.nfts.get", arg("address", a.NFT, "tokenId", a.NFTTokenID)},
		// The legacy paths chainkit still calls.
		{"legacyAddressChains", "getAddressChains", "/v1/chains/address/" + a.To, "data.evm.chains.getAddressChains", map[string]any{"address": a.To}},
		{"legacyBlocks", "listAllLatestBlocks", "/v1/chains/allBlocks", "data.evm.chains.listAllLatestBlocks", map[string]any{}},
		{"legacyTransactions", "listAllLatestTransactions", "/v1/chains/allTransactions", "data.evm.chains.listAllLatestTransactions", map[string]any{}},
	}
}

// checkEVMListings reads base's EVM routes on each of chainIDs (all of them
// the C-Chain a was made on) through chainkit, whose strict schemas must
// accept every answer, and over plain HTTP, where each answer must match
// glacier.json's schema; then checks they agree with the chain: every
// transaction of a is listed for both parties with its value, block and
// token transfers, the factory's creations for its caller, the NFT in its
// collection and its holder's collectibles.
func checkEVMListings(t *testing.T, base string, a *evmActivity, chainIDs ...string) {
	t.Helper()
	for _, c := range chainIDs {
		t.Run("chain "+c, func(t *testing.T) {
			calls := activityReads(a, c)
			var sdk []sdkCall
			for _, ec := range calls {
				sdk = append(sdk, sdkCall{Name: ec.name, Op: ec.op, Args: ec.args})
				rep := do(t, "GET", base+ec.path, nil, nil)
				checkAnswer(t, routeNamed(t, ec.route), call{Method: "GET", Path: ec.path}, rep, 200)
			}
			res := sdkCallsWith(t, "chainkit", base, sdk)
			checkAgreement(t, a, c, res)
		})
	}
}

// listed is the part of a listed transaction the agreement checks read.
type listed struct {
	NativeTransaction struct {
		TxHash      string `json:"txHash"`
		BlockNumber string `json:"blockNumber"`
		ChainID     string `json:"chainId"`
		Value       string `json:"value"`
		From        struct{ Address string }
		To          struct{ Address string }
	} `json:"nativeTransaction"`
	Erc20Transfers []struct {
		Value      string `json:"value"`
		From, To   struct{ Address string }
		Erc20Token struct {
			Address string `json:"address"`
		} `json:"erc20Token"`
	} `json:"erc20Transfers"`
	Erc721Transfers []struct {
		To          struct{ Address string }
		Erc721Token struct {
			Address string `json:"address"`
			TokenID string `json:"tokenId"`
		} `json:"erc721Token"`
	} `json:"erc721Transfers"`
	InternalTransactions []struct {
		InternalTxType string `json:"internalTxType"`
		Value          string `json:"value"`
		To             struct{ Address string }
	} `json:"internalTransactions"`
}

func checkAgreement(t *testing.T, a *evmActivity, c string, res map[string]sdkResult) {
	t.Helper()
	eq := strings.EqualFold
	byHash := func(name string) map[string]listed {
		t.Helper()
		var v struct {
			Transactions []listed `json:"transactions"`
		}
		decode(t, res[name], &v)
		out := map[string]listed{}
		for _, tx := range v.Transactions {
			out[tx.NativeTransaction.TxHash] = tx
		}
		return out
	}
	to, from := byHash("txsTo"), byHash("txsFrom")
	for _, party := range []struct {
		name  string
		txs   map[string]listed
		which []string
	}{{"the recipient", to, []string{"native", "tokenTransfer", "nftMint"}}, {"ewoq", from, []string{"native", "tokenTransfer", "nftMint", "factoryCreate"}}} {
		for _, w := range party.which {
			tx, ok := party.txs[a.Txs[w].Hash]
			n := tx.NativeTransaction
			switch {
			case !ok:
				t.Errorf("%s's transactions lack the %s (%s)", party.name, w, a.Txs[w].Hash)
			case n.BlockNumber != fmt.Sprint(a.Txs[w].Block) || n.ChainID != c || !eq(n.From.Address, a.From):
				t.Errorf("%s's %s: %+v; want block %d of chain %s from ewoq", party.name, w, n, a.Txs[w].Block, c)
			}
		}
		if tx := party.txs[a.Txs["native"].Hash]; tx.NativeTransaction.Value != a.NativeValue || !eq(tx.NativeTransaction.To.Address, a.To) {
			t.Errorf("%s's native transfer: %+v; want %s to %s", party.name, tx.NativeTransaction, a.NativeValue, a.To)
		}
		if tx := party.txs[a.Txs["tokenTransfer"].Hash]; len(tx.Erc20Transfers) != 1 || tx.Erc20Transfers[0].Value != a.TokenValue ||
			!eq(tx.Erc20Transfers[0].To.Address, a.To) || !eq(tx.Erc20Transfers[0].Erc20Token.Address, a.Token) {
			t.Errorf("%s's token transfer: %+v; want %s of %s to %s", party.name, tx.Erc20Transfers, a.TokenValue, a.Token, a.To)
		}
		if tx := party.txs[a.Txs["nftMint"].Hash]; party.name == "the recipient" && (len(tx.Erc721Transfers) != 1 ||
			tx.Erc721Transfers[0].Erc721Token.TokenID != a.NFTTokenID || !eq(tx.Erc721Transfers[0].Erc721Token.Address, a.NFT)) {
			t.Errorf("the recipient's NFT mint: %+v", tx.Erc721Transfers)
		}
	}
	// The factory's calls, oldest first, each with its creation.
	factory := byHash("txsFactory")
	for _, w := range []struct{ tx, typ, child, value string }{{"factoryCreate", "CREATE", a.ChildCreate, a.ChildValue}, {"factoryCreate2", "CREATE2", a.ChildCreate2, "0"}} {
		its := factory[a.Txs[w.tx].Hash].InternalTransactions
		if len(its) != 1 || its[0].InternalTxType != w.typ || !eq(its[0].To.Address, w.child) || its[0].Value != w.value {
			t.Errorf("the factory's %s: internal transactions %+v; want a %s of %s with %s", w.tx, its, w.typ, w.child, w.value)
		}
	}
	var native struct {
		Transactions []struct {
			TxHash, Value, BlockNumber string
		} `json:"transactions"`
	}
	decode(t, res["nativeTo"], &native)
	if len(native.Transactions) != 1 || native.Transactions[0].TxHash != a.Txs["native"].Hash || native.Transactions[0].Value != a.NativeValue {
		t.Errorf("the recipient's native transactions: %+v", native.Transactions)
	}
	var erc20 struct {
		Transactions []struct {
			TxHash, Value string
			From          struct{ Address string }
		} `json:"transactions"`
	}
	decode(t, res["erc20To"], &erc20)
	if len(erc20.Transactions) != 1 || erc20.Transactions[0].Value != a.TokenValue || !eq(erc20.Transactions[0].From.Address, a.From) {
		t.Errorf("the recipient's ERC-20 transfers: %+v", erc20.Transactions)
	}
	var internal struct {
		Transactions []struct {
			TxHash, InternalTxType, Value string
		} `json:"transactions"`
	}
	decode(t, res["internalFactory"], &internal)
	if len(internal.Transactions) != 2 || internal.Transactions[0].InternalTxType != "CREATE2" || internal.Transactions[1].Value != a.ChildValue ||
		internal.Transactions[1].TxHash != a.Txs["factoryCreate"].Hash {
		t.Errorf("the factory's internal transactions: %+v", internal.Transactions)
	}
	var deps struct {
		Contracts []struct {
			Address           string `json:"address"`
			DeploymentDetails struct {
				DeployerAddress         string `json:"deployerAddress"`
				DeployerContractAddress string `json:"deployerContractAddress"`
			} `json:"deploymentDetails"`
		} `json:"contracts"`
	}
	decode(t, res["deploymentsFrom"], &deps)
	deployed := map[string]string{}
	for _, d := range deps.Contracts {
		deployed[strings.ToLower(d.Address)] = d.DeploymentDetails.DeployerContractAddress
	}
	for _, want := range []string{a.Token, a.NFT, a.Factory, a.ChildCreate, a.ChildCreate2} {
		if _, ok := deployed[strings.ToLower(want)]; !ok {
			t.Errorf("ewoq's deployments lack %s: %+v", want, deps.Contracts)
		}
	}
	if f := deployed[strings.ToLower(a.ChildCreate2)]; !eq(f, a.Factory) {
		t.Errorf("ChildCreate2's deployer contract %q; want the factory %s", f, a.Factory)
	}
	var meta struct {
		ErcType, Symbol   string
		Decimals          int
		DeploymentDetails struct{ DeployerAddress, DeployerContractAddress string }
	}
	decode(t, res["metaToken"], &meta)
	if meta.ErcType != "ERC-20" || meta.Symbol != "ADT" || meta.Decimals != 18 || !eq(meta.DeploymentDetails.DeployerAddress, a.From) {
		t.Errorf("the token's metadata: %+v", meta)
	}
	decode(t, res["metaChild"], &meta)
	if meta.ErcType != "UNKNOWN" || !eq(meta.DeploymentDetails.DeployerAddress, a.From) || !eq(meta.DeploymentDetails.DeployerContractAddress, a.Factory) {
		t.Errorf("ChildCreate2's metadata: %+v", meta)
	}
	var coll struct {
		CollectibleBalances []struct{ Address, TokenID, OwnerAddress, ChainID string } `json:"collectibleBalances"`
	}
	decode(t, res["collectiblesTo"], &coll)
	if len(coll.CollectibleBalances) != 1 || !eq(coll.CollectibleBalances[0].Address, a.NFT) || coll.CollectibleBalances[0].TokenID != a.NFTTokenID ||
		coll.CollectibleBalances[0].ChainID != c {
		t.Errorf("the recipient's collectibles: %+v", coll.CollectibleBalances)
	}
	var toks struct {
		Tokens []struct{ TokenID, OwnerAddress string } `json:"tokens"`
	}
	decode(t, res["nftTokens"], &toks)
	if len(toks.Tokens) != 1 || toks.Tokens[0].TokenID != a.NFTTokenID || !eq(toks.Tokens[0].OwnerAddress, a.To) {
		t.Errorf("the NFT's tokens: %+v", toks.Tokens)
	}
	var blockTxs struct {
		Transactions []struct{ TxHash string } `json:"transactions"`
	}
	decode(t, res["blockTxs"], &blockTxs)
	if !slices.ContainsFunc(blockTxs.Transactions, func(x struct{ TxHash string }) bool { return x.TxHash == a.Txs["native"].Hash }) {
		t.Errorf("block %d's transactions lack the native transfer: %+v", a.Txs["native"].Block, blockTxs.Transactions)
	}
	var chains struct {
		IndexedChains []struct{ ChainID string } `json:"indexedChains"`
	}
	decode(t, res["addressChains"], &chains)
	if len(chains.IndexedChains) != 1 || chains.IndexedChains[0].ChainID != a.ChainID {
		t.Errorf("the recipient's chains: %+v; want %s", chains.IndexedChains, a.ChainID)
	}
	if string(res["legacyAddressChains"].Result) != string(res["addressChains"].Result) {
		t.Errorf("the legacy address chains %s differ from %s", res["legacyAddressChains"].Result, res["addressChains"].Result)
	}
}

// checkCoreWallet makes Core wallet's EVM calls through
// @avalabs/glacier-sdk on each chain id and checks what they show of a.
func checkCoreWallet(t *testing.T, base string, a *evmActivity, chainIDs ...string) {
	t.Helper()
	for _, c := range chainIDs {
		t.Run("core "+c, func(t *testing.T) {
			res := sdkCallsWith(t, "glacier", base, []sdkCall{
				{"supportedChains", "evmChains.supportedChains", map[string]any{}},
				{"getNativeBalance", "evmBalances.getNativeBalance", map[string]any{"chainId": c, "address": a.To}},
				{"listErc20Balances", "evmBalances.listErc20Balances", map[string]any{"chainId": c, "address": a.To}},
				{"listTransactionsV2", "evmTransactions.listTransactionsV2", map[string]any{"chainId": c, "address": a.To, "filterSpamTokens": true}},
				{"getTokenDetails", "nfTs.getTokenDetails", map[string]any{"chainId": c, "address": a.NFT, "tokenId": a.NFTTokenID}},
			})
			var bal struct {
				NativeTokenBalance struct{ Balance, ChainID string } `json:"nativeTokenBalance"`
			}
			decode(t, res["getNativeBalance"], &bal)
			if bal.NativeTokenBalance.Balance != a.NativeValue || bal.NativeTokenBalance.ChainID != c {
				t.Errorf("getNativeBalance: %+v; want %s on %s", bal.NativeTokenBalance, a.NativeValue, c)
			}
			var erc20 struct {
				Erc20TokenBalances []struct{ Address, Balance, TokenReputation string } `json:"erc20TokenBalances"`
			}
			decode(t, res["listErc20Balances"], &erc20)
			if len(erc20.Erc20TokenBalances) != 1 || !strings.EqualFold(erc20.Erc20TokenBalances[0].Address, a.Token) ||
				erc20.Erc20TokenBalances[0].Balance != a.TokenValue || erc20.Erc20TokenBalances[0].TokenReputation != "Benign" {
				t.Errorf("listErc20Balances: %+v", erc20.Erc20TokenBalances)
			}
			var v2 struct {
				Transactions []listed `json:"transactions"`
			}
			decode(t, res["listTransactionsV2"], &v2)
			var got []string
			for _, tx := range v2.Transactions {
				got = append(got, tx.NativeTransaction.TxHash)
			}
			want := []string{a.Txs["nftMint"].Hash, a.Txs["tokenTransfer"].Hash, a.Txs["native"].Hash}
			if !slices.Equal(got, want) {
				t.Errorf("listTransactionsV2: %v; want %v", got, want)
			}
			var nft struct{ TokenID, OwnerAddress string }
			decode(t, res["getTokenDetails"], &nft)
			if nft.TokenID != a.NFTTokenID || !strings.EqualFold(nft.OwnerAddress, a.To) {
				t.Errorf("getTokenDetails: %+v", nft)
			}
			var chains struct {
				Chains []struct{ ChainID string } `json:"chains"`
			}
			decode(t, res["supportedChains"], &chains)
			if len(chains.Chains) == 0 {
				t.Errorf("supportedChains lists no chain")
			}
		})
	}
}

// TestEVMListingsDevnet: in devnet mode, after ewoq's transfers, token,
// NFT and factory activity through ethers on /ext/bc/C/rpc, every EVM read
// of chainkit answers 200 for the C-Chain's ids on the local network, fuji
// and mainnet, passes chainkit's and glacier.json's schemas, and agrees
// with the chain; so do Core wallet's calls through @avalabs/glacier-sdk.
func TestEVMListingsDevnet(t *testing.T) {
	e := startEdge(t, map[string]string{"AVAEDGE_KEYS_FILE": bulkKeysFile(t)})
	a := makeEVMActivity(t, e.URL+"/ext/bc/C/rpc")
	waitIndexed(t, e.URL, a)
	checkEVMListings(t, e.URL, a, "43112", "43113", "43114")
	checkCoreWallet(t, e.URL, a, "43112", "43113", "43114")
}

// TestNodeModeNoTraces: following a node that offers no
// debug_traceBlockByNumber (the shared node runs avalanchego's default
// C-Chain APIs), internal transactions are an empty list, and the answer
// names the blocks indexed without traces.
func TestNodeModeNoTraces(t *testing.T) {
	n := startNode(t)
	out := nodeScript(t, "", "ethers.mjs", n.URI)
	var sent struct {
		TxHash       string `json:"txHash"`
		ReceiptBlock uint64 `json:"receiptBlock"`
		To           string `json:"to"`
	}
	if err := json.Unmarshal(out, &sent); err != nil {
		t.Fatalf("ethers.mjs printed %s: %v", out, err)
	}
	e := startEdge(t, map[string]string{"AVAEDGE_LOCAL_NODE": n.URI})
	waitFor(t, e.URL+"/v1/chains/43112/addresses/"+sent.To+"/transactions:listNative", sent.TxHash)
	for _, c := range []string{"43112", "43113", "43114"} {
		path := "/v1/chains/" + c + "/addresses/" + ewoqEVM + "/transactions:listInternals?endBlock=" + url.QueryEscape(fmt.Sprint(sent.ReceiptBlock+1))
		rep := do(t, "GET", e.URL+path, nil, nil)
		checkAnswer(t, routeNamed(t, "listInternalTransactions"), call{Method: "GET", Path: path}, rep, 200)
		var v struct {
			Transactions []any `json:"transactions"`
		}
		json.Unmarshal(rep.Body, &v)
		notice := rep.Header.Get("X-Avaedge-Untraced-Blocks")
		lo, hi, _ := strings.Cut(notice, "-")
		first, _ := new(big.Int).SetString(lo, 10)
		last, _ := new(big.Int).SetString(hi, 10)
		if len(v.Transactions) != 0 || first == nil || last == nil || first.Uint64() > sent.ReceiptBlock || last.Uint64() != sent.ReceiptBlock {
			t.Errorf("GET %s: %s; X-Avaedge-Untraced-Blocks %q: want no transactions and blocks up to %d untraced", path, rep, notice, sent.ReceiptBlock)
		}
	}
}
