package dataapi

import (
	"bytes"
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/avaedge/avaedge/avanet"
	"github.com/avaedge/avaedge/local/vocab/avax"
	"github.com/avaedge/avaedge/local/vocab/glacier"
)

// TestEveryStatus validates validators and delegators of every status
// (each status is a different branch of the oneOf) in both worlds.
func TestEveryStatus(t *testing.T) {
	each(t, func(t *testing.T, w *world) {
		for _, s := range []string{"active", "pending", "completed", "removed"} {
			code, body := w.get(t, "/v1/networks/fuji/validators?pageSize=100&validationStatus="+s)
			if code != 200 {
				t.Fatalf("%d %s", code, body)
			}
			validate(t, "ListValidatorDetailsResponse", body)
			var r glacier.ListValidatorsResponse
			json.Unmarshal(body, &r)
			if len(r.Validators) == 0 {
				t.Errorf("no %s validators", s)
			}
			for _, v := range r.Validators {
				if got := v.(map[string]any)["validationStatus"]; got != s {
					t.Errorf("validationStatus %v in a %s listing", got, s)
				}
			}
		}
		for _, s := range []string{"active", "pending", "completed"} {
			m := w.getOK(t, "/v1/networks/fuji/delegators?pageSize=100&delegationStatus="+s)
			ds := m["delegators"].([]any)
			if len(ds) == 0 {
				t.Errorf("no %s delegators", s)
			}
			for _, d := range ds {
				if got := d.(map[string]any)["delegationStatus"]; got != s {
					t.Errorf("delegationStatus %v in a %s listing", got, s)
				}
			}
		}
	})
}

// TestValidatorFigures checks an active validator's figures against the
// world: its stake share, delegators, capacity, rewards and node, as each
// world knows them.
func TestValidatorFigures(t *testing.T) {
	each(t, func(t *testing.T, w *world) {
		node := w.node(t)
		var r struct {
			Validators []glacier.ActiveValidator `json:"validators"`
		}
		code, body := w.get(t, "/v1/networks/fuji/validators/"+node+"?validationStatus=active")
		if code != 200 || json.Unmarshal(body, &r) != nil {
			t.Fatalf("%d %s", code, body)
		}
		i := slices.IndexFunc(r.Validators, func(v glacier.ActiveValidator) bool { return v.SubnetID == "11111111111111111111111111111111LpoYY" })
		if i < 0 {
			t.Fatalf("no active primary validation of %s: %s", node, body)
		}
		v := r.Validators[i]
		var dv struct {
			weight, delegated uint64
			delegators        int
		}
		now := w.dev.Now().Unix()
		for _, x := range w.dev.Validations() {
			if x.NodeID.String() == node && x.SubnetID.IsEmpty() && x.Status(now) == "active" {
				dv.weight = x.Weight
				if v.UptimePerformance != float64(float32(x.Uptime)) && strconv.FormatFloat(v.UptimePerformance, 'f', 4, 64) != strconv.FormatFloat(x.Uptime, 'f', 4, 64) {
					t.Errorf("uptime %v; the world's %v", v.UptimePerformance, x.Uptime)
				}
			}
		}
		for _, d := range w.dev.Delegations() {
			if d.NodeID.String() == node && d.Status(now) == "active" {
				dv.delegators++
				dv.delegated += d.Weight
			}
		}
		if v.AmountStaked != u64(dv.weight) || v.DelegatorCount != dv.delegators || v.AmountDelegated != u64(dv.delegated) || dv.delegators == 0 {
			t.Errorf("stake %s, %d delegators of %s; the world's %d, %d of %d", v.AmountStaked, v.DelegatorCount, v.AmountDelegated, dv.weight, dv.delegators, dv.delegated)
		}
		if want := min(dv.weight*5, 3_000_000_000_000_000) - dv.weight - dv.delegated; v.DelegationCapacity != u64(want) {
			t.Errorf("capacity %s; want %d", v.DelegationCapacity, want)
		}
		if v.PotentialRewards.ValidationRewardAmount == "0" || v.StakePercentage <= 0 || v.StakePercentage >= 100 {
			t.Errorf("potential rewards %+v, stake %v%%", v.PotentialRewards, v.StakePercentage)
		}
		// Only the devnet knows where its nodes run.
		if w.devnet != (v.Geolocation != nil) || w.devnet != (v.AvalancheGoVersion != "") {
			t.Errorf("geolocation %v, version %q", v.Geolocation, v.AvalancheGoVersion)
		}
		// Completed validations show what their RewardValidatorTx paid.
		var done struct {
			Validators []glacier.CompletedValidator `json:"validators"`
		}
		_, body = w.get(t, "/v1/networks/fuji/validators?pageSize=100&validationStatus=completed&subnetId=11111111111111111111111111111111LpoYY")
		json.Unmarshal(body, &done)
		if len(done.Validators) == 0 {
			t.Fatal("no completed primary validation")
		}
		for _, c := range done.Validators {
			paid := c.Rewards.ValidationRewardAmount != "0" && c.Rewards.RewardTxHash != ""
			if !paid {
				t.Errorf("completed %s: rewards %+v", c.TxHash, c.Rewards)
			}
		}
	})
}

func TestPaginationWalk(t *testing.T) {
	each(t, func(t *testing.T, w *world) {
		hrp := w.hrp("fuji")
		ewoqP := avax.FormatAddress("P", hrp, w.dev.Ewoq())
		node := w.node(t)
		var all []string
		for _, a := range w.dev.Addresses() {
			all = append(all, avax.FormatBech32(hrp, a))
		}
		addrs := strings.Join(all, ",")
		base := "/v1/networks/fuji"
		lists := []struct{ path, list string }{
			{base + "/subnets?", "subnets"},
			{base + "/blockchains/p-chain/utxos?includeSpent=true&addresses=" + ewoqP, "utxos"},
			{base + "/blockchains/x-chain/utxos?sortBy=amount&addresses=" + addrs, "utxos"},
			{base + "/rewards:listPending?addresses=" + addrs, "pendingRewards"},
			{base + "/validators/" + node + "?sortOrder=asc", "validators"},
			{base + "/validators?sortBy=uptimePerformance", "validators"},
			{base + "/delegators?sortOrder=asc", "delegators"},
			{base + "/l1Validators?includeInactiveL1Validators=true", "validators"},
			{base + "/blockchains/p-chain/blocks?", "blocks"},
			{base + "/blockchains/x-chain/transactions?sortOrder=asc", "transactions"},
			{base + "/blockchains/p-chain/transactions?addresses=" + addrs, "transactions"},
			// Read a page at a time by key (the previous page's last row).
			{base + "/blockchains/x-chain/blocks?", "blocks"},
			{base + "/blockchains/p-chain/transactions?", "transactions"},
			{base + "/blockchains/p-chain/transactions?sortOrder=asc&addresses=" + ewoqP, "transactions"},
			{base + "/blockchains/x-chain/assets/" + w.avaxID("fuji").String() + "/transactions?", "transactions"},
			{base + "/blockchains/p-chain/transactions:listStaking?", "transactions"},
		}
		if w.devnet {
			lists = append(lists, struct{ path, list string }{base + "/blockchains/p-chain/nodes/" + node + "/blocks?", "blocks"})
		}
		for _, l := range lists {
			t.Run(l.path, func(t *testing.T) {
				full := w.walk(t, l.path+"&pageSize=100", l.list)
				for _, size := range []string{"1", "3"} {
					got := w.walk(t, l.path+"&pageSize="+size, l.list)
					if !slices.Equal(got, full) {
						t.Fatalf("pageSize %s: walked %d items; want the %d of pages of 100, in order", size, len(got), len(full))
					}
					seen := map[string]bool{}
					for _, it := range got {
						if seen[it] {
							t.Fatalf("item visited twice: %s", it)
						}
						seen[it] = true
					}
				}
				if len(full) == 0 {
					t.Fatal("empty list")
				}
			})
		}
	})
}

func TestFilters(t *testing.T) {
	each(t, func(t *testing.T, w *world) {
		base := "/v1/networks/mainnet"
		hrp := w.hrp("mainnet")
		ewoqX := avax.FormatAddress("X", hrp, w.dev.Ewoq())
		count := func(path, list string) int { return len(w.walk(t, path, list)) }

		t.Run("includeSpent and assetId", func(t *testing.T) {
			unspent := count(base+"/blockchains/x-chain/utxos?pageSize=100&addresses="+ewoqX, "utxos")
			all := count(base+"/blockchains/x-chain/utxos?pageSize=100&includeSpent=true&addresses="+ewoqX, "utxos")
			if all <= unspent || unspent == 0 {
				t.Fatalf("unspent %d, with spent %d", unspent, all)
			}
			avaxs := w.walk(t, base+"/blockchains/x-chain/utxos?pageSize=100&assetId="+w.avaxID("mainnet").String()+"&addresses="+ewoqX, "utxos")
			if len(avaxs) == 0 || len(avaxs) == unspent {
				t.Fatalf("%d AVAX UTXOs of %d; ewoq holds Devnet Gold too", len(avaxs), unspent)
			}
			for _, it := range avaxs {
				var u glacier.XUTXO
				json.Unmarshal([]byte(it), &u)
				if u.ConsumingTxHash != "" || u.Asset.AssetID != w.avaxID("mainnet").String() || u.Asset.Symbol != "AVAX" {
					t.Fatalf("not an unspent AVAX UTXO: %s", it)
				}
				// The bytes say the asset the answer names.
				b, err := avax.DecodeHex(u.UTXOBytes)
				if id := w.avaxID("mainnet"); err != nil || !bytes.Contains(b, id[:]) {
					t.Fatalf("utxoBytes %s do not hold asset %s", u.UTXOBytes, u.Asset.AssetID)
				}
			}
		})
		t.Run("minUtxoAmount and sortBy amount", func(t *testing.T) {
			items := w.walk(t, base+"/blockchains/x-chain/utxos?pageSize=100&sortBy=amount&sortOrder=asc&minUtxoAmount=1000000000000&addresses="+ewoqX, "utxos")
			var prev uint64
			for _, it := range items {
				var u glacier.XUTXO
				json.Unmarshal([]byte(it), &u)
				a, _ := strconv.ParseUint(u.Asset.Amount, 10, 64)
				if a < 1_000_000_000_000 || a < prev {
					t.Fatalf("amount %d below the minimum or after %d", a, prev)
				}
				prev = a
			}
			if len(items) == 0 {
				t.Fatal("no UTXO above the minimum")
			}
		})
		t.Run("sortOrder reverses", func(t *testing.T) {
			asc := w.walk(t, base+"/delegators?pageSize=100&sortOrder=asc", "delegators")
			desc := w.walk(t, base+"/delegators?pageSize=100&sortOrder=desc", "delegators")
			slices.Reverse(desc)
			if !slices.Equal(asc, desc) {
				t.Fatal("desc is not asc reversed")
			}
		})
		t.Run("validators subnetId and fee", func(t *testing.T) {
			sub := w.dev.Subnets()[0].ID.String()
			items := w.walk(t, base+"/validators?pageSize=100&subnetId="+sub, "validators")
			if len(items) < 3 {
				t.Fatalf("%d subnet validators", len(items))
			}
			for _, it := range items {
				if !strings.Contains(it, sub) || strings.Contains(it, "delegationFee") {
					t.Fatalf("foreign or fee-carrying item: %s", it)
				}
			}
			if got := count(base+"/validators?pageSize=100&subnetId="+sub+"&minFeePercentage=2", "validators"); got != 0 {
				t.Fatalf("fee filter kept %d subnet validations", got)
			}
			if got := count(base+"/validators?pageSize=100&minFeePercentage=2&maxFeePercentage=4", "validators"); got == 0 {
				t.Fatal("no validator with a fee from 2% to 4%")
			}
		})
		t.Run("validators nodeIds substring, capacity, time and uptime", func(t *testing.T) {
			node := w.node(t)
			items := w.walk(t, base+"/validators?pageSize=100&nodeIds="+node[7:20], "validators")
			for _, it := range items {
				if !strings.Contains(it, node) {
					t.Fatalf("item of another node: %s", it)
				}
			}
			if len(items) == 0 {
				t.Fatal("substring matched nothing")
			}
			capped := w.walk(t, base+"/validators?pageSize=100&minDelegationCapacity=1&sortBy=delegationCapacity&sortOrder=asc", "validators")
			var prev uint64
			for _, it := range capped {
				var v glacier.ActiveValidator
				json.Unmarshal([]byte(it), &v)
				c, _ := strconv.ParseUint(v.DelegationCapacity, 10, 64)
				if v.ValidationStatus != "active" || c == 0 || c < prev {
					t.Fatalf("capacity filter or order broken at %s", it)
				}
				prev = c
			}
			if len(capped) == 0 {
				t.Fatal("no validator with capacity")
			}
			// (An L1's validators have no end: no time remains.)
			if got := count(base+"/validators?pageSize=100&maxTimeRemaining=0&validationStatus=active&subnetId=11111111111111111111111111111111LpoYY", "validators"); got != 0 {
				t.Fatalf("%d active primary validators with no time remaining", got)
			}
			l1 := w.l1(t).ID.String()
			if got := count(base+"/validators?pageSize=100&validationStatus=active&subnetId="+l1, "validators"); got != 2 {
				t.Fatalf("%d active validators of the L1; want 2 (the third was disabled)", got)
			}
			if got := count(base+"/validators?pageSize=100&minUptimePerformance=100", "validators"); got != 0 {
				t.Fatalf("%d validators at 100%% uptime", got)
			}
			if got := count(base+"/validators?pageSize=100&minUptimePerformance=90", "validators"); got == 0 {
				t.Fatal("no validator above 90% uptime")
			}
		})
		t.Run("delegators by node and reward address", func(t *testing.T) {
			d := w.dev.Delegations()[0]
			items := w.walk(t, base+"/delegators?pageSize=100&nodeIds="+d.NodeID.String(), "delegators")
			for _, it := range items {
				if !strings.Contains(it, d.NodeID.String()) {
					t.Fatalf("foreign delegator %s", it)
				}
			}
			addr := avax.FormatAddress("P", hrp, d.RewardOwner[0])
			items = w.walk(t, base+"/delegators?pageSize=100&rewardAddresses="+addr, "delegators")
			if len(items) == 0 {
				t.Fatal("no delegator for its own reward address")
			}
			for _, it := range items {
				if !strings.Contains(it, addr) {
					t.Fatalf("foreign delegator %s", it)
				}
			}
		})
		t.Run("pending rewards", func(t *testing.T) {
			kinds := map[string]int{}
			for _, it := range w.walk(t, base+"/rewards:listPending?pageSize=100&nodeIds="+w.node(t), "pendingRewards") {
				var r glacier.PendingReward
				json.Unmarshal([]byte(it), &r)
				kinds[r.RewardType]++
				if r.EstimatedReward.Amount == "0" || r.EstimatedReward.AssetID != w.avaxID("mainnet").String() {
					t.Errorf("reward %s", it)
				}
			}
			if kinds["VALIDATOR"] != 1 || kinds["DELEGATOR"] == 0 || kinds["DELEGATOR"] != kinds["VALIDATOR_FEE"] {
				t.Errorf("reward kinds %v; want the validation's and, per delegation, the delegator's and the validator's fee", kinds)
			}
		})
		t.Run("L1 validators", func(t *testing.T) {
			l1 := w.l1(t).ID.String()
			active := w.walk(t, base+"/l1Validators?pageSize=100&subnetId="+l1, "validators")
			all := w.walk(t, base+"/l1Validators?pageSize=100&includeInactiveL1Validators=true&subnetId="+l1, "validators")
			if len(active) != 2 || len(all) != 3 {
				t.Fatalf("%d active, %d in all; want 2 and 3 (one disabled)", len(active), len(all))
			}
			reg := w.dev.L1Registrations()[0]
			for _, it := range all {
				var v glacier.L1Validator
				json.Unmarshal([]byte(it), &v)
				if v.BLSCredentials.ProofOfPossession == "" || v.RemainingBalanceOwner.Addresses[0] != avax.FormatBech32(hrp, w.dev.Ewoq()) {
					t.Errorf("L1 validator %s", it)
				}
				if v.NodeID == reg.NodeID.String() && (v.Weight != 80 || v.ValidationID != reg.ValidationID().String()) {
					t.Errorf("the registered validator: %s; want weight 80 after its SetL1ValidatorWeightTx", it)
				}
			}
		})
		t.Run("transactions by type, address and time", func(t *testing.T) {
			imports := w.walk(t, base+"/blockchains/p-chain/transactions?pageSize=100&txTypes=ImportTx,ExportTx", "transactions")
			if len(imports) != len(w.dev.Addresses())+1 {
				t.Fatalf("%d P-Chain imports and exports; want one import per address and one export", len(imports))
			}
			for _, it := range imports {
				var tx glacier.PChainTx
				json.Unmarshal([]byte(it), &tx)
				x := w.xChain("mainnet").String()
				if !(tx.TxType == "ImportTx" && tx.SourceChain == x) && !(tx.TxType == "ExportTx" && tx.DestinationChain == x) {
					t.Fatalf("%s", it)
				}
			}
			all := w.walk(t, base+"/blockchains/x-chain/transactions?pageSize=100", "transactions")
			var mid glacier.XChainTx
			json.Unmarshal([]byte(all[len(all)/2]), &mid)
			after := w.walk(t, base+"/blockchains/x-chain/transactions?pageSize=100&startTimestamp="+strconv.FormatInt(mid.Timestamp, 10), "transactions")
			before := w.walk(t, base+"/blockchains/x-chain/transactions?pageSize=100&endTimestamp="+strconv.FormatInt(mid.Timestamp-1, 10), "transactions")
			if len(after)+len(before) != len(all) || len(after) == 0 || len(before) == 0 {
				t.Fatalf("after %d + before %d != %d", len(after), len(before), len(all))
			}
			// Two assets: AVAX at genesis, Devnet Gold in block 2.
			assets := w.walk(t, base+"/blockchains/x-chain/transactions?pageSize=100&txTypes=CreateAssetTx", "transactions")
			var symbols []string
			for _, it := range assets {
				var created glacier.XChainTx
				json.Unmarshal([]byte(it), &created)
				if created.AssetCreated != nil {
					symbols = append(symbols, created.AssetCreated.Symbol)
				}
			}
			if !slices.Equal(symbols, []string{"DGLD", "AVAX"}) {
				t.Fatalf("CreateAssetTx listing: assets %v; want DGLD, AVAX", symbols)
			}
		})
		if w.devnet {
			t.Run("blocks of a node in a time window", func(t *testing.T) {
				node := w.node(t)
				all := w.walk(t, base+"/blockchains/p-chain/nodes/"+node+"/blocks?pageSize=100", "blocks")
				if len(all) < 3 {
					t.Fatalf("%d blocks", len(all))
				}
				var mid glacier.PrimaryBlock
				json.Unmarshal([]byte(all[len(all)/2]), &mid)
				ts := strconv.FormatInt(mid.BlockTimestamp, 10)
				after := w.walk(t, base+"/blockchains/p-chain/nodes/"+node+"/blocks?pageSize=100&startTimestamp="+ts, "blocks")
				before := w.walk(t, base+"/blockchains/p-chain/nodes/"+node+"/blocks?pageSize=100&endTimestamp="+strconv.FormatInt(mid.BlockTimestamp-1, 10), "blocks")
				if len(after)+len(before) != len(all) || len(after) == 0 || len(before) == 0 {
					t.Fatalf("after %d + before %d != %d", len(after), len(before), len(all))
				}
				for _, it := range all {
					var b glacier.PrimaryBlock
					json.Unmarshal([]byte(it), &b)
					if b.ProposerDetails == nil || b.ProposerDetails.ProposerNodeID != node || b.CurrentSupply == "" {
						t.Fatalf("block of another proposer or without its supply: %s", it)
					}
				}
			})
		}
		t.Run("chain ids", func(t *testing.T) {
			m := w.getOK(t, base+"/addresses:listChainIds?addresses="+ewoqX)
			got := m["addresses"].([]any)[0].(map[string]any)["blockchainIds"].([]any)
			n := named("mainnet")
			if want := []any{avanet.PChainID, n.XChainID, n.CChainID}; !slices.Equal(got, want) {
				t.Fatalf("blockchainIds = %v; want %v", got, want)
			}
		})
	})
}

func TestErrors(t *testing.T) {
	each(t, func(t *testing.T, w *world) {
		node := w.node(t)
		tests := []struct {
			name, path string
			code       int
			msg        string
		}{
			{"bad network", "/v1/networks/devnet/subnets", 400, "network must be one of"},
			{"bad token", "/v1/networks/fuji/subnets?pageToken=nope", 400, "Invalid page token"},
			{"foreign token", "/v1/networks/fuji/delegators?pageToken=00000000-0000-0000-0000-000000000000", 400, "Invalid page token"},
			{"page size", "/v1/networks/fuji/delegators?pageSize=101", 400, "pageSize must not be greater than 100"},
			{"sort order", "/v1/networks/fuji/delegators?sortOrder=up", 400, "sortOrder must be one of"},
			{"status", "/v1/networks/fuji/validators?validationStatus=done", 400, "validationStatus must be one of"},
			{"unknown node", "/v1/networks/fuji/validators/NodeID-111111111111111111116DBWJs", 404, "not found"},
			{"bad node", "/v1/networks/fuji/validators/NodeID-xyz", 400, "nodeId"},
			{"utxo chain", "/v1/networks/fuji/blockchains/q-chain/utxos", 400, "blockchainId"},
			{"bad address", "/v1/networks/fuji/blockchains/p-chain/utxos?addresses=P-fuji1xyz", 400, "invalid address"},
			{"includeSpent", "/v1/networks/fuji/blockchains/p-chain/utxos?includeSpent=yes", 400, "includeSpent"},
			{"minUtxoAmount", "/v1/networks/fuji/blockchains/p-chain/utxos?minUtxoAmount=-1", 400, "minUtxoAmount"},
			{"rewards need a filter", "/v1/networks/fuji/rewards:listPending", 400, "at least one of addresses, nodeIds"},
			{"chain ids need addresses", "/v1/networks/fuji/addresses:listChainIds", 400, "addresses should not be empty"},
			{"unknown subnet", "/v1/networks/fuji/subnets/11111111111111111111111111111111LpoYY", 404, "not found"},
			{"bad subnet", "/v1/networks/fuji/subnets/zzz", 400, "subnetId"},
			{"fee range", "/v1/networks/fuji/validators?minFeePercentage=1", 400, "minFeePercentage"},
			{"capacity", "/v1/networks/fuji/validators?minDelegationCapacity=-5", 400, "minDelegationCapacity"},
			{"empty list item", "/v1/networks/fuji/validators?nodeIds=a,,b", 400, "comma-separated"},
			{"bad node filter", "/v1/networks/fuji/delegators?nodeIds=" + node + "x", 400, "invalid node id"},
			{"unknown block", "/v1/networks/fuji/blockchains/p-chain/blocks/11111111111111111111111111111111LpoYY", 404, "not found"},
			{"unknown tx", "/v1/networks/fuji/blockchains/x-chain/transactions/11111111111111111111111111111111LpoYY", 404, "not found"},
			{"tx of another chain", "/v1/networks/fuji/blockchains/x-chain/transactions/" + w.txOf(t, "P", "ImportTx"), 404, "not found on the x-chain"},
			{"bad tx type", "/v1/networks/fuji/blockchains/p-chain/transactions?txTypes=NopeTx", 400, "txTypes"},
		}
		if w.devnet {
			tests = append(tests, struct {
				name, path string
				code       int
				msg        string
			}{"unknown node blocks", "/v1/networks/fuji/blockchains/p-chain/nodes/NodeID-111111111111111111116DBWJs/blocks", 404, "not found"})
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				code, body := w.get(t, tt.path)
				if code != tt.code {
					t.Fatalf("status = %d %s; want %d", code, body, tt.code)
				}
				var b struct {
					Message    any    `json:"message"`
					StatusCode int    `json:"statusCode"`
					Error      string `json:"error"`
				}
				if err := json.Unmarshal(body, &b); err != nil || b.StatusCode != tt.code || b.Error == "" {
					t.Fatalf("error body %s", body)
				}
				if !strings.Contains(string(body), tt.msg) {
					t.Fatalf("body %s; want it to mention %q", body, tt.msg)
				}
			})
		}
	})
}

// TestTokenScope checks that a token of one listing is refused by another.
func TestTokenScope(t *testing.T) {
	each(t, func(t *testing.T, w *world) {
		m := w.getOK(t, "/v1/networks/fuji/delegators?pageSize=1")
		tok := m["nextPageToken"].(string)
		if code, _ := w.get(t, "/v1/networks/fuji/delegators?pageSize=1&delegationStatus=active&pageToken="+tok); code != 400 {
			t.Fatalf("token reused with other filters: %d; want 400", code)
		}
		if code, _ := w.get(t, "/v1/networks/fuji/delegators?pageSize=5&pageToken="+tok); code != 200 {
			t.Fatalf("token with another pageSize: %d; want 200", code)
		}
	})
}

// TestPresentation: the devnet answers as the network named, the followed
// network as itself under every name.
func TestPresentation(t *testing.T) {
	each(t, func(t *testing.T, w *world) {
		for _, network := range []string{"mainnet", "fuji", "testnet"} {
			m := w.getOK(t, "/v1/networks/"+network+"/blockchains/x-chain/utxos?pageSize=100&addresses="+avax.FormatBech32("avax", w.dev.Ewoq()))
			body, _ := json.Marshal(m)
			hrp, avaxID, x := w.hrp(network), w.avaxID(network), w.xChain(network)
			if !strings.Contains(string(body), `"`+hrp+`1`) || !strings.Contains(string(body), avaxID.String()) || !strings.Contains(string(body), x.String()) {
				t.Errorf("%s: want %s addresses, AVAX %s, X-Chain %s: %.300s", network, hrp, avaxID, x, body)
			}
			// The genesis allocation's CreateAssetTx is the AVAX asset.
			code, tx := w.get(t, "/v1/networks/"+network+"/blockchains/x-chain/transactions/"+avaxID.String())
			if code != http.StatusOK || !strings.Contains(string(tx), `"txType":"CreateAssetTx"`) {
				t.Errorf("%s: the genesis CreateAssetTx %s: %d %.300s", network, avaxID, code, tx)
			}
		}
	})
}

func TestDeterministicAnswers(t *testing.T) {
	a, b := devnetWorld(t, newDevnet(t)), devnetWorld(t, newDevnet(t))
	defer a.dev.Close()
	defer b.dev.Close()
	for _, c := range cases(t, a, "mainnet") {
		_, x := a.get(t, c.path)
		_, y := b.get(t, c.path)
		if !bytes.Equal(x, y) {
			t.Errorf("%s differs between two worlds from one seed", c.name)
		}
	}
}

// TestCChainAtomicTransactions: listLatestPrimaryNetworkTransactions takes
// the C-Chain (glacier.json lists it, with the C-Chain atomic transactions'
// shape). Neither world's C-Chain took an atomic transaction (the devnet's
// is its dev chain; the followed index holds the ones its node's blocks
// carry, none here): the list is empty, in that shape, under the alias and
// the chain's id, and getTxByHash finds nothing there. TestCChainAtomicListed
// lists some.
func TestCChainAtomicTransactions(t *testing.T) {
	each(t, func(t *testing.T, w *world) {
		for _, chain := range []string{"c-chain", named("fuji").CChainID} {
			base := "/v1/networks/fuji/blockchains/" + chain + "/transactions"
			code, body := w.get(t, base+"?pageSize=100&sortOrder=asc")
			gcode, gbody := w.get(t, base+"/"+w.txOf(t, avanet.ChainX, "ExportTx"))
			if code != http.StatusOK {
				t.Fatalf("%s: %d %s", chain, code, body)
			}
			validate(t, "ListCChainAtomicTransactionsResponse", body)
			if !strings.Contains(string(body), `"transactions":[]`) || !strings.Contains(string(body), `"chainName":"c-chain"`) {
				t.Errorf("%s: %s; want an empty list", chain, body)
			}
			if gcode != http.StatusNotFound {
				t.Errorf("%s getTxByHash of an X-Chain export: %d %s; want 404", chain, gcode, gbody)
			}
		}
		if code, body := w.get(t, "/v1/networks/fuji/blockchains/c-chain/transactions?pageToken=nope"); code != http.StatusBadRequest {
			t.Errorf("a bad page token: %d %s; want 400", code, body)
		}
	})
}
