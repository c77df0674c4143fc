package evmdata

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/avaedge/avaedge/catalog"
	"github.com/avaedge/avaedge/local/source/devnet/evm"
	"github.com/avaedge/avaedge/local/source/evmindex"
	"github.com/avaedge/avaedge/local/vocab/cchain"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
)

// field returns v's nested value at the dotted path ("nativeTransaction.txHash").
func field(v any, path string) any {
	for _, k := range strings.Split(path, ".") {
		m, _ := v.(map[string]any)
		v = m[k]
	}
	return v
}

// fields returns the value at path of every item of list.
func fields(items []any, path string) []any {
	out := make([]any, len(items))
	for i, it := range items {
		out[i] = field(it, path)
	}
	return out
}

// TestListingsSchema: every listing route answers the seeded chain in
// glacier.json's shape, with rows.
func TestListingsSchema(t *testing.T) {
	w := newWorld(t)
	s := w.chain.Seed()
	acc := w.chain.Accounts()
	ewoq, dev1 := acc[0].Address.Hex(), acc[1].Address.Hex()
	for _, tc := range []struct {
		name, path, schema, list string
	}{
		{"address chains", "/v1/address/" + ewoq + "/chains", "ListAddressChainsResponse", "indexedChains"},
		{"blocks of all chains", "/v1/blocks?pageSize=3", "ListEvmBlocksResponse", "blocks"},
		{"transactions of all chains", "/v1/transactions?status=success", "ListNativeTransactionsResponse", "transactions"},
		{"block's transactions", "/v1/chains/43112/blocks/3/transactions", "ListNativeTransactionsResponse", "transactions"},
		{"latest transactions", "/v1/chains/43112/transactions?pageSize=5", "ListNativeTransactionsResponse", "transactions"},
		{"transactions", "/v1/chains/43112/addresses/" + dev1 + "/transactions?pageSize=100", "ListTransactionDetailsResponse", "transactions"},
		{"transactions of the factory", "/v1/chains/43112/addresses/" + s.Factory.Hex() + "/transactions", "ListTransactionDetailsResponse", "transactions"},
		{"transactions v2", "/v2/chains/43112/addresses/" + ewoq + "/transactions?pageSize=100&filterSpamTokens=true&sortOrder=asc", "ListTransactionDetailsResponseV2", "transactions"},
		{"native transactions", "/v1/chains/43112/addresses/" + ewoq + "/transactions:listNative", "ListNativeTransactionsResponse", "transactions"},
		{"erc20 transactions", "/v1/chains/43112/addresses/" + ewoq + "/transactions:listErc20", "ListErc20TransactionsResponse", "transactions"},
		{"erc721 transactions", "/v1/chains/43112/addresses/" + ewoq + "/transactions:listErc721", "ListErc721TransactionsResponse", "transactions"},
		{"internal transactions", "/v1/chains/43112/addresses/" + s.Factory.Hex() + "/transactions:listInternals", "ListInternalTransactionsResponse", "transactions"},
		{"collectibles", "/v1/chains/43112/addresses/" + ewoq + "/balances:listCollectibles", "ListCollectibleBalancesResponse", "collectibleBalances"},
		{"deployments", "/v1/chains/43112/contracts/" + ewoq + "/deployments", "ListContractsResponse", "contracts"},
		{"erc721 tokens", "/v1/chains/43112/nfts/collections/" + s.NFT.Hex() + "/tokens", "ListNftTokens", "tokens"},
		{"erc1155 tokens", "/v1/chains/43112/nfts/collections/" + s.Multi.Hex() + "/tokens", "ListNftTokens", "tokens"},
		{"erc20 contract", "/v1/chains/43112/addresses/" + s.Token.Hex(), "Erc20Contract", ""},
		{"erc721 contract", "/v1/chains/43112/addresses/" + s.NFT.Hex(), "Erc721Contract", ""},
		{"erc1155 contract", "/v1/chains/43112/addresses/" + s.Multi.Hex(), "Erc1155Contract", ""},
		{"other contract", "/v1/chains/43112/addresses/" + s.ChildCreate2.Hex(), "UnknownContract", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := w.get(t, tc.path, http.StatusOK)
			validate(t, tc.schema, v)
			if tc.list != "" && len(list(v, tc.list)) == 0 {
				t.Fatalf("%s is empty: %v", tc.list, v)
			}
		})
	}
	for _, tc := range []struct {
		name, path string
		status     int
	}{
		{"not a contract", "/v1/chains/43112/addresses/" + ewoq, 404},
		{"not a collection", "/v1/chains/43112/nfts/collections/" + s.Token.Hex() + "/tokens", 404},
		{"unknown block", "/v1/chains/43112/blocks/999999/transactions", 404},
		{"bad block", "/v1/chains/43112/blocks/x/transactions", 400},
		{"bad address", "/v1/chains/43112/addresses/0x12/transactions", 400},
		{"bad sort order", "/v1/chains/43112/addresses/" + ewoq + "/transactions?sortOrder=up", 400},
		{"bad status", "/v1/chains/43112/transactions?status=ok", 400},
		{"bad network", "/v1/blocks?network=devnet", 400},
		{"foreign token", "/v1/chains/43112/addresses/" + ewoq + "/transactions:listNative?pageToken=" + listToken(t, w, "/v1/chains/43112/transactions?pageSize=1"), 400},
		{"unknown chain", "/v1/chains/5/addresses/" + ewoq + "/transactions", 404},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := w.get(t, tc.path, tc.status)
			if v["statusCode"] != float64(tc.status) {
				t.Fatalf("error body %v", v)
			}
		})
	}
}

// listToken returns the nextPageToken of path's answer.
func listToken(t *testing.T, w *world, path string) string {
	t.Helper()
	tok, _ := w.get(t, path, http.StatusOK)["nextPageToken"].(string)
	if tok == "" {
		t.Fatalf("%s has no next page", path)
	}
	return tok
}

// pages follows path's page tokens (pageSize small) and returns every item
// of the list key.
func pages(t *testing.T, w *world, path, key string) []any {
	t.Helper()
	var out []any
	sep := "?"
	if strings.Contains(path, "?") {
		sep = "&"
	}
	next := ""
	for i := 0; ; i++ {
		p := path
		if next != "" {
			p += sep + "pageToken=" + next
		}
		v := w.get(t, p, http.StatusOK)
		out = append(out, list(v, key)...)
		next, _ = v["nextPageToken"].(string)
		if next == "" {
			return out
		}
		if i > 1000 {
			t.Fatalf("%s: more than 1000 pages", path)
		}
	}
}

// TestListingValues checks the listings against what the seed did
// (local/source/devnet/evm/seed.go; evmindex's TestAddressListingsSeed has
// the blocks).
func TestListingValues(t *testing.T) {
	w := newWorld(t)
	s := w.chain.Seed()
	acc := w.chain.Accounts()
	ewoq, dev1, dev3, dev4 := acc[0].Address.Hex(), acc[1].Address.Hex(), acc[3].Address.Hex(), acc[4].Address.Hex()

	// dev4: an ADT transfer from dev1 (block 4) and 1 AVAX from dev1 (block 5).
	v := w.get(t, "/v1/chains/43112/addresses/"+dev4+"/transactions", 200)
	txs := list(v, "transactions")
	if got := fields(txs, "nativeTransaction.blockNumber"); !slices.Equal(got, []any{"5", "4"}) {
		t.Fatalf("dev4's transactions in blocks %v; want 5, 4", got)
	}
	pay, adt := txs[0], txs[1]
	if field(pay, "nativeTransaction.value") != "1000000000000000000" || field(pay, "nativeTransaction.method.callType") != "NATIVE_TRANSFER" ||
		field(pay, "nativeTransaction.method.methodName") != "Native Transfer" || field(pay, "erc20Transfers") != nil {
		t.Errorf("dev1's payment to dev4: %v", pay)
	}
	tr := field(adt, "erc20Transfers").([]any)
	if len(tr) != 1 || field(tr[0], "value") != "100000000000000000000" || field(tr[0], "to.address") != dev4 ||
		field(tr[0], "erc20Token.symbol") != "ADT" || field(adt, "nativeTransaction.to.address") != s.Token.Hex() ||
		field(adt, "nativeTransaction.method.methodName") != "transfer(address,uint256)" || field(adt, "nativeTransaction.method.methodHash") != "0xa9059cbb" {
		t.Errorf("dev1's ADT transfer to dev4: %v", adt)
	}
	if got := fields(list(w.get(t, "/v1/chains/43112/addresses/"+dev4+"/transactions:listNative", 200), "transactions"), "blockNumber"); !slices.Equal(got, []any{"5"}) {
		t.Errorf("dev4's native transactions in blocks %v; want 5", got)
	}
	// dev3 received tokens only: no native transaction.
	if got := list(w.get(t, "/v1/chains/43112/addresses/"+dev3+"/transactions:listNative", 200), "transactions"); len(got) != 0 {
		t.Errorf("dev3's native transactions: %v", got)
	}
	if got := fields(list(w.get(t, "/v1/chains/43112/addresses/"+dev3+"/transactions:listErc721", 200), "transactions"), "erc721Token.tokenId"); !slices.Equal(got, []any{"2"}) {
		t.Errorf("dev3's ERC-721 transfers: %v", got)
	}
	// The factory's transactions: the two calls it received, each with its
	// creation; the CREATE carries 1 AVAX.
	v = w.get(t, "/v1/chains/43112/addresses/"+s.Factory.Hex()+"/transactions?startBlock=6&endBlock=7&sortOrder=asc", 200)
	txs = list(v, "transactions")
	if len(txs) != 2 || field(txs[0], "nativeTransaction.from.address") != ewoq || field(txs[1], "nativeTransaction.from.address") != dev1 {
		t.Fatalf("the factory's calls: %v", v)
	}
	for i, want := range []struct{ typ, to, value string }{{"CREATE", s.ChildCreate.Hex(), "1000000000000000000"}, {"CREATE2", s.ChildCreate2.Hex(), "0"}} {
		its, _ := field(txs[i], "internalTransactions").([]any)
		if len(its) != 1 || field(its[0], "internalTxType") != want.typ || field(its[0], "to.address") != want.to || field(its[0], "value") != want.value ||
			field(its[0], "from.address") != s.Factory.Hex() {
			t.Errorf("call %d's internal transactions %v; want a %s of %s with %s", i, its, want.typ, want.to, want.value)
		}
	}
	internals := list(w.get(t, "/v1/chains/43112/addresses/"+s.ChildCreate.Hex()+"/transactions:listInternals", 200), "transactions")
	if len(internals) != 1 || field(internals[0], "internalTxType") != "CREATE" || field(internals[0], "blockNumber") != "6" || field(internals[0], "txHash") != field(txs[0], "nativeTransaction.txHash") {
		t.Errorf("ChildCreate's internal transactions: %v", internals)
	}
	// A contract's creation lists the contract as its recipient.
	created := list(w.get(t, "/v1/chains/43112/addresses/"+s.Token.Hex()+"/transactions:listNative?endBlock=2", 200), "transactions")
	if len(created) != 1 || field(created[0], "to.address") != s.Token.Hex() || field(created[0], "method.callType") != "CONTRACT_CREATION" ||
		field(created[0], "method.methodName") != "Contract Created" || field(created[0], "method.methodHash") != "" {
		t.Errorf("the token's creation: %v", created)
	}

	// Paging: pageSize 2 over ewoq's 21 transactions, both orders, and a
	// block range.
	desc := pages(t, w, "/v1/chains/43112/addresses/"+ewoq+"/transactions?pageSize=2", "transactions")
	asc := pages(t, w, "/v1/chains/43112/addresses/"+ewoq+"/transactions?pageSize=2&sortOrder=asc", "transactions")
	hashes := func(items []any) []any { return fields(items, "nativeTransaction.txHash") }
	if len(desc) != 21 || !slices.Equal(hashes(desc), reversed(hashes(asc))) {
		t.Errorf("ewoq's transactions: %d newest first, %d oldest first, not each other's reverse", len(desc), len(asc))
	}
	ranged := pages(t, w, "/v1/chains/43112/addresses/"+ewoq+"/transactions?pageSize=3&startBlock=3&endBlock=5", "transactions")
	if len(ranged) != 11 || field(ranged[0], "nativeTransaction.blockNumber") != "4" || field(ranged[10], "nativeTransaction.blockNumber") != "3" {
		t.Errorf("ewoq's transactions in blocks 3 and 4: %d", len(ranged))
	}
	if empty := list(w.get(t, "/v1/chains/43112/addresses/"+ewoq+"/transactions?startBlock=5&endBlock=5", 200), "transactions"); len(empty) != 0 {
		t.Errorf("an empty block range lists %v", empty)
	}
	if got := pages(t, w, "/v1/chains/43112/addresses/"+s.Factory.Hex()+"/transactions:listInternals?pageSize=1", "transactions"); len(got) != 2 {
		t.Errorf("the factory's internal transactions page by page: %v", got)
	}

	// A block's transactions in block order; the chain's newest first.
	block3 := list(w.get(t, "/v1/chains/43112/blocks/3/transactions", 200), "transactions")
	if got := fields(block3, "blockIndex"); !slices.Equal(got, []any{0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0}) {
		t.Errorf("block 3's transactions at %v", got)
	}
	b3, _ := w.ix.Block(context.Background(), 43112, 3)
	if byHash := pages(t, w, "/v1/chains/43112/blocks/"+b3.Hash.Hex()+"/transactions?pageSize=3", "transactions"); !slices.Equal(hashes2(byHash), hashes2(block3)) {
		t.Errorf("block 3 by hash, three at a time: %v", byHash)
	}
	latest := pages(t, w, "/v1/chains/43112/transactions?pageSize=4", "transactions")
	if len(latest) != 26 || field(latest[0], "blockNumber") != "7" || field(latest[25], "blockNumber") != "1" {
		t.Errorf("the chain's %d transactions", len(latest))
	}
	if got := list(w.get(t, "/v1/chains/43112/transactions?status=failed", 200), "transactions"); len(got) != 0 {
		t.Errorf("failed transactions of the seed: %v", got)
	}
	if got := pages(t, w, "/v1/transactions?pageSize=5", "transactions"); !slices.Equal(hashes2(got), hashes2(latest)) {
		t.Errorf("the transactions of all chains are not the one chain's")
	}
	if got := pages(t, w, "/v1/blocks?pageSize=3", "blocks"); len(got) != 8 || field(got[0], "blockNumber") != "7" {
		t.Errorf("the blocks of all chains: %d", len(got))
	}

	// Contracts: metadata and deployments, through the factory too.
	v = w.get(t, "/v1/chains/43112/addresses/"+s.Token.Hex(), 200)
	if v["ercType"] != "ERC-20" || v["symbol"] != "ADT" || v["decimals"] != 18.0 || field(v, "deploymentDetails.deployerAddress") != ewoq ||
		field(v, "deploymentDetails.deployerContractAddress") != nil {
		t.Errorf("the token's metadata: %v", v)
	}
	v = w.get(t, "/v1/chains/43112/addresses/"+s.ChildCreate2.Hex(), 200)
	if v["ercType"] != "UNKNOWN" || field(v, "deploymentDetails.deployerAddress") != dev1 || field(v, "deploymentDetails.deployerContractAddress") != s.Factory.Hex() {
		t.Errorf("ChildCreate2's metadata: %v", v)
	}
	deployed := pages(t, w, "/v1/chains/43112/contracts/"+ewoq+"/deployments?pageSize=2", "contracts")
	if got := fields(deployed, "address"); !slices.Equal(got, []any{s.ChildCreate.Hex(), s.Factory.Hex(), s.Multi.Hex(), s.NFT.Hex(), s.Token.Hex()}) {
		t.Errorf("ewoq's deployments %v", got)
	}
	if got := fields(list(w.get(t, "/v1/chains/43112/contracts/"+dev1+"/deployments", 200), "contracts"), "address"); !slices.Equal(got, []any{s.ChildCreate2.Hex()}) {
		t.Errorf("dev1's deployments (through the factory) %v", got)
	}

	// Collectibles and collections.
	coll := pages(t, w, "/v1/chains/43112/addresses/"+ewoq+"/balances:listCollectibles?pageSize=2", "collectibleBalances")
	if got := fields(coll, "tokenId"); !slices.Equal(got, []any{"3", "2", "1", "4", "3"}) || field(coll[4], "ercType") != "ERC-721" ||
		field(coll[2], "balance") != "95" || field(coll[4], "ownerAddress") != ewoq || field(coll[4], "metadata.indexStatus") != "INDEXED" {
		t.Errorf("ewoq's collectibles %v", coll)
	}
	toks := pages(t, w, "/v1/chains/43112/nfts/collections/"+s.NFT.Hex()+"/tokens?pageSize=2", "tokens")
	if got := fields(toks, "tokenId"); !slices.Equal(got, []any{"1", "2", "3", "4", "5"}) || field(toks[3], "ownerAddress") != acc[2].Address.Hex() ||
		field(toks[0], "metadata.name") != "Avaedge Dev NFT #1" {
		t.Errorf("the NFT's tokens %v", toks)
	}

	// The chains where an address has activity.
	if got := fields(list(w.get(t, "/v1/address/"+dev3+"/chains", 200), "indexedChains"), "chainId"); !slices.Equal(got, []any{"43112"}) {
		t.Errorf("dev3's chains %v", got)
	}
	if got := list(w.get(t, "/v1/address/0x000000000000000000000000000000000000dEaD/chains", 200), "indexedChains"); len(got) != 0 {
		t.Errorf("an idle address's chains %v", got)
	}
}

func hashes2(items []any) []any { return fields(items, "txHash") }

func reversed(v []any) []any {
	out := slices.Clone(v)
	slices.Reverse(out)
	return out
}

// TestNetworkFilters: /v1/chains, /v1/blocks and /v1/transactions list the
// chains of the network asked for; with C-Chain aliases (local mode) the dev
// chain answers for mainnet and fuji under their ids. feature keeps the
// chains that have it.
func TestNetworkFilters(t *testing.T) {
	w := newWorld(t)
	aliases := &cchain.Aliases{Target: w.chain.ChainID(), BlockchainID: cchain.Local.BlockchainID}
	srv := httptest.NewServer(catalog.NewMux(catalog.Catalogue(), Handlers(Options{Index: w.ix,
		Chains: []ChainInfo{LocalChain(w.chain.ChainID(), "http://127.0.0.1:8080/ext/bc/C/rpc")}, Now: func() time.Time { return fixedNow }, CChain: aliases})))
	defer srv.Close()
	get := func(path string) map[string]any {
		t.Helper()
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var v map[string]any
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 || json.Unmarshal(body, &v) != nil {
			t.Fatalf("GET %s: %d %s", path, resp.StatusCode, body)
		}
		return v
	}
	for _, tc := range []struct {
		query, chainID string
		testnet        any
	}{
		{"", "43112", true},
		{"?network=mainnet", "43114", false},
		{"?network=fuji", "43113", true},
		{"?network=testnet&feature=nftIndexing", "43113", true},
	} {
		chains := list(get("/v1/chains"+tc.query), "chains")
		if len(chains) != 1 || field(chains[0], "chainId") != tc.chainID || field(chains[0], "isTestnet") != tc.testnet {
			t.Errorf("/v1/chains%s: %v; want %s", tc.query, chains, tc.chainID)
		}
		for _, path := range []string{"/v1/blocks", "/v1/transactions"} {
			key := strings.TrimPrefix(path, "/v1/")
			items := list(get(path+strings.Replace(tc.query, "&feature=nftIndexing", "", 1)), key)
			if len(items) == 0 || field(items[0], "chainId") != tc.chainID {
				t.Errorf("%s%s: %v", path, tc.query, items)
			}
		}
	}
	if chains := list(get("/v1/chains?feature=webhooks"), "chains"); len(chains) != 0 {
		t.Errorf("chains with webhooks: %v", chains)
	}
	if chains := list(get("/v1/chains?feature=teleporter"), "chains"); len(chains) != 1 {
		t.Errorf("chains with teleporter (their messengers' events indexed): %v; want the dev chain", chains)
	}
	// Without aliases (proxy mode) the dev chain is a testnet only.
	if chains := list(w.get(t, "/v1/chains?network=mainnet", 200), "chains"); len(chains) != 0 {
		t.Errorf("mainnet chains without aliases: %v", chains)
	}
}

// TestSpamAndFailures: an ERC-20 whose name and symbol cannot be read is
// spam: listErc20Balances leaves it out unless filterSpamTokens=false (then
// "Malicious"), and listTransactionsV2 with filterSpamTokens=true leaves out
// the transaction that only airdropped it. A reverted transaction is listed
// by the failed filter.
func TestSpamAndFailures(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	acc := w.chain.Accounts()
	from, victim := acc[5], common.HexToAddress("0x000000000000000000000000000000000000b0b0")
	send := w.sender(t, from)
	// A contract that emits Transfer(from, victim, 5) and has no name().
	emitter := send(nil, logEmitter(3), 200_000).ContractAddress
	topic := crypto.Keccak256Hash([]byte("Transfer(address,address,uint256)"))
	call := append(append(append(topic.Bytes(), common.LeftPadBytes(from.Address.Bytes(), 32)...), common.LeftPadBytes(victim.Bytes(), 32)...),
		common.LeftPadBytes([]byte{5}, 32)...)
	airdrop := send(&emitter, call, 100_000)
	// The NFT's mint is its owner's only: this one reverts.
	nft := w.chain.Seed().NFT
	mintABI, _ := evm.LoadArtifact(evm.ContractNFT)
	mint, _ := mintABI.Call("mint", from.Address)
	failed := send(&nft, mint, 100_000)
	if airdrop.Status != 1 || failed.Status != 0 {
		t.Fatalf("airdrop status %d, mint status %d", airdrop.Status, failed.Status)
	}
	wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := w.ix.WaitFor(wctx, 43112, failed.BlockNumber.Uint64()); err != nil {
		t.Fatal(err)
	}
	bal := "/v1/chains/43112/addresses/" + victim.Hex() + "/balances:listErc20"
	if got := list(w.get(t, bal, 200), "erc20TokenBalances"); len(got) != 0 {
		t.Errorf("spam listed by default: %v", got)
	}
	got := list(w.get(t, bal+"?filterSpamTokens=false", 200), "erc20TokenBalances")
	if len(got) != 1 || field(got[0], "tokenReputation") != "Malicious" || field(got[0], "balance") != "5" || field(got[0], "address") != emitter.Hex() {
		t.Errorf("the spam token's balance: %v", got)
	}
	v2 := "/v2/chains/43112/addresses/" + victim.Hex() + "/transactions"
	all := list(w.get(t, v2, 200), "transactions")
	if len(all) != 1 || field(all[0], "nativeTransaction.txHash") != airdrop.TxHash.Hex() ||
		field(field(all[0], "erc20Transfers").([]any)[0], "erc20Token.tokenReputation") != "Malicious" {
		t.Errorf("the victim's transactions: %v", all)
	}
	validate(t, "ListTransactionDetailsResponseV2", w.get(t, v2, 200))
	if filtered := list(w.get(t, v2+"?filterSpamTokens=true", 200), "transactions"); len(filtered) != 0 {
		t.Errorf("the airdrop with filterSpamTokens: %v", filtered)
	}
	// The sender's own transactions stay, but its spam transfer is left out.
	mine := list(w.get(t, "/v2/chains/43112/addresses/"+from.Address.Hex()+"/transactions?filterSpamTokens=true&pageSize=3", 200), "transactions")
	for _, tx := range mine {
		if field(tx, "nativeTransaction.txHash") == airdrop.TxHash.Hex() && field(tx, "erc20Transfers") != nil {
			t.Errorf("the sender's airdrop keeps its spam transfer: %v", tx)
		}
	}
	fails := list(w.get(t, "/v1/chains/43112/transactions?status=failed", 200), "transactions")
	if len(fails) != 1 || field(fails[0], "txHash") != failed.TxHash.Hex() || field(fails[0], "txStatus") != "0" {
		t.Errorf("failed transactions: %v", fails)
	}
	if ok := list(w.get(t, "/v1/transactions?status=success&pageSize=3", 200), "transactions"); len(ok) != 3 || slices.Contains(hashes2(ok), any(failed.TxHash.Hex())) {
		t.Errorf("successful transactions of all chains: %v", ok)
	}
}

// TestUntraced: a chain indexed without call traces (a node without
// debug_traceBlockByNumber) lists no internal transactions, and the answer
// says which blocks it lacks them for.
func TestUntraced(t *testing.T) {
	w := newWorld(t, func(_ *evm.Chain, co *evmindex.ChainOptions) { co.NoTrace = true })
	s := w.chain.Seed()
	resp, err := http.Get(w.srv.URL + "/v1/chains/43112/addresses/" + s.Factory.Hex() + "/transactions:listInternals")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var v map[string]any
	json.NewDecoder(resp.Body).Decode(&v)
	if resp.StatusCode != 200 || len(list(v, "transactions")) != 0 || resp.Header.Get(UntracedHeader) != "1-7" {
		t.Errorf("internal transactions without traces: %d %v, %s: %q", resp.StatusCode, v, UntracedHeader, resp.Header.Get(UntracedHeader))
	}
	resp2, err := http.Get(w.srv.URL + "/v1/chains/43112/addresses/" + s.Factory.Hex() + "/transactions?endBlock=3")
	if err != nil {
		t.Fatal(err)
	}
	resp2.Body.Close()
	if resp2.Header.Get(UntracedHeader) != "1-2" {
		t.Errorf("listTransactions over blocks 0-2: %s %q", UntracedHeader, resp2.Header.Get(UntracedHeader))
	}
	// Nor are a transaction's.
	call, err := w.ix.ChainTxs(context.Background(), 43112, evmindex.AnyStatus, evmindex.Blocks(6, 7), 1)
	if err != nil || len(call) != 1 {
		t.Fatalf("block 6's transactions: %v, %v", call, err)
	}
	resp4, err := http.Get(w.srv.URL + "/v1/chains/43112/transactions/" + call[0].Hash.Hex())
	if err != nil {
		t.Fatal(err)
	}
	resp4.Body.Close()
	if h := resp4.Header.Get(UntracedHeader); resp4.StatusCode != 200 || h != "6-6" {
		t.Errorf("a factory call's transaction without traces: %d, %s %q", resp4.StatusCode, UntracedHeader, h)
	}
	// The traced world's answers carry no notice.
	traced := newWorld(t)
	resp3, err := http.Get(traced.srv.URL + "/v1/chains/43112/addresses/" + s.Factory.Hex() + "/transactions:listInternals")
	if err != nil {
		t.Fatal(err)
	}
	resp3.Body.Close()
	if h := resp3.Header.Get(UntracedHeader); h != "" {
		t.Errorf("a traced chain's notice %q", h)
	}
}

// TestAllChainsPaging: the lists across chains merge two chains by block
// time (the same times on both at every other block), page after page
// without losing or repeating an item, whatever the page size.
func TestAllChainsPaging(t *testing.T) {
	ctx := context.Background()
	var opts []evmindex.ChainOptions
	for _, o := range []evm.Options{{}, {ChainID: 99999, BlockSpacing: 4 * time.Second}} {
		c, err := evm.New(ctx, o)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		cl := c.Client()
		t.Cleanup(cl.Close)
		opts = append(opts, evmindex.ChainOptions{ChainID: c.ChainID(), Client: cl, PollInterval: 20 * time.Millisecond})
	}
	ix, err := evmindex.Open(ctx, evmindex.Options{Chains: opts})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	ix.Start(ctx)
	for _, o := range opts {
		wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		err := ix.WaitFor(wctx, o.ChainID, 7)
		cancel()
		if err != nil {
			t.Fatal(err)
		}
	}
	other := ChainInfo{ChainID: 99999, ChainName: "Other", Description: "another dev chain", RPCURL: "http://127.0.0.1/other", IsTestnet: true,
		NetworkToken: NetworkToken{Name: "Other", Symbol: "OTH", Decimals: 18}}
	srv := httptest.NewServer(catalog.NewMux(catalog.Catalogue(), Handlers(Options{Index: ix,
		Chains: []ChainInfo{LocalChain(43112, "http://127.0.0.1:8080/ext/bc/C/rpc"), other}, Now: func() time.Time { return fixedNow }})))
	defer srv.Close()
	w := &world{ix: ix, srv: srv}
	// The expected order: time newest first, then the chains in their
	// order, then each chain's newest first.
	type key struct {
		time  float64
		chain int
		pos   string
	}
	check := func(t *testing.T, items []any, posOf func(any) string) {
		t.Helper()
		var got []key
		seen := map[string]bool{}
		for _, it := range items {
			c := map[string]int{"43112": 0, "99999": 1}[field(it, "chainId").(string)]
			k := key{field(it, "blockTimestamp").(float64), c, posOf(it)}
			id := field(it, "chainId").(string) + "/" + k.pos
			if seen[id] {
				t.Fatalf("%s listed twice", id)
			}
			seen[id] = true
			got = append(got, k)
		}
		if !slices.IsSortedFunc(got, func(a, b key) int {
			switch {
			case a.time != b.time:
				return -cmpFloat(a.time, b.time)
			case a.chain != b.chain:
				return a.chain - b.chain
			}
			return -strings.Compare(a.pos, b.pos)
		}) {
			t.Errorf("not in time, chain, position order: %v", got)
		}
	}
	blockPos := func(it any) string { return fmt.Sprintf("%08s", field(it, "blockNumber")) }
	txPos := func(it any) string {
		return fmt.Sprintf("%08s.%04d", field(it, "blockNumber"), int(field(it, "blockIndex").(float64)))
	}
	whole := list(w.get(t, "/v1/blocks?pageSize=100", 200), "blocks")
	if len(whole) != 16 {
		t.Fatalf("%d blocks of two chains of 8", len(whole))
	}
	check(t, whole, blockPos)
	allTxs := list(w.get(t, "/v1/transactions?pageSize=100", 200), "transactions")
	if len(allTxs) != 52 {
		t.Fatalf("%d transactions of two chains of 26", len(allTxs))
	}
	check(t, allTxs, txPos)
	for _, size := range []int{1, 2, 3, 5, 7} {
		if got := pages(t, w, fmt.Sprintf("/v1/blocks?pageSize=%d", size), "blocks"); !slices.EqualFunc(got, whole, sameItem) {
			t.Errorf("blocks %d at a time differ from all at once", size)
		}
		if got := pages(t, w, fmt.Sprintf("/v1/transactions?pageSize=%d", size), "transactions"); !slices.EqualFunc(got, allTxs, sameItem) {
			t.Errorf("transactions %d at a time differ from all at once", size)
		}
	}
	if got := list(w.get(t, "/v1/blocks?network=mainnet", 200), "blocks"); len(got) != 0 {
		t.Errorf("mainnet blocks of two testnets: %v", got)
	}
	if got := fields(list(w.get(t, "/v1/chains?network=fuji", 200), "chains"), "chainId"); !slices.Equal(got, []any{"43112", "99999"}) {
		t.Errorf("fuji chains: %v", got)
	}
}

func sameItem(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// TestCreationRecipient: a contract creation's "to" is the contract it
// created in getTransaction as in listTransactions, with call traces and
// without them (a followed node without debug_traceBlockByNumber).
func TestCreationRecipient(t *testing.T) {
	for _, traced := range []bool{true, false} {
		t.Run(fmt.Sprint("traced=", traced), func(t *testing.T) {
			w := newWorld(t, func(_ *evm.Chain, co *evmindex.ChainOptions) { co.NoTrace = !traced })
			txs, err := w.ix.ChainTxs(context.Background(), 43112, evmindex.Succeeded, evmindex.Blocks(0, 0), 1000)
			if err != nil {
				t.Fatal(err)
			}
			checked := 0
			for _, tx := range txs {
				if tx.To != nil {
					continue
				}
				got := w.get(t, "/v1/chains/43112/transactions/"+tx.Hash.Hex(), 200)
				getTo := got["nativeTransaction"].(map[string]any)["to"].(map[string]any)["address"]
				var listTo any
				for _, it := range list(w.get(t, "/v1/chains/43112/addresses/"+tx.From.Hex()+"/transactions?pageSize=100", 200), "transactions") {
					if m := it.(map[string]any)["nativeTransaction"].(map[string]any); m["txHash"] == tx.Hash.Hex() {
						listTo = m["to"].(map[string]any)["address"]
					}
				}
				if getTo != listTo || getTo == (common.Address{}).Hex() {
					t.Errorf("creation %s: to %v in getTransaction, %v in listTransactions; want the created contract in both", tx.Hash.Hex(), getTo, listTo)
				}
				checked++
			}
			if checked == 0 {
				t.Fatal("no contract creation on the chain")
			}
		})
	}
}
