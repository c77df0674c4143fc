package avalanchego

import (
	"context"
	"fmt"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ava-labs/avalanchego/api"
	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/constants"
	"github.com/ava-labs/avalanchego/utils/formatting"
	"github.com/ava-labs/avalanchego/utils/formatting/address"
	avajson "github.com/ava-labs/avalanchego/utils/json"
	"github.com/ava-labs/avalanchego/utils/rpc"
	"github.com/ava-labs/avalanchego/vms/components/avax"
	"github.com/ava-labs/avalanchego/vms/platformvm"
	"github.com/ava-labs/avalanchego/vms/platformvm/txs"

	"github.com/avaedge/avaedge/catalog"
	"github.com/avaedge/avaedge/local/api/dataapi"
)

// TestPlatformReads: avalanchego v1.14.2's platformvm client parses the
// P-Chain reads the devnet answers from its index, and each agrees with the
// Data API over the same index: every address's balance (unlocked, locked
// stakeable, locked not stakeable) and UTXOs (paged three at a time through
// every address at once), the current validators and their weights, the
// subnets with their owners (an L1's conversion), the chains, the stakes
// (getStake, getMinStake, getValidatorsAt, getAllValidatorsAt), the fee
// parameters and state, the proposed height, the reward UTXOs and the L1
// validators.
func TestPlatformReads(t *testing.T) {
	dw := devnetWorld(t)
	uri, _ := serveNode(t, "local")
	c := platformvm.NewClient(uri)
	ctx := context.Background()
	// The Data API over the same index, at the devnet's clock.
	srv := httptest.NewServer(catalog.NewMux(catalog.Catalogue(), dataapi.Handlers(dataapi.Options{Source: dw.Index(), Now: dw.Now})))
	t.Cleanup(srv.Close)
	data := srv.URL + "/v1/networks/fuji"
	hrp := constants.GetHRP(constants.LocalID)
	pAddr := func(a ids.ShortID) string {
		s, err := address.Format("P", hrp, a[:])
		if err != nil {
			t.Fatal(err)
		}
		return s
	}

	var addrs []ids.ShortID
	for _, a := range dw.Addresses() {
		addrs = append(addrs, ids.ShortID(a))
	}
	t.Run("balances", func(t *testing.T) {
		for _, a := range addrs {
			//lint:ignore SA1019 the edge serves the deprecated platform.getBalance too; its own client checks it.
			bal, err := c.GetBalance(ctx, []ids.ShortID{a})
			if err != nil {
				t.Fatal(err)
			}
			var d struct {
				Balances map[string][]struct{ Amount string }
			}
			getJSON(t, data+"/blockchains/p-chain/balances?addresses="+pAddr(a), &d)
			sum := func(part string) uint64 {
				var n uint64
				for _, x := range d.Balances[part] {
					v, _ := strconv.ParseUint(x.Amount, 10, 64)
					n += v
				}
				return n
			}
			got := [3]uint64{uint64(bal.Unlocked), uint64(bal.LockedStakeable), uint64(bal.LockedNotStakeable)}
			want := [3]uint64{sum("unlockedUnstaked"), sum("lockedStakeable"), sum("lockedPlatform")}
			if got != want || uint64(bal.Balance) != want[0]+want[1]+want[2] {
				t.Errorf("%s: getBalance %+v; the Data API says unlocked, stakeable, not stakeable %v", pAddr(a), bal, want)
			}
		}
	})

	t.Run("utxos", func(t *testing.T) {
		seen := map[ids.ID]bool{}
		startAddr, startUTXO := ids.ShortEmpty, ids.Empty
		for pages := 0; ; pages++ {
			if pages > 1000 {
				t.Fatal("pagination does not end")
			}
			page, endAddr, endUTXO, err := c.GetUTXOs(ctx, addrs, 3, startAddr, startUTXO)
			if err != nil {
				t.Fatal(err)
			}
			for _, b := range page {
				var u avax.UTXO
				if _, err := txs.Codec.Unmarshal(b, &u); err != nil {
					t.Fatalf("parse utxo: %v", err)
				}
				seen[u.InputID()] = true
			}
			if len(page) < 3 {
				break
			}
			startAddr, startUTXO = endAddr, endUTXO
		}
		// The Data API's unspent P-Chain UTXOs less the running stakes
		// (not in the node's UTXO set until they end: the Data API marks
		// a stake's outputs staked still after).
		want := map[ids.ID]bool{}
		for _, a := range addrs {
			var d struct {
				UTXOs []struct {
					UTXOID string `json:"utxoId"`
					Staked bool   `json:"staked"`
					End    int64  `json:"utxoEndTimestamp"`
				} `json:"utxos"`
			}
			getJSON(t, data+"/blockchains/p-chain/utxos?pageSize=100&addresses="+pAddr(a), &d)
			for _, u := range d.UTXOs {
				if u.Staked && u.End > dw.Now().Unix() {
					continue
				}
				id, err := ids.FromString(u.UTXOID)
				if err != nil {
					t.Fatal(err)
				}
				want[id] = true
			}
		}
		if len(seen) == 0 || len(seen) != len(want) {
			t.Errorf("paged %d UTXOs; the Data API lists %d", len(seen), len(want))
		}
		for id := range want {
			if !seen[id] {
				t.Errorf("UTXO %s of the Data API not paged", id)
			}
		}
		for id := range seen {
			if !want[id] {
				t.Errorf("UTXO %s paged, not in the Data API", id)
			}
		}
	})

	t.Run("validators", func(t *testing.T) {
		vdrs, err := c.GetCurrentValidators(ctx, constants.PrimaryNetworkID, nil)
		if err != nil {
			t.Fatal(err)
		}
		var d struct {
			Validators []struct {
				NodeID       string `json:"nodeId"`
				AmountStaked string `json:"amountStaked"`
				SubnetID     string `json:"subnetId"`
			} `json:"validators"`
		}
		getJSON(t, data+"/validators?pageSize=100&validationStatus=active", &d)
		d.Validators = slices.DeleteFunc(d.Validators, func(v struct {
			NodeID       string `json:"nodeId"`
			AmountStaked string `json:"amountStaked"`
			SubnetID     string `json:"subnetId"`
		}) bool {
			return v.SubnetID != constants.PrimaryNetworkID.String()
		})
		if len(vdrs) == 0 || len(vdrs) != len(d.Validators) {
			t.Fatalf("%d current validators; the Data API lists %d active", len(vdrs), len(d.Validators))
		}
		var total uint64
		for _, v := range vdrs {
			i := slices.IndexFunc(d.Validators, func(x struct {
				NodeID       string `json:"nodeId"`
				AmountStaked string `json:"amountStaked"`
				SubnetID     string `json:"subnetId"`
			}) bool {
				return x.NodeID == v.NodeID.String()
			})
			if i < 0 || d.Validators[i].AmountStaked != strconv.FormatUint(v.Weight, 10) {
				t.Errorf("validator %s weight %d: not the Data API's (%d)", v.NodeID, v.Weight, i)
			}
			total += v.Weight
			if v.DelegatorWeight != nil {
				total += *v.DelegatorWeight
			}
		}
		one, err := c.GetCurrentValidators(ctx, constants.PrimaryNetworkID, []ids.NodeID{vdrs[0].NodeID})
		if err != nil || len(one) != 1 || one[0].NodeID != vdrs[0].NodeID {
			t.Errorf("getCurrentValidators of %s: %+v, %v", vdrs[0].NodeID, one, err)
		}
		stake, err := c.GetTotalStake(ctx, constants.PrimaryNetworkID)
		if err != nil || uint64(stake) != total {
			t.Errorf("getTotalStake = %d, %v; want %d", stake, err, total)
		}
	})

	t.Run("subnets and chains", func(t *testing.T) {
		//lint:ignore SA1019 the edge serves the deprecated platform.getSubnets too; its own client checks it.
		subnets, err := c.GetSubnets(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		var d struct {
			Subnets []struct {
				SubnetID       string   `json:"subnetId"`
				OwnerAddresses []string `json:"ownerAddresses"`
				Threshold      uint32   `json:"threshold"`
			} `json:"subnets"`
		}
		getJSON(t, data+"/subnets?pageSize=100", &d)
		byID := map[string][2]string{}
		for _, s := range d.Subnets {
			byID[s.SubnetID] = [2]string{"P-" + strings.Join(s.OwnerAddresses, ",P-"), fmt.Sprint(s.Threshold)}
		}
		if len(subnets) != len(byID)+1 || subnets[len(subnets)-1].ID != constants.PrimaryNetworkID {
			t.Fatalf("getSubnets lists %d subnets; the Data API %d (and the primary network last)", len(subnets), len(byID))
		}
		for _, s := range subnets[:len(subnets)-1] {
			var keys []string
			for _, k := range s.ControlKeys {
				keys = append(keys, pAddr(k))
			}
			if got := [2]string{strings.Join(keys, ","), fmt.Sprint(s.Threshold)}; got != byID[s.ID.String()] {
				t.Errorf("subnet %s: owners %v; the Data API's %v", s.ID, got, byID[s.ID.String()])
			}
			sub, err := c.GetSubnet(ctx, s.ID)
			if err != nil {
				t.Errorf("getSubnet(%s): %v", s.ID, err)
			} else if sub.Threshold != s.Threshold || len(sub.ControlKeys) != len(s.ControlKeys) {
				t.Errorf("getSubnet(%s) = %+v; getSubnets says %+v", s.ID, sub, s)
			}
			checkL1(t, data, dw, s.ID, sub)
		}
		//lint:ignore SA1019 the edge serves the deprecated platform.getBlockchains too; its own client checks it.
		chains, err := c.GetBlockchains(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var dc struct {
			Blockchains []struct {
				BlockchainID   string `json:"blockchainId"`
				SubnetID       string `json:"subnetId"`
				VMID           string `json:"vmId"`
				BlockchainName string `json:"blockchainName"`
			} `json:"blockchains"`
		}
		getJSON(t, data+"/blockchains?pageSize=100", &dc)
		want := map[string]string{}
		for _, b := range dc.Blockchains {
			want[b.BlockchainID] = b.SubnetID + " " + b.VMID + " " + b.BlockchainName
		}
		if len(chains) == 0 || len(chains) != len(want) {
			t.Fatalf("getBlockchains lists %d; the Data API %d", len(chains), len(want))
		}
		for _, b := range chains {
			if got := b.SubnetID.String() + " " + b.VMID.String() + " " + b.Name; got != want[b.ID.String()] {
				t.Errorf("chain %s: %s; the Data API says %s", b.ID, got, want[b.ID.String()])
			}
			sub, err := c.ValidatedBy(ctx, b.ID)
			if err != nil || sub != b.SubnetID {
				t.Errorf("validatedBy(%s) = %s, %v; want %s", b.ID, sub, err, b.SubnetID)
			}
			of, err := c.Validates(ctx, b.SubnetID)
			if err != nil || !slices.Contains(of, b.ID) {
				t.Errorf("validates(%s) = %v, %v; want %s among them", b.SubnetID, of, err, b.ID)
			}
		}
	})

	t.Run("staking", func(t *testing.T) {
		checkStaking(t, c, data, addrs, pAddr)
		checkFeeConfigs(t, c)
	})

	t.Run("fee state", func(t *testing.T) { checkFeeStates(t, c, data) })
	t.Run("all validators at", func(t *testing.T) { checkAllValidatorsAt(t, c, data) })
	t.Run("reward utxos", func(t *testing.T) { checkRewardUTXOs(t, c, data, addrs, pAddr) })

	t.Run("blocks", func(t *testing.T) {
		h, err := c.GetHeight(ctx)
		if err != nil {
			t.Fatal(err)
		}
		// The devnet's P-Chain blocks are kept as the node's JSON only.
		var reply api.GetBlockResponse
		for _, height := range []uint64{1, h} {
			if err := c.Requester.SendRequest(ctx, "platform.getBlockByHeight", &api.GetBlockByHeightArgs{Height: avajson.Uint64(height), Encoding: formatting.JSON}, &reply); err != nil {
				t.Fatalf("getBlockByHeight(%d): %v", height, err)
			}
			if !strings.Contains(string(reply.Block), fmt.Sprintf(`"height":%d`, height)) {
				t.Errorf("getBlockByHeight(%d) = %s", height, reply.Block)
			}
		}
		if _, err := c.GetBlockByHeight(ctx, h); err == nil || !strings.Contains(err.Error(), "ask with encoding json") {
			t.Errorf("getBlockByHeight in hex: %v; want the index's error", err)
		}
	})

	t.Run("atomic", func(t *testing.T) {
		// The C-Chain's shared memory: what the X-Chain exported to it
		// (the devnet's C-Chain imports none), as the Data API lists it.
		cAddr, _ := address.Format("C", hrp, addrs[0][:])
		r := rpc.NewEndpointRequester(uri + "/ext/bc/C/avax")
		var reply api.GetUTXOsReply
		if err := r.SendRequest(ctx, "avax.getUTXOs", &api.GetUTXOsArgs{Addresses: []string{cAddr}, SourceChain: "X", Limit: 1024}, &reply); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, str := range reply.UTXOs {
			b, err := formatting.Decode(formatting.Hex, str)
			if err != nil {
				t.Fatal(err)
			}
			var u avax.UTXO
			if _, err := txs.Codec.Unmarshal(b, &u); err != nil {
				t.Fatalf("parse utxo: %v", err)
			}
			got = append(got, u.InputID().String())
		}
		var d struct {
			UTXOs []struct {
				UTXOID string `json:"utxoId"`
			} `json:"utxos"`
		}
		getJSON(t, data+"/blockchains/c-chain/utxos?pageSize=100&addresses="+cAddr, &d)
		var want []string
		for _, u := range d.UTXOs {
			want = append(want, u.UTXOID)
		}
		slices.Sort(got)
		slices.Sort(want)
		if len(got) == 0 || !slices.Equal(got, want) {
			t.Errorf("avax.getUTXOs(%s, X) = %v; the Data API lists %v", cAddr, got, want)
		}
		if err := r.SendRequest(ctx, "avax.getUTXOs", &api.GetUTXOsArgs{Addresses: []string{cAddr}}, &reply); err == nil || !strings.Contains(err.Error(), "no source chain provided") {
			t.Errorf("avax.getUTXOs without a source chain: %v", err)
		}
		var st struct{ Status string }
		if err := r.SendRequest(ctx, "avax.getAtomicTxStatus", &api.JSONTxID{TxID: ids.GenerateTestID()}, &st); err != nil || st.Status != "Unknown" {
			t.Errorf("avax.getAtomicTxStatus = %+v, %v; want Unknown", st, err)
		}
		var tx api.FormattedTx
		id := ids.GenerateTestID()
		if err := r.SendRequest(ctx, "avax.getAtomicTx", &api.GetTxArgs{TxID: id}, &tx); err == nil || !strings.Contains(err.Error(), "could not find tx "+id.String()) {
			t.Errorf("avax.getAtomicTx: %v; want coreth's not found", err)
		}
	})

	t.Run("blockchain status", func(t *testing.T) {
		// The devnet's node runs every chain and validates the primary
		// network.
		st, err := c.GetBlockchainStatus(ctx, "X")
		if err != nil || st.String() != "Validating" {
			t.Errorf("getBlockchainStatus(X) = %v, %v; want Validating", st, err)
		}
		st, err = c.GetBlockchainStatus(ctx, ids.GenerateTestID().String())
		if err != nil || st.String() != "Unknown" {
			t.Errorf("getBlockchainStatus of an unknown chain = %v, %v; want Unknown", st, err)
		}
		if _, err := c.GetBlockchainStatus(ctx, ""); err == nil || !strings.Contains(err.Error(), "argument 'blockchainID' not given") {
			t.Errorf("getBlockchainStatus without an id: %v", err)
		}
	})

	t.Run("l1 validators", func(t *testing.T) { checkL1Validators(t, c, data) })
}
