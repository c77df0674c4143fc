package dataapi

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/avaedge/avaedge/avanet"
	"github.com/avaedge/avaedge/catalog"
	"github.com/avaedge/avaedge/local/source/devnet"
	"github.com/avaedge/avaedge/local/source/pindex"
	"github.com/avaedge/avaedge/local/vocab/avax"
	"github.com/avaedge/avaedge/local/vocab/glacier"
)

func (w *world) getInto(t *testing.T, path string, v any) {
	t.Helper()
	code, body := w.get(t, path)
	if code != http.StatusOK || json.Unmarshal(body, v) != nil {
		t.Fatalf("GET %s = %d %.500s", path, code, body)
	}
}

// sums adds amounts per asset id.
func sumInto(m map[string]*big.Int, asset, amount string) {
	v, ok := new(big.Int).SetString(amount, 10)
	if !ok {
		panic("amount " + amount)
	}
	if m[asset] == nil {
		m[asset] = new(big.Int)
	}
	m[asset].Add(m[asset], v)
}

// TestBalancesAreTheUTXOs: for every address of the world on every chain,
// getBalancesByAddresses sums per asset exactly the unspent UTXOs
// getUtxosByAddresses lists (staked ones apart on the P-Chain), with their
// counts; now and at a past blockTimestamp.
func TestBalancesAreTheUTXOs(t *testing.T) {
	each(t, func(t *testing.T, w *world) {
		const base = "/v1/networks/fuji/blockchains/"
		hrp := w.hrp("fuji")
		checked := 0
		for _, a := range w.dev.Addresses() {
			addr := avax.FormatBech32(hrp, a)
			for _, chain := range []string{"p-chain", "x-chain", "c-chain"} {
				for _, at := range []int64{0, w.dev.GenesisTime().Unix() + 25*86400} {
					q := "?pageSize=100&addresses=" + addr
					bq := q
					if at != 0 {
						bq += "&blockTimestamp=" + strconv.FormatInt(at, 10)
						q += "&includeSpent=true"
					}
					want, wantN := map[string]*big.Int{}, map[string]int{}
					for _, it := range w.walk(t, base+chain+"/utxos"+q, "utxos") {
						var u struct {
							Asset                     struct{ AssetID, Amount string } `json:"asset"`
							Timestamp, BlockTimestamp int64
							ConsumingTxTimestamp      int64
							ConsumingBlockTimestamp   int64
						}
						json.Unmarshal([]byte(it), &u)
						made, spent := max(u.Timestamp, u.BlockTimestamp), max(u.ConsumingTxTimestamp, u.ConsumingBlockTimestamp)
						if at != 0 && (made > at || spent != 0 && spent <= at) {
							continue
						}
						sumInto(want, u.Asset.AssetID, u.Asset.Amount)
						wantN[u.Asset.AssetID]++
					}
					var b struct {
						Balances map[string][]glacier.AggregatedAmount `json:"balances"`
					}
					w.getInto(t, base+chain+"/balances"+bq, &b)
					got, gotN := map[string]*big.Int{}, map[string]int{}
					for _, part := range b.Balances {
						for _, am := range part {
							sumInto(got, am.AssetID, am.Amount)
							gotN[am.AssetID] += am.UTXOCount
						}
					}
					if fmt.Sprint(got) != fmt.Sprint(want) || fmt.Sprint(gotN) != fmt.Sprint(wantN) {
						t.Errorf("%s on %s at %d: balances %v (%v UTXOs); the UTXOs list %v (%v)", addr, chain, at, got, gotN, want, wantN)
					}
					if len(want) > 0 {
						checked++
					}
				}
			}
		}
		if checked < 20 {
			t.Fatalf("only %d non-empty balances compared", checked)
		}
	})
}

// TestPChainBalanceParts: ewoq's P-Chain balance splits its UTXOs as their
// states say: the devnet's genesis stake of an active validation is staked,
// a pending validation's stake pending, a stakeable-locked UTXO (the third
// address's) locked for staking, atomic exports apart.
func TestPChainBalanceParts(t *testing.T) {
	each(t, func(t *testing.T, w *world) {
		var b glacier.ListBalancesResponse[glacier.PChainBalances]
		third := avax.FormatAddress("P", w.hrp("fuji"), w.dev.Addresses()[2])
		w.getInto(t, "/v1/networks/fuji/blockchains/p-chain/balances?addresses="+third, &b)
		if len(b.Balances.LockedStakeable) != 1 || b.Balances.LockedStakeable[0].Amount != "50000000000000" {
			t.Errorf("the third address's stakeable-locked 50,000 AVAX: %+v", b.Balances)
		}
		var all glacier.ListBalancesResponse[glacier.PChainBalances]
		var addrs []string
		for _, a := range w.dev.Addresses() {
			addrs = append(addrs, avax.FormatAddress("P", w.hrp("fuji"), a))
		}
		w.getInto(t, "/v1/networks/fuji/blockchains/p-chain/balances?addresses="+strings.Join(addrs, ","), &all)
		if len(all.Balances.PendingStaked) != 1 || len(all.Balances.UnlockedUnstaked) != 1 {
			t.Errorf("the world's addresses: %+v; want pending stakes and unlocked AVAX", all.Balances)
		}
		if len(all.Balances.UnlockedStaked) != 1 {
			t.Errorf("unlockedStaked %+v", all.Balances.UnlockedStaked)
		}
	})
}

// TestPChainBalanceStakedThen: at a past blockTimestamp, the stakes that
// were running then are staked (unlockedStaked or lockedStaked) even when
// they ended since: each address's staked parts at the middle of each of
// its ended stakes are exactly its stake outputs running then.
func TestPChainBalanceStakedThen(t *testing.T) {
	each(t, func(t *testing.T, w *world) {
		ctx := context.Background()
		checked := 0
		for _, a := range w.dev.Addresses() {
			all, err := w.src.UTXOs(ctx, avanet.ChainP, []avax.ShortID{a}, true)
			if err != nil {
				t.Fatal(err)
			}
			for _, ended := range all {
				if !ended.Staked || !ended.StakeEnded || ended.CreatedOn != avanet.ChainP {
					continue
				}
				at := max(ended.Time, (ended.StakeStart+ended.StakeEnd)/2)
				var want uint64
				for _, u := range all {
					held := u.Time <= at && (!u.Spent || u.SpentTime > at)
					if held && u.Staked && u.CreatedOn == avanet.ChainP && u.StakeStart <= at && u.StakeEnd > at {
						want += u.Amount
					}
				}
				var b glacier.ListBalancesResponse[glacier.PChainBalances]
				w.getInto(t, "/v1/networks/fuji/blockchains/p-chain/balances?blockTimestamp="+strconv.FormatInt(at, 10)+
					"&addresses="+avax.FormatAddress("P", w.hrp("fuji"), a), &b)
				var got uint64
				for _, am := range slices.Concat(b.Balances.UnlockedStaked, b.Balances.LockedStaked) {
					v, _ := strconv.ParseUint(am.Amount, 10, 64)
					got += v
				}
				if got != want || want == 0 {
					t.Errorf("%s at %d (stake %s ran %d to %d): staked %d nAVAX; want %d (unlockedUnstaked %+v)",
						a, at, ended.TxID, ended.StakeStart, ended.StakeEnd, got, want, b.Balances.UnlockedUnstaked)
				}
				checked++
			}
		}
		if checked == 0 {
			t.Fatal("no ended stake in the world")
		}
		t.Logf("%d ended stakes checked", checked)
	})
}

// TestSupply: the devnet's supply is its genesis plus the rewards paid less
// the fees burned, each the sum of what the transactions' answers say; a
// followed network's is what its node reported, and its genesis that less
// the potential rewards the P-Chain added.
func TestSupply(t *testing.T) {
	each(t, func(t *testing.T, w *world) {
		var s glacier.AvaxSupply
		w.getInto(t, "/v1/avax/supply", &s)
		nano := func(v string) uint64 {
			whole, frac, _ := strings.Cut(v, ".")
			n, err := strconv.ParseUint(whole+(frac + "000000000")[:9], 10, 64)
			if err != nil || len(frac) > 9 {
				t.Fatalf("AVAX amount %q", v)
			}
			return n
		}
		burned := map[string]uint64{}
		for _, chain := range []string{"p-chain", "x-chain"} {
			for _, it := range w.walk(t, "/v1/networks/fuji/blockchains/"+chain+"/transactions?pageSize=100", "transactions") {
				var tx struct {
					AmountBurned   []glacier.AssetAmount `json:"amountBurned"`
					AmountUnlocked []glacier.AssetAmount `json:"amountUnlocked"`
					AmountCreated  []glacier.AssetAmount `json:"amountCreated"`
					TxType         string                `json:"txType"`
				}
				json.Unmarshal([]byte(it), &tx)
				for _, am := range tx.AmountBurned {
					burned[chain] += num(am.Amount)
				}
				if chain == "x-chain" && tx.TxType != "CreateAssetTx" || len(tx.AmountUnlocked) > 0 {
					var in, out uint64
					for _, am := range tx.AmountUnlocked {
						if am.Symbol == "AVAX" {
							in += num(am.Amount)
						}
					}
					for _, am := range tx.AmountCreated {
						if am.Symbol == "AVAX" {
							out += num(am.Amount)
						}
					}
					burned[chain] += in - out
				}
			}
		}
		var rewards uint64
		for _, it := range w.walk(t, "/v1/networks/fuji/rewards?pageSize=100", "historicalRewards") {
			var r glacier.HistoricalReward
			json.Unmarshal([]byte(it), &r)
			rewards += num(r.Reward.Amount)
		}
		l1Fees := nano(s.L1ValidatorFees)
		if nano(s.TotalXBurned) != burned["x-chain"] || nano(s.TotalPBurned) != burned["p-chain"]+l1Fees || nano(s.TotalRewards) != rewards || rewards == 0 {
			t.Errorf("supply %+v; the transactions burned %v, the rewards paid %d", s, burned, rewards)
		}
		if nano(s.GenesisUnlock) != devnet.InitialSupply || nano(s.TotalLocked) != 50_000*1_000_000_000 ||
			nano(s.CirculatingSupply) != nano(s.TotalSupply)-nano(s.TotalLocked) {
			t.Errorf("supply %+v; want the genesis's 360,000,000 and the 50,000 AVAX stakeable-locked", s)
		}
		if w.devnet {
			if want := devnet.InitialSupply + rewards - nano(s.TotalPBurned) - nano(s.TotalXBurned); nano(s.TotalSupply) != want || l1Fees != 0 {
				t.Errorf("the devnet's supply %s; want %d (and no L1 fee: its disabled validator got its balance back)", s.TotalSupply, want)
			}
		} else if rep, _, _ := w.src.Supply(t.Context()); nano(s.TotalSupply) != rep.Current {
			t.Errorf("the followed network's supply %s; its node says %d", s.TotalSupply, rep.Current)
		}
	})
}

// TestNetworkDetails: the counts and sums of the active primary-network
// validators and delegators.
func TestNetworkDetails(t *testing.T) {
	each(t, func(t *testing.T, w *world) {
		var d glacier.NetworkDetails
		w.getInto(t, "/v1/networks/mainnet", &d)
		now := w.dev.Now().Unix()
		var vals, dels int
		var staked, delegated uint64
		versions := map[string]int{}
		for _, v := range w.dev.Validations() {
			if v.SubnetID.IsEmpty() && v.Status(now) == devnet.StatusActive {
				vals++
				staked += v.Weight
				versions[v.Version]++
			}
		}
		for _, x := range w.dev.Delegations() {
			if x.Status(now) == devnet.StatusActive {
				dels++
				delegated += x.Weight
			}
		}
		v := d.ValidatorDetails
		if v.ValidatorCount != vals || v.TotalAmountStaked != u64(staked) || d.DelegatorDetails.DelegatorCount != dels ||
			d.DelegatorDetails.TotalAmountStaked != u64(delegated) || num(v.EstimatedAnnualStakingReward) == 0 {
			t.Errorf("details %+v; the world has %d validators staking %d, %d delegators delegating %d", d, vals, staked, dels, delegated)
		}
		got := map[string]int{}
		for _, s := range v.StakingDistributionByVersion {
			got[s.Version] = s.ValidatorCount
		}
		if w.devnet != (fmt.Sprint(got) == fmt.Sprint(versions)) || !w.devnet && len(got) != 0 {
			t.Errorf("versions %v; the world's %v (only the devnet knows them)", got, versions)
		}
	})
}

// TestBlockchains: every chain the P-Chain made, the X- and C-Chain of its
// genesis included, each found by id (under the requested network's ids
// on the devnet); an unknown id is 404.
func TestBlockchains(t *testing.T) {
	each(t, func(t *testing.T, w *world) {
		for _, network := range []string{"mainnet", "fuji"} {
			base := "/v1/networks/" + network + "/blockchains"
			want := []string{w.xChain(network).String(), w.cChain(network).String()}
			for _, s := range w.dev.Subnets() {
				for _, c := range s.Chains {
					want = append(want, c.ID.String())
				}
			}
			var got []string
			for _, it := range w.walk(t, base+"?pageSize=1&sortOrder=asc", "blockchains") {
				var b glacier.Blockchain
				json.Unmarshal([]byte(it), &b)
				got = append(got, b.BlockchainID)
				var one glacier.Blockchain
				w.getInto(t, base+"/"+b.BlockchainID, &one)
				if fmt.Sprint(one) != fmt.Sprint(b) {
					t.Errorf("getBlockchainById %+v; listed %+v", one, b)
				}
				if b.BlockchainID == w.cChain(network).String() && (b.BlockchainName != "C-Chain" || b.EVMChainID != map[bool]uint64{true: evmChainID(network), false: avanet.Local.EVMChainID}[w.devnet]) {
					t.Errorf("the C-Chain %+v", b)
				}
			}
			if !slices.Equal(got, want) {
				t.Errorf("%s: blockchains %v; want %v", network, got, want)
			}
		}
		if code, _ := w.get(t, "/v1/networks/fuji/blockchains/"+avax.Hash256([]byte("none")).String()); code != http.StatusNotFound {
			t.Errorf("an unknown blockchain: %d; want 404", code)
		}
	})
}

// TestAssets: AVAX (the X-Chain's genesis) and Devnet Gold are described
// as their CreateAssetTxs made them; an asset's transactions are those that
// moved it, its creation first.
func TestAssets(t *testing.T) {
	each(t, func(t *testing.T, w *world) {
		base := "/v1/networks/fuji/blockchains/x-chain/assets/"
		var a glacier.AssetDetails
		w.getInto(t, base+w.avaxID("fuji").String(), &a)
		if a.Name != "Avalanche" || a.Symbol != "AVAX" || a.Denomination != 9 || a.Cap != "fixed" || a.CreatedAtTimestamp != w.dev.GenesisTime().Unix() {
			t.Errorf("AVAX: %+v", a)
		}
		gold := w.txOf(t, avanet.ChainX, "CreateAssetTx")
		w.getInto(t, base+gold, &a)
		if a.Name != "Devnet Gold" || a.Symbol != "DGLD" || a.Denomination != 2 || a.AssetID != gold {
			t.Errorf("Devnet Gold: %+v", a)
		}
		var txs []string
		for _, it := range w.walk(t, base+gold+"/transactions?pageSize=1", "transactions") {
			var tx glacier.XChainTx
			json.Unmarshal([]byte(it), &tx)
			txs = append(txs, tx.TxType)
			if !strings.Contains(it, gold) {
				t.Errorf("listed without the asset: %.300s", it)
			}
		}
		if len(txs) != 2 || txs[1] != "CreateAssetTx" {
			t.Errorf("Devnet Gold's transactions %v; want its transfer, then its creation", txs)
		}
		if got := w.walk(t, base+gold+"/transactions?txTypes=CreateAssetTx,ImportTx", "transactions"); len(got) != 1 {
			t.Errorf("txTypes=CreateAssetTx,ImportTx kept %d", len(got))
		}
		avaxTxs := w.walk(t, base+w.avaxID("fuji").String()+"/transactions?pageSize=100", "transactions")
		all := w.walk(t, "/v1/networks/fuji/blockchains/x-chain/transactions?pageSize=100", "transactions")
		if len(avaxTxs) != len(all) { // every transaction pays its fee in AVAX
			t.Errorf("%d AVAX transactions; the X-Chain lists %d", len(avaxTxs), len(all))
		}
		if code, _ := w.get(t, base+avax.Hash256([]byte("none")).String()); code != http.StatusNotFound {
			t.Errorf("an unknown asset: %d; want 404", code)
		}
	})
}

// TestLastActivity: the latest transaction that made or spent one of an
// address's UTXOs on the chain, by GET and by the v2 POST; 404 for an
// address without any.
func TestLastActivity(t *testing.T) {
	each(t, func(t *testing.T, w *world) {
		ewoq := avax.FormatAddress("X", w.hrp("fuji"), w.dev.Ewoq())
		path := "/v1/networks/fuji/blockchains/x-chain/lastActivityTimestampByAddresses"
		var got glacier.LastActivity
		w.getInto(t, path+"?addresses="+ewoq, &got)
		latest := w.walk(t, "/v1/networks/fuji/blockchains/x-chain/transactions?pageSize=1&addresses="+ewoq, "transactions")[0]
		var tx glacier.XChainTx
		json.Unmarshal([]byte(latest), &tx)
		if got.TxHash != tx.TxHash || got.Timestamp != tx.Timestamp || got.BlockNumber != u64(tx.BlockHeight) || got.ChainName != "x-chain" ||
			got.Network != "fuji" || !strings.Contains(latest, got.UTXOID) {
			t.Errorf("last activity %+v; ewoq's latest transaction %s at %d", got, tx.TxHash, tx.Timestamp)
		}
		rec := httptest.NewRecorder()
		w.mux.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, path, strings.NewReader(`{"addresses":"`+ewoq+`"}`)))
		if rec.Code != 200 || strings.TrimSpace(rec.Body.String()) != strings.TrimSpace(mustJSON(got)) {
			t.Errorf("POST = %d %s; GET %s", rec.Code, rec.Body, mustJSON(got))
		}
		none := avax.FormatAddress("X", w.hrp("fuji"), avax.ShortID{9})
		if code, _ := w.get(t, path+"?addresses="+none); code != http.StatusNotFound {
			t.Errorf("an address without activity: %d; want 404", code)
		}
	})
}

func mustJSON(v any) string { b, _ := json.Marshal(v); return string(b) }

// TestUTXOsV2: the POST route with the addresses in its body lists what the
// GET lists.
func TestUTXOsV2(t *testing.T) {
	each(t, func(t *testing.T, w *world) {
		var addrs []string
		for _, a := range w.dev.Addresses() {
			addrs = append(addrs, avax.FormatAddress("P", w.hrp("fuji"), a))
		}
		q := "?pageSize=100&includeSpent=true&sortBy=amount"
		_, get := w.get(t, "/v1/networks/fuji/blockchains/p-chain/utxos"+q+"&addresses="+strings.Join(addrs, ","))
		rec := httptest.NewRecorder()
		w.mux.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/v1/networks/fuji/blockchains/p-chain/utxos"+q,
			strings.NewReader(`{"addresses":"`+strings.Join(addrs, ",")+`"}`)))
		var a, b struct{ UTXOs []json.RawMessage }
		json.Unmarshal(get, &a)
		json.Unmarshal(rec.Body.Bytes(), &b) // their page tokens differ: each binds its route
		if rec.Code != 200 || fmt.Sprint(a) != fmt.Sprint(b) || len(a.UTXOs) != 100 {
			t.Errorf("POST = %d %.300s; GET %.300s", rec.Code, rec.Body, get)
		}
	})
}

// TestStakingTxs: the active staking transactions an address funded or is
// rewarded by; every active one without addresses.
func TestStakingTxs(t *testing.T) {
	each(t, func(t *testing.T, w *world) {
		now := w.dev.Now().Unix()
		active := map[string]bool{}
		owners := map[string][]avax.ShortID{}
		for _, v := range w.dev.Validations() {
			if v.Status(now) == devnet.StatusActive && v.SubnetID != w.l1(t).ID && (w.devnet || !isGenesis(w, v.TxID.String())) {
				active[v.TxID.String()] = true
				owners[v.TxID.String()] = v.RewardOwner
			}
		}
		for _, d := range w.dev.Delegations() {
			if d.Status(now) == devnet.StatusActive {
				active[d.TxID.String()] = true
				owners[d.TxID.String()] = d.RewardOwner
			}
		}
		base := "/v1/networks/fuji/blockchains/p-chain/transactions:listStaking?pageSize=7"
		listed := map[string]bool{}
		for _, it := range w.walk(t, base, "transactions") {
			var tx glacier.PChainTx
			json.Unmarshal([]byte(it), &tx)
			listed[tx.TxHash] = true
		}
		// (The followed index has no transaction of the genesis stakers.)
		for id := range active {
			if !listed[id] {
				t.Errorf("active staking tx %s is not listed", id)
			}
		}
		if len(listed) < 10 {
			t.Errorf("%d active staking txs listed", len(listed))
		}
		for id := range listed {
			if !active[id] {
				t.Errorf("%s listed; it is not an active staking tx", id)
			}
		}
		third := w.dev.Addresses()[2]
		var want []string
		for id, o := range owners {
			if slices.Contains(o, third) && active[id] {
				want = append(want, id)
			}
		}
		if len(want) == 0 {
			t.Fatal("the third address is rewarded by no active stake")
		}
		var got []string
		for _, it := range w.walk(t, base+"&addresses="+avax.FormatAddress("P", w.hrp("fuji"), third), "transactions") {
			var tx glacier.PChainTx
			json.Unmarshal([]byte(it), &tx)
			got = append(got, tx.TxHash)
		}
		for _, id := range want {
			if !slices.Contains(got, id) {
				t.Errorf("the third address is rewarded by %s; not listed in %v", id, got)
			}
		}
		if typed := w.walk(t, base+"&txTypes=AddPermissionlessDelegatorTx", "transactions"); len(typed) == 0 || len(typed) >= len(listed) {
			t.Errorf("txTypes=AddPermissionlessDelegatorTx kept %d of %d", len(typed), len(listed))
		}
	})
}

func mustID(s string) avax.ID { id, _ := avax.ParseID(s); return id }

// isGenesis reports whether a P-Chain tx is one of the devnet's genesis
// stakers', which no block lists.
func isGenesis(w *world, id string) bool {
	tx, ok := w.dev.PTx(mustID(id))
	return ok && tx.Height == 0
}

// TestRewards: every completed validation's and delegation's reward, as its
// RewardValidatorTx paid it: the delegator's share of a delegation's
// reward, a validation's reward and its delegation fees.
func TestRewards(t *testing.T) {
	each(t, func(t *testing.T, w *world) {
		now := w.dev.Now().Unix()
		want := map[string]string{} // staking tx|kind -> amount
		for _, v := range w.dev.Validations() {
			if v.SubnetID.IsEmpty() && v.Status(now) == devnet.StatusCompleted {
				want[v.TxID.String()+"|VALIDATOR"] = u64(v.Reward)
				if v.DelegationReward > 0 {
					want[v.TxID.String()+"|VALIDATOR_FEE"] = u64(v.DelegationReward)
				}
			}
		}
		for _, d := range w.dev.Delegations() {
			if d.Status(now) == devnet.StatusCompleted {
				want[d.TxID.String()+"|DELEGATOR"] = u64(d.NetReward)
			}
		}
		got := map[string]string{}
		var times []int64
		for _, it := range w.walk(t, "/v1/networks/fuji/rewards?pageSize=3", "historicalRewards") {
			var r glacier.HistoricalReward
			json.Unmarshal([]byte(it), &r)
			got[r.TxHash+"|"+r.RewardType] = r.Reward.Amount
			times = append(times, r.EndTimestamp)
			if r.RewardTxHash == "" || r.UTXOID == "" || len(r.Addresses) != 1 || strings.HasPrefix(r.Addresses[0], "P-") {
				t.Errorf("reward %+v", r)
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(want) || len(want) < 4 {
			t.Errorf("rewards %v; the world paid %v", got, want)
		}
		// Newest first: each is paid as its stake ends.
		if !slices.IsSortedFunc(times, func(a, b int64) int { return cmp.Compare(b, a) }) {
			t.Errorf("rewards' end times %v; want the newest first", times)
		}
		node := ""
		for _, d := range w.dev.Delegations() {
			if d.Status(now) == devnet.StatusCompleted {
				node = d.NodeID.String()
			}
		}
		for _, it := range w.walk(t, "/v1/networks/fuji/rewards?nodeIds="+node, "historicalRewards") {
			if !strings.Contains(it, node) {
				t.Errorf("nodeIds=%s kept %s", node, it)
			}
		}
	})
}

// TestVertices: both worlds' X-Chains are linear from their genesis: no
// vertex at any height, none by hash.
func TestVertices(t *testing.T) {
	each(t, func(t *testing.T, w *world) {
		for _, p := range []string{"/vertices", "/vertices:listByHeight?vertexHeight=0", "/vertices:listByHeight?vertexHeight=5"} {
			var v glacier.ListVerticesResponse
			w.getInto(t, "/v1/networks/fuji/blockchains/x-chain"+p, &v)
			if len(v.Vertices) != 0 || v.ChainInfo.ChainName != "x-chain" {
				t.Errorf("%s: %+v", p, v)
			}
		}
		if code, _ := w.get(t, "/v1/networks/fuji/blockchains/x-chain/vertices/"+w.xChain("fuji").String()); code != http.StatusNotFound {
			t.Errorf("a vertex by hash: %d; want 404", code)
		}
	})
}

// TestL1ValidationFilter: the transactions of one L1 validation: its
// registration and the changes of its weight and balance, and its
// disabling.
func TestL1ValidationFilter(t *testing.T) {
	each(t, func(t *testing.T, w *world) {
		for _, c := range w.dev.L1Changes() {
			var types []string
			for _, it := range w.walk(t, "/v1/networks/fuji/blockchains/p-chain/transactions?pageSize=100&l1ValidationId="+c.ValidationID.String(), "transactions") {
				var tx glacier.PChainTx
				json.Unmarshal([]byte(it), &tx)
				types = append(types, tx.TxType)
			}
			if !slices.Contains(types, c.Kind) || len(types) < 2 {
				t.Errorf("validation %s: %v; want its %s and its creation", c.ValidationID, types, c.Kind)
			}
		}
		if got := w.walk(t, "/v1/networks/fuji/blockchains/p-chain/transactions?l1ValidationId="+avax.Hash256([]byte("none")).String(), "transactions"); len(got) != 0 {
			t.Errorf("an unknown validation's txs: %d", len(got))
		}
	})
}

// TestVerticesOfAFollowedNetwork: a network started after the X-Chain's
// linearization (a local network) has a block 0 whose parent is the stop
// vertex avalanchego builds over an empty DAG: no vertex, 200 and 404. One
// whose block 0 names another stop vertex (mainnet's, fuji's) had a DAG the
// index does not hold: 503.
func TestVerticesOfAFollowedNetwork(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name   string
		parent func(x avax.ID) avax.ID
		want   int
	}{
		{"empty DAG", emptyStopVertex, http.StatusOK},
		{"a DAG", func(avax.ID) avax.ID { return avax.Hash256([]byte("a stop vertex over a DAG")) }, http.StatusServiceUnavailable},
	} {
		t.Run(tc.name, func(t *testing.T) {
			net := newDevnet(t).Index().Network()
			ix, err := pindex.Open(ctx, pindex.Options{Network: &net, Path: pindex.Memory})
			if err != nil {
				t.Fatal(err)
			}
			defer ix.Close()
			b0, _ := json.Marshal(map[string]any{"id": avax.Hash256([]byte("x block 0")).String(), "parentID": tc.parent(avax.MustParseID(net.XChainID)).String(),
				"height": 0, "time": 1000, "txs": []any{}})
			if err := ix.Append(ctx, avanet.ChainX, []*pindex.RawBlock{{Height: 0, JSON: b0}}); err != nil {
				t.Fatal(err)
			}
			mux := catalog.NewMux(catalog.Catalogue(), Handlers(Options{Source: reported{ix, pindex.Supply{}}}))
			get := func(path string) int {
				rec := httptest.NewRecorder()
				mux.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/v1/networks/fuji/blockchains/x-chain"+path, nil))
				return rec.Code
			}
			byHash := http.StatusNotFound
			if tc.want != http.StatusOK {
				byHash = tc.want
			}
			for path, want := range map[string]int{"/vertices": tc.want, "/vertices:listByHeight?vertexHeight=0": tc.want,
				"/vertices/" + avax.Hash256([]byte("v")).String(): byHash} {
				if got := get(path); got != want {
					t.Errorf("%s = %d; want %d", path, got, want)
				}
			}
		})
	}
}
