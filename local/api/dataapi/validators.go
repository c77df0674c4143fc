package dataapi

import (
	"bytes"
	"cmp"
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"github.com/avaedge/avaedge/local/api/apireq"
	"github.com/avaedge/avaedge/local/source/pindex"
	"github.com/avaedge/avaedge/local/vocab/avax"
	"github.com/avaedge/avaedge/local/vocab/glacier"
)

// Delegation limits of avalanchego's primary network on every network: a
// validator's stake plus its delegations is at most MaxValidatorWeightFactor
// times its stake, and at most MaxValidatorStake.
const (
	maxValidatorWeightFactor = 5
	maxValidatorStake        = 3_000_000 * 1_000_000_000
)

// current is one entry of platform.getCurrentValidators: a primary network
// or legacy subnet staker (txID...) or an L1 validator (validationID...).
type current struct {
	TxID            string                  `json:"txID"`
	ValidationID    string                  `json:"validationID"`
	NodeID          string                  `json:"nodeID"`
	StartTime       string                  `json:"startTime"`
	EndTime         string                  `json:"endTime"`
	Weight          string                  `json:"weight"`
	PotentialReward string                  `json:"potentialReward"`
	AccruedReward   string                  `json:"accruedDelegateeReward"`
	DelegationFee   string                  `json:"delegationFee"`
	Uptime          string                  `json:"uptime"`
	Connected       *bool                   `json:"connected"`
	Signer          *glacier.BlsCredentials `json:"signer"`
	PublicKey       string                  `json:"publicKey"`
	Balance         string                  `json:"balance"`
	DelegatorCount  string                  `json:"delegatorCount"`
	DelegatorWeight string                  `json:"delegatorWeight"`
	RewardOwner     *apiOwner               `json:"validationRewardOwner"`
	DelegationOwner *apiOwner               `json:"delegationRewardOwner"`
	DelegatorOwner  *apiOwner               `json:"rewardOwner"` // a delegator's
	Delegators      []current               `json:"delegators"`
	// L1 validators' owners.
	RemainingBalanceOwner apiOwner `json:"remainingBalanceOwner"`
	DeactivationOwner     apiOwner `json:"deactivationOwner"`
}

// apiOwner is platformapi.Owner: "P-<hrp>1..." addresses.
type apiOwner struct {
	Addresses []string `json:"addresses"`
	Threshold string   `json:"threshold"`
}

func num(s string) uint64 { v, _ := strconv.ParseUint(s, 10, 64); return v }

func float(s string) float64 { v, _ := strconv.ParseFloat(s, 64); return v }

// currentOf reads the node's current validators of subnet. Callers read
// them and never modify them: the parse is kept while the stored list is
// the same bytes (the follower refreshes it every few seconds; a primary
// network of 1,000 validators is a megabyte of JSON, 20 ms to parse).
func (a *api) currentOf(q *req, subnet string) ([]current, *apireq.Error) {
	raw, _, ok, err := a.src.CurrentValidators(q.ctx, subnet)
	if err != nil {
		return nil, apireq.Internal(err)
	}
	if !ok {
		return nil, nil
	}
	a.currentMu.Lock()
	p, hit := a.currents[subnet]
	a.currentMu.Unlock()
	if hit && bytes.Equal(p.raw, raw) {
		return p.validators, nil
	}
	var r struct {
		Validators []current `json:"validators"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, apireq.Internal(err)
	}
	a.currentMu.Lock()
	if a.currents == nil || len(a.currents) >= maxParsedSubnets {
		a.currents = map[string]parsedCurrent{}
	}
	a.currents[subnet] = parsedCurrent{raw: raw, validators: slices.Clip(r.Validators)}
	a.currentMu.Unlock()
	return r.Validators, nil
}

// maxParsedSubnets bounds the current validator lists kept parsed.
const maxParsedSubnets = 256

// parsedCurrent is a subnet's stored current validators and their parse.
type parsedCurrent struct {
	raw        json.RawMessage
	validators []current
}

// validation is one validator registration with its status at the
// source's clock.
type validation struct {
	stake  *pindex.Stake // nil for a staker of the genesis no block lists
	cur    *current      // the network's view of it while active
	status string        // active, pending, completed, removed
	subnet string
	node   string
	txHash string
	weight uint64
	start  int64
	end    int64
	// delegators and delegated count the active delegations of an active
	// validation, or all those of a completed one.
	delegators int
	delegated  uint64
	capacity   uint64 // active primary validations: what may still be delegated
	// uptime is the network's measure of an active validation, when it
	// reports one (the primary network's); else 100 is shown, and uptime
	// filters leave the validation out.
	uptime      float64
	uptimeKnown bool
}

func (v *validation) primary() bool { return v.subnet == pindex.PrimaryNetworkID }

// stakeStatus is the status of a validation or delegation without a view
// of the network's current validators.
func stakeStatus(s *pindex.Stake, now int64) string {
	switch {
	case s.EndKind == "completed":
		return "completed"
	case s.EndKind != "":
		return "removed"
	case s.Start > now:
		return "pending"
	case s.End != 0 && s.End <= now:
		return "completed"
	}
	return "active"
}

// validations joins the indexed stakes with the network's current
// validators: the primary network's, legacy subnets' and L1s'.
func (a *api) validations(q *req) ([]*validation, []*pindex.Stake, *apireq.Error) {
	stakes, err := a.src.Stakes(q.ctx)
	if err != nil {
		return nil, nil, apireq.Internal(err)
	}
	subnets := []string{pindex.PrimaryNetworkID}
	for _, s := range stakes {
		if !slices.Contains(subnets, s.SubnetID) {
			subnets = append(subnets, s.SubnetID)
		}
	}
	indexed := make(map[string]bool, len(stakes)) // by tx id
	for _, s := range stakes {
		indexed[s.TxID] = true
	}
	active := map[string]*current{} // by tx id or validation id
	var out []*validation
	for _, subnet := range subnets {
		cur, herr := a.currentOf(q, subnet)
		if herr != nil {
			return nil, nil, herr
		}
		for i := range cur {
			c := &cur[i]
			active[cmp.Or(c.ValidationID, c.TxID)] = c
			if c.TxID != "" && !indexed[c.TxID] {
				// A staker of the genesis, which no block lists.
				out = append(out, &validation{cur: c, status: "active", subnet: subnet, node: c.NodeID, txHash: c.TxID,
					weight: num(c.Weight), start: int64(num(c.StartTime)), end: int64(num(c.EndTime))})
			}
		}
	}
	now := a.src.Now().Unix()
	for _, s := range stakes {
		if s.Kind == "delegator" {
			continue
		}
		v := &validation{stake: s, subnet: s.SubnetID, node: s.Node, txHash: s.TxID, weight: s.Weight, start: s.Start, end: s.End}
		v.status = stakeStatus(s, now)
		if c := active[cmp.Or(s.ValidationID, s.TxID)]; c != nil && s.EndKind == "" {
			v.status, v.cur, v.weight = "active", c, num(c.Weight)
		}
		out = append(out, v)
	}
	delegations := map[string][]*pindex.Stake{} // by node id
	for _, s := range stakes {
		if s.Kind == "delegator" {
			delegations[s.Node] = append(delegations[s.Node], s)
		}
	}
	for _, v := range out {
		a.figures(v, delegations[v.node], now)
	}
	return out, stakes, nil
}

// figures fills v's delegations (from those to its node), capacity and
// uptime.
func (a *api) figures(v *validation, delegations []*pindex.Stake, now int64) {
	v.uptime = 100
	if c := v.cur; c != nil && c.Uptime != "" {
		v.uptime, v.uptimeKnown = float(c.Uptime), true
	}
	if !v.primary() {
		return
	}
	for _, d := range delegations {
		if d.Start < v.start || (v.end != 0 && d.End > v.end) {
			continue
		}
		switch st := stakeStatus(d, now); {
		case v.status == "completed":
			v.delegators++
			v.delegated += d.Weight
		case v.status == "active" && st == "active" && v.cur == nil:
			v.delegators++
			v.delegated += d.Weight
		}
	}
	if c := v.cur; c != nil && v.status == "active" {
		v.delegators, v.delegated = int(num(c.DelegatorCount)), num(c.DelegatorWeight)
		if c.DelegatorCount == "" {
			v.delegators = len(c.Delegators)
		}
	}
	if v.status == "active" {
		if limit := min(v.weight*maxValidatorWeightFactor, maxValidatorStake); limit > v.weight+v.delegated {
			v.capacity = limit - v.weight - v.delegated
		}
	}
}

// feePercent renders a fee in millionths (avalanchego's shares) as a
// percentage ("2", "2.5").
func feePercent(shares uint32) string { return strconv.FormatFloat(float64(shares)/10000, 'f', -1, 64) }

func (a *api) validatorItem(q *req, v *validation, totalPrimary uint64) any {
	base := glacier.ValidatorBase{TxHash: v.txHash, NodeID: v.node, SubnetID: v.subnet, AmountStaked: u64(v.weight),
		StartTimestamp: v.start, EndTimestamp: v.end}
	switch {
	case v.cur != nil && v.cur.Signer != nil:
		base.BLSCredentials = v.cur.Signer
	case v.stake != nil && v.stake.BLSKey != "" && v.stake.BLSPoP != "":
		base.BLSCredentials = &glacier.BlsCredentials{PublicKey: v.stake.BLSKey, ProofOfPossession: v.stake.BLSPoP}
	}
	rw := glacier.Rewards{ValidationRewardAmount: "0", DelegationRewardAmount: "0"}
	if v.primary() {
		if v.stake != nil {
			base.DelegationFee = feePercent(v.stake.Fee)
			rw.RewardAddresses = q.bech32("P", v.stake.RewardOwner)
		} else if v.cur != nil {
			base.DelegationFee = strconv.FormatFloat(float(v.cur.DelegationFee), 'f', -1, 64)
		}
		if c := v.cur; c != nil && c.RewardOwner != nil {
			rw.RewardAddresses = q.rebech32("P", c.RewardOwner.Addresses)
		}
	}
	delegated := ""
	if v.primary() {
		delegated = u64(v.delegated)
	}
	switch v.status {
	case "active":
		out := glacier.ActiveValidator{ValidatorBase: base, DelegatorCount: v.delegators, AmountDelegated: delegated, PotentialRewards: rw,
			ValidationStatus: "active", UptimePerformance: 100}
		if c := v.cur; c != nil {
			out.UptimePerformance = v.uptime
			if v.primary() {
				out.PotentialRewards.ValidationRewardAmount = u64(num(c.PotentialReward))
				out.PotentialRewards.DelegationRewardAmount = u64(num(c.AccruedReward))
			}
			if c.Connected == nil || *c.Connected {
				out.ValidatorHealth.ReachabilityPercent = 100
			}
		}
		if v.primary() {
			out.DelegationCapacity = u64(v.capacity)
			if totalPrimary > 0 {
				out.StakePercentage = float64(v.weight) * 100 / float64(totalPrimary)
			}
		}
		if a.opts.Nodes != nil {
			if id, err := avax.ParseNodeID(v.node); err == nil {
				if geo, version, ok := a.opts.Nodes.Node(id); ok {
					out.Geolocation, out.AvalancheGoVersion = &geo, version
				}
			}
		}
		return out
	case "completed":
		if v.stake != nil && v.primary() {
			rw.ValidationRewardAmount = u64(v.stake.Rewards["VALIDATOR"])
			rw.DelegationRewardAmount = u64(v.stake.Rewards["VALIDATOR_FEE"])
			if v.stake.EndTx != "" {
				rw.RewardTxHash = v.stake.EndTx
			}
		}
		return glacier.CompletedValidator{ValidatorBase: base, DelegatorCount: v.delegators, AmountDelegated: delegated, Rewards: rw,
			ValidationStatus: "completed"}
	case "removed":
		return glacier.RemovedValidator{ValidatorBase: base, RemoveTxHash: v.stake.EndTx, RemoveTimestamp: v.stake.EndTime, ValidationStatus: "removed"}
	}
	return glacier.PendingValidator{ValidatorBase: base, ValidationStatus: "pending"}
}

// activeStake is the weight of the active primary validations.
func activeStake(all []*validation) uint64 {
	var total uint64
	for _, v := range all {
		if v.status == "active" && v.primary() {
			total += v.weight
		}
	}
	return total
}

// listValidators is listValidators: the validations readValidatorFilter
// keeps, sorted by sortBy (their start by default), then transaction hash.
func (a *api) listValidators(q *req) (any, error) {
	size := q.PageSize(10)
	desc := q.Desc()
	sortBy := q.Q.Get("sortBy")
	f := readValidatorFilter(q)
	if len(q.Errs) > 0 {
		return nil, nil
	}
	all, _, herr := a.validations(q)
	if herr != nil {
		return nil, herr
	}
	total := activeStake(all)
	now := a.src.Now().Unix()
	var items []*validation
	for _, v := range all {
		if f.keeps(v, now) {
			items = append(items, v)
		}
	}
	key := func(v *validation) float64 {
		switch sortBy {
		case "delegationCapacity":
			return float64(v.capacity)
		case "timeRemaining":
			return float64(v.remaining(now))
		case "delegationFee":
			return v.fee()
		case "uptimePerformance":
			return v.uptime
		}
		return float64(v.start)
	}
	apireq.Order(items, desc, func(x, y *validation) bool {
		return cmp.Or(cmp.Compare(key(x), key(y)), cmp.Compare(x.txHash, y.txHash)) < 0
	})
	page, next, herr := apireq.Paginate(q.Req, items, size, q.Scope())
	if herr != nil {
		return nil, herr
	}
	out := glacier.ListValidatorsResponse{NextPageToken: next, Validators: []any{}}
	for _, v := range page {
		out.Validators = append(out.Validators, a.validatorItem(q, v, total))
	}
	return out, nil
}

// remaining is the seconds v has left at now, 0 once it ended.
func (v *validation) remaining(now int64) int64 { return max(0, v.end-now) }

// fee is v's delegation fee in percent, 0 when it has none.
func (v *validation) fee() float64 {
	if v.stake != nil {
		return float64(v.stake.Fee) / 10000
	}
	if v.cur != nil {
		return float(v.cur.DelegationFee)
	}
	return 0
}

// validatorFilter is listValidators' filters; a has* flag says the bound
// beside it was given.
type validatorFilter struct {
	status, subnet                    string
	nodeSubs                          []string
	minCap, maxCap                    uint64
	hasMinCap, hasMaxCap              bool
	minTime, maxTime, minFee, maxFee  float64
	minUp, maxUp                      float64
	hasMinTime, hasMaxTime, hasMinFee bool
	hasMaxFee, hasMinUp, hasMaxUp     bool
}

// readValidatorFilter reads listValidators' filters from q, failing q on
// a bad subnetId or amount.
func readValidatorFilter(q *req) validatorFilter {
	f := validatorFilter{status: q.Q.Get("validationStatus"), nodeSubs: q.List("nodeIds"), subnet: q.Q.Get("subnetId")}
	if f.subnet != "" {
		if _, err := avax.ParseID(f.subnet); err != nil {
			q.Fail("subnetId must be a valid subnet id")
		}
	}
	f.minCap, f.hasMinCap = q.amountFilter("minDelegationCapacity")
	f.maxCap, f.hasMaxCap = q.amountFilter("maxDelegationCapacity")
	f.minTime, f.hasMinTime = q.Number("minTimeRemaining")
	f.maxTime, f.hasMaxTime = q.Number("maxTimeRemaining")
	f.minFee, f.hasMinFee = q.Number("minFeePercentage")
	f.maxFee, f.hasMaxFee = q.Number("maxFeePercentage")
	f.minUp, f.hasMinUp = q.Number("minUptimePerformance")
	f.maxUp, f.hasMaxUp = q.Number("maxUptimePerformance")
	return f
}

// keeps says whether v passes every filter at now: a capacity bound keeps
// only active primary-network validations, a fee bound only primary ones,
// an uptime bound only those whose uptime is known.
func (f *validatorFilter) keeps(v *validation, now int64) bool {
	withCap := v.status == "active" && v.primary()
	switch {
	case f.status != "" && v.status != f.status,
		f.subnet != "" && v.subnet != f.subnet,
		len(f.nodeSubs) > 0 && !slices.ContainsFunc(f.nodeSubs, func(s string) bool { return strings.Contains(v.node, s) }),
		(f.hasMinCap || f.hasMaxCap) && !withCap,
		f.hasMinCap && v.capacity < f.minCap, f.hasMaxCap && v.capacity > f.maxCap,
		f.hasMinTime && float64(v.remaining(now)) < f.minTime, f.hasMaxTime && float64(v.remaining(now)) > f.maxTime,
		(f.hasMinFee || f.hasMaxFee) && !v.primary(),
		f.hasMinFee && v.fee() < f.minFee, f.hasMaxFee && v.fee() > f.maxFee,
		(f.hasMinUp || f.hasMaxUp) && !v.uptimeKnown,
		f.hasMinUp && v.uptime < f.minUp, f.hasMaxUp && v.uptime > f.maxUp:
		return false
	}
	return true
}

// amountFilter reads a nAVAX amount filter (a decimal string up to 720M
// AVAX, the catalogue leaves it a string).
func (q *req) amountFilter(name string) (uint64, bool) {
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

func (a *api) getValidator(q *req) (any, error) {
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
	all, _, herr := a.validations(q)
	if herr != nil {
		return nil, herr
	}
	var items []*validation
	known := false
	for _, v := range all {
		if v.node == raw {
			known = true
			if status == "" || v.status == status {
				items = append(items, v)
			}
		}
	}
	if !known {
		return nil, apireq.NotFound("Validator " + raw + " not found")
	}
	apireq.Order(items, desc, func(x, y *validation) bool {
		return cmp.Or(cmp.Compare(x.start, y.start), cmp.Compare(x.txHash, y.txHash)) < 0
	})
	page, next, herr := apireq.Paginate(q.Req, items, size, q.Scope(raw))
	if herr != nil {
		return nil, herr
	}
	total := activeStake(all)
	out := glacier.ListValidatorsResponse{NextPageToken: next, Validators: []any{}}
	for _, v := range page {
		out.Validators = append(out.Validators, a.validatorItem(q, v, total))
	}
	return out, nil
}
