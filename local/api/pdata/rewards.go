package pdata

import (
	"cmp"
	"encoding/json"
	"slices"

	"github.com/avaedge/avaedge/local/apireq"
	"github.com/avaedge/avaedge/local/avax"
)

// staker is a primary-network validator or delegator in
// platform.getCurrentValidators, with the reward the node expects for it.
type staker struct {
	TxID            string `json:"txID"`
	NodeID          string `json:"nodeID"`
	StartTime       string `json:"startTime"`
	EndTime         string `json:"endTime"`
	Weight          string `json:"weight"`
	PotentialReward string `json:"potentialReward"`
	RewardOwner     *struct {
		Addresses []string `json:"addresses"`
	} `json:"validationRewardOwner"`
	DelegatorRewardOwner *struct {
		Addresses []string `json:"addresses"`
	} `json:"rewardOwner"`
	Delegators []staker `json:"delegators"`
}

// listPendingRewards is listPendingPrimaryNetworkRewards: the rewards the
// followed node expects for the primary network's current validations and
// delegations (potentialReward), as it last listed them.
func (a *api) listPendingRewards(q *req) (any, *apireq.Error) {
	size := q.PageSize(10)
	desc := q.Desc()
	addrs := q.Addresses("addresses")
	nodes := q.List("nodeIds")
	if len(q.Errs) > 0 {
		return nil, nil
	}
	raw, _, ok, err := a.ix.CurrentValidators(q.R.Context(), avax.EmptyID.String())
	if err != nil {
		return nil, apireq.Internal(err)
	}
	var cur struct {
		Validators []staker `json:"validators"`
	}
	if ok {
		if err := json.Unmarshal(raw, &cur); err != nil {
			return nil, apireq.Internal(err)
		}
	}
	now := q.Now.Unix()
	var items []pendingReward
	add := func(s staker, kind string, owner []string) {
		owners := make([]avax.ShortID, 0, len(owner))
		for _, o := range owner {
			if _, _, a, err := avax.ParseAddress(o); err == nil {
				owners = append(owners, a)
			}
		}
		if len(addrs) > 0 && !slices.ContainsFunc(owners, func(x avax.ShortID) bool { return slices.Contains(addrs, x) }) {
			return
		}
		if len(nodes) > 0 && !slices.Contains(nodes, s.NodeID) {
			return
		}
		start, end := int64(num(s.StartTime)), int64(num(s.EndTime))
		progress := 0.0
		if end > start {
			progress = min(100, max(0, float64(now-start)/float64(end-start)*100))
		}
		am := assetAmount{AssetID: q.net.Avax, Name: "Avalanche", Symbol: "AVAX", Denomination: 9, Type: "secp256k1", Amount: u64(num(s.PotentialReward))}
		items = append(items, pendingReward{Addresses: q.bech32("", owners), TxHash: s.TxID, AmountStaked: u64(num(s.Weight)), NodeID: s.NodeID,
			StartTimestamp: start, EndTimestamp: end, RewardType: kind, Progress: progress, EstimatedReward: am})
	}
	for _, v := range cur.Validators {
		if v.RewardOwner != nil {
			add(v, "VALIDATOR", v.RewardOwner.Addresses)
		}
		for _, d := range v.Delegators {
			if d.DelegatorRewardOwner != nil {
				add(d, "DELEGATOR", d.DelegatorRewardOwner.Addresses)
			}
		}
	}
	apireq.Order(items, desc, func(x, y pendingReward) bool {
		return cmp.Or(cmp.Compare(x.StartTimestamp, y.StartTimestamp), cmp.Compare(x.TxHash, y.TxHash), cmp.Compare(x.RewardType, y.RewardType)) < 0
	})
	page, next, herr := apireq.Paginate(q.Req, items, size, q.Scope())
	if herr != nil {
		return nil, herr
	}
	if page == nil {
		page = []pendingReward{}
	}
	return listPendingRewardsResponse{NextPageToken: next, PendingRewards: page}, nil
}
