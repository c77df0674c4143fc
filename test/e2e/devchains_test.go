package e2e

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestDevnetChains: in devnet mode every EVM chain the devnet lists (its
// subnets' blockchains with an evmChainId) is a live chain. At
// /ext/bc/<blockchainId>/rpc and at its alias it answers eth_chainId with the
// listed id; ethers deploys contracts and transfers on it from ewoq; the EVM
// routes (read through chainkit and checked against glacier.json and the
// chain), the Data API's chain list, the Metrics API's chain list, its daily
// and rolling-window transaction counts show that activity.
func TestDevnetChains(t *testing.T) {
	e := startEdge(t, map[string]string{"AVAEDGE_KEYS_FILE": bulkKeysFile(t)})
	var list struct {
		Subnets []struct {
			Blockchains []struct {
				BlockchainID   string `json:"blockchainId"`
				BlockchainName string `json:"blockchainName"`
				EVMChainID     uint64 `json:"evmChainId"`
			} `json:"blockchains"`
		} `json:"subnets"`
	}
	rep := do(t, "GET", e.URL+"/v1/networks/fuji/subnets?pageSize=100", nil, nil)
	if err := json.Unmarshal(rep.Body, &list); err != nil || rep.Status != 200 {
		t.Fatalf("listSubnets: %s", rep)
	}
	var chains []struct {
		BlockchainID   string `json:"blockchainId"`
		BlockchainName string `json:"blockchainName"`
		EVMChainID     uint64 `json:"evmChainId"`
	}
	for _, s := range list.Subnets {
		chains = append(chains, s.Blockchains...)
	}
	n := 0
	for _, bc := range chains {
		if bc.EVMChainID == 0 {
			continue
		}
		n++
		id := fmt.Sprint(bc.EVMChainID)
		t.Run(bc.BlockchainName, func(t *testing.T) {
			for _, p := range []string{bc.BlockchainID, bc.BlockchainName} {
				var got string
				if err := rawResult(e.URL+"/ext/bc/"+p+"/rpc", "eth_chainId", "[]", &got); err != nil || got != fmt.Sprintf("0x%x", bc.EVMChainID) {
					t.Fatalf("/ext/bc/%s/rpc eth_chainId = %q, %v; want the listed %d", p, got, err, bc.EVMChainID)
				}
			}
			before, rollBefore := txCount(t, e.URL, id), rollingTxCount(t, e.URL, id)
			a := makeEVMActivity(t, e.URL+"/ext/bc/"+bc.BlockchainID+"/rpc")
			if a.ChainID != id {
				t.Fatalf("ethers saw chain %s; want %s", a.ChainID, id)
			}
			waitIndexed(t, e.URL, a)
			checkEVMListings(t, e.URL, a, id)
			if !strings.Contains(string(do(t, "GET", e.URL+"/v1/chains", nil, nil).Body), `"chainId":"`+id+`"`) {
				t.Errorf("/v1/chains does not list %s", id)
			}
			metrics := string(do(t, "GET", e.URL+"/v2/chains", nil, nil).Body)
			if !strings.Contains(metrics, fmt.Sprintf(`"evmChainId":%s,"chainName":%q,"blockchainId":%q`, id, bc.BlockchainName, bc.BlockchainID)) {
				t.Errorf("the Metrics API's chain list lacks %s: %s", bc.BlockchainName, metrics)
			}
			if after := txCount(t, e.URL, id); after != before+len(a.Txs) {
				t.Errorf("the Metrics API counts %d transactions on %s after ethers' %d; %d before", after, id, len(a.Txs), before)
			}
			rollAfter := rollingTxCount(t, e.URL, id)
			if rollAfter.LastHour != rollBefore.LastHour+len(a.Txs) || rollAfter.AllTime != rollBefore.AllTime+len(a.Txs) {
				t.Errorf("the rolling window txCount on %s after ethers' %d transactions: %+v; before %+v", id, len(a.Txs), rollAfter, rollBefore)
			}
		})
	}
	if n != 2 {
		t.Errorf("the devnet lists %d EVM chains; want devsubnet and devl1", n)
	}
}

// rollingWindow is getEvmChainRollingWindowMetrics' answer.
type rollingWindow struct {
	LastHour int `json:"lastHour"`
	AllTime  int `json:"allTime"`
}

// rollingTxCount reads chain id's rolling-window txCount, checking the answer
// against popsicle.json.
func rollingTxCount(t *testing.T, base, id string) rollingWindow {
	t.Helper()
	path := "/v2/chains/" + id + "/rollingWindowMetrics/txCount"
	rep := do(t, "GET", base+path, nil, nil)
	checkAnswer(t, routeNamed(t, "getEvmChainRollingWindowMetrics"), call{Method: "GET", Path: path}, rep, 200)
	var v struct {
		Result rollingWindow `json:"result"`
	}
	if err := json.Unmarshal(rep.Body, &v); err != nil {
		t.Fatal(err)
	}
	return v.Result
}

// txCount sums the Metrics API's daily txCount of chain id over the last two
// days, checking the answer against popsicle.json.
func txCount(t *testing.T, base, id string) int {
	t.Helper()
	path := fmt.Sprintf("/v2/chains/%s/metrics/txCount?timeInterval=day&startTimestamp=%d", id, time.Now().Add(-48*time.Hour).Unix())
	rep := do(t, "GET", base+path, nil, nil)
	checkAnswer(t, routeNamed(t, "getEvmChainMetrics"), call{Method: "GET", Path: path}, rep, 200)
	var v struct {
		Results []struct {
			Value int `json:"value"`
		} `json:"results"`
	}
	if err := json.Unmarshal(rep.Body, &v); err != nil {
		t.Fatal(err)
	}
	sum := 0
	for _, r := range v.Results {
		sum += r.Value
	}
	return sum
}
