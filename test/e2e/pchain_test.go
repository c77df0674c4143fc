package e2e

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestPChainDevnet (issue 37): the built binary in devnet mode answers the
// P-Chain endpoint from the devnet's P-Chain, with the values the Data API
// gives: the height and time of its latest block, the status of its latest
// transactions; the staking asset is the X-Chain's AVAX. An unknown L1
// validation id gets the node's "not found", the writes that the devnet
// takes no transactions, and any other method the node's own error.
func TestPChainDevnet(t *testing.T) {
	base := localEdge(t).URL
	latest := latestPBlock(t, base)
	var height struct{ Height string }
	rpcResult(t, base+"/ext/bc/P", "platform.getHeight", "", &height)
	if height.Height != latest.BlockNumber.String() {
		t.Errorf("platform.getHeight = %s; the Data API's latest block is %s", height.Height, latest.BlockNumber)
	}
	var ts struct{ Timestamp time.Time }
	rpcResult(t, base+"/ext/P", "platform.getTimestamp", "", &ts)
	if ts.Timestamp.Unix() != latest.BlockTimestamp {
		t.Errorf("platform.getTimestamp = %v; the Data API's latest block is at %d", ts.Timestamp, latest.BlockTimestamp)
	}

	r := do(t, "GET", base+"/v1/networks/fuji/blockchains/p-chain/transactions?pageSize=10", nil, nil)
	var txs struct {
		Transactions []struct{ TxHash string } `json:"transactions"`
	}
	if r.Status != 200 || json.Unmarshal(r.Body, &txs) != nil || len(txs.Transactions) == 0 {
		t.Fatalf("the Data API's latest P-Chain transactions: %s", r)
	}
	for _, tx := range txs.Transactions {
		var st struct{ Status string }
		rpcResult(t, base+"/ext/bc/P", "platform.getTxStatus", `{"txID":"`+tx.TxHash+`"}`, &st)
		if st.Status != "Committed" {
			t.Errorf("platform.getTxStatus(%s) = %s; want Committed", tx.TxHash, st.Status)
		}
		var got struct {
			Tx struct {
				UnsignedTx json.RawMessage `json:"unsignedTx"`
				ID         string          `json:"id"`
			} `json:"tx"`
			Encoding string `json:"encoding"`
		}
		rpcResult(t, base+"/ext/bc/P", "platform.getTx", `{"txID":"`+tx.TxHash+`","encoding":"json"}`, &got)
		if got.Tx.ID != tx.TxHash || got.Encoding != "json" || len(got.Tx.UnsignedTx) < 10 {
			t.Errorf("platform.getTx(%s) = %+v; want the transaction in json", tx.TxHash, got)
		}
	}

	var asset, desc struct{ AssetID string }
	rpcResult(t, base+"/ext/bc/P", "platform.getStakingAssetID", `{}`, &asset)
	rpcResult(t, base+"/ext/bc/X", "avm.getAssetDescription", `{"assetID":"AVAX"}`, &desc)
	if asset.AssetID == "" || asset.AssetID != desc.AssetID {
		t.Errorf("platform.getStakingAssetID = %q; the X-Chain's AVAX is %q", asset.AssetID, desc.AssetID)
	}

	for i, c := range []struct{ path, method, params, want string }{
		{"/ext/bc/P", "platform.getL1Validator", `{"validationID":"11111111111111111111111111111111LpoYY"}`, `fetching L1 validator \"11111111111111111111111111111111LpoYY\" failed: not found`},
		{"/ext/bc/C/avax", "avax.getUTXOs", `{"addresses":["C-local18jma8ppw3nhx5r4ap8clazz0dps7rv5u00z96u"]}`, "no source chain provided"},
		{"/ext/bc/P", "platform.issueTx", `{"tx":"0x00","encoding":"hex"}`, "platform.issueTx: the devnet takes no transactions"},
		{"/ext/bc/C/avax", "avax.issueTx", `{"tx":"0x00","encoding":"hex"}`, "avax.issueTx: the devnet takes no transactions"},
		{"/ext/bc/P", "platform.getAllBalances", `{}`, `rpc: can't find method \"platform.GetAllBalances\"`},
	} {
		r := do(t, "POST", base+c.path, rpcBody(i+1, c.method, c.params), map[string]string{"Content-Type": "application/json"})
		if r.Status != 200 || !strings.Contains(string(r.Body), c.want) || !strings.Contains(string(r.Body), `"id":`+strconv.Itoa(i+1)) {
			t.Errorf("%s %s = %s; want a JSON-RPC error saying %q", c.path, c.method, r, c.want)
		}
	}
}

// TestPChainDevnetReads (issue 37): the built binary in devnet mode answers
// the P-Chain's reads from its index with the Data API's values: ewoq's
// balance and UTXOs, the primary network's current validators, the
// subnets, the chains, the C-Chain's atomic UTXOs, a block by height in
// JSON; those a node answers from its staker set and history, from the
// devnet's (checkDevnetStaking); its proposed height and fee states
// (checkDevnetFeeState), the reward UTXOs of its completed validations
// (checkDevnetRewardUTXOs) and its L1 validators (checkDevnetL1Validators).
func TestPChainDevnetReads(t *testing.T) {
	base := localEdge(t).URL
	const ewoq = "P-local18jma8ppw3nhx5r4ap8clazz0dps7rv5u00z96u"
	r := do(t, "GET", base+"/v1/networks/fuji/blockchains/p-chain/balances?addresses="+ewoq, nil, nil)
	var bal struct {
		Balances struct {
			UnlockedUnstaked []struct{ Amount string } `json:"unlockedUnstaked"`
		} `json:"balances"`
	}
	if r.Status != 200 || json.Unmarshal(r.Body, &bal) != nil {
		t.Fatalf("the Data API's balance of ewoq: %s", r)
	}
	var unlocked uint64
	for _, a := range bal.Balances.UnlockedUnstaked {
		n, _ := strconv.ParseUint(a.Amount, 10, 64)
		unlocked += n
	}
	var got struct {
		Unlocked string `json:"unlocked"`
		UTXOIDs  []struct {
			TxID        string `json:"txID"`
			OutputIndex uint32 `json:"outputIndex"`
		} `json:"utxoIDs"`
	}
	rpcResult(t, base+"/ext/bc/P", "platform.getBalance", `{"addresses":["`+ewoq+`"]}`, &got)
	if got.Unlocked != strconv.FormatUint(unlocked, 10) || len(got.UTXOIDs) == 0 {
		t.Errorf("platform.getBalance(ewoq) = %+v; the Data API's unlocked AVAX is %d", got, unlocked)
	}
	var utxos struct {
		NumFetched string   `json:"numFetched"`
		UTXOs      []string `json:"utxos"`
		Encoding   string   `json:"encoding"`
	}
	rpcResult(t, base+"/ext/bc/P", "platform.getUTXOs", `{"addresses":["`+ewoq+`"],"limit":1024}`, &utxos)
	if utxos.NumFetched != strconv.Itoa(len(got.UTXOIDs)) || len(utxos.UTXOs) != len(got.UTXOIDs) || utxos.Encoding != "hex" {
		t.Errorf("platform.getUTXOs(ewoq): %d UTXOs (%s); getBalance counts %d", len(utxos.UTXOs), utxos.NumFetched, len(got.UTXOIDs))
	}

	r = do(t, "GET", base+"/v1/networks/fuji/validators?pageSize=100&validationStatus=active&subnetId=11111111111111111111111111111111LpoYY", nil, nil)
	var dv struct {
		Validators []struct {
			NodeID       string `json:"nodeId"`
			AmountStaked string `json:"amountStaked"`
		} `json:"validators"`
	}
	if r.Status != 200 || json.Unmarshal(r.Body, &dv) != nil || len(dv.Validators) == 0 {
		t.Fatalf("the Data API's active validators: %s", r)
	}
	var vdrs struct {
		Validators []struct {
			NodeID string `json:"nodeID"`
			Weight string `json:"weight"`
		} `json:"validators"`
	}
	rpcResult(t, base+"/ext/bc/P", "platform.getCurrentValidators", `{}`, &vdrs)
	want := map[string]string{}
	for _, v := range dv.Validators {
		want[v.NodeID] = v.AmountStaked
	}
	if len(vdrs.Validators) != len(want) {
		t.Errorf("platform.getCurrentValidators lists %d; the Data API %d", len(vdrs.Validators), len(want))
	}
	for _, v := range vdrs.Validators {
		if want[v.NodeID] != v.Weight {
			t.Errorf("validator %s weighs %s; the Data API says %q", v.NodeID, v.Weight, want[v.NodeID])
		}
	}

	r = do(t, "GET", base+"/v1/networks/fuji/subnets?pageSize=100", nil, nil)
	var ds struct {
		Subnets []struct {
			SubnetID string `json:"subnetId"`
		} `json:"subnets"`
	}
	if r.Status != 200 || json.Unmarshal(r.Body, &ds) != nil {
		t.Fatalf("the Data API's subnets: %s", r)
	}
	var subnets struct {
		Subnets []struct {
			ID string `json:"id"`
		} `json:"subnets"`
	}
	rpcResult(t, base+"/ext/bc/P", "platform.getSubnets", `{}`, &subnets)
	if len(subnets.Subnets) != len(ds.Subnets)+1 {
		t.Errorf("platform.getSubnets lists %d; the Data API %d subnets (and the primary network)", len(subnets.Subnets), len(ds.Subnets))
	}
	for _, s := range ds.Subnets {
		if !strings.Contains(string(mustJSON(t, subnets)), s.SubnetID) {
			t.Errorf("subnet %s of the Data API not in platform.getSubnets", s.SubnetID)
		}
	}
	var chains struct {
		Blockchains []struct {
			ID string `json:"id"`
		} `json:"blockchains"`
	}
	rpcResult(t, base+"/ext/bc/P", "platform.getBlockchains", `{}`, &chains)
	r = do(t, "GET", base+"/v1/networks/fuji/blockchains?pageSize=100", nil, nil)
	var dc struct {
		Blockchains []struct {
			BlockchainID string `json:"blockchainId"`
		} `json:"blockchains"`
	}
	if r.Status != 200 || json.Unmarshal(r.Body, &dc) != nil || len(dc.Blockchains) == 0 || len(dc.Blockchains) != len(chains.Blockchains) {
		t.Errorf("platform.getBlockchains lists %d; the Data API: %s", len(chains.Blockchains), r)
	}

	// The C-Chain's shared memory: what the X-Chain exported to ewoq there.
	var atomic struct {
		NumFetched string   `json:"numFetched"`
		UTXOs      []string `json:"utxos"`
	}
	rpcResult(t, base+"/ext/bc/C/avax", "avax.getUTXOs", `{"addresses":["C-local18jma8ppw3nhx5r4ap8clazz0dps7rv5u00z96u"],"sourceChain":"X"}`, &atomic)
	r = do(t, "GET", base+"/v1/networks/fuji/blockchains/c-chain/utxos?pageSize=100&addresses=C-local18jma8ppw3nhx5r4ap8clazz0dps7rv5u00z96u", nil, nil)
	var du struct {
		UTXOs []json.RawMessage `json:"utxos"`
	}
	if r.Status != 200 || json.Unmarshal(r.Body, &du) != nil || len(du.UTXOs) == 0 || len(atomic.UTXOs) != len(du.UTXOs) {
		t.Errorf("avax.getUTXOs(ewoq, X) lists %d; the Data API: %s", len(atomic.UTXOs), r)
	}

	var blk struct {
		Block struct {
			Height uint64 `json:"height"`
		} `json:"block"`
		Encoding string `json:"encoding"`
	}
	rpcResult(t, base+"/ext/bc/P", "platform.getBlockByHeight", `{"height":"1","encoding":"json"}`, &blk)
	if blk.Block.Height != 1 || blk.Encoding != "json" {
		t.Errorf("platform.getBlockByHeight(1) = %+v", blk)
	}
	checkDevnetStaking(t, base, ewoq)
	checkDevnetFeeState(t, base)
	checkDevnetRewardUTXOs(t, base)
	checkDevnetL1Validators(t, base)
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
