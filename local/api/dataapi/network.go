package dataapi

import (
	"cmp"
	"slices"
	"strconv"
	"time"

	"github.com/avaedge/avaedge/local/api/apireq"
	"github.com/avaedge/avaedge/local/source/pindex"
	"github.com/avaedge/avaedge/local/vocab/avax"
	"github.com/avaedge/avaedge/local/vocab/glacier"
)

// stakeFigures are the primary network's active stakes as the network
// lists them now.
type stakeFigures struct {
	validators, delegators int
	staked, delegated      uint64 // the validators' own stake; their delegations
	// potential are the potential rewards of the active validations and
	// delegations; accrued the delegation fees validators have accrued
	// from delegations that ended (paid when the validation ends).
	potential, accrued uint64
	byVersion          map[string]*glacier.StakingDistribution
}

// stakes totals the active primary-network validations.
func (a *api) stakes(q *req) (stakeFigures, *apireq.Error) {
	f := stakeFigures{byVersion: map[string]*glacier.StakingDistribution{}}
	all, _, herr := a.validations(q)
	if herr != nil {
		return f, herr
	}
	for _, v := range all {
		if v.status != "active" || !v.primary() {
			continue
		}
		f.validators++
		f.delegators += v.delegators
		f.staked += v.weight
		f.delegated += v.delegated
		if c := v.cur; c != nil {
			f.potential += num(c.PotentialReward)
			f.accrued += num(c.AccruedReward)
			for _, d := range c.Delegators {
				f.potential += num(d.PotentialReward)
			}
		}
		if a.opts.Nodes == nil {
			continue
		}
		id, err := avax.ParseNodeID(v.node)
		if err != nil {
			continue
		}
		if _, version, ok := a.opts.Nodes.Node(id); ok {
			d := f.byVersion[version]
			if d == nil {
				d = &glacier.StakingDistribution{Version: version, AmountStaked: "0"}
				f.byVersion[version] = d
			}
			d.ValidatorCount++
			d.AmountStaked = u64(num(d.AmountStaked) + v.weight)
		}
	}
	return f, nil
}

// getNetworkDetails is getNetworkDetails: the active primary-network
// validators and delegators as the network lists them now. The estimated
// staking reward is the sum of their potential rewards (over each stake's
// period); the staking ratio their stake over the supply getAvaxSupply
// gives; the stake by version counts the validators whose avalanchego
// version is known (the devnet's nodes; a followed network's are not).
func (a *api) getNetworkDetails(q *req) (any, error) {
	f, s, herr := a.stakesAndSupply(q)
	if herr != nil {
		return nil, herr
	}
	ratio := "0"
	if s.total > 0 {
		ratio = strconv.FormatFloat(float64(f.staked+f.delegated)/float64(s.total), 'f', -1, 64)
	}
	versions := []glacier.StakingDistribution{}
	for _, d := range f.byVersion {
		versions = append(versions, *d)
	}
	slices.SortFunc(versions, func(x, y glacier.StakingDistribution) int { return cmp.Compare(x.Version, y.Version) })
	return glacier.NetworkDetails{
		ValidatorDetails: glacier.ValidatorsDetails{ValidatorCount: f.validators, TotalAmountStaked: u64(f.staked),
			EstimatedAnnualStakingReward: u64(f.potential), StakingDistributionByVersion: versions, StakingRatio: ratio},
		DelegatorDetails: glacier.DelegatorsDetails{DelegatorCount: f.delegators, TotalAmountStaked: u64(f.delegated)},
	}, nil
}

// listBlockchains is listBlockchains: every chain a CreateChainTx made,
// the X- and C-Chain of the P-Chain's genesis included (as
// platform.getBlockchains lists them), oldest first unless desc.
func (a *api) listBlockchains(q *req) (any, error) {
	size := q.PageSize(100)
	desc := q.Desc()
	items, err := a.src.Blockchains(q.ctx)
	if err != nil {
		return nil, apireq.Internal(err)
	}
	apireq.Order(items, desc, func(x, y pindex.Blockchain) bool {
		return cmp.Or(cmp.Compare(x.Height, y.Height), cmp.Compare(x.ID, y.ID)) < 0
	})
	page, next, herr := apireq.Paginate(q.Req, items, size, q.Scope())
	if herr != nil {
		return nil, herr
	}
	out := glacier.ListBlockchainsResponse{NextPageToken: next, Blockchains: []glacier.Blockchain{}}
	for _, c := range page {
		out.Blockchains = append(out.Blockchains, q.blockchain(c))
	}
	return out, nil
}

// getBlockchain is getBlockchainById.
func (a *api) getBlockchain(q *req) (any, error) {
	raw := q.Q.Get("blockchainId")
	if _, err := avax.ParseID(raw); err != nil {
		return nil, apireq.BadRequest("blockchainId must be a valid blockchain id")
	}
	c, ok, err := a.src.Blockchain(q.ctx, q.view.ownID(raw))
	if err != nil {
		return nil, apireq.Internal(err)
	}
	if !ok {
		return nil, apireq.NotFound("Blockchain " + raw + " not found")
	}
	return q.blockchain(c), nil
}

// supplyFigures are the AVAX supply's parts, in nAVAX.
type supplyFigures struct {
	genesis, total, rewards, burnedP, burnedX, locked, l1Fees uint64
	at                                                        int64
}

// stakesAndSupply reads the active stake and the supply it is a part of,
// which getNetworkDetails and getAvaxSupply both show.
func (a *api) stakesAndSupply(q *req) (stakeFigures, supplyFigures, *apireq.Error) {
	f, herr := a.stakes(q)
	if herr != nil {
		return f, supplyFigures{}, herr
	}
	s, herr := a.supply(q, f)
	return f, s, herr
}

// supply computes the AVAX supply. A followed network's total is the
// supply its node last reported (platform.getCurrentSupply: the genesis
// plus the potential rewards of every staker added, the current ones'
// included), and its genesis that less the rewards paid, the current
// stakers' potential rewards and the fees validators accrued; the
// devnet's total is its genesis plus the rewards paid less the fees
// burned. Burned fees are the P- and X-Chain's (pindex.Totals); the
// P-Chain's include the L1 validators' fees: the balances L1 validators
// were given less what was returned and what they still hold.
func (a *api) supply(q *req, f stakeFigures) (supplyFigures, *apireq.Error) {
	var s supplyFigures
	t, err := a.src.Totals(q.ctx)
	if err != nil {
		return s, apireq.Internal(err)
	}
	now := a.src.Now().Unix()
	if s.locked, err = a.src.LockedAVAX(q.ctx, now); err != nil {
		return s, apireq.Internal(err)
	}
	held, herr := a.l1Held(q)
	if herr != nil {
		return s, herr
	}
	s.l1Fees = sub(t.L1Given, t.L1Returned+held)
	s.rewards, s.burnedP, s.burnedX = t.Rewards, t.BurnedP+s.l1Fees, t.BurnedX
	reported, ok, err := a.src.Supply(q.ctx)
	switch {
	case err != nil:
		return s, apireq.Internal(err)
	case ok:
		s.total, s.at = reported.Current, reported.Time
		s.genesis = sub(s.total, s.rewards+f.potential+f.accrued)
	case a.opts.GenesisSupply > 0:
		s.genesis, s.at = a.opts.GenesisSupply, now
		s.total = sub(s.genesis+s.rewards, s.burnedP+s.burnedX)
	default:
		return s, apireq.Unavailable("the network's supply has not been read from the node yet")
	}
	return s, nil
}

// sub is a-b, or 0 below it.
func sub(a, b uint64) uint64 {
	if b > a {
		return 0
	}
	return a - b
}

// l1Held sums the balances the L1s' validators hold now, as the network
// lists them.
func (a *api) l1Held(q *req) (uint64, *apireq.Error) {
	subnets, err := a.src.Subnets(q.ctx)
	if err != nil {
		return 0, apireq.Internal(err)
	}
	var held uint64
	for _, s := range subnets {
		if s.Conversion == nil {
			continue
		}
		cur, herr := a.currentOf(q, s.ID)
		if herr != nil {
			return 0, herr
		}
		for _, c := range cur {
			held += num(c.Balance)
		}
	}
	return held, nil
}

// getSupply is getAvaxSupply, in AVAX. Circulating is the total less the
// locked AVAX (time-locked and stakeable-locked UTXOs); staked is the
// active primary-network stake, delegations included. The C-Chain's
// burns are not indexed with the P- and X-Chain: totalCBurned is 0.
func (a *api) getSupply(q *req) (any, error) {
	f, s, herr := a.stakesAndSupply(q)
	if herr != nil {
		return nil, herr
	}
	return glacier.AvaxSupply{
		CirculatingSupply: avaxAmount(sub(s.total, s.locked)), TotalSupply: avaxAmount(s.total),
		TotalPBurned: avaxAmount(s.burnedP), TotalCBurned: "0", TotalXBurned: avaxAmount(s.burnedX),
		TotalStaked: avaxAmount(f.staked + f.delegated), TotalLocked: avaxAmount(s.locked), TotalRewards: avaxAmount(s.rewards),
		LastUpdated: time.Unix(s.at, 0).UTC().Format("2006-01-02T15:04:05.000Z"), GenesisUnlock: avaxAmount(s.genesis),
		L1ValidatorFees: avaxAmount(s.l1Fees),
	}, nil
}

// avaxAmount prints nAVAX as AVAX: "360000000", "0.001".
func avaxAmount(n uint64) string {
	whole, frac := n/1_000_000_000, n%1_000_000_000
	if frac == 0 {
		return u64(whole)
	}
	f := strconv.FormatUint(frac+1_000_000_000, 10)[1:]
	for f[len(f)-1] == '0' {
		f = f[:len(f)-1]
	}
	return u64(whole) + "." + f
}
