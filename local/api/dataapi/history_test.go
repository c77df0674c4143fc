package dataapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/avaedge/avaedge/avanet"
	"github.com/avaedge/avaedge/catalog"
	"github.com/avaedge/avaedge/local/source/pindex"
	"github.com/avaedge/avaedge/local/vocab/avax"
	"github.com/avaedge/avaedge/local/vocab/glacier"
)

// TestHistoryThroughTheAPI walks the world through the handlers as a
// client would: every transaction listLatestPrimaryNetworkTransactions
// lists is found by getTxByHash with the same answer; every UTXO of every
// address was made by a listed transaction and, when spent, spent by one;
// every validation, delegation, subnet, chain and L1 conversion has its
// transaction — but the followed index's genesis stakers, which no block
// lists.
func TestHistoryThroughTheAPI(t *testing.T) {
	each(t, func(t *testing.T, w *world) {
		const base = "/v1/networks/fuji"
		listed := map[string]string{} // tx hash -> chain alias
		for _, chain := range []string{"p-chain", "x-chain"} {
			for _, it := range w.walk(t, base+"/blockchains/"+chain+"/transactions?pageSize=100", "transactions") {
				var tx struct {
					TxHash string `json:"txHash"`
				}
				json.Unmarshal([]byte(it), &tx)
				listed[tx.TxHash] = chain
				code, body := w.get(t, base+"/blockchains/"+chain+"/transactions/"+tx.TxHash)
				var listedTx, got any
				json.Unmarshal([]byte(it), &listedTx)
				json.Unmarshal(body, &got)
				if code != http.StatusOK || !jsonEqual(listedTx, got) {
					t.Fatalf("getTxByHash %s = %d %.300s; listed as %.300s", tx.TxHash, code, body, it)
				}
			}
		}
		if len(listed) < 200 {
			t.Fatalf("%d transactions listed; want a rich history", len(listed))
		}
		found := func(what, hash, chain string) {
			t.Helper()
			if got, ok := listed[hash]; !ok || got != chain {
				t.Errorf("%s: transaction %s is not listed on the %s (listed on %q)", what, hash, chain, got)
			}
		}
		hrp := w.hrp("fuji")
		var addrs []string
		for _, a := range w.dev.Addresses() {
			addrs = append(addrs, avax.FormatBech32(hrp, a))
		}
		all := strings.Join(addrs, ",")
		xChain, cChain := named("fuji").XChainID, named("fuji").CChainID
		chainOf := map[string]string{"11111111111111111111111111111111LpoYY": "p-chain", xChain: "x-chain", w.xChain("fuji").String(): "x-chain"}
		utxos := 0
		for _, chain := range []string{"p-chain", "x-chain", "c-chain"} {
			for _, it := range w.walk(t, base+"/blockchains/"+chain+"/utxos?pageSize=100&includeSpent=true&addresses="+all, "utxos") {
				utxos++
				var u struct {
					TxHash, CreationTxHash, ConsumingTxHash, CreatedOnChainID, ConsumedOnChainID, RewardType string
				}
				json.Unmarshal([]byte(it), &u)
				made := u.TxHash + u.CreationTxHash
				if u.RewardType != "" {
					// A reward's id derives from the staking tx: it is the
					// tx hash; the RewardValidatorTx that paid it is listed.
					found("reward "+it, made, "p-chain")
					continue
				}
				found("UTXO "+it, made, chainOf[u.CreatedOnChainID])
				if u.ConsumingTxHash != "" {
					consumer := chainOf[u.ConsumedOnChainID]
					if u.ConsumedOnChainID == cChain {
						t.Errorf("UTXO %s: spent on the C-Chain, which the devnet does not index", it)
					}
					found("spend of "+it, u.ConsumingTxHash, consumer)
				}
			}
		}
		if utxos < 300 {
			t.Errorf("%d UTXOs; want a rich history", utxos)
		}
		genesis := 0
		for _, it := range w.walk(t, base+"/validators?pageSize=100", "validators") {
			var v glacier.ValidatorBase
			json.Unmarshal([]byte(it), &v)
			if _, ok := listed[v.TxHash]; !ok && !w.devnet && v.StartTimestamp == w.dev.GenesisTime().Unix() {
				genesis++ // the followed network's genesis stakers: no block lists them
				continue
			}
			found("validator "+it, v.TxHash, "p-chain")
		}
		if w.devnet != (genesis == 0) {
			t.Errorf("%d genesis stakers without a listed transaction", genesis)
		}
		for _, it := range w.walk(t, base+"/delegators?pageSize=100", "delegators") {
			var d glacier.Delegator
			json.Unmarshal([]byte(it), &d)
			found("delegator "+it, d.TxHash, "p-chain")
		}
		for _, it := range w.walk(t, base+"/subnets?pageSize=100", "subnets") {
			var s glacier.Subnet
			json.Unmarshal([]byte(it), &s)
			found("subnet", s.SubnetID, "p-chain")
			for _, c := range s.Blockchains {
				found("blockchain", c.BlockchainID, "p-chain")
			}
			if s.IsL1 {
				found("conversion", s.L1ConversionTransactionHash, "p-chain")
			}
		}
	})
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}

// TestTxAmounts checks what the transaction answers derive from the
// transactions: amounts staked, burned and moved, chains and assets.
func TestTxAmounts(t *testing.T) {
	each(t, func(t *testing.T, w *world) {
		get := func(chain avanet.Chain, kind string, v any) {
			t.Helper()
			code, body := w.get(t, "/v1/networks/fuji/blockchains/"+alias(chain)+"/transactions/"+w.txOf(t, chain, kind))
			if code != 200 || json.Unmarshal(body, v) != nil {
				t.Fatalf("%s: %d %s", kind, code, body)
			}
		}
		var conv glacier.PChainTx
		get(avanet.ChainP, "ConvertSubnetToL1Tx", &conv)
		if len(conv.AmountL1ValidatorBalanceBurned) != 1 || conv.AmountL1ValidatorBalanceBurned[0].Amount != "3000000000" ||
			conv.SubnetID != w.l1(t).ID.String() || len(conv.AmountBurned) != 1 || conv.AmountBurned[0].Amount != "1000000" {
			t.Errorf("ConvertSubnetToL1Tx: L1 balance %+v, burned %+v, subnet %s", conv.AmountL1ValidatorBalanceBurned, conv.AmountBurned, conv.SubnetID)
		}
		var stake glacier.PChainTx
		get(avanet.ChainP, "AddPermissionlessDelegatorTx", &stake)
		if len(stake.AmountStaked) != 1 || stake.NodeID == "" || stake.StartTimestamp == 0 {
			t.Errorf("AddPermissionlessDelegatorTx: staked %+v, node %q", stake.AmountStaked, stake.NodeID)
		}
		var imp glacier.PChainTx
		get(avanet.ChainP, "ImportTx", &imp)
		if imp.SourceChain != w.xChain("fuji").String() || len(imp.ConsumedUTXOs) != 1 || imp.ConsumedUTXOs[0].CreatedOnChainID != imp.SourceChain {
			t.Errorf("ImportTx: source %s, consumed %+v", imp.SourceChain, imp.ConsumedUTXOs)
		}
		var exp glacier.XChainTx
		get(avanet.ChainX, "ExportTx", &exp)
		if exp.DestinationChain == "" || len(exp.EmittedUTXOs) < 2 {
			t.Errorf("X ExportTx: destination %q, emitted %d", exp.DestinationChain, len(exp.EmittedUTXOs))
		}
		var reward glacier.PChainTx
		get(avanet.ChainP, "RewardValidatorTx", &reward)
		// The reward UTXOs: the devnet's blocks carry them, the follower
		// reads them from the node.
		if len(reward.EmittedUTXOs) == 0 || len(reward.Value) != 1 {
			t.Errorf("RewardValidatorTx: emitted %d, value %+v", len(reward.EmittedUTXOs), reward.Value)
		}
	})
}

// failing is a source whose store reads fail.
type failing struct{ Source }

var errStore = errors.New("disk I/O error: sqlite3 is on fire")

func (failing) Stakes(context.Context) ([]*pindex.Stake, error) { return nil, errStore }

func (failing) Txs(context.Context, avanet.Chain, pindex.TxFilter) ([]*pindex.Tx, error) {
	return nil, errStore
}

func (failing) UTXOs(context.Context, avanet.Chain, []avax.ShortID, bool) ([]*pindex.UTXO, error) {
	return nil, errStore
}

func (failing) Blockchains(context.Context) ([]pindex.Blockchain, error) { return nil, errStore }

func (failing) Asset(context.Context, string) (pindex.Asset, bool, error) {
	return pindex.Asset{}, false, errStore
}

func (failing) LastActivity(context.Context, avanet.Chain, []avax.ShortID) (pindex.Activity, bool, error) {
	return pindex.Activity{}, false, errStore
}

func (failing) RewardUTXOs(context.Context, []avax.ShortID) ([]*pindex.UTXO, error) {
	return nil, errStore
}

func (failing) Totals(context.Context) (pindex.Totals, error) { return pindex.Totals{}, errStore }

func (failing) Blocks(context.Context, avanet.Chain, pindex.BlockRange) ([]*pindex.Block, error) {
	return nil, errStore
}

// TestStoreErrors: a failed read of the index is a 500 in the Data API's
// format that does not show the error, and a log line that does.
func TestStoreErrors(t *testing.T) {
	w := worlds(t)[1]
	var logs bytes.Buffer
	hs := Handlers(Options{Source: failing{w.src}, Logger: slog.New(slog.NewJSONHandler(&logs, nil)), Now: func() time.Time { return clock }})
	mux := catalog.NewMux(catalog.Catalogue(), hs)
	ewoq := "?addresses=" + avax.FormatAddress("X", "fuji", w.dev.Ewoq())
	for _, path := range []string{"/v1/networks/fuji/validators", "/v1/networks/fuji/delegators", "/v1/networks/fuji/l1Validators",
		"/v1/networks/fuji/blockchains/p-chain/transactions", "/v1/networks/fuji", "/v1/avax/supply", "/v1/networks/fuji/blockchains",
		"/v1/networks/fuji/blockchains/x-chain/balances" + ewoq, "/v1/networks/fuji/blockchains/x-chain/utxos" + ewoq,
		"/v1/networks/fuji/blockchains/x-chain/lastActivityTimestampByAddresses" + ewoq, "/v1/networks/fuji/rewards" + ewoq,
		"/v1/networks/fuji/blockchains/p-chain/transactions:listStaking", "/v1/networks/fuji/blockchains/x-chain/vertices",
		"/v1/networks/fuji/blockchains/x-chain/assets/" + w.avaxID("fuji").String()} {
		logs.Reset()
		f := &world{mux: mux}
		code, body := f.get(t, path)
		var b struct {
			Message    any    `json:"message"`
			StatusCode int    `json:"statusCode"`
			Error      string `json:"error"`
		}
		if code != 500 || json.Unmarshal(body, &b) != nil || b.StatusCode != 500 || b.Error != "Internal Server Error" || strings.Contains(string(body), "sqlite") {
			t.Errorf("GET %s = %d %s; want a 500 that does not show the error", path, code, body)
		}
		if !strings.Contains(logs.String(), "sqlite3 is on fire") || !strings.Contains(logs.String(), `"level":"ERROR"`) {
			t.Errorf("GET %s: log %q; want the error logged", path, logs.String())
		}
	}
	// A store that answers "not found" is a 404, not a 500.
	f := &world{mux: mux}
	if code, _ := f.get(t, "/v1/networks/fuji/blockchains/p-chain/transactions/11111111111111111111111111111111LpoYY"); code != 404 {
		t.Errorf("unknown tx on a failing store: %d; want 404 (Tx does not fail)", code)
	}
}
