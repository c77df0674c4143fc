package dataapi

import (
	"cmp"
	"slices"

	"github.com/avaedge/avaedge/local/api/apireq"
	"github.com/avaedge/avaedge/local/source/pindex"
	"github.com/avaedge/avaedge/local/vocab/avax"
	"github.com/avaedge/avaedge/local/vocab/glacier"
)

// shareOf returns the validator's share (its fee, in millionths) of a
// reward.
func shareOf(reward uint64, shares uint32) uint64 { return reward * uint64(shares) / 1_000_000 }

// grossOf returns the reward before the validator's share of which net is
// what remains: the least gross with gross - shareOf(gross) = net.
func grossOf(net uint64, shares uint32) uint64 {
	if shares >= 1_000_000 {
		return net
	}
	g := net * 1_000_000 / (1_000_000 - uint64(shares))
	for g > net && g-1-shareOf(g-1, shares) >= net {
		g--
	}
	for g-shareOf(g, shares) < net {
		g++
	}
	return g
}

// validatorOf returns the validation of stakes that delegation d delegates
// to: its node's primary validation spanning it.
func validatorOf(d *pindex.Stake, stakes []*pindex.Stake) *pindex.Stake {
	for _, v := range stakes {
		if v.Kind == "validator" && v.NodeID == d.NodeID && v.Start <= d.Start && (v.End == 0 || d.End <= v.End) {
			return v
		}
	}
	return nil
}

// potential returns the network's current delegators by staking tx id.
func (a *api) potential(q *req) (map[string]current, *apireq.Error) {
	cur, herr := a.currentOf(q, pindex.PrimaryNetworkID)
	if herr != nil {
		return nil, herr
	}
	out := map[string]current{}
	for _, v := range cur {
		for _, d := range v.Delegators {
			out[d.TxID] = d
		}
	}
	return out, nil
}

// listDelegators lists the indexed delegations. An active one's rewards are
// estimated from the network's potential reward for it; a completed one's
// are what its RewardValidatorTx paid (zero when no reward UTXOs are
// indexed); a pending one has no estimate yet.
func (a *api) listDelegators(q *req) (any, error) {
	size := q.PageSize(10)
	desc := q.Desc()
	status := q.Q.Get("delegationStatus")
	addrs := q.Addresses("rewardAddresses")
	nodes := q.NodeIDs("nodeIds")
	if len(q.Errs) > 0 {
		return nil, nil
	}
	stakes, err := a.src.Stakes(q.ctx)
	if err != nil {
		return nil, apireq.Internal(err)
	}
	potential, herr := a.potential(q)
	if herr != nil {
		return nil, herr
	}
	now := a.src.Now().Unix()
	type item struct {
		s      *pindex.Stake
		status string
	}
	var items []item
	for _, s := range stakes {
		if s.Kind != "delegator" {
			continue
		}
		st := stakeStatus(s, now)
		switch {
		case status != "" && st != status,
			len(addrs) > 0 && !slices.ContainsFunc(s.RewardOwner, func(x avax.ShortID) bool { return slices.Contains(addrs, x) }),
			len(nodes) > 0 && !slices.Contains(nodes, s.NodeID):
			continue
		}
		items = append(items, item{s, st})
	}
	apireq.Order(items, desc, func(x, y item) bool {
		return cmp.Or(cmp.Compare(x.s.Start, y.s.Start), cmp.Compare(x.s.TxID, y.s.TxID)) < 0
	})
	page, next, herr := apireq.Paginate(q.Req, items, size, q.Scope())
	if herr != nil {
		return nil, herr
	}
	out := glacier.ListDelegatorsResponse{NextPageToken: next, Delegators: []glacier.Delegator{}}
	for _, it := range page {
		s := it.s
		var shares uint32
		if v := validatorOf(s, stakes); v != nil {
			shares = v.Fee
		}
		d := glacier.Delegator{TxHash: s.TxID, NodeID: s.NodeID.String(), RewardAddresses: q.bech32("P", s.RewardOwner),
			AmountDelegated: u64(s.Weight), DelegationFee: feePercent(shares), StartTimestamp: s.Start, EndTimestamp: s.End, DelegationStatus: it.status}
		switch it.status {
		case "completed":
			net := s.Rewards["DELEGATOR"]
			d.GrossReward, d.NetReward = u64(grossOf(net, shares)), u64(net)
		default:
			gross := num(potential[s.TxID].PotentialReward)
			d.EstimatedGrossReward, d.EstimatedNetReward = u64(gross), u64(gross-shareOf(gross, shares))
		}
		out.Delegators = append(out.Delegators, d)
	}
	return out, nil
}

// listPendingRewards is listPendingPrimaryNetworkRewards: the rewards the
// network expects for the primary network's current validations and
// delegations (potentialReward), as it last listed them: VALIDATOR for a
// validation, DELEGATOR and VALIDATOR_FEE (the validator's share, paid to
// its delegation reward owner) for a delegation.
func (a *api) listPendingRewards(q *req) (any, error) {
	size := q.PageSize(10)
	desc := q.Desc()
	addrs := q.Addresses("addresses")
	nodes := q.NodeIDs("nodeIds")
	if len(q.Errs) > 0 {
		return nil, nil
	}
	cur, herr := a.currentOf(q, pindex.PrimaryNetworkID)
	if herr != nil {
		return nil, herr
	}
	now := a.src.Now().Unix()
	var items []glacier.PendingReward
	add := func(s current, kind string, owner *apiOwner, amount uint64) {
		if owner == nil {
			return
		}
		var owners []avax.ShortID
		for _, o := range owner.Addresses {
			if _, _, a, err := avax.ParseAddress(o); err == nil {
				owners = append(owners, a)
			}
		}
		node, err := avax.ParseNodeID(s.NodeID)
		if err != nil ||
			len(addrs) > 0 && !slices.ContainsFunc(owners, func(x avax.ShortID) bool { return slices.Contains(addrs, x) }) ||
			len(nodes) > 0 && !slices.Contains(nodes, node) {
			return
		}
		start, end := int64(num(s.StartTime)), int64(num(s.EndTime))
		progress := 0.0
		if end > start {
			progress = min(100, max(0, float64(now-start)/float64(end-start)*100))
		}
		v := q.view
		am := glacier.AssetAmount{AssetID: v.avaxID.String(), Name: "Avalanche", Symbol: "AVAX", Denomination: 9, Type: "secp256k1", Amount: u64(amount)}
		items = append(items, glacier.PendingReward{Addresses: q.bech32("", owners), TxHash: s.TxID, AmountStaked: u64(num(s.Weight)),
			NodeID: s.NodeID, StartTimestamp: start, EndTimestamp: end, RewardType: kind, Progress: progress, EstimatedReward: am})
	}
	for _, v := range cur {
		if v.TxID == "" {
			continue
		}
		add(v, "VALIDATOR", v.RewardOwner, num(v.PotentialReward))
		shares := uint32(float(v.DelegationFee)*10000 + 0.5)
		for _, d := range v.Delegators {
			gross := num(d.PotentialReward)
			fee := shareOf(gross, shares)
			add(d, "DELEGATOR", d.DelegatorOwner, gross-fee)
			if fee > 0 {
				add(d, "VALIDATOR_FEE", cmp.Or(v.DelegationOwner, v.RewardOwner), fee)
			}
		}
	}
	apireq.Order(items, desc, func(x, y glacier.PendingReward) bool {
		return cmp.Or(cmp.Compare(x.StartTimestamp, y.StartTimestamp), cmp.Compare(x.TxHash, y.TxHash), cmp.Compare(x.RewardType, y.RewardType)) < 0
	})
	page, next, herr := apireq.Paginate(q.Req, items, size, q.Scope())
	if herr != nil {
		return nil, herr
	}
	if page == nil {
		page = []glacier.PendingReward{}
	}
	return glacier.ListPendingRewardsResponse{NextPageToken: next, PendingRewards: page}, nil
}
