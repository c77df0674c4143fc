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
// transactions; the staking asset is the X-Chain's AVAX. The methods not
// built yet answer an error saying so, the writes that the devnet takes no
// transactions, and any other method the node's own error.
func TestPChainDevnet(t *testing.T) {
	base := localEdge(t).URL
	r := do(t, "GET", base+"/v1/networks/fuji/blockchains/p-chain/blocks?pageSize=1", nil, nil)
	var blocks struct {
		Blocks []struct {
			BlockNumber    json.Number `json:"blockNumber"`
			BlockTimestamp int64       `json:"blockTimestamp"`
		} `json:"blocks"`
	}
	if r.Status != 200 || json.Unmarshal(r.Body, &blocks) != nil || len(blocks.Blocks) != 1 {
		t.Fatalf("the Data API's latest P-Chain block: %s", r)
	}
	var height struct{ Height string }
	rpcResult(t, base+"/ext/bc/P", "platform.getHeight", "", &height)
	if height.Height != blocks.Blocks[0].BlockNumber.String() {
		t.Errorf("platform.getHeight = %s; the Data API's latest block is %s", height.Height, blocks.Blocks[0].BlockNumber)
	}
	var ts struct{ Timestamp time.Time }
	rpcResult(t, base+"/ext/P", "platform.getTimestamp", "", &ts)
	if ts.Timestamp.Unix() != blocks.Blocks[0].BlockTimestamp {
		t.Errorf("platform.getTimestamp = %v; the Data API's latest block is at %d", ts.Timestamp, blocks.Blocks[0].BlockTimestamp)
	}

	r = do(t, "GET", base+"/v1/networks/fuji/blockchains/p-chain/transactions?pageSize=10", nil, nil)
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
		{"/ext/bc/P", "platform.getBalance", `{"addresses":["P-local18jma8ppw3nhx5r4ap8clazz0dps7rv5u00z96u"]}`, "method platform.getBalance has no local implementation yet"},
		{"/ext/bc/C/avax", "avax.getUTXOs", `{"addresses":["C-local18jma8ppw3nhx5r4ap8clazz0dps7rv5u00z96u"],"sourceChain":"P"}`, "method avax.getUTXOs has no local implementation yet"},
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
