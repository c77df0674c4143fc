package avalanchego

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/ava-labs/avalanchego/api"
	"github.com/ava-labs/avalanchego/genesis"
	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/snow/validators"
	"github.com/ava-labs/avalanchego/utils/constants"
	"github.com/ava-labs/avalanchego/utils/formatting"
	"github.com/ava-labs/avalanchego/vms/components/avax"
	"github.com/ava-labs/avalanchego/vms/components/gas"
	"github.com/ava-labs/avalanchego/vms/platformvm"
	platformapi "github.com/ava-labs/avalanchego/vms/platformvm/api"
	"github.com/ava-labs/avalanchego/vms/platformvm/txs"
	"github.com/ava-labs/avalanchego/vms/secp256k1fx"
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

// checkAllValidatorsAt: getAllValidatorsAt at the current height (and
// "proposed", the same) holds, for the primary network and every subnet the
// Data API lists, the set getValidatorsAt answers flattened by avalanchego's
// own validators.FlattenValidatorSet, a subnet without validators left out;
// the primary network's total weight is the Data API's active validators'
// stake and delegations; at height 0 it holds the genesis set.
func checkAllValidatorsAt(t *testing.T, c *platformvm.Client, data string) {
	ctx := context.Background()
	h, err := c.GetHeight(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var ds struct {
		Subnets []struct {
			SubnetID string `json:"subnetId"`
		} `json:"subnets"`
	}
	getJSON(t, data+"/subnets?pageSize=100", &ds)
	subnets := []ids.ID{constants.PrimaryNetworkID}
	for _, s := range ds.Subnets {
		id, err := ids.FromString(s.SubnetID)
		if err != nil {
			t.Fatal(err)
		}
		subnets = append(subnets, id)
	}
	for _, height := range []platformapi.Height{platformapi.Height(h), platformapi.ProposedHeight} {
		sets, err := c.GetAllValidatorsAt(ctx, height)
		if err != nil {
			t.Fatalf("getAllValidatorsAt(%d): %v", height, err)
		}
		want := 0
		for _, sub := range subnets {
			set, err := c.GetValidatorsAt(ctx, sub, platformapi.Height(h))
			if err != nil {
				t.Fatal(err)
			}
			got, ok := sets[sub]
			if len(set) == 0 {
				if ok {
					t.Errorf("getAllValidatorsAt(%d) holds %s, which has no validator", height, sub)
				}
				continue
			}
			want++
			flat, err := validators.FlattenValidatorSet(set)
			if err != nil {
				t.Fatal(err)
			}
			g, _ := json.Marshal(got)
			w, _ := json.Marshal(flat)
			if !ok || string(g) != string(w) {
				t.Errorf("getAllValidatorsAt(%d) of %s = %s; getValidatorsAt flattened is %s", height, sub, g, w)
			}
		}
		if want < 2 || len(sets) != want {
			t.Errorf("getAllValidatorsAt(%d) holds %d sets; %d subnets have validators", height, len(sets), want)
		}
		var dv struct {
			Validators []struct {
				AmountStaked    string `json:"amountStaked"`
				AmountDelegated string `json:"amountDelegated"`
			} `json:"validators"`
		}
		getJSON(t, data+"/validators?pageSize=100&validationStatus=active&subnetId="+constants.PrimaryNetworkID.String(), &dv)
		var total uint64
		for _, v := range dv.Validators {
			s, _ := strconv.ParseUint(v.AmountStaked, 10, 64)
			d, _ := strconv.ParseUint(v.AmountDelegated, 10, 64)
			total += s + d
		}
		if got := sets[constants.PrimaryNetworkID].TotalWeight; got != total {
			t.Errorf("getAllValidatorsAt(%d): the primary network weighs %d; the Data API's active validators %d", height, got, total)
		}
	}
	genesis, err := c.GetAllValidatorsAt(ctx, 0)
	if err != nil || len(genesis[constants.PrimaryNetworkID].Validators) == 0 {
		t.Errorf("getAllValidatorsAt(0) = %v, %v; want the genesis set", genesis, err)
	}
}

// checkRewardUTXOs: getRewardUTXOs of every staking tx the Data API lists a
// historical reward of (for any of addrs) parses with avalanchego's codec
// into those rewards, the same UTXO ids and amounts, by output index; an
// unknown transaction has none.
func checkRewardUTXOs(t *testing.T, c *platformvm.Client, data string, addrs []ids.ShortID, pAddr func(ids.ShortID) string) {
	ctx := context.Background()
	want := map[string]map[string]uint64{} // staking tx -> utxo id -> amount
	for _, a := range addrs {
		token := ""
		for pages := 0; ; pages++ {
			if pages > 100 {
				t.Fatal("the Data API's rewards do not end")
			}
			var d struct {
				HistoricalRewards []struct {
					TxHash string `json:"txHash"`
					UTXOID string `json:"utxoId"`
					Reward struct {
						Amount string `json:"amount"`
					} `json:"reward"`
				} `json:"historicalRewards"`
				NextPageToken string `json:"nextPageToken"`
			}
			getJSON(t, data+"/rewards?pageSize=100&addresses="+pAddr(a)+"&pageToken="+token, &d)
			for _, r := range d.HistoricalRewards {
				if want[r.TxHash] == nil {
					want[r.TxHash] = map[string]uint64{}
				}
				want[r.TxHash][r.UTXOID], _ = strconv.ParseUint(r.Reward.Amount, 10, 64)
			}
			if token = d.NextPageToken; token == "" {
				break
			}
		}
	}
	if len(want) == 0 {
		t.Fatal("the Data API lists no historical reward")
	}
	for tx, rewards := range want {
		id, err := ids.FromString(tx)
		if err != nil {
			t.Fatal(err)
		}
		//lint:ignore SA1019 the edge serves the deprecated platform.getRewardUTXOs too; its own client checks it.
		utxos, err := c.GetRewardUTXOs(ctx, &api.GetTxArgs{TxID: id, Encoding: formatting.Hex})
		if err != nil {
			t.Fatalf("getRewardUTXOs(%s): %v", tx, err)
		}
		got := map[string]uint64{}
		last := -1
		for _, b := range utxos {
			var u avax.UTXO
			if _, err := txs.GenesisCodec.Unmarshal(b, &u); err != nil {
				t.Fatalf("getRewardUTXOs(%s): %v", tx, err)
			}
			out, ok := u.Out.(*secp256k1fx.TransferOutput)
			if !ok || u.TxID != id || int(u.OutputIndex) <= last {
				t.Errorf("getRewardUTXOs(%s): %+v; want a transfer output of the staking tx after output %d", tx, u, last)
				continue
			}
			last = int(u.OutputIndex)
			got[u.InputID().String()] = out.Amt
		}
		if fmt.Sprint(got) != fmt.Sprint(rewards) {
			t.Errorf("getRewardUTXOs(%s) = %v; the Data API's rewards %v", tx, got, rewards)
		}
	}
	//lint:ignore SA1019 the edge serves the deprecated platform.getRewardUTXOs too; its own client checks it.
	if none, err := c.GetRewardUTXOs(ctx, &api.GetTxArgs{TxID: ids.GenerateTestID(), Encoding: formatting.Hex}); err != nil || len(none) != 0 {
		t.Errorf("getRewardUTXOs of an unknown tx = %d UTXOs, %v; want none", len(none), err)
	}
}

// checkL1Validators: getL1Validator of every L1 validator the Data API
// lists (inactive ones too) parses with avalanchego's client into the Data
// API's L1, node, weight, balance and creation time, at the current height;
// an unknown validation id gets the node's "not found".
func checkL1Validators(t *testing.T, c *platformvm.Client, data string) {
	ctx := context.Background()
	h, err := c.GetHeight(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		Validators []struct {
			ValidationID      string `json:"validationId"`
			NodeID            string `json:"nodeId"`
			SubnetID          string `json:"subnetId"`
			Weight            uint64 `json:"weight"`
			RemainingBalance  uint64 `json:"remainingBalance"`
			CreationTimestamp uint64 `json:"creationTimestamp"`
		} `json:"validators"`
	}
	getJSON(t, data+"/l1Validators?pageSize=100&includeInactiveL1Validators=true", &d)
	if len(d.Validators) == 0 {
		t.Fatal("the Data API lists no L1 validator")
	}
	for _, want := range d.Validators {
		id, err := ids.FromString(want.ValidationID)
		if err != nil {
			t.Fatal(err)
		}
		v, height, err := c.GetL1Validator(ctx, id)
		if err != nil {
			t.Errorf("getL1Validator(%s): %v", id, err)
			continue
		}
		got := fmt.Sprintf("%s %s %d %d %d", v.SubnetID, v.NodeID, v.Weight, v.Balance, v.StartTime)
		if w := fmt.Sprintf("%s %s %d %d %d", want.SubnetID, want.NodeID, want.Weight, want.RemainingBalance, want.CreationTimestamp); got != w || height != h || v.PublicKey == nil {
			t.Errorf("getL1Validator(%s) = %s at %d; the Data API's is %s at %d", id, got, height, w, h)
		}
		if len(v.RemainingBalanceOwner.Addrs) == 0 || len(v.DeactivationOwner.Addrs) == 0 {
			t.Errorf("getL1Validator(%s): owners %+v, %+v", id, v.RemainingBalanceOwner, v.DeactivationOwner)
		}
	}
	unknown := ids.GenerateTestID()
	if _, _, err := c.GetL1Validator(ctx, unknown); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("fetching L1 validator %q failed: not found", unknown.String())) {
		t.Errorf("getL1Validator of an unknown id: %v; want the node's not found", err)
	}
}
