package metricsapi

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/avaedge/avaedge/catalog"
	"github.com/avaedge/avaedge/local/api/apireq"
	"github.com/avaedge/avaedge/local/source/pindex"
	"github.com/avaedge/avaedge/local/vocab/avax"
	"github.com/avaedge/avaedge/local/vocab/pagetoken"
)

// StakeSource reads the P-Chain's validations and delegations: the
// primary-network source of the local world (a pindex.Index, the devnet's or
// a followed node's).
type StakeSource interface {
	Stakes(ctx context.Context) ([]*pindex.Stake, error)
	// Now is the clock of the stakes' statuses: the devnet's own, or the
	// wall clock of a followed network.
	Now() time.Time
}

// currentLister is a StakeSource that also keeps the node's last
// platform.getCurrentValidators answer per subnet (pindex.Index): it names
// the stakers of the genesis, which no block lists.
type currentLister interface {
	CurrentValidators(ctx context.Context, subnet string) (json.RawMessage, int64, bool, error)
}

// genesisStakers returns the validators and delegators of subnet the node
// lists as current but ss lacks (the genesis's), as stakes from their
// start to their end time.
func (e *Engine) genesisStakers(ctx context.Context, subnet string, ss []*pindex.Stake) ([]*pindex.Stake, error) {
	cl, ok := e.stakeSrc.(currentLister)
	if !ok {
		return nil, nil
	}
	raw, _, ok, err := cl.CurrentValidators(ctx, subnet)
	if err != nil || !ok {
		return nil, err
	}
	type staker struct {
		TxID, NodeID, StartTime, EndTime, Weight, ValidationID string
		RewardOwner                                            *struct{ Addresses []string } `json:"validationRewardOwner"`
		Delegators                                             []staker
	}
	var cur struct{ Validators []staker }
	if err := json.Unmarshal(raw, &cur); err != nil {
		return nil, fmt.Errorf("current validators of %s: %w", subnet, err)
	}
	known := make(map[string]bool, len(ss))
	for _, s := range ss {
		known[s.TxID] = true
	}
	num := func(s string) int64 { n, _ := strconv.ParseInt(s, 10, 64); return n }
	var out []*pindex.Stake
	add := func(c staker, kind string) {
		if c.TxID == "" || c.ValidationID != "" || known[c.TxID] {
			return
		}
		s := &pindex.Stake{TxID: c.TxID, Kind: kind, SubnetID: subnet, Weight: uint64(num(c.Weight)), Start: num(c.StartTime), End: num(c.EndTime)}
		s.Time = s.Start
		s.NodeID, _ = avax.ParseNodeID(c.NodeID)
		if c.RewardOwner != nil {
			for _, a := range c.RewardOwner.Addresses {
				if _, _, id, err := avax.ParseAddress(a); err == nil {
					s.RewardOwner = append(s.RewardOwner, id)
				}
			}
		}
		out = append(out, s)
	}
	kind := "subnet_validator"
	if subnet == primaryNetwork {
		kind = "validator"
	}
	for _, v := range cur.Validators {
		add(v, kind)
		for _, d := range v.Delegators {
			add(d, "delegator")
		}
	}
	return out, nil
}

// subnetStakes returns the stakes of subnet: the source's, with the
// genesis's stakers the node lists (genesisStakers).
func (e *Engine) subnetStakes(ctx context.Context, subnet string) ([]*pindex.Stake, error) {
	ss, err := e.stakes(ctx)
	if err != nil {
		return nil, err
	}
	more, err := e.genesisStakers(ctx, subnet, ss)
	if err != nil {
		return nil, apireq.Failed("reading the P-Chain index failed", fmt.Errorf("current validators: %w", err))
	}
	return append(more, ss...), nil
}

// L1FeeRate is what an active L1 validator pays the P-Chain, in nAVAX per
// second: avalanchego's minimum validator fee price, the price while the
// active L1 validators stay below the target (10,000), as on a local network
// and the devnet.
const L1FeeRate = 512

// primaryNetwork is the primary network's subnet id.
const primaryNetwork = "11111111111111111111111111111111LpoYY"

// end returns when s stopped counting: its removal, disabling or reward
// transaction, else its end time; math.MaxInt64 while it has neither.
func end(s *pindex.Stake) int64 {
	e := int64(math.MaxInt64)
	if s.End > 0 {
		e = s.End
	}
	if s.EndKind != "" && s.EndTime > 0 && s.EndTime < e {
		e = s.EndTime
	}
	return e
}

// stakes reads the source, failing with a 500.
func (e *Engine) stakes(ctx context.Context) ([]*pindex.Stake, error) {
	ss, err := e.stakeSrc.Stakes(ctx)
	if err != nil {
		return nil, apireq.Failed("reading the P-Chain index failed", fmt.Errorf("stakes: %w", err))
	}
	return ss, nil
}

// dailySeries writes {"results":[...]} of value at each day from the day
// holding first to today (by the source's clock), newest first, within [start, end] (inclusive
// bounds on the points' timestamps), paged by pageSize and pageToken when
// paged (else every point).
func (e *Engine) dailySeries(v catalog.Values, scope string, first int64, paged bool, value func(day int64) []byte) (any, error) {
	now := e.stakeSrc.Now()
	start := intValue(v, "startTimestamp", 0)
	stop := intValue(v, "endTimestamp", math.MaxInt64)
	if start > stop {
		return nil, apireq.BadRequest("startTimestamp must not be greater than endTimestamp")
	}
	size := math.MaxInt
	cursor := int64(math.MaxInt64)
	if paged {
		size = int(intValue(v, "pageSize", defaultPageSize))
		scope += "|" + strconv.FormatInt(start, 10) + "|" + strconv.FormatInt(stop, 10)
		if tok := v["pageToken"]; tok != "" {
			c, err := pagetoken.Decode(scope, tok, now)
			if err != nil || c > math.MaxInt64 {
				return nil, apireq.BadRequest("pageToken is invalid or expired")
			}
			cursor = int64(c)
		}
	}
	lo := day.ceil(max(start, day.floor(first)))
	ts := day.floor(min(stop, now.Unix(), cursor))
	buf := append(make([]byte, 0, 1024), `{"results":[`...)
	for n := 0; ts >= lo && n < size; n++ {
		if n > 0 {
			buf = append(buf, ',')
		}
		buf = append(buf, `{"value":`...)
		buf = append(buf, value(ts)...)
		buf = append(buf, `,"timestamp":`...)
		buf = strconv.AppendInt(buf, ts, 10)
		buf = append(buf, '}')
		ts -= daySeconds
	}
	buf = append(buf, ']')
	if paged && ts >= lo {
		buf = append(buf, `,"nextPageToken":"`...)
		buf = append(buf, pagetoken.Encode(scope, uint64(ts), now)...)
		buf = append(buf, '"')
	}
	return json.RawMessage(append(buf, '}')), nil
}

// serveStaking answers getStakingMetrics: for each day, the validators
// (validatorCount, validatorWeight) of subnetId, and for the primary network
// the delegators (delegatorCount, delegatorWeight), that stake at the end of
// the day (at now, for today): added before it, and not yet ended (their
// end time, or their removal or disabling). The stakers of the genesis,
// which no block lists, are those the node lists as current, from their
// start time. Weights are in nAVAX for the
// primary network, the subnet's own units otherwise. The series runs from
// the first day with one of them, newest first.
func (e *Engine) serveStaking(q *apireq.Req) (any, error) {
	v := q.Q
	metric, subnet := v["metric"], cmp.Or(v["subnetId"], primaryNetwork)
	ss, err := e.subnetStakes(q.Context(), subnet)
	if err != nil {
		return nil, err
	}
	delegators := metric == "delegatorCount" || metric == "delegatorWeight"
	var picked []*pindex.Stake
	first := int64(math.MaxInt64)
	for _, s := range ss {
		keep := s.SubnetID == subnet && s.Kind != "delegator"
		if delegators {
			keep = s.SubnetID == subnet && s.Kind == "delegator"
		}
		if keep {
			picked = append(picked, s)
			first = min(first, s.Start)
		}
	}
	if len(picked) == 0 {
		return json.RawMessage([]byte(`{"results":[]}`)), nil
	}
	weight := metric == "validatorWeight" || metric == "delegatorWeight"
	now := e.stakeSrc.Now().Unix()
	return e.dailySeries(v, "getStakingMetrics|"+v["network"]+"|"+metric+"|"+subnet, first, true, func(d int64) []byte {
		at := min(d+daySeconds, now)
		var n uint64
		for _, s := range picked {
			if s.Start < at && end(s) > at {
				if weight {
					n += s.Weight
				} else {
					n++
				}
			}
		}
		return strconv.AppendUint(nil, n, 10)
	})
}

// l1Paid returns what L1 validation s paid the P-Chain from its start
// through t: L1FeeRate a second while active, at most its balance (the
// P-Chain deactivates a validator whose balance runs out).
func l1Paid(s *pindex.Stake, t int64) uint64 {
	stop := min(t, end(s))
	if stop <= s.Start {
		return 0
	}
	return min(uint64(stop-s.Start)*L1FeeRate, s.Balance)
}

// serveL1Fees answers the L1 validator fee series (getTotalL1ValidatorMetrics,
// getMetricsByValidationId, getMetricsByNodeId, getMetricsBySubnetId): for
// each day, what the selected L1 validations paid the P-Chain during it
// (the daily metrics), through its end (the cumulative ones), or how many
// paid anything during it (the paying-validator counts). A validation pays
// L1FeeRate nAVAX a second from its registration (or conversion) until it
// is disabled or its initial balance is spent; balance top-ups
// (IncreaseL1ValidatorBalanceTx) are not indexed, so a validator topped up
// is counted as stopping when its first balance ran out.
func (e *Engine) serveL1Fees(q *apireq.Req) (any, error) {
	v := q.Q
	metric := v["metric"]
	ss, err := e.stakes(q.Context())
	if err != nil {
		return nil, err
	}
	var picked []*pindex.Stake
	first := int64(math.MaxInt64)
	for _, s := range ss {
		if s.Kind != "l1_validator" {
			continue
		}
		switch {
		case v["l1ValidationId"] != "" && s.ValidationID != v["l1ValidationId"]:
			continue
		case v["nodeId"] != "" && s.NodeID.String() != v["nodeId"]:
			continue
		case v["subnetId"] != "" && s.SubnetID != v["subnetId"]:
			continue
		}
		picked = append(picked, s)
		first = min(first, s.Start)
	}
	if len(picked) == 0 {
		return json.RawMessage([]byte(`{"results":[]}`)), nil
	}
	now := e.stakeSrc.Now().Unix()
	return e.dailySeries(v, "", first, false, func(d int64) []byte {
		to := min(d+daySeconds, now)
		var n uint64
		for _, s := range picked {
			switch metric {
			case "totalCumulativeFeesDaily", "validationCumulativeFeesDaily", "perNodeCumulativeFeesPaid", "perSubnetCumulativeFeesPaid":
				n += l1Paid(s, to)
			case "totalPayingValidatorsDaily", "perSubnetPayingValidators":
				if l1Paid(s, to) > l1Paid(s, d) {
					n++
				}
			default:
				n += l1Paid(s, to) - l1Paid(s, d)
			}
		}
		return strconv.AppendUint(nil, n, 10)
	})
}

// serveValidatorAddresses answers getValidatorsByDateRange: the reward
// addresses of each validation of subnetId staking at some time within
// [startTimestamp, endTimestamp], with the time of the transaction that
// added it as sortKey, oldest first. Validations without reward addresses
// (permissioned subnet and L1 validators) are left out. Addresses carry the
// network's HRP, without a chain prefix.
func (e *Engine) serveValidatorAddresses(q *apireq.Req) (any, error) {
	v := q.Q
	start := intValue(v, "startTimestamp", 0)
	stop := intValue(v, "endTimestamp", math.MaxInt64)
	if start > stop {
		return nil, apireq.BadRequest("startTimestamp must not be greater than endTimestamp")
	}
	ss, err := e.subnetStakes(q.Context(), v["subnetId"])
	if err != nil {
		return nil, err
	}
	var picked []*pindex.Stake
	for _, s := range ss {
		if s.SubnetID == v["subnetId"] && s.Kind != "delegator" && len(s.RewardOwner) > 0 && s.Start <= stop && end(s) >= start {
			picked = append(picked, s)
		}
	}
	slices.SortStableFunc(picked, func(a, b *pindex.Stake) int { return cmp.Compare(a.Time, b.Time) })
	now := e.now() // the page tokens' clock
	scope := "getValidatorsByDateRange|" + v["subnetId"] + "|" + v["network"] + "|" + strconv.FormatInt(start, 10) + "|" + strconv.FormatInt(stop, 10)
	offset := 0
	if tok := v["pageToken"]; tok != "" {
		c, err := pagetoken.Decode(scope, tok, now)
		if err != nil || c > uint64(len(picked)) {
			return nil, apireq.BadRequest("pageToken is invalid or expired")
		}
		offset = int(c)
	}
	size := int(intValue(v, "pageSize", 1000))
	hrp := e.hrp(v["network"])
	buf := append(make([]byte, 0, 1024), `{"addresses":[`...)
	last := min(len(picked), offset+size)
	for i := offset; i < last; i++ {
		s := picked[i]
		if i > offset {
			buf = append(buf, ',')
		}
		buf = append(buf, `{"addresses":[`...)
		for j, a := range s.RewardOwner {
			if j > 0 {
				buf = append(buf, ',')
			}
			buf = strconv.AppendQuote(buf, avax.FormatBech32(hrp, a))
		}
		buf = append(buf, `],"sortKey":"`...)
		buf = strconv.AppendInt(buf, s.Time, 10)
		buf = append(buf, `"}`...)
	}
	buf = append(buf, ']')
	if last < len(picked) {
		buf = append(buf, `,"nextPageToken":"`...)
		buf = append(buf, pagetoken.Encode(scope, uint64(last), now)...)
		buf = append(buf, '"')
	}
	return json.RawMessage(append(buf, '}')), nil
}

// serveBtcbBridged answers getAddressesByBtcbBridged: the local world has
// no BTC.b bridge, so no address has bridged anything.
func (e *Engine) serveBtcbBridged(q *apireq.Req) (any, error) {
	v := q.Q
	if tok := v["pageToken"]; tok != "" {
		return nil, apireq.BadRequest("pageToken is invalid or expired")
	}
	return json.RawMessage([]byte(`{"addresses":[]}`)), nil
}
