package e2e

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/big"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/ids"
)

// icmSent is what test/sdk/icm-send.mjs did: deployed a messenger with its
// keyless transaction (unless there already) and sent one message from ewoq
// with a fee.
type icmSent struct {
	Messenger          string `json:"messenger"`
	From               string `json:"from"`
	DeployTx           string `json:"deployTx"`
	DeployGasUsed      string `json:"deployGasUsed"`
	WarpPrecompile     bool   `json:"warpPrecompile"`
	MessageID          string `json:"messageId"`
	SourceBlockchainID string `json:"sourceBlockchainId"` // hex
	TxHash             string `json:"txHash"`
	Block              uint64 `json:"block"`
	GasUsed            string `json:"gasUsed"`
	// What the test asked for.
	destination, recipient, token, fee string
}

// sendICM runs icm-send.mjs on rpc: deploys the messenger of the keyless
// deployment in the file deployment unless it is there, then sends a
// message to the blockchain dest, for recipient, offering fee of token.
// self is the chain's blockchain id, for a chain without the Warp
// precompile.
func sendICM(t *testing.T, rpc, deployment string, self, dest ids.ID, recipient, token, fee string) *icmSent {
	t.Helper()
	out := nodeScript(t, "", "icm-send.mjs", rpc, deployment, "0x"+hex.EncodeToString(dest[:]), recipient, token, fee, "0x"+hex.EncodeToString(self[:]))
	var s icmSent
	if err := json.Unmarshal(out, &s); err != nil || s.MessageID == "" {
		t.Fatalf("icm-send.mjs printed %s: %v", out, err)
	}
	s.destination, s.recipient, s.token, s.fee = dest.String(), recipient, token, fee
	return &s
}

// checkICM reads the message s sent from the chain (chainID, blockchain
// id src) through chainkit's ICM and Teleporter methods and the ICM
// metrics: listed by all three ICM routes, pending, with its source,
// destination (dstEVM its EVM chain id, "" when unknown), sender and fee,
// and counted: the chain sent recent messages within the hour (and today),
// all in all.
func checkICM(t *testing.T, base string, s *icmSent, chainID string, src ids.ID, dstEVM string, recent, all int) {
	t.Helper()
	if got := "0x" + hex.EncodeToString(src[:]); !strings.EqualFold(got, s.SourceBlockchainID) {
		t.Fatalf("the messenger's blockchain id %s; the chain's is %s (%s)", s.SourceBlockchainID, got, src)
	}
	calls := []sdkCall{
		{"get", "data.icm.get", map[string]any{"messageId": s.MessageID}},
		{"list", "data.icm.list", map[string]any{"sourceBlockchainId": chainID, "pageSize": 100}},
		{"listTo", "data.icm.list", map[string]any{"destinationBlockchainId": s.destination, "pageSize": 100}},
		{"byAddress", "data.icm.listByAddress", map[string]any{"address": s.From, "pageSize": 100}},
		{"teleporter", "data.teleporter.getTeleporterMessage", map[string]any{"messageId": s.MessageID}},
		{"summary", "metrics.chains.getICMSummary", map[string]any{"srcBlockchainId": src.String()}},
		{"series", "metrics.chains.getICMTimeseries", map[string]any{"srcBlockchainId": src.String(), "timeInterval": "day"}},
	}
	res := sdkCallsWith(t, "chainkit", base, calls)
	type message struct {
		MessageID               string `json:"messageId"`
		ICMContractAddress      string `json:"icmContractAddress"`
		TeleporterContract      string `json:"teleporterContractAddress"`
		SourceBlockchainID      string `json:"sourceBlockchainId"`
		DestinationBlockchainID string `json:"destinationBlockchainId"`
		SourceEvmChainID        string `json:"sourceEvmChainId"`
		DestinationEvmChainID   string `json:"destinationEvmChainId"`
		From                    string `json:"from"`
		To                      string `json:"to"`
		Status                  string `json:"status"`
		RewardDetails           struct {
			Address string `json:"address"`
			Value   string `json:"value"`
		} `json:"rewardDetails"`
		SourceTransaction struct {
			TxHash   string `json:"txHash"`
			GasSpent string `json:"gasSpent"`
		} `json:"sourceTransaction"`
	}
	check := func(name string, m message) {
		t.Helper()
		contract := m.ICMContractAddress + m.TeleporterContract
		if m.MessageID != s.MessageID || !strings.EqualFold(contract, s.Messenger) || m.SourceBlockchainID != src.String() ||
			m.DestinationBlockchainID != s.destination || m.SourceEvmChainID != chainID || m.DestinationEvmChainID != dstEVM ||
			!strings.EqualFold(m.From, s.From) || !strings.EqualFold(m.To, s.recipient) || m.Status != "pending" ||
			!strings.EqualFold(m.RewardDetails.Address, s.token) || m.RewardDetails.Value != s.fee ||
			m.SourceTransaction.TxHash != s.TxHash || m.SourceTransaction.GasSpent != s.GasUsed {
			t.Errorf("%s: %+v; want %s, pending from %s (%s, %s) to %s (%q) by %s for %s, %s of %s in %s", name, m, s.MessageID, src, chainID,
				s.From, s.destination, dstEVM, s.recipient, s.Messenger, s.fee, s.token, s.TxHash)
		}
	}
	var one message
	decode(t, res["get"], &one)
	check("getIcmMessage", one)
	one = message{}
	decode(t, res["teleporter"], &one)
	check("getTeleporterMessage", one)
	for _, name := range []string{"list", "listTo", "byAddress"} {
		var page struct {
			Messages []message `json:"messages"`
		}
		decode(t, res[name], &page)
		found := 0
		for _, m := range page.Messages {
			if m.MessageID == s.MessageID {
				found++
				check(name, m)
			}
		}
		if found != 1 {
			t.Errorf("%s lists the message %d times: %s", name, found, res[name].Result)
		}
	}
	// calls.mjs prints an answer's "result" member itself.
	var summary struct {
		LastHour float64 `json:"lastHour"`
		AllTime  float64 `json:"allTime"`
		Src      string  `json:"srcBlockchainId"`
	}
	decode(t, res["summary"], &summary)
	if summary.LastHour != float64(recent) || summary.AllTime != float64(all) || summary.Src != src.String() {
		t.Errorf("getICMSummary: %+v; want %d messages from %s in the last hour, %d in all", summary, recent, src, all)
	}
	var series struct {
		Results []struct {
			Value     float64 `json:"value"`
			Timestamp int64   `json:"timestamp"`
		} `json:"results"`
	}
	decode(t, res["series"], &series)
	today := time.Now().UTC().Unix() / 86400 * 86400
	if len(series.Results) == 0 || series.Results[0].Value != float64(recent) || series.Results[0].Timestamp != today {
		t.Errorf("getICMTimeseries: %+v; want %d messages today (%d) first", series.Results, recent, today)
	}
}

// evmTxCount counts the transactions of the chain at rpc, block by block.
func evmTxCount(t *testing.T, rpc string) int {
	t.Helper()
	var head string
	if err := rawResult(rpc, "eth_blockNumber", "[]", &head); err != nil {
		t.Fatal(err)
	}
	h, _ := new(big.Int).SetString(strings.TrimPrefix(head, "0x"), 16)
	n := 0
	for b := int64(0); b <= h.Int64(); b++ {
		var c string
		if err := rawResult(rpc, "eth_getBlockTransactionCountByNumber", fmt.Sprintf(`["0x%x"]`, b), &c); err != nil {
			t.Fatal(err)
		}
		k, _ := new(big.Int).SetString(strings.TrimPrefix(c, "0x"), 16)
		n += int(k.Int64())
	}
	return n
}

// checkMetricsRoutes reads the Metrics routes through chainkit (the legacy
// ones through the AvaCloud SDK) on the chain chainID at rpc, after act's
// activity: every window of txCount holds the chain's transactions (all
// made within the hour), the NFT and token holders are act's, the BTC.b
// bridgers none; the P-Chain routes answer for the subnet and the L1
// validator the test made (l1Subnet, l1Node, l1Validation).
func checkMetricsRoutes(t *testing.T, base, rpc, chainID string, act *evmActivity, l1Subnet, l1Node, l1Validation string) {
	t.Helper()
	const primary = "11111111111111111111111111111111LpoYY"
	calls := []sdkCall{
		{"rolling", "metrics.chains.getRollingWindowMetrics", map[string]any{"chainId": chainID, "metric": "txCount"}},
		{"btcb", "metrics.chains.listBTCbBridgersAboveThreshold", map[string]any{"threshold": "1"}},
		{"staking", "metrics.networks.getStakingMetrics", map[string]any{"network": "fuji", "metric": "validatorCount", "subnetId": primary}},
		{"stakingL1", "metrics.networks.getStakingMetrics", map[string]any{"network": "fuji", "metric": "validatorCount", "subnetId": l1Subnet}},
		{"validators", "metrics.subnets.getValidators", map[string]any{"subnetId": primary, "network": "fuji"}},
		{"paying", "metrics.l1Validators.listMetrics", map[string]any{"metric": "totalPayingValidatorsDaily"}},
		{"bySubnet", "metrics.l1Validators.getMetricsBySubnetId", map[string]any{"subnetId": l1Subnet, "metric": "perSubnetPayingValidators"}},
		{"byNode", "metrics.l1Validators.getMetricsByNodeId", map[string]any{"nodeId": l1Node, "metric": "perNodeCumulativeFeesPaid"}},
		{"byValidation", "metrics.l1Validators.getMetricsByValidationId", map[string]any{"l1ValidationId": l1Validation, "metric": "validationFeesDaily"}},
	}
	res := sdkCallsWith(t, "chainkit", base, calls)
	want := float64(evmTxCount(t, rpc))
	var rolling map[string]float64 // calls.mjs prints the "result" member
	decode(t, res["rolling"], &rolling)
	for _, w := range []string{"lastHour", "lastDay", "lastWeek", "lastMonth", "last90Days", "lastYear", "allTime"} {
		if rolling[w] != want {
			t.Errorf("rolling txCount %s = %v; the chain has %v transactions", w, rolling[w], want)
		}
	}
	if !strings.Contains(string(res["btcb"].Result), `"addresses":[]`) {
		t.Errorf("BTC.b bridgers: %s; want none", res["btcb"].Result)
	}
	newest := func(name string) float64 {
		t.Helper()
		var p struct {
			Results []struct {
				Value float64 `json:"value"`
			} `json:"results"`
		}
		decode(t, res[name], &p)
		if len(p.Results) == 0 {
			t.Fatalf("%s: no points: %s", name, res[name].Result)
		}
		return p.Results[0].Value
	}
	if v := newest("stakingL1"); v != 1 {
		t.Errorf("the L1's validators today: %v; want 1 (the node, by the conversion)", v)
	}
	if v := newest("staking"); v < 1 {
		t.Errorf("the primary network's validators today: %v", v)
	}
	for _, name := range []string{"paying", "bySubnet"} {
		if v := newest(name); v != 1 {
			t.Errorf("%s today: %v; want 1 (the L1's validator)", name, v)
		}
	}
	for _, name := range []string{"byNode", "byValidation"} {
		if v := newest(name); v <= 0 {
			t.Errorf("%s today: %v; want the fees the L1 validator paid since the conversion", name, v)
		}
	}
	legacy := sdkCalls(t, base, []sdkCall{
		{"teleporter", "metrics.chains.getTeleporterMetrics", map[string]any{"chainId": chainID, "metric": "teleporterSourceTxnCount"}},
		{"nftHolders", "metrics.chains.listNftHolders", map[string]any{"chainId": chainID, "address": act.NFT}},
		{"tokenHolders", "metrics.chains.listTokenHoldersAboveThreshold", map[string]any{"chainId": chainID, "address": act.Token, "threshold": act.TokenValue}},
	})
	if !strings.Contains(string(legacy["teleporter"].Result), `"value":1`) {
		t.Errorf("teleporterSourceTxnCount: %s; want 1", legacy["teleporter"].Result)
	}
	var holders struct {
		Addresses []struct {
			Address string `json:"address"`
			SortKey string `json:"sortKey"`
		} `json:"addresses"`
		TotalHolders float64 `json:"totalHolders"`
	}
	decode(t, legacy["nftHolders"], &holders)
	if len(holders.Addresses) != 1 || !strings.EqualFold(holders.Addresses[0].Address, act.To) || holders.Addresses[0].SortKey != "1" || holders.TotalHolders != 1 {
		t.Errorf("NFT holders: %s; want %s with 1", legacy["nftHolders"].Result, act.To)
	}
	decode(t, legacy["tokenHolders"], &holders)
	var to bool
	for _, h := range holders.Addresses {
		to = to || (strings.EqualFold(h.Address, act.To) && h.SortKey == act.TokenValue)
	}
	if !to {
		t.Errorf("token holders of at least %s: %s; want %s among them", act.TokenValue, legacy["tokenHolders"].Result, act.To)
	}
}

// TestICMDevnet: in devnet mode the dev chain's messenger (avaedge's own,
// deployed by the seeded history, which sent one message to the devnet's L1) sends another
// message from ethers to the L1; chainkit lists both from every ICM route,
// pending, the L1 named by its EVM chain id (898989), and counts them.
func TestICMDevnet(t *testing.T) {
	e := startEdge(t, map[string]string{})
	var subnets struct {
		Subnets []struct {
			IsL1        bool `json:"isL1"`
			Blockchains []struct {
				BlockchainID string `json:"blockchainId"`
			} `json:"blockchains"`
		} `json:"subnets"`
	}
	if r := do(t, "GET", e.URL+"/v1/networks/fuji/subnets?pageSize=100", nil, nil); r.Status != 200 || json.Unmarshal(r.Body, &subnets) != nil {
		t.Fatalf("subnets: %s", r)
	}
	var l1 ids.ID
	for _, s := range subnets.Subnets {
		if s.IsL1 && len(s.Blockchains) == 1 {
			l1, _ = ids.FromString(s.Blockchains[0].BlockchainID)
		}
	}
	var bals struct {
		Balances []struct {
			Address string `json:"address"`
		} `json:"erc20TokenBalances"`
	}
	if r := do(t, "GET", e.URL+"/v1/chains/43112/addresses/"+ewoqEVM+"/balances:listErc20", nil, nil); r.Status != 200 || json.Unmarshal(r.Body, &bals) != nil || len(bals.Balances) == 0 {
		t.Fatalf("ewoq's ERC-20 balances: %s", r)
	}
	self, _ := ids.FromString("2owdGqyG6FFzTHy5qhenDXQcEghvr571KZE3gSfRJERSJinuwC")
	// The dev chain has no Warp precompile: it runs avaedge's messenger.
	deployment := filepath.Join(repoRoot, "local", "source", "devnet", "evm", "artifacts", "IcmMessenger.deployment.json")
	s := sendICM(t, e.URL+"/ext/bc/C/rpc", deployment, self, l1, "0x00000000000000000000000000000000000000aa", bals.Balances[0].Address, "5000")
	if s.DeployTx != "" {
		t.Errorf("the messenger was deployed again (%s); the seeded history deploys it", s.DeployTx)
	}
	waitFor(t, e.URL+"/v1/icm/messages/"+s.MessageID, s.MessageID)
	checkICM(t, e.URL, s, "43112", self, "898989", 1, 2)
}
