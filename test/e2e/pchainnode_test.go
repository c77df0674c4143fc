package e2e

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// TestRealNodePlatformMethods (issue 37): avaedge in proxy mode in front of
// a real avalanchego v1.14.2 node answers every catalogued platform.* and
// avax.* method as the node does, byte for byte (its results and its
// errors), on the first call and on the second, which the cache answers
// for the reads that succeed; the writes reach the node every time.
// platform.sampleValidators draws at random: its answer is checked for its
// shape.
func TestRealNodePlatformMethods(t *testing.T) {
	n := startNode(t)
	e := startEdge(t, map[string]string{"AVAEDGE_NODE_UPSTREAM": n.URI})
	var x struct {
		BlockchainID string `json:"blockchainID"`
	}
	if err := rawResult(n.URI+"/ext/info", "info.getBlockchainID", `{"alias":"X"}`, &x); err != nil {
		t.Fatal(err)
	}
	pAddr := strings.Replace(ewoqXLocal, "X-", "P-", 1)
	cAddr := strings.Replace(ewoqXLocal, "X-", "C-", 1)
	const primaryNet = "11111111111111111111111111111111LpoYY"
	tx := n.TxID.String()
	params := map[string]string{
		"platform.getHeight":             `{}`,
		"platform.getProposedHeight":     `{}`,
		"platform.getBalance":            fmt.Sprintf(`{"addresses":[%q]}`, pAddr),
		"platform.getUTXOs":              fmt.Sprintf(`{"addresses":[%q],"limit":10,"encoding":"hex"}`, pAddr),
		"platform.getSubnet":             fmt.Sprintf(`{"subnetID":%q}`, primaryNet),
		"platform.getSubnets":            `{}`,
		"platform.getStakingAssetID":     `{}`,
		"platform.getCurrentValidators":  `{}`,
		"platform.getL1Validator":        fmt.Sprintf(`{"validationID":%q}`, tx),
		"platform.getCurrentSupply":      `{}`,
		"platform.sampleValidators":      `{"size":1}`,
		"platform.getBlockchainStatus":   fmt.Sprintf(`{"blockchainID":%q}`, x.BlockchainID),
		"platform.validatedBy":           fmt.Sprintf(`{"blockchainID":%q}`, x.BlockchainID),
		"platform.validates":             fmt.Sprintf(`{"subnetID":%q}`, primaryNet),
		"platform.getBlockchains":        `{}`,
		"platform.issueTx":               `{"tx":"0x00","encoding":"hex"}`,
		"platform.getTx":                 fmt.Sprintf(`{"txID":%q,"encoding":"json"}`, tx),
		"platform.getTxStatus":           fmt.Sprintf(`{"txID":%q}`, tx),
		"platform.getStake":              fmt.Sprintf(`{"addresses":[%q]}`, pAddr),
		"platform.getMinStake":           `{}`,
		"platform.getTotalStake":         `{}`,
		"platform.getRewardUTXOs":        fmt.Sprintf(`{"txID":%q}`, tx),
		"platform.getTimestamp":          `{}`,
		"platform.getValidatorsAt":       `{"height":"0"}`,
		"platform.getAllValidatorsAt":    `{"height":"0"}`,
		"platform.getBlock":              fmt.Sprintf(`{"blockID":%q,"encoding":"hex"}`, n.BlockID),
		"platform.getBlockByHeight":      `{"height":"0","encoding":"hex"}`,
		"platform.getFeeConfig":          `{}`,
		"platform.getFeeState":           `{}`,
		"platform.getValidatorFeeConfig": `{}`,
		"platform.getValidatorFeeState":  `{}`,
		"avax.getUTXOs":                  fmt.Sprintf(`{"addresses":[%q],"sourceChain":"X","encoding":"hex"}`, cAddr),
		"avax.getAtomicTx":               fmt.Sprintf(`{"txID":%q}`, tx),
		"avax.getAtomicTxStatus":         fmt.Sprintf(`{"txID":%q}`, tx),
		"avax.issueTx":                   `{"tx":"0x00","encoding":"hex"}`,
	}
	seen, results := 0, 0
	for _, r := range catalogue() {
		if r.Endpoint != "platform" && r.Endpoint != "avax" {
			continue
		}
		seen++
		p, ok := params[r.Name]
		if !ok {
			t.Errorf("%s: no params in this test", r.Name)
			continue
		}
		body := rpcBody(21, r.Name, p)
		node := do(t, "POST", n.URI+r.Path, body, nil)
		if node.Status != 200 || !bytes.Contains(node.Body, []byte(`"result"`)) && !bytes.Contains(node.Body, []byte(`"error"`)) {
			t.Fatalf("the node itself fails %s %s: %s", r.Name, p, node)
		}
		ok = bytes.Contains(node.Body, []byte(`"result"`))
		if ok {
			results++
		}
		if r.Name == "platform.sampleValidators" {
			// A random draw, never cached: one of the node's validators
			// each time, in the node's shape.
			for range 2 {
				got := do(t, "POST", e.URL+r.Path, body, nil)
				if got.Status != 200 || !bytes.HasPrefix(got.Body, []byte(`{"jsonrpc":"2.0","result":{"validators":["NodeID-`)) || bytes.Count(got.Body, []byte("NodeID-")) != 1 {
					t.Errorf("%s through the edge: %s; want one validator as the node draws them (%s)", r.Name, got, node)
				}
			}
			continue
		}
		sameAnswer(t, r.Name+" "+p+" (first call)", node, do(t, "POST", e.URL+r.Path, body, nil))
		second := do(t, "POST", e.URL+r.Path, body, nil)
		sameAnswer(t, r.Name+" "+p+" (second call)", node, second)
		if hs := second.Header.Get("X-Cache-Status"); ok && r.Cache != "never" && hs != "HIT" {
			t.Errorf("%s: second call X-Cache-Status %q; want HIT", r.Name, hs)
		}
	}
	if seen != 35 || results < 25 {
		t.Fatalf("%d platform/avax methods in the catalogue, %d answered with a result; want 35, most with results", seen, results)
	}
}
