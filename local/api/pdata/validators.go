package pdata

import (
	"cmp"
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"github.com/avaedge/avaedge/local/apireq"
	"github.com/avaedge/avaedge/local/avax"
	"github.com/avaedge/avaedge/local/source/pindex"
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

// activeValidator is ActiveValidatorDetails. Geolocation is required but
// nullable: the index does not know where a node runs, so it is null.
type activeValidator struct {
	validatorBase
	StakePercentage   float64         `json:"stakePercentage"`
	DelegatorCount    int             `json:"delegatorCount"`
	AmountDelegated   string          `json:"amountDelegated,omitempty"`
	UptimePerformance float64         `json:"uptimePerformance"`
	PotentialRewards  rewards         `json:"potentialRewards"`
	ValidationStatus  string          `json:"validationStatus"`
	ValidatorHealth   validatorHealth `json:"validatorHealth"`
	Geolocation       *struct{}       `json:"geolocation"`
}

type completedValidator struct {
	validatorBase
	DelegatorCount   int     `json:"delegatorCount"`
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

// current is one entry of platform.getCurrentValidators: a primary network
// or legacy subnet staker (txID...) or an L1 validator (validationID...).
type current struct {
	TxID            string          `json:"txID"`
	ValidationID    string          `json:"validationID"`
	NodeID          string          `json:"nodeID"`
	StartTime       string          `json:"startTime"`
	EndTime         string          `json:"endTime"`
	Weight          string          `json:"weight"`
	PotentialReward string          `json:"potentialReward"`
	AccruedReward   string          `json:"accruedDelegateeReward"`
	DelegationFee   string          `json:"delegationFee"`
	Uptime          string          `json:"uptime"`
	Connected       *bool           `json:"connected"`
	Signer          *blsCredentials `json:"signer"`
	PublicKey       string          `json:"publicKey"`
	DelegatorCount  string          `json:"delegatorCount"`
	DelegatorWeight string          `json:"delegatorWeight"`
	RewardOwner     *struct {
		Addresses []string `json:"addresses"`
	} `json:"validationRewardOwner"`
}

func num(s string) uint64 { v, _ := strconv.ParseUint(s, 10, 64); return v }

func float(s string) float64 { v, _ := strconv.ParseFloat(s, 64); return v }

// validation is one validator registration with its status.
type validation struct {
	stake  *pindex.Stake // nil for a staker of the genesis
	cur    *current      // the node's view while active
	status string        // active, pending, completed, removed
	subnet string
	node   string
	txHash string
	weight uint64
	start  int64
	end    int64
}

// validations joins the indexed stakes with the node's current validators.
func (a *api) validations(q *req) ([]*validation, *apireq.Error) {
	ctx := q.R.Context()
	stakes, err := a.ix.Stakes(ctx)
	if err != nil {
		return nil, apireq.Internal(err)
	}
	subnets := []string{avax.EmptyID.String()}
	for _, s := range stakes {
		if !slices.Contains(subnets, s.SubnetID) {
			subnets = append(subnets, s.SubnetID)
		}
	}
	active := map[string]*current{} // by tx id or validation id
	var out []*validation
	for _, subnet := range subnets {
		raw, _, ok, err := a.ix.CurrentValidators(ctx, subnet)
		if err != nil {
			return nil, apireq.Internal(err)
		}
		if !ok {
			continue
		}
		var r struct {
			Validators []*current `json:"validators"`
		}
		if err := json.Unmarshal(raw, &r); err != nil {
			return nil, apireq.Internal(err)
		}
		for _, c := range r.Validators {
			key := c.TxID
			if c.ValidationID != "" {
				key = c.ValidationID
			}
			active[key] = c
			if c.TxID != "" && !slices.ContainsFunc(stakes, func(s *pindex.Stake) bool { return s.TxID == c.TxID }) {
				// A staker of the genesis: no transaction in any block.
				out = append(out, &validation{cur: c, status: "active", subnet: subnet, node: c.NodeID, txHash: c.TxID,
					weight: num(c.Weight), start: int64(num(c.StartTime)), end: int64(num(c.EndTime))})
			}
		}
	}
	now := q.Now.Unix()
	for _, s := range stakes {
		if s.Kind == "delegator" {
			continue
		}
		v := &validation{stake: s, subnet: s.SubnetID, node: s.NodeID.String(), txHash: s.TxID, weight: s.Weight, start: s.Start, end: s.End}
		key := s.TxID
		if s.ValidationID != "" {
			key = s.ValidationID
		}
		switch c := active[key]; {
		case s.EndKind == "completed":
			v.status = "completed"
		case s.EndKind != "":
			v.status = "removed"
		case c != nil:
			v.status, v.cur, v.weight = "active", c, num(c.Weight)
		case s.Start > now:
			v.status = "pending"
		case s.End != 0 && s.End <= now:
			v.status = "completed"
		default:
			v.status = "active" // accepted, not yet in the node's last answer
		}
		out = append(out, v)
	}
	return out, nil
}

func feePercent(s string) string {
	return strconv.FormatFloat(float(s), 'f', -1, 64)
}

func (q *req) validatorItem(v *validation, totalPrimary uint64) any {
	primary := v.subnet == avax.EmptyID.String()
	base := validatorBase{TxHash: v.txHash, NodeID: v.node, SubnetID: v.subnet, AmountStaked: u64(v.weight),
		StartTimestamp: v.start, EndTimestamp: v.end}
	switch {
	case v.cur != nil && v.cur.Signer != nil:
		base.BLSCredentials = v.cur.Signer
	case v.stake != nil && v.stake.BLSKey != "" && v.stake.BLSPoP != "":
		base.BLSCredentials = &blsCredentials{PublicKey: v.stake.BLSKey, ProofOfPossession: v.stake.BLSPoP}
	}
	var owner []avax.ShortID
	if v.stake != nil {
		owner = v.stake.RewardOwner
		if primary {
			base.DelegationFee = strconv.FormatFloat(float64(v.stake.Fee)/10000, 'f', -1, 64)
		}
	}
	rw := rewards{ValidationRewardAmount: "0", DelegationRewardAmount: "0"}
	if primary {
		rw.RewardAddresses = q.bech32("P", owner)
	}
	switch v.status {
	case "active":
		out := activeValidator{validatorBase: base, PotentialRewards: rw, ValidationStatus: "active", UptimePerformance: 100}
		if c := v.cur; c != nil {
			if primary {
				base.DelegationFee = feePercent(c.DelegationFee)
				out.validatorBase = base
				out.DelegatorCount = int(num(c.DelegatorCount))
				out.AmountDelegated = u64(num(c.DelegatorWeight))
				out.PotentialRewards.ValidationRewardAmount = u64(num(c.PotentialReward))
				out.PotentialRewards.DelegationRewardAmount = u64(num(c.AccruedReward))
				if c.RewardOwner != nil {
					out.PotentialRewards.RewardAddresses = nil
					for _, s := range c.RewardOwner.Addresses {
						if _, _, a, err := avax.ParseAddress(s); err == nil {
							out.PotentialRewards.RewardAddresses = append(out.PotentialRewards.RewardAddresses, avax.FormatAddress("P", q.net.HRP, a))
						}
					}
				}
			}
			if c.Uptime != "" {
				out.UptimePerformance = float(c.Uptime)
			}
			if c.Connected == nil || *c.Connected {
				out.ValidatorHealth.ReachabilityPercent = 100
			}
		}
		if primary && totalPrimary > 0 {
			out.StakePercentage = float64(v.weight) * 100 / float64(totalPrimary)
		}
		return out
	case "completed":
		if v.stake != nil && v.stake.EndTx != "" {
			rw.RewardTxHash = v.stake.EndTx
		}
		return completedValidator{validatorBase: base, Rewards: rw, ValidationStatus: "completed"}
	case "removed":
		return removedValidator{validatorBase: base, RemoveTxHash: v.stake.EndTx, RemoveTimestamp: v.stake.EndTime, ValidationStatus: "removed"}
	}
	return pendingValidator{validatorBase: base, ValidationStatus: "pending"}
}

func (a *api) listValidators(q *req) (any, *apireq.Error) {
	size := q.PageSize(10)
	desc := q.Desc()
	status := q.Q.Get("validationStatus")
	sortBy := q.Q.Get("sortBy")
	nodeSubs := q.List("nodeIds")
	subnet := q.Q.Get("subnetId")
	if subnet != "" {
		if _, err := avax.ParseID(subnet); err != nil {
			q.Fail("subnetId must be a valid subnet id")
		}
	}
	for _, f := range []string{"minDelegationCapacity", "maxDelegationCapacity", "minTimeRemaining", "maxTimeRemaining",
		"minFeePercentage", "maxFeePercentage", "minUptimePerformance", "maxUptimePerformance"} {
		if q.Q.Get(f) != "" {
			q.Fail("%s is not supported by the index of a followed node", f)
		}
	}
	if sortBy != "" && sortBy != "blockIndex" && sortBy != "timeRemaining" {
		q.Fail("sortBy %s is not supported by the index of a followed node", sortBy)
	}
	if len(q.Errs) > 0 {
		return nil, nil
	}
	all, herr := a.validations(q)
	if herr != nil {
		return nil, herr
	}
	var total uint64
	for _, v := range all {
		if v.status == "active" && v.subnet == avax.EmptyID.String() {
			total += v.weight
		}
	}
	var items []*validation
	for _, v := range all {
		switch {
		case status != "" && v.status != status,
			subnet != "" && v.subnet != subnet,
			len(nodeSubs) > 0 && !slices.ContainsFunc(nodeSubs, func(s string) bool { return strings.Contains(v.node, s) }):
			continue
		}
		items = append(items, v)
	}
	key := func(v *validation) int64 {
		if sortBy == "timeRemaining" {
			return v.end
		}
		return v.start
	}
	apireq.Order(items, desc, func(x, y *validation) bool {
		return cmp.Or(cmp.Compare(key(x), key(y)), cmp.Compare(x.txHash, y.txHash)) < 0
	})
	page, next, herr := apireq.Paginate(q.Req, items, size, q.Scope())
	if herr != nil {
		return nil, herr
	}
	out := listValidatorsResponse{NextPageToken: next, Validators: []any{}}
	for _, v := range page {
		out.Validators = append(out.Validators, q.validatorItem(v, total))
	}
	return out, nil
}

func (a *api) getValidator(q *req) (any, *apireq.Error) {
	size := q.PageSize(10)
	desc := q.Desc()
	status := q.Q.Get("validationStatus")
	raw := q.Q.Get("nodeId")
	if _, err := avax.ParseNodeID(raw); err != nil {
		q.Fail("nodeId must be a valid node id")
	}
	if len(q.Errs) > 0 {
		return nil, nil
	}
	all, herr := a.validations(q)
	if herr != nil {
		return nil, herr
	}
	var total uint64
	var items []*validation
	for _, v := range all {
		if v.status == "active" && v.subnet == avax.EmptyID.String() {
			total += v.weight
		}
		if v.node == raw && (status == "" || v.status == status) {
			items = append(items, v)
		}
	}
	if len(items) == 0 && !slices.ContainsFunc(all, func(v *validation) bool { return v.node == raw }) {
		return nil, apireq.NotFound("Validator " + raw + " not found")
	}
	apireq.Order(items, desc, func(x, y *validation) bool {
		return cmp.Or(cmp.Compare(x.start, y.start), cmp.Compare(x.txHash, y.txHash)) < 0
	})
	page, next, herr := apireq.Paginate(q.Req, items, size, q.Scope(raw))
	if herr != nil {
		return nil, herr
	}
	out := listValidatorsResponse{NextPageToken: next, Validators: []any{}}
	for _, v := range page {
		out.Validators = append(out.Validators, q.validatorItem(v, total))
	}
	return out, nil
}

// listDelegators lists the indexed delegations. Rewards are the node's
// potential reward while active; a completed delegation's reward is not
// indexed yet (RewardValidatorTx UTXOs), so it shows "0".
func (a *api) listDelegators(q *req) (any, *apireq.Error) {
	size := q.PageSize(10)
	desc := q.Desc()
	status := q.Q.Get("delegationStatus")
	addrs := q.Addresses("rewardAddresses")
	nodes := q.List("nodeIds")
	if len(q.Errs) > 0 {
		return nil, nil
	}
	stakes, err := a.ix.Stakes(q.R.Context())
	if err != nil {
		return nil, apireq.Internal(err)
	}
	fees := map[string]uint32{}
	for _, s := range stakes {
		if s.Kind == "validator" && s.EndKind == "" {
			fees[s.NodeID.String()] = s.Fee
		}
	}
	now := q.Now.Unix()
	type item struct {
		s      *pindex.Stake
		status string
	}
	var items []item
	for _, s := range stakes {
		if s.Kind != "delegator" {
			continue
		}
		st := "active"
		switch {
		case s.EndKind != "" || (s.End != 0 && s.End <= now):
			st = "completed"
		case s.Start > now:
			st = "pending"
		}
		switch {
		case status != "" && st != status,
			len(addrs) > 0 && !slices.ContainsFunc(s.RewardOwner, func(x avax.ShortID) bool { return slices.Contains(addrs, x) }),
			len(nodes) > 0 && !slices.Contains(nodes, s.NodeID.String()):
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
	out := listDelegatorsResponse{NextPageToken: next, Delegators: []delegator{}}
	for _, it := range page {
		s := it.s
		d := delegator{TxHash: s.TxID, NodeID: s.NodeID.String(), RewardAddresses: q.bech32("P", s.RewardOwner),
			AmountDelegated: u64(s.Weight), DelegationFee: strconv.FormatFloat(float64(fees[s.NodeID.String()])/10000, 'f', -1, 64),
			StartTimestamp: s.Start, EndTimestamp: s.End, DelegationStatus: it.status}
		if it.status == "completed" {
			d.GrossReward, d.NetReward = "0", "0"
		} else {
			d.EstimatedGrossReward, d.EstimatedNetReward = "0", "0"
		}
		out.Delegators = append(out.Delegators, d)
	}
	return out, nil
}
