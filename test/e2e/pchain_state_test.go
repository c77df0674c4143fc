package e2e

import (
	"encoding/json"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/genesis"
	"github.com/ava-labs/avalanchego/utils/constants"
	"github.com/ava-labs/avalanchego/utils/formatting"
	"github.com/ava-labs/avalanchego/vms/components/avax"
	"github.com/ava-labs/avalanchego/vms/platformvm"
	"github.com/ava-labs/avalanchego/vms/platformvm/txs"
	"github.com/ava-labs/avalanchego/vms/secp256k1fx"
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

// checkDevnetRewardUTXOs: through the built binary, getRewardUTXOs of each
// completed primary-network validation the Data API lists parses with
// avalanchego's codec into UTXOs of its staking tx paying, by output index,
// the Data API's validation reward and then its delegation fees (each when
// not zero).
func checkDevnetRewardUTXOs(t *testing.T, base string) {
	t.Helper()
	r := do(t, "GET", base+"/v1/networks/fuji/validators?pageSize=10&validationStatus=completed&subnetId="+constants.PrimaryNetworkID.String(), nil, nil)
	var dv struct {
		Validators []struct {
			TxHash  string `json:"txHash"`
			Rewards struct {
				ValidationRewardAmount string `json:"validationRewardAmount"`
				DelegationRewardAmount string `json:"delegationRewardAmount"`
			} `json:"rewards"`
		} `json:"validators"`
	}
	if r.Status != 200 || json.Unmarshal(r.Body, &dv) != nil || len(dv.Validators) == 0 {
		t.Fatalf("the Data API's completed validators: %s", r)
	}
	for _, v := range dv.Validators {
		var want []string
		for _, a := range []string{v.Rewards.ValidationRewardAmount, v.Rewards.DelegationRewardAmount} {
			if a != "0" {
				want = append(want, a)
			}
		}
		var got platformvm.GetRewardUTXOsReply
		rpcResult(t, base+"/ext/bc/P", "platform.getRewardUTXOs", `{"txID":"`+v.TxHash+`"}`, &got)
		if int(got.NumFetched) != len(want) || len(got.UTXOs) != len(want) || got.Encoding != formatting.Hex {
			t.Errorf("platform.getRewardUTXOs(%s) = %+v; the Data API's rewards are %v", v.TxHash, got, want)
			continue
		}
		last := -1
		for i, s := range got.UTXOs {
			b, err := formatting.Decode(formatting.Hex, s)
			if err != nil {
				t.Fatal(err)
			}
			var u avax.UTXO
			if _, err := txs.GenesisCodec.Unmarshal(b, &u); err != nil {
				t.Fatalf("platform.getRewardUTXOs(%s): %v", v.TxHash, err)
			}
			out, ok := u.Out.(*secp256k1fx.TransferOutput)
			if !ok || u.TxID.String() != v.TxHash || int(u.OutputIndex) <= last || strconv.FormatUint(out.Amt, 10) != want[i] {
				t.Errorf("platform.getRewardUTXOs(%s)[%d] = %+v; want %s of the staking tx after output %d", v.TxHash, i, u, want[i], last)
			}
			last = int(u.OutputIndex)
		}
	}
}

// checkDevnetL1Validators: through the built binary, getL1Validator of each
// L1 validator the Data API lists (inactive ones too) parses as
// avalanchego's reply with the Data API's L1, node, weight and balance, at
// the current height.
func checkDevnetL1Validators(t *testing.T, base string) {
	t.Helper()
	r := do(t, "GET", base+"/v1/networks/fuji/l1Validators?pageSize=100&includeInactiveL1Validators=true", nil, nil)
	var d struct {
		Validators []struct {
			ValidationID     string `json:"validationId"`
			NodeID           string `json:"nodeId"`
			SubnetID         string `json:"subnetId"`
			Weight           uint64 `json:"weight"`
			RemainingBalance uint64 `json:"remainingBalance"`
		} `json:"validators"`
	}
	if r.Status != 200 || json.Unmarshal(r.Body, &d) != nil || len(d.Validators) == 0 {
		t.Fatalf("the Data API's L1 validators: %s", r)
	}
	latest := latestPBlock(t, base)
	for _, want := range d.Validators {
		var got platformvm.GetL1ValidatorReply
		rpcResult(t, base+"/ext/bc/P", "platform.getL1Validator", `{"validationID":"`+want.ValidationID+`"}`, &got)
		var balance uint64
		if got.Balance != nil {
			balance = uint64(*got.Balance)
		}
		g := fmt.Sprintf("%s %s %d %d %d", got.SubnetID, got.NodeID, got.Weight, balance, got.Height)
		w := fmt.Sprintf("%s %s %d %d %s", want.SubnetID, want.NodeID, want.Weight, want.RemainingBalance, latest.BlockNumber)
		if g != w || got.ValidationID == nil || got.ValidationID.String() != want.ValidationID || got.PublicKey == nil {
			t.Errorf("platform.getL1Validator(%s) = %s; the Data API's is %s", want.ValidationID, g, w)
		}
	}
}
