package e2e

import (
	"encoding/json"
	"strconv"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/genesis"
)

// pBlockSummary is a block of the Data API's P-Chain block list.
type pBlockSummary struct {
	BlockNumber    json.Number `json:"blockNumber"`
	BlockTimestamp int64       `json:"blockTimestamp"`
}

// latestPBlock is the Data API's latest P-Chain block, through the edge at
// base.
func latestPBlock(t *testing.T, base string) pBlockSummary {
	t.Helper()
	r := do(t, "GET", base+"/v1/networks/fuji/blockchains/p-chain/blocks?pageSize=1", nil, nil)
	var blocks struct {
		Blocks []pBlockSummary `json:"blocks"`
	}
	if r.Status != 200 || json.Unmarshal(r.Body, &blocks) != nil || len(blocks.Blocks) != 1 {
		t.Fatalf("the Data API's latest P-Chain block: %s", r)
	}
	return blocks.Blocks[0]
}

// checkDevnetFeeState: through the built binary, the devnet's proposed
// height is the Data API's latest P-Chain block's height, and its fee
// states are an idle chain's under the local network's fee configuration,
// at that block's time, in platformvm's shapes.
func checkDevnetFeeState(t *testing.T, base string) {
	t.Helper()
	latest := latestPBlock(t, base)
	p := base + "/ext/bc/P"
	var proposed struct{ Height string }
	rpcResult(t, p, "platform.getProposedHeight", `{}`, &proposed)
	if proposed.Height != latest.BlockNumber.String() {
		t.Errorf("platform.getProposedHeight = %s; the Data API's latest block is %s", proposed.Height, latest.BlockNumber)
	}
	at := time.Unix(latest.BlockTimestamp, 0).UTC().Format(time.RFC3339)
	cfg, vcfg := genesis.LocalParams.DynamicFeeConfig, genesis.LocalParams.ValidatorFeeConfig
	for method, want := range map[string]string{
		"platform.getFeeState": `{"capacity":` + strconv.FormatUint(uint64(cfg.MaxCapacity), 10) + `,"excess":0,"price":` +
			strconv.FormatUint(uint64(cfg.MinPrice), 10) + `,"timestamp":"` + at + `"}`,
		"platform.getValidatorFeeState": `{"excess":0,"price":` + strconv.FormatUint(uint64(vcfg.MinPrice), 10) + `,"timestamp":"` + at + `"}`,
	} {
		var got json.RawMessage
		rpcResult(t, p, method, `{}`, &got)
		if string(got) != want {
			t.Errorf("%s = %s; want %s", method, got, want)
		}
	}
}
