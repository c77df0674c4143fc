package e2e

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/ava-labs/avalanchego/genesis"
	"github.com/ava-labs/avalanchego/utils/constants"
	"github.com/ava-labs/avalanchego/vms/components/gas"
)

// checkDevnetStaking checks, through the built binary in devnet mode at
// base, the P-Chain reads a node answers from its staker set and history:
// getMinStake and getFeeConfig are the local network's (avalanchego's
// genesis.LocalParams),
// getStake of addr (a P-Chain address) the Data API's staked and pending
// stake of it, getValidatorsAt at the current height getCurrentValidators'
// set with the delegations added (at height 0 the genesis set), from which
// sampleValidators draws, and
// getSubnet of each L1 the Data API lists its conversion's manager.
func checkDevnetStaking(t *testing.T, base, addr string) {
	t.Helper()
	p := base + "/ext/bc/P"
	var minStake struct{ MinValidatorStake, MinDelegatorStake string }
	rpcResult(t, p, "platform.getMinStake", `{}`, &minStake)
	if sc := genesis.LocalParams.StakingConfig; minStake.MinValidatorStake != fmt.Sprint(sc.MinValidatorStake) || minStake.MinDelegatorStake != fmt.Sprint(sc.MinDelegatorStake) {
		t.Errorf("platform.getMinStake = %+v; the local network's are %d and %d", minStake, sc.MinValidatorStake, sc.MinDelegatorStake)
	}
	var fees gas.Config
	rpcResult(t, p, "platform.getFeeConfig", `{}`, &fees)
	if fees != genesis.LocalParams.DynamicFeeConfig {
		t.Errorf("platform.getFeeConfig = %+v; the local network's is %+v", fees, genesis.LocalParams.DynamicFeeConfig)
	}

	r := do(t, "GET", base+"/v1/networks/fuji/blockchains/p-chain/balances?addresses="+addr, nil, nil)
	var bal struct {
		Balances map[string][]struct{ Amount string } `json:"balances"`
	}
	if r.Status != 200 || json.Unmarshal(r.Body, &bal) != nil {
		t.Fatalf("the Data API's balance of %s: %s", addr, r)
	}
	var want uint64
	for _, part := range []string{"unlockedStaked", "lockedStaked", "pendingStaked"} {
		for _, a := range bal.Balances[part] {
			n, _ := strconv.ParseUint(a.Amount, 10, 64)
			want += n
		}
	}
	var stake struct {
		Staked  string   `json:"staked"`
		Outputs []string `json:"stakedOutputs"`
	}
	rpcResult(t, p, "platform.getStake", `{"addresses":["`+addr+`"]}`, &stake)
	if stake.Staked != strconv.FormatUint(want, 10) || want == 0 || len(stake.Outputs) == 0 {
		t.Errorf("platform.getStake(%s) = %s in %d outputs; the Data API's staked and pending stake is %d", addr, stake.Staked, len(stake.Outputs), want)
	}

	var height struct{ Height string }
	rpcResult(t, p, "platform.getHeight", `{}`, &height)
	var set map[string]struct {
		PublicKey *string `json:"publicKey"`
		Weight    string  `json:"weight"`
	}
	rpcResult(t, p, "platform.getValidatorsAt", `{"height":"`+height.Height+`"}`, &set)
	var vdrs struct {
		Validators []struct {
			NodeID          string `json:"nodeID"`
			Weight          string `json:"weight"`
			DelegatorWeight string `json:"delegatorWeight"`
		} `json:"validators"`
	}
	rpcResult(t, p, "platform.getCurrentValidators", `{}`, &vdrs)
	if len(set) != len(vdrs.Validators) || len(set) == 0 {
		t.Errorf("platform.getValidatorsAt(%s) lists %d; getCurrentValidators %d", height.Height, len(set), len(vdrs.Validators))
	}
	for _, v := range vdrs.Validators {
		w, _ := strconv.ParseUint(v.Weight, 10, 64)
		d, _ := strconv.ParseUint(v.DelegatorWeight, 10, 64)
		if got := set[v.NodeID]; got.Weight != strconv.FormatUint(w+d, 10) {
			t.Errorf("platform.getValidatorsAt of %s weighs %s; getCurrentValidators %d with its delegations", v.NodeID, got.Weight, w+d)
		}
	}
	var sample struct{ Validators []string }
	rpcResult(t, p, "platform.sampleValidators", `{"size":1}`, &sample)
	if len(sample.Validators) != 1 || set[sample.Validators[0]].Weight == "" {
		t.Errorf("platform.sampleValidators(1) = %v; want one of the set %v", sample.Validators, set)
	}
	var genesisSet map[string]json.RawMessage
	rpcResult(t, p, "platform.getValidatorsAt", `{"height":"0"}`, &genesisSet)
	if len(genesisSet) == 0 {
		t.Error("platform.getValidatorsAt(0): no genesis validator")
	}

	r = do(t, "GET", base+"/v1/networks/fuji/subnets?pageSize=100", nil, nil)
	var ds struct {
		Subnets []struct {
			SubnetID                  string `json:"subnetId"`
			IsL1                      bool   `json:"isL1"`
			L1ValidatorManagerDetails struct {
				BlockchainID    string `json:"blockchainId"`
				ContractAddress string `json:"contractAddress"`
			} `json:"l1ValidatorManagerDetails"`
		} `json:"subnets"`
	}
	if r.Status != 200 || json.Unmarshal(r.Body, &ds) != nil {
		t.Fatalf("the Data API's subnets: %s", r)
	}
	l1s := 0
	for _, s := range ds.Subnets {
		if !s.IsL1 {
			continue
		}
		l1s++
		var sub struct {
			IsPermissioned bool   `json:"isPermissioned"`
			ConversionID   string `json:"conversionID"`
			ManagerChainID string `json:"managerChainID"`
			ManagerAddress string `json:"managerAddress"`
		}
		rpcResult(t, p, "platform.getSubnet", `{"subnetID":"`+s.SubnetID+`"}`, &sub)
		m := s.L1ValidatorManagerDetails
		if sub.IsPermissioned || sub.ConversionID == constants.PrimaryNetworkID.String() || sub.ManagerChainID != m.BlockchainID || !strings.EqualFold(sub.ManagerAddress, m.ContractAddress) {
			t.Errorf("platform.getSubnet of the L1 %s = %+v; the Data API's manager %+v", s.SubnetID, sub, m)
		}
	}
	if l1s == 0 {
		t.Error("the devnet lists no L1")
	}
}
