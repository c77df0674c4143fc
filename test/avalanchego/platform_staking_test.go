package avalanchego

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/ava-labs/avalanchego/genesis"
	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/constants"
	"github.com/ava-labs/avalanchego/vms/components/avax"
	"github.com/ava-labs/avalanchego/vms/platformvm"
	platformapi "github.com/ava-labs/avalanchego/vms/platformvm/api"
	"github.com/ava-labs/avalanchego/vms/platformvm/txs"

	"github.com/avaedge/avaedge/local/source/devnet"
	avaxv "github.com/avaedge/avaedge/local/vocab/avax"
)

// checkL1 checks getSubnet's answer for subnet id against the Data API at
// data: an L1 is not permissioned and names the conversion the Data API
// lists (its manager chain and contract) and the devnet's conversion id; a
// subnet is permissioned and names none.
func checkL1(t *testing.T, data string, dw *devnet.World, id ids.ID, sub platformvm.GetSubnetClientResponse) {
	t.Helper()
	var d struct {
		IsL1                      bool `json:"isL1"`
		L1ValidatorManagerDetails *struct {
			BlockchainID    string `json:"blockchainId"`
			ContractAddress string `json:"contractAddress"`
		} `json:"l1ValidatorManagerDetails"`
	}
	getJSON(t, data+"/subnets/"+id.String(), &d)
	s, ok := dw.Subnet(avaxv.ID(id))
	if !ok || s.IsL1() != d.IsL1 {
		t.Fatalf("subnet %s: the devnet's L1 %v; the Data API's isL1 %v", id, ok && s.IsL1(), d.IsL1)
	}
	if !d.IsL1 {
		if !sub.IsPermissioned || sub.ConversionID != ids.Empty || sub.ManagerChainID != ids.Empty {
			t.Errorf("getSubnet(%s) of a subnet = %+v", id, sub)
		}
		return
	}
	m := d.L1ValidatorManagerDetails
	if sub.IsPermissioned || m == nil || sub.ManagerChainID.String() != m.BlockchainID ||
		!strings.EqualFold(fmt.Sprintf("0x%x", sub.ManagerAddress), m.ContractAddress) || sub.ConversionID != ids.ID(s.Conversion.ConversionID) {
		t.Errorf("getSubnet(%s) of an L1 = %+v; the Data API's manager %+v, the devnet's conversion id %s", id, sub, m, s.Conversion.ConversionID)
	}
}

// checkStaking checks getMinStake, getStake and getValidatorsAt with
// avalanchego's client: the minimums are the local network's, every
// address's stake is the Data API's staked and pending stake of it (in
// outputs the P-Chain codec parses, owned by it), and the validator set at
// the current height is getCurrentValidators' with each delegation added,
// with BLS keys.
func checkStaking(t *testing.T, c *platformvm.Client, data string, addrs []ids.ShortID, pAddr func(ids.ShortID) string) {
	ctx := context.Background()
	minV, minD, err := c.GetMinStake(ctx, constants.PrimaryNetworkID)
	if err != nil || minV != devnet.MinValidatorStake || minD != devnet.MinDelegatorStake {
		t.Errorf("getMinStake = %d, %d, %v; want the local network's %d, %d", minV, minD, err, devnet.MinValidatorStake, devnet.MinDelegatorStake)
	}
	avaxID := ids.ID(devnet.AVAXAssetID)
	var staked int
	for _, a := range addrs {
		//lint:ignore SA1019 the edge serves the deprecated platform.getStake too; its own client checks it.
		got, outs, err := c.GetStake(ctx, []ids.ShortID{a}, false)
		if err != nil {
			t.Fatal(err)
		}
		var d struct {
			Balances map[string][]struct{ Amount string }
		}
		getJSON(t, data+"/blockchains/p-chain/balances?addresses="+pAddr(a), &d)
		var want uint64
		for _, part := range []string{"unlockedStaked", "lockedStaked", "pendingStaked"} {
			for _, x := range d.Balances[part] {
				v, _ := strconv.ParseUint(x.Amount, 10, 64)
				want += v
			}
		}
		if got[avaxID] != want {
			t.Errorf("%s: getStake %d; the Data API's staked and pending stake %d", pAddr(a), got[avaxID], want)
		}
		var sum uint64
		for _, b := range outs {
			var out avax.TransferableOutput
			if _, err := txs.Codec.Unmarshal(b, &out); err != nil {
				t.Fatalf("%s: staked output %x: %v", pAddr(a), b, err)
			}
			sum += out.Out.Amount()
		}
		if sum != want {
			t.Errorf("%s: the staked outputs hold %d; getStake says %d", pAddr(a), sum, want)
		}
		staked += len(outs)
	}
	if staked == 0 {
		t.Error("no address stakes anything")
	}

	h, err := c.GetHeight(ctx)
	if err != nil {
		t.Fatal(err)
	}
	set, err := c.GetValidatorsAt(ctx, constants.PrimaryNetworkID, platformapi.Height(h))
	if err != nil {
		t.Fatal(err)
	}
	vdrs, err := c.GetCurrentValidators(ctx, constants.PrimaryNetworkID, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(set) != len(vdrs) {
		t.Fatalf("getValidatorsAt(%d): %d validators; getCurrentValidators %d", h, len(set), len(vdrs))
	}
	for _, v := range vdrs {
		w := v.Weight
		if v.DelegatorWeight != nil {
			w += *v.DelegatorWeight
		}
		m, ok := set[v.NodeID]
		if !ok || m.Weight != w || (m.PublicKey == nil) != (v.Signer == nil) {
			t.Errorf("getValidatorsAt(%d) of %s: %+v; getCurrentValidators: weight %d with delegations, signer %v", h, v.NodeID, m, w, v.Signer != nil)
		}
	}
	if genesis, err := c.GetValidatorsAt(ctx, constants.PrimaryNetworkID, 0); err != nil || len(genesis) == 0 {
		t.Errorf("getValidatorsAt(0) = %d validators, %v; want the genesis set", len(genesis), err)
	}
	sample, err := c.SampleValidators(ctx, constants.PrimaryNetworkID, 2)
	if err != nil || len(sample) != 2 || sample[0] == sample[1] || set[sample[0]] == nil || set[sample[1]] == nil {
		t.Errorf("sampleValidators(2) = %v, %v; want two of the current validators", sample, err)
	}
}

// checkFeeConfigs checks getFeeConfig and getValidatorFeeConfig with
// avalanchego's client: the local network's parameters.
func checkFeeConfigs(t *testing.T, c *platformvm.Client) {
	ctx := context.Background()
	fees, err := c.GetFeeConfig(ctx)
	if err != nil || *fees != genesis.LocalParams.DynamicFeeConfig {
		t.Errorf("getFeeConfig = %+v, %v; want the local network's %+v", fees, err, genesis.LocalParams.DynamicFeeConfig)
	}
	vfees, err := c.GetValidatorFeeConfig(ctx)
	if err != nil || *vfees != genesis.LocalParams.ValidatorFeeConfig {
		t.Errorf("getValidatorFeeConfig = %+v, %v; want the local network's %+v", vfees, err, genesis.LocalParams.ValidatorFeeConfig)
	}
}
