package avalanchego

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/ava-labs/avalanchego/genesis"
	"github.com/ava-labs/avalanchego/vms/components/gas"
	"github.com/ava-labs/avalanchego/vms/platformvm"
)

// latestPBlock is the Data API's latest P-Chain block: its height and time.
func latestPBlock(t *testing.T, data string) (uint64, int64) {
	t.Helper()
	var d struct {
		Blocks []struct {
			BlockNumber    json.Number `json:"blockNumber"`
			BlockTimestamp int64       `json:"blockTimestamp"`
		} `json:"blocks"`
	}
	getJSON(t, data+"/blockchains/p-chain/blocks?pageSize=1", &d)
	if len(d.Blocks) != 1 {
		t.Fatalf("the Data API lists %d latest P-Chain blocks", len(d.Blocks))
	}
	h, err := d.Blocks[0].BlockNumber.Int64()
	if err != nil {
		t.Fatal(err)
	}
	return uint64(h), d.Blocks[0].BlockTimestamp
}

// checkFeeStates: the devnet's proposed height is the Data API's latest
// P-Chain block's height, and its fee states are an idle chain's under the
// local network's configuration (capacity at its maximum, no excess, the
// price avalanchego computes of that) at that block's time.
func checkFeeStates(t *testing.T, c *platformvm.Client, data string) {
	ctx := context.Background()
	height, at := latestPBlock(t, data)
	proposed, err := c.GetProposedHeight(ctx)
	if err != nil || proposed != height {
		t.Errorf("getProposedHeight = %d, %v; the Data API's latest block is %d", proposed, err, height)
	}
	cfg := genesis.LocalParams.DynamicFeeConfig
	st, price, ts, err := c.GetFeeState(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := gas.State{Capacity: cfg.MaxCapacity, Excess: 0}
	if st != want || price != gas.CalculatePrice(cfg.MinPrice, 0, cfg.ExcessConversionConstant) || ts.Unix() != at {
		t.Errorf("getFeeState = %+v, %d, %v; want %+v, the minimum price, the time of the latest block (%d)", st, price, ts, want, at)
	}
	vcfg := genesis.LocalParams.ValidatorFeeConfig
	excess, price, ts, err := c.GetValidatorFeeState(ctx)
	if err != nil || excess != 0 || price != gas.CalculatePrice(vcfg.MinPrice, 0, vcfg.ExcessConversionConstant) || ts.Unix() != at {
		t.Errorf("getValidatorFeeState = %d, %d, %v, %v; want no excess, the minimum price, the time of the latest block (%d)", excess, price, ts, err, at)
	}
}
