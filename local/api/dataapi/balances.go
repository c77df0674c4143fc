package dataapi

import (
	"strconv"

	"github.com/avaedge/avaedge/avanet"
	"github.com/avaedge/avaedge/local/api/apireq"
	"github.com/avaedge/avaedge/local/source/pindex"
	"github.com/avaedge/avaedge/local/vocab/avax"
	"github.com/avaedge/avaedge/local/vocab/glacier"
)

// utxoSet reads the UTXOs of chain that addrs may spend: unspent ones, or
// every one with includeSpent. getUtxosByAddresses lists it and
// getBalancesByAddresses sums it, so the two always agree.
func (a *api) utxoSet(q *req, chain avanet.Chain, addrs []avax.ShortID, includeSpent bool) ([]*pindex.UTXO, *apireq.Error) {
	us, err := a.src.UTXOs(q.ctx, chain, addrs, includeSpent)
	if err != nil {
		return nil, apireq.Internal(err)
	}
	return us, nil
}

// heldAt keeps the UTXOs of all (read with spent ones) that were unspent at
// t (Unix seconds): made at or before it and not spent by then.
func heldAt(all []*pindex.UTXO, t int64) []*pindex.UTXO {
	var out []*pindex.UTXO
	for _, u := range all {
		if u.Time <= t && (!u.Spent || u.SpentTime > t) {
			out = append(out, u)
		}
	}
	return out
}

// tally sums amounts per asset, in the order assets first appear.
type tally struct {
	order  []string
	amount map[string]uint64
	count  map[string]int
}

func (t *tally) add(asset string, v uint64) {
	if t.amount == nil {
		t.amount, t.count = map[string]uint64{}, map[string]int{}
	}
	if _, ok := t.amount[asset]; !ok {
		t.order = append(t.order, asset)
	}
	t.amount[asset] += v
	t.count[asset]++
}

// list renders the tally as AggregatedAssetAmounts.
func (t *tally) list(c *assetCache) ([]glacier.AggregatedAmount, *apireq.Error) {
	out := []glacier.AggregatedAmount{}
	for _, id := range t.order {
		am, herr := c.asset(id)
		if herr != nil {
			return nil, herr
		}
		out = append(out, glacier.AggregatedAmount{AssetID: am.AssetID, Name: am.Name, Symbol: am.Symbol, Denomination: am.Denomination,
			Type: am.Type, Amount: u64(t.amount[id]), UTXOCount: t.count[id]})
	}
	return out, nil
}

// sharedTally tallies a chain's shared memory per source chain and asset.
type sharedTally struct {
	order []avanet.Chain
	by    map[avanet.Chain]*tally
}

func (s *sharedTally) add(from avanet.Chain, asset string, v uint64) {
	if s.by == nil {
		s.by = map[avanet.Chain]*tally{}
	}
	if s.by[from] == nil {
		s.order = append(s.order, from)
		s.by[from] = &tally{}
	}
	s.by[from].add(asset, v)
}

// list renders the tally as shared assets; status is the P-Chain's
// ("locked", "unlocked"), "" on the other chains.
func (s *sharedTally) list(q *req, c *assetCache, status string) ([]glacier.SharedAmount, *apireq.Error) {
	out := []glacier.SharedAmount{}
	for _, from := range s.order {
		items, herr := s.by[from].list(c)
		if herr != nil {
			return nil, herr
		}
		for _, it := range items {
			out = append(out, glacier.SharedAmount{AggregatedAmount: it, SharedWithChainID: q.view.chainID(from).String(), Status: status})
		}
	}
	return out, nil
}

// getBalances is getBalancesByAddresses: the sums of the UTXO set
// getUtxosByAddresses lists, at blockTimestamp when it is given (the UTXOs
// held then, locks as of then), else now. On the P-Chain: staked outputs
// whose staking has not ended (pending before it starts, locked while
// stakeable-locked), unstaked ones stakeable-locked, time-locked or
// unlocked, and the shared memory from the other chains; on the X-Chain
// locked and unlocked ones and its shared memory; on the C-Chain its
// shared memory (exports to it that no import the index holds spent).
func (a *api) getBalances(q *req) (any, error) {
	chain, herr := q.resolveChain(avanet.ChainP, avanet.ChainX, avanet.ChainC)
	if herr != nil {
		return nil, herr
	}
	addrs := q.Addresses("addresses")
	at, past := q.Integer("blockTimestamp")
	if len(q.Errs) > 0 {
		return nil, nil
	}
	all, herr := a.utxoSet(q, chain, addrs, past)
	if herr != nil {
		return nil, herr
	}
	now := a.src.Now().Unix()
	if past {
		all, now = heldAt(all, at), at
	}
	info := glacier.ChainInfo{ChainName: alias(chain), Network: q.Network}
	assets := a.assets(q)
	var atomicUnlocked, atomicLocked sharedTally
	for _, u := range all {
		if u.CreatedOn != chain {
			if u.Locktime > uint64(now) {
				atomicLocked.add(u.CreatedOn, u.AssetID, u.Amount)
			} else {
				atomicUnlocked.add(u.CreatedOn, u.AssetID, u.Amount)
			}
		}
	}
	status := ""
	if chain == avanet.ChainP {
		status = "unlocked"
	}
	au, herr := atomicUnlocked.list(q, assets, status)
	if herr != nil {
		return nil, herr
	}
	if status != "" {
		status = "locked"
	}
	al, herr := atomicLocked.list(q, assets, status)
	if herr != nil {
		return nil, herr
	}
	switch chain {
	case avanet.ChainC:
		return glacier.ListBalancesResponse[glacier.CChainBalances]{ChainInfo: info,
			Balances: glacier.CChainBalances{AtomicMemoryUnlocked: au, AtomicMemoryLocked: al}}, nil
	case avanet.ChainX:
		b := glacier.XChainBalances{AtomicMemoryUnlocked: au, AtomicMemoryLocked: al}
		if b.Locked, b.Unlocked, herr = xBalances(all, now, assets); herr != nil {
			return nil, herr
		}
		return glacier.ListBalancesResponse[glacier.XChainBalances]{ChainInfo: info, Balances: b}, nil
	}
	b := glacier.PChainBalances{AtomicMemoryUnlocked: au, AtomicMemoryLocked: al}
	if herr = pBalances(&b, all, now, assets); herr != nil {
		return nil, herr
	}
	return glacier.ListBalancesResponse[glacier.PChainBalances]{ChainInfo: info, Balances: b}, nil
}

// xBalances is the X-Chain's own part of getBalances: the sums of the
// UTXOs created on it, locked and unlocked at now.
func xBalances(all []*pindex.UTXO, now int64, assets *assetCache) (locked, unlocked []glacier.AggregatedAmount, herr *apireq.Error) {
	var l, u tally
	for _, o := range all {
		switch {
		case o.CreatedOn != avanet.ChainX:
		case o.Locktime > uint64(now):
			l.add(o.AssetID, o.Amount)
		default:
			u.add(o.AssetID, o.Amount)
		}
	}
	if locked, herr = l.list(assets); herr != nil {
		return nil, nil, herr
	}
	unlocked, herr = u.list(assets)
	return locked, unlocked, herr
}

// pBalances fills the P-Chain's own parts of b: the sums of the UTXOs
// created on it, each in its pKind at now.
func pBalances(b *glacier.PChainBalances, all []*pindex.UTXO, now int64, assets *assetCache) *apireq.Error {
	var parts [6]tally // unlockedUnstaked, unlockedStaked, lockedPlatform, lockedStakeable, lockedStaked, pendingStaked
	for _, u := range all {
		if u.CreatedOn != avanet.ChainP {
			continue
		}
		parts[pKind(u, uint64(now))].add(u.AssetID, u.Amount)
	}
	lists := [6]*[]glacier.AggregatedAmount{&b.UnlockedUnstaked, &b.UnlockedStaked, &b.LockedPlatform, &b.LockedStakeable, &b.LockedStaked, &b.PendingStaked}
	for i := range parts {
		var herr *apireq.Error
		if *lists[i], herr = parts[i].list(assets); herr != nil {
			return herr
		}
	}
	return nil
}

// pKind is the PChainBalance part of a P-Chain UTXO at now: the index of
// unlockedUnstaked, unlockedStaked, lockedPlatform, lockedStakeable,
// lockedStaked, pendingStaked. A stake output whose staking ended by now
// is back in the UTXO set, unstaked; at a past now, one that ended since
// was still staked.
func pKind(u *pindex.UTXO, now uint64) int {
	if u.Staked && (!u.StakeEnded || uint64(u.StakeEndedTime) > now) {
		switch {
		case uint64(u.StakeStart) > now:
			return 5
		case u.StakeLocktime > now:
			return 4
		}
		return 1
	}
	switch {
	case u.StakeLocktime > now:
		return 3
	case u.Locktime > now:
		return 2
	}
	return 0
}

// lastActivity is getLastActivityTimestampByAddresses (GET, addresses in
// the query) and its v2 (POST, in the body): the latest block of the chain
// whose transactions made or spent one of the addresses' UTXOs; 404 when
// none did.
func (a *api) lastActivity(q *req) (any, error) {
	chain, herr := q.resolveChain(avanet.ChainP, avanet.ChainX, avanet.ChainC)
	if herr != nil {
		return nil, herr
	}
	addrs := q.Addresses("addresses")
	if len(q.Errs) > 0 {
		return nil, nil
	}
	act, ok, err := a.src.LastActivity(q.ctx, chain, addrs)
	if err != nil {
		return nil, apireq.Internal(err)
	}
	if !ok {
		return nil, apireq.NotFound("No activity found for the addresses on the " + alias(chain))
	}
	network := q.Network
	if network == avanet.TestnetName {
		network = avanet.Fuji.Name // PrimaryNetworkType names no testnet
	}
	return glacier.LastActivity{Timestamp: act.Time, BlockNumber: strconv.FormatUint(act.Height, 10), TxHash: q.view.id(act.TxID),
		UTXOID: act.UTXOID, IsConsumed: act.Consumed, ChainName: alias(chain), Network: network}, nil
}
