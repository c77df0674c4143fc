package dataapi

import (
	"cmp"
	"math/big"
	"slices"
	"strconv"
	"strings"

	"github.com/avaedge/avaedge/local/apireq"
	"github.com/avaedge/avaedge/local/avax"
	"github.com/avaedge/avaedge/local/source/devnet"
)

type validatorBase struct {
	TxHash         string          `json:"txHash"`
	NodeID         string          `json:"nodeId"`
	SubnetID       string          `json:"subnetId"`
	AmountStaked   string          `json:"amountStaked"`
	DelegationFee  string          `json:"delegationFee,omitempty"`
	StartTimestamp int64           `json:"startTimestamp"`
	EndTimestamp   int64           `json:"endTimestamp"`
	BLSCredentials *blsCredentials `json:"blsCredentials,omitempty"`
}

type geolocation struct {
	City        string  `json:"city"`
	Country     string  `json:"country"`
	CountryCode string  `json:"countryCode"`
	Latitude    float64 `json:"latitude"`
	Longitude   float64 `json:"longitude"`
}

type activeValidator struct {
	validatorBase
	StakePercentage    float64         `json:"stakePercentage"`
	DelegatorCount     int             `json:"delegatorCount"`
	AmountDelegated    string          `json:"amountDelegated,omitempty"`
	UptimePerformance  float64         `json:"uptimePerformance"`
	AvalancheGoVersion string          `json:"avalancheGoVersion,omitempty"`
	DelegationCapacity string          `json:"delegationCapacity,omitempty"`
	PotentialRewards   rewards         `json:"potentialRewards"`
	ValidationStatus   string          `json:"validationStatus"`
	ValidatorHealth    validatorHealth `json:"validatorHealth"`
	Geolocation        geolocation     `json:"geolocation"`
}

type completedValidator struct {
	validatorBase
	DelegatorCount   int     `json:"delegatorCount"`
	AmountDelegated  string  `json:"amountDelegated,omitempty"`
	Rewards          rewards `json:"rewards"`
	ValidationStatus string  `json:"validationStatus"`
}

type pendingValidator struct {
	validatorBase
	ValidationStatus string `json:"validationStatus"`
}

type removedValidator struct {
	validatorBase
	RemoveTxHash     string `json:"removeTxHash"`
	RemoveTimestamp  int64  `json:"removeTimestamp"`
	ValidationStatus string `json:"validationStatus"`
}

// feePercent renders a fee in millionths as a percentage ("2", "2.5").
func feePercent(fee uint32) string { return strconv.FormatFloat(float64(fee)/10000, 'f', -1, 64) }

// vinfo is a validation with the figures the filters and sorts use.
type vinfo struct {
	v          *devnet.Validation
	status     devnet.Status
	delegators int
	delegated  uint64
	capacity   uint64 // active primary validations only
	hasCap     bool
	remaining  int64
}

func (a *api) vinfo(v *devnet.Validation) vinfo {
	now := a.w.Now().Unix()
	in := vinfo{v: v, status: v.Status(now), remaining: max(0, v.End-now)}
	for _, d := range a.w.DelegationsOf(v) {
		ds := d.Status(now)
		if in.status == devnet.StatusCompleted || ds == devnet.StatusActive {
			in.delegators++
			in.delegated += d.Weight
		}
		if in.status == devnet.StatusActive && ds != devnet.StatusCompleted {
			in.capacity += d.Weight // reserved, subtracted below
		}
	}
	if v.SubnetID.IsEmpty() && in.status == devnet.StatusActive {
		maxW := min(v.Weight*(devnet.MaxDelegationFactor+1), devnet.MaxValidatorWeight)
		used := v.Weight + in.capacity
		in.capacity, in.hasCap = 0, true
		if maxW > used {
			in.capacity = maxW - used
		}
	}
	return in
}

// totalActiveStake is the stake of the active primary validations.
func (a *api) totalActiveStake() uint64 {
	now := a.w.Now().Unix()
	var t uint64
	for _, v := range a.w.Validations() {
		if v.SubnetID.IsEmpty() && v.Status(now) == devnet.StatusActive {
			t += v.Weight
		}
	}
	return t
}

func (q *req) validatorItem(a *api, in vinfo) any {
	v := in.v
	base := validatorBase{TxHash: v.TxID.String(), NodeID: v.NodeID.String(), SubnetID: v.SubnetID.String(),
		AmountStaked: u64(v.Weight), StartTimestamp: v.Start, EndTimestamp: v.End}
	primary := v.SubnetID.IsEmpty()
	if primary {
		base.DelegationFee = feePercent(v.DelegationFee)
	}
	if v.BLS != nil {
		base.BLSCredentials = &blsCredentials{PublicKey: avax.EncodeHexNC(v.BLS.PublicKey), ProofOfPossession: avax.EncodeHexNC(v.BLS.ProofOfPossession)}
	}
	rw := rewards{ValidationRewardAmount: u64(v.Reward), DelegationRewardAmount: u64(v.DelegationReward)}
	if primary {
		rw.RewardAddresses = q.bech32("P", v.RewardOwner)
	} else {
		rw.ValidationRewardAmount, rw.DelegationRewardAmount = "0", "0"
	}
	delegated := ""
	if primary {
		delegated = u64(in.delegated)
	}
	switch in.status {
	case devnet.StatusActive:
		out := activeValidator{validatorBase: base, DelegatorCount: in.delegators, AmountDelegated: delegated,
			UptimePerformance: v.Uptime, AvalancheGoVersion: v.Version, PotentialRewards: rw, ValidationStatus: string(in.status),
			ValidatorHealth: validatorHealth{ReachabilityPercent: 100},
			Geolocation:     geolocation{v.Geo.City, v.Geo.Country, v.Geo.CountryCode, v.Geo.Latitude, v.Geo.Longitude}}
		if total := a.totalActiveStake(); primary && total > 0 {
			p, _ := new(big.Rat).SetFrac(new(big.Int).SetUint64(v.Weight*100), new(big.Int).SetUint64(total)).Float64()
			out.StakePercentage = p
		}
		if in.hasCap {
			out.DelegationCapacity = u64(in.capacity)
		}
		return out
	case devnet.StatusCompleted:
		if primary && !v.RewardTxID.IsEmpty() {
			rw.RewardTxHash = v.RewardTxID.String()
		}
		return completedValidator{validatorBase: base, DelegatorCount: in.delegators, AmountDelegated: delegated,
			Rewards: rw, ValidationStatus: string(in.status)}
	case devnet.StatusRemoved:
		return removedValidator{validatorBase: base, RemoveTxHash: v.RemoveTxID.String(), RemoveTimestamp: v.RemoveTime,
			ValidationStatus: string(in.status)}
	}
	return pendingValidator{validatorBase: base, ValidationStatus: string(in.status)}
}

func (a *api) listValidators(q *req) (any, *apireq.Error) {
	size := q.PageSize(10)
	desc := q.Desc()
	status := q.Q.Get("validationStatus")
	sortBy := q.Q.Get("sortBy")
	nodeSubs := q.List("nodeIds")
	var subnet *avax.ID
	if s := q.Q.Get("subnetId"); s != "" {
		id, err := avax.ParseID(s)
		if err != nil {
			q.Fail("subnetId must be a valid subnet id")
		} else {
			subnet = &id
		}
	}
	minCap, hasMinCap := q.bigFilter("minDelegationCapacity")
	maxCap, hasMaxCap := q.bigFilter("maxDelegationCapacity")
	minTime, hasMinTime := q.Number("minTimeRemaining")
	maxTime, hasMaxTime := q.Number("maxTimeRemaining")
	minFee, hasMinFee := q.Number("minFeePercentage")
	maxFee, hasMaxFee := q.Number("maxFeePercentage")
	minUp, hasMinUp := q.Number("minUptimePerformance")
	maxUp, hasMaxUp := q.Number("maxUptimePerformance")
	if len(q.Errs) > 0 {
		return nil, nil
	}
	var items []vinfo
	for _, v := range a.w.Validations() {
		in := a.vinfo(v)
		fee := float64(v.DelegationFee) / 10000
		primary := v.SubnetID.IsEmpty()
		switch {
		case status != "" && string(in.status) != status,
			subnet != nil && v.SubnetID != *subnet,
			len(nodeSubs) > 0 && !slices.ContainsFunc(nodeSubs, func(s string) bool { return strings.Contains(v.NodeID.String(), s) }),
			(hasMinCap || hasMaxCap) && !in.hasCap,
			hasMinCap && in.capacity < minCap, hasMaxCap && in.capacity > maxCap,
			hasMinTime && float64(in.remaining) < minTime, hasMaxTime && float64(in.remaining) > maxTime,
			(hasMinFee || hasMaxFee) && !primary,
			hasMinFee && fee < minFee, hasMaxFee && fee > maxFee,
			hasMinUp && v.Uptime < minUp, hasMaxUp && v.Uptime > maxUp:
			continue
		}
		items = append(items, in)
	}
	key := func(in vinfo) float64 {
		switch sortBy {
		case "delegationCapacity":
			return float64(in.capacity)
		case "timeRemaining":
			return float64(in.remaining)
		case "delegationFee":
			return float64(in.v.DelegationFee)
		case "uptimePerformance":
			return in.v.Uptime
		}
		return float64(in.v.Start)
	}
	apireq.Order(items, desc, func(x, y vinfo) bool {
		return cmp.Or(cmp.Compare(key(x), key(y)), cmp.Compare(x.v.TxID.String(), y.v.TxID.String())) < 0
	})
	page, next, herr := apireq.Paginate(q.Req, items, size, q.Scope())
	if herr != nil {
		return nil, herr
	}
	out := listValidatorsResponse{NextPageToken: next, Validators: []any{}}
	for _, in := range page {
		out.Validators = append(out.Validators, q.validatorItem(a, in))
	}
	return out, nil
}

// bigFilter reads a nAVAX amount filter (a decimal string up to 720M AVAX).
func (q *req) bigFilter(name string) (uint64, bool) {
	s := q.Q.Get(name)
	if s == "" {
		return 0, false
	}
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil || v > 720_000_000_000_000_000 {
		q.Fail("%s must be an integer between 0 and 720000000000000000", name)
		return 0, false
	}
	return v, true
}

func (a *api) getSingleValidator(q *req) (any, *apireq.Error) {
	size := q.PageSize(10)
	desc := q.Desc()
	status := q.Q.Get("validationStatus")
	raw := q.Q.Get("nodeId")
	id, err := avax.ParseNodeID(raw)
	if err != nil {
		q.Fail("nodeId must be a valid node id")
	}
	if len(q.Errs) > 0 {
		return nil, nil
	}
	vals := a.w.NodeValidations(id)
	if len(vals) == 0 {
		return nil, apireq.NotFound("Validator " + raw + " not found")
	}
	var items []vinfo
	for _, v := range vals {
		if in := a.vinfo(v); status == "" || string(in.status) == status {
			items = append(items, in)
		}
	}
	apireq.Order(items, desc, func(x, y vinfo) bool {
		return cmp.Or(cmp.Compare(x.v.Start, y.v.Start), cmp.Compare(x.v.TxID.String(), y.v.TxID.String())) < 0
	})
	page, next, herr := apireq.Paginate(q.Req, items, size, q.Scope(raw))
	if herr != nil {
		return nil, herr
	}
	out := listValidatorsResponse{NextPageToken: next, Validators: []any{}}
	for _, in := range page {
		out.Validators = append(out.Validators, q.validatorItem(a, in))
	}
	return out, nil
}

func (a *api) listDelegators(q *req) (any, *apireq.Error) {
	size := q.PageSize(10)
	desc := q.Desc()
	status := q.Q.Get("delegationStatus")
	addrs := q.Addresses("rewardAddresses")
	nodes := q.NodeIDs("nodeIds")
	if len(q.Errs) > 0 {
		return nil, nil
	}
	now := a.w.Now().Unix()
	var items []*devnet.Delegation
	for _, d := range a.w.Delegations() {
		switch {
		case status != "" && string(d.Status(now)) != status,
			len(addrs) > 0 && !slices.ContainsFunc(d.RewardOwner, func(x avax.ShortID) bool { return slices.Contains(addrs, x) }),
			len(nodes) > 0 && !slices.Contains(nodes, d.NodeID):
			continue
		}
		items = append(items, d)
	}
	apireq.Order(items, desc, func(x, y *devnet.Delegation) bool {
		return cmp.Or(cmp.Compare(x.Start, y.Start), cmp.Compare(x.TxID.String(), y.TxID.String())) < 0
	})
	page, next, herr := apireq.Paginate(q.Req, items, size, q.Scope())
	if herr != nil {
		return nil, herr
	}
	out := listDelegatorsResponse{NextPageToken: next, Delegators: []delegator{}}
	for _, d := range page {
		item := delegator{TxHash: d.TxID.String(), NodeID: d.NodeID.String(), RewardAddresses: q.bech32("P", d.RewardOwner),
			AmountDelegated: u64(d.Weight), DelegationFee: feePercent(d.DelegationFee), StartTimestamp: d.Start, EndTimestamp: d.End,
			DelegationStatus: string(d.Status(now))}
		if d.Status(now) == devnet.StatusCompleted {
			item.GrossReward, item.NetReward = u64(d.GrossReward), u64(d.NetReward)
		} else {
			item.EstimatedGrossReward, item.EstimatedNetReward = u64(d.GrossReward), u64(d.NetReward)
		}
		out.Delegators = append(out.Delegators, item)
	}
	return out, nil
}

func (a *api) listPendingRewards(q *req) (any, *apireq.Error) {
	size := q.PageSize(10)
	desc := q.Desc()
	addrs := q.Addresses("addresses")
	nodes := q.NodeIDs("nodeIds")
	if len(q.Errs) > 0 {
		return nil, nil
	}
	now := a.w.Now().Unix()
	var items []devnet.PendingReward
	for _, r := range a.w.PendingRewards() {
		if len(addrs) > 0 && !slices.ContainsFunc(r.Addresses, func(x avax.ShortID) bool { return slices.Contains(addrs, x) }) {
			continue
		}
		if len(nodes) > 0 && !slices.Contains(nodes, r.NodeID) {
			continue
		}
		items = append(items, r)
	}
	apireq.Order(items, desc, func(x, y devnet.PendingReward) bool {
		return cmp.Or(cmp.Compare(x.Start, y.Start), cmp.Compare(x.TxID.String(), y.TxID.String()), cmp.Compare(x.Kind, y.Kind)) < 0
	})
	page, next, herr := apireq.Paginate(q.Req, items, size, q.Scope())
	if herr != nil {
		return nil, herr
	}
	out := listPendingRewardsResponse{NextPageToken: next, PendingRewards: []pendingReward{}}
	for _, r := range page {
		progress := float64(now-r.Start) / float64(r.End-r.Start) * 100
		out.PendingRewards = append(out.PendingRewards, pendingReward{
			Addresses: q.bech32("", r.Addresses), TxHash: r.TxID.String(), AmountStaked: u64(r.AmountStaked),
			NodeID: r.NodeID.String(), StartTimestamp: r.Start, EndTimestamp: r.End, RewardType: string(r.Kind),
			Progress: min(100, max(0, progress)), EstimatedReward: q.avaxAmount(r.Amount)})
	}
	return out, nil
}
