package e2e

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/ava-labs/avalanchego/utils/constants"
	"github.com/ava-labs/avalanchego/utils/crypto/secp256k1"
	"github.com/ava-labs/avalanchego/utils/formatting/address"
)

// walkList follows nextPageToken from path (which has a query) and returns
// every item of list.
func walkList(t *testing.T, base, path, list string) []json.RawMessage {
	t.Helper()
	var items []json.RawMessage
	next := ""
	for pages := 0; ; pages++ {
		p := path
		if next != "" {
			p += "&pageToken=" + url.QueryEscape(next)
		}
		var page map[string]json.RawMessage
		getJSON(t, base+p, &page)
		var got []json.RawMessage
		if err := json.Unmarshal(page[list], &got); err != nil {
			t.Fatalf("GET %s: %s is not a list: %v", p, list, err)
		}
		items = append(items, got...)
		var tok string
		if json.Unmarshal(page["nextPageToken"], &tok) != nil || tok == "" {
			return items
		}
		if pages > 1000 {
			t.Fatalf("GET %s: the pages do not end", path)
		}
		next = tok
	}
}

// TestDevnetHistory: in local mode the devnet's P- and X-Chain are blocks
// of transactions, and the built binary answers them consistently. Every
// transaction listLatestPrimaryNetworkTransactions lists, getTxByHash finds
// with the same answer; every UTXO of every address was made by a listed
// transaction and spent by one; every validator's and delegator's staking
// transaction, every subnet's, chain's and L1's creation and conversion is
// listed; the node's avm.getUTXOs shows ewoq's unspent X-Chain UTXOs as the
// Data API does; and the official SDK's strict schemas accept a transaction
// of every type, listed by type and read by hash.
func TestDevnetHistory(t *testing.T) {
	base := localEdge(t).URL
	const network = "fuji"
	nb := "/v1/networks/" + network

	listed := map[string]string{}  // tx hash -> chain alias
	types := map[string][]string{} // chain alias -> tx types
	for _, chain := range []string{"p-chain", "x-chain"} {
		for _, raw := range walkList(t, base, nb+"/blockchains/"+chain+"/transactions?pageSize=100", "transactions") {
			var tx struct{ TxHash, TxType string }
			json.Unmarshal(raw, &tx)
			listed[tx.TxHash] = chain
			if !slices.Contains(types[chain], tx.TxType) {
				types[chain] = append(types[chain], tx.TxType)
			}
			r := do(t, "GET", base+nb+"/blockchains/"+chain+"/transactions/"+tx.TxHash, nil, nil)
			var a, b any
			json.Unmarshal(raw, &a)
			json.Unmarshal(r.Body, &b)
			x, _ := json.Marshal(a)
			y, _ := json.Marshal(b)
			if r.Status != 200 || string(x) != string(y) {
				t.Fatalf("getTxByHash %s = %s; listed as %.300s", tx.TxHash, r, raw)
			}
		}
	}
	for chain, want := range map[string]int{"p-chain": 16, "x-chain": 4} {
		if len(types[chain]) != want {
			t.Errorf("%s transaction types %v; want %d", chain, types[chain], want)
		}
	}
	if len(listed) < 200 {
		t.Fatalf("%d transactions; want the devnet's history", len(listed))
	}
	found := func(what, hash, chain string) {
		t.Helper()
		if got, ok := listed[hash]; !ok || got != chain {
			t.Errorf("%s: transaction %s is not listed on the %s (on %q)", what, hash, chain, got)
		}
	}

	// Stakes, subnets, chains and the L1, and the addresses they pay.
	addrs := map[string]bool{}
	for _, raw := range walkList(t, base, nb+"/validators?pageSize=100", "validators") {
		var v struct {
			TxHash, NodeID   string
			PotentialRewards struct{ RewardAddresses []string }
			Rewards          struct{ RewardAddresses []string }
		}
		json.Unmarshal(raw, &v)
		found("validator "+v.NodeID, v.TxHash, "p-chain")
		for _, a := range append(v.PotentialRewards.RewardAddresses, v.Rewards.RewardAddresses...) {
			addrs[strings.TrimPrefix(a, "P-")] = true
		}
	}
	for _, raw := range walkList(t, base, nb+"/delegators?pageSize=100", "delegators") {
		var d struct {
			TxHash          string
			RewardAddresses []string
		}
		json.Unmarshal(raw, &d)
		found("delegator", d.TxHash, "p-chain")
		for _, a := range d.RewardAddresses {
			addrs[strings.TrimPrefix(a, "P-")] = true
		}
	}
	subnets := 0
	for _, raw := range walkList(t, base, nb+"/subnets?pageSize=100", "subnets") {
		var s struct {
			SubnetID                    string
			IsL1                        bool
			L1ConversionTransactionHash string
			Blockchains                 []struct{ BlockchainID string }
		}
		json.Unmarshal(raw, &s)
		subnets++
		found("subnet", s.SubnetID, "p-chain")
		for _, c := range s.Blockchains {
			found("blockchain", c.BlockchainID, "p-chain")
		}
		if s.IsL1 {
			found("L1 conversion", s.L1ConversionTransactionHash, "p-chain")
		}
	}
	if subnets != 2 || len(addrs) < 5 {
		t.Fatalf("%d subnets, %d addresses; want the devnet's 2 and 5", subnets, len(addrs))
	}

	// Every UTXO of every address, spent or not, on every chain.
	var all []string
	for a := range addrs {
		all = append(all, a)
	}
	slices.Sort(all)
	chainOf := map[string]string{"11111111111111111111111111111111LpoYY": "p-chain", "2JVSBoinj9C2J33VntvzYtVJNZdN2NKiwwKjcumHUWEb5DbBrm": "x-chain"}
	utxos := 0
	for _, chain := range []string{"p-chain", "x-chain", "c-chain"} {
		for _, raw := range walkList(t, base, nb+"/blockchains/"+chain+"/utxos?pageSize=100&includeSpent=true&addresses="+url.QueryEscape(strings.Join(all, ",")), "utxos") {
			var u struct {
				UTXOID, TxHash, CreationTxHash, ConsumingTxHash, CreatedOnChainID, ConsumedOnChainID, RewardType string
			}
			json.Unmarshal(raw, &u)
			utxos++
			// A reward's id derives from its staking tx (listed); the
			// RewardValidatorTx that paid it is listed too.
			found("UTXO "+u.UTXOID, u.TxHash+u.CreationTxHash, chainOf[u.CreatedOnChainID])
			if u.ConsumingTxHash != "" {
				found("spend of UTXO "+u.UTXOID, u.ConsumingTxHash, chainOf[u.ConsumedOnChainID])
			}
		}
	}
	if utxos < 300 {
		t.Errorf("%d UTXOs; want the devnet's history", utxos)
	}

	// The node methods read the same X-Chain UTXOs.
	var page struct {
		UTXOs []string `json:"utxos"`
	}
	rpcResult(t, base+"/ext/bc/X", "avm.getUTXOs", `{"addresses":["X-local18jma8ppw3nhx5r4ap8clazz0dps7rv5u00z96u"],"limit":1024,"encoding":"hex"}`, &page)
	raw, _ := hex.DecodeString(ewoqKeyHex)
	key, err := secp256k1.ToPrivateKey(raw)
	if err != nil {
		t.Fatal(err)
	}
	ewoqFuji, _ := address.Format("X", constants.FujiHRP, key.Address().Bytes())
	data := walkList(t, base, nb+"/blockchains/x-chain/utxos?pageSize=100&addresses="+ewoqFuji, "utxos")
	if len(page.UTXOs) == 0 || len(page.UTXOs) != len(data) {
		t.Errorf("ewoq's X-Chain UTXOs: avm.getUTXOs lists %d, the Data API %d", len(page.UTXOs), len(data))
	}

	// The SDK's strict schemas: a transaction of every type, listed by type
	// and read by hash.
	var calls []sdkCall
	for chain, ts := range types {
		for _, typ := range ts {
			calls = append(calls, sdkCall{Name: "list " + chain + " " + typ, Op: "data.primaryNetwork.transactions.listLatest",
				Args: map[string]any{"network": network, "blockchainId": chain, "txTypes": []string{typ}, "pageSize": 5}})
		}
	}
	res := sdkCalls(t, base, calls)
	var gets []sdkCall
	for _, c := range calls {
		var list struct {
			Transactions []struct{ TxHash, TxType string } `json:"transactions"`
		}
		decode(t, res[c.Name], &list)
		want := c.Args["txTypes"].([]string)[0]
		if len(list.Transactions) == 0 || list.Transactions[0].TxType != want {
			t.Errorf("%s: %s", c.Name, res[c.Name].Result)
			continue
		}
		gets = append(gets, sdkCall{Name: fmt.Sprintf("get %s %s", c.Args["blockchainId"], want), Op: "data.primaryNetwork.transactions.get",
			Args: map[string]any{"network": network, "blockchainId": c.Args["blockchainId"], "txHash": list.Transactions[0].TxHash}})
	}
	for name, r := range sdkCalls(t, base, gets) {
		if !strings.Contains(string(r.Result), `"txHash"`) {
			t.Errorf("%s: %s", name, r.Result)
		}
	}
}
