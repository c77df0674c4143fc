package e2e

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/ava-labs/avalanchego/ids"
)

// nodeUptime and sampledNode are the fields of P-Chain answers that a node
// computes anew at each call: getCurrentValidators' uptime of each
// validator (as it sees it now), and the node sampleValidators draws at
// random (the local network has five genesis validators); they are blanked
// on both sides of a comparison.
var (
	nodeUptime  = regexp.MustCompile(`"uptime":"[0-9.]+"`)
	sampledNode = regexp.MustCompile(`"validators":\["NodeID-[1-9A-HJ-NP-Za-km-z]+"\]`)
)

// blankPerCall blanks the fields of body that a node computes at each call.
func blankPerCall(body []byte) []byte {
	body = nodeUptime.ReplaceAll(body, []byte(`"uptime":"-"`))
	return sampledNode.ReplaceAll(body, []byte(`"validators":["NodeID-"]`))
}

// followedPlatformParams are the params of every read method of
// platformvm.yaml, over what TestFollowedNodeFallback issued on its one-node
// network: ewoq's P-Chain address (the genesis allocation and the node's own
// stake), the P→X export exp, the subnet sub it created, the X-Chain, and the
// P-Chain's height and its block there. No L1 runs on that network, so
// getL1Validator's answer is the node's "not found" error for exp's id.
func followedPlatformParams(exp, sub, xChain ids.ID, height, blockID string) map[string][]string {
	pAddr := strings.Replace(ewoqXLocal, "X-", "P-", 1)
	const primaryNet = "11111111111111111111111111111111LpoYY"
	return map[string][]string{
		"platform.getHeight":            {`{}`},
		"platform.getProposedHeight":    {`{}`},
		"platform.getBalance":           {fmt.Sprintf(`{"addresses":[%q]}`, pAddr)},
		"platform.getUTXOs":             {fmt.Sprintf(`{"addresses":[%q],"limit":1024,"encoding":"hex"}`, pAddr), fmt.Sprintf(`{"addresses":[%q],"sourceChain":"X"}`, pAddr)},
		"platform.getSubnet":            {fmt.Sprintf(`{"subnetID":%q}`, sub), fmt.Sprintf(`{"subnetID":%q}`, primaryNet)},
		"platform.getSubnets":           {`{}`, fmt.Sprintf(`{"ids":[%q]}`, sub)},
		"platform.getStakingAssetID":    {`{}`},
		"platform.getCurrentValidators": {`{}`, fmt.Sprintf(`{"subnetID":%q}`, sub)},
		"platform.getL1Validator":       {fmt.Sprintf(`{"validationID":%q}`, exp)},
		"platform.getCurrentSupply":     {`{}`},
		"platform.sampleValidators":     {`{"size":1}`},
		"platform.getBlockchainStatus":  {fmt.Sprintf(`{"blockchainID":%q}`, xChain)},
		"platform.validatedBy":          {fmt.Sprintf(`{"blockchainID":%q}`, xChain)},
		"platform.validates":            {fmt.Sprintf(`{"subnetID":%q}`, primaryNet), fmt.Sprintf(`{"subnetID":%q}`, sub)},
		"platform.getBlockchains":       {`{}`},
		"platform.getTx": {fmt.Sprintf(`{"txID":%q,"encoding":"json"}`, exp), fmt.Sprintf(`{"txID":%q,"encoding":"hex"}`, exp),
			fmt.Sprintf(`{"txID":%q,"encoding":"hexnc"}`, sub)},
		"platform.getTxStatus":           {fmt.Sprintf(`{"txID":%q}`, exp)},
		"platform.getStake":              {fmt.Sprintf(`{"addresses":[%q]}`, pAddr), fmt.Sprintf(`{"addresses":[%q],"validatorsOnly":true,"encoding":"hexnc"}`, pAddr)},
		"platform.getMinStake":           {`{}`},
		"platform.getTotalStake":         {fmt.Sprintf(`{"subnetID":%q}`, primaryNet)},
		"platform.getRewardUTXOs":        {fmt.Sprintf(`{"txID":%q}`, exp)},
		"platform.getTimestamp":          {`{}`},
		"platform.getValidatorsAt":       {fmt.Sprintf(`{"height":%q}`, height), `{"height":"0"}`, fmt.Sprintf(`{"height":%q,"subnetID":%q}`, height, sub)},
		"platform.getAllValidatorsAt":    {fmt.Sprintf(`{"height":%q}`, height)},
		"platform.getBlock":              {fmt.Sprintf(`{"blockID":%q,"encoding":"hex"}`, blockID), fmt.Sprintf(`{"blockID":%q,"encoding":"json"}`, blockID)},
		"platform.getBlockByHeight":      {fmt.Sprintf(`{"height":%q,"encoding":"hex"}`, height), fmt.Sprintf(`{"height":%q,"encoding":"json"}`, height)},
		"platform.getFeeConfig":          {`{}`},
		"platform.getFeeState":           {`{}`},
		"platform.getValidatorFeeConfig": {`{}`},
		"platform.getValidatorFeeState":  {`{}`},
	}
}

// checkFollowedPlatform checks that, while the followed node runs, every
// read method of the catalogue's P-Chain API (platformvm.yaml's, all but
// platform.issueTx) answers through the edge at edgeURL what the node at
// nodeURI answers, byte for byte (what blankPerCall blanks aside).
func checkFollowedPlatform(t *testing.T, nodeURI, edgeURL string, params map[string][]string) {
	t.Helper()
	methods, calls := 0, 0
	for _, r := range catalogue() {
		if r.Endpoint != "platform" || r.Name == "platform.issueTx" {
			continue
		}
		methods++
		ps, ok := params[r.Name]
		if !ok {
			t.Errorf("%s: a read method of platformvm.yaml with no call in this test", r.Name)
			continue
		}
		for i, p := range ps {
			calls++
			body := rpcBody(100+calls, r.Name, p)
			node := do(t, "POST", nodeURI+r.Path, body, nil)
			edge := do(t, "POST", edgeURL+r.Path, body, nil)
			if node.Status != 200 || !json.Valid(node.Body) {
				t.Fatalf("the node itself fails %s %s: %s", r.Name, p, node)
			}
			if i == 0 && r.Name != "platform.getL1Validator" && !strings.Contains(string(node.Body), `"result"`) {
				t.Errorf("the node answers %s %s with an error (want the call to read something): %s", r.Name, p, node.Body)
			}
			if r.Name == "platform.sampleValidators" && !sampledNode.Match(edge.Body) {
				t.Errorf("%s through the edge: %s; want one validator drawn as the node draws them", r.Name, edge.Body)
			}
			node.Body, edge.Body = blankPerCall(node.Body), blankPerCall(edge.Body)
			sameAnswer(t, fmt.Sprintf("%s %s through the edge following the running node", r.Name, p), node, edge)
		}
	}
	if methods != 30 {
		t.Errorf("%d read methods of the P-Chain in the catalogue; want platformvm.yaml's 29 (30 with issueTx) and getAllValidatorsAt", methods)
	}
	t.Logf("%d read methods of the P-Chain compared in %d calls through the edge following the running node", methods, calls)
}
