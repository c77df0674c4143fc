package dataapi

import (
	"cmp"
	"slices"

	"github.com/avaedge/avaedge/avanet"
	"github.com/avaedge/avaedge/local/api/apireq"
	"github.com/avaedge/avaedge/local/source/pindex"
	"github.com/avaedge/avaedge/local/vocab/avax"
	"github.com/avaedge/avaedge/local/vocab/glacier"
)

// listStakingTxs is listActivePrimaryNetworkStakingTransactions: the
// staking transactions (validations and delegations of the primary network
// and legacy subnets) whose staking is active at the source's clock and
// that one of the addresses funded (spent a UTXO of it, or got the stake
// back: its stake outputs are its) or is rewarded by; every active one
// without addresses. The transactions list's type and time filters apply.
func (a *api) listStakingTxs(q *req) (any, error) {
	if _, herr := q.resolveChain(avanet.ChainP); herr != nil {
		return nil, herr
	}
	addrs := q.Addresses("addresses")
	f := pindex.TxFilter{BlockRange: q.timeRange(), Types: q.List("txTypes")}
	f.Asc = !q.Desc()
	size := q.PageSize(10)
	scope := q.Scope("P")
	if herr := q.after(&f.BlockRange, scope); herr != nil || len(q.Errs) > 0 {
		return nil, herr
	}
	stakes, err := a.src.Stakes(q.ctx)
	if err != nil {
		return nil, apireq.Internal(err)
	}
	now := a.src.Now().Unix()
	var active, rewarded []string
	for _, s := range stakes {
		if s.Kind == "l1_validator" || stakeStatus(s, now) != "active" {
			continue
		}
		active = append(active, s.TxID)
		if slices.ContainsFunc(s.RewardOwner, func(x avax.ShortID) bool { return slices.Contains(addrs, x) }) {
			rewarded = append(rewarded, s.TxID)
		}
	}
	ids := active
	if len(addrs) > 0 {
		ids = rewarded
		if len(active) > 0 {
			funded, err := a.src.Txs(q.ctx, avanet.ChainP, pindex.TxFilter{IDs: active, Addrs: addrs})
			if err != nil {
				return nil, apireq.Internal(err)
			}
			for _, t := range funded {
				if !slices.Contains(ids, t.ID) {
					ids = append(ids, t.ID)
				}
			}
		}
	}
	out := glacier.ListTxsResponse[glacier.PChainTx]{Transactions: []glacier.PChainTx{}, ChainInfo: glacier.ChainInfo{ChainName: "p-chain", Network: q.Network}}
	if len(ids) == 0 {
		return out, nil
	}
	f.IDs, f.Limit = ids, size+1
	list, err := a.src.Txs(q.ctx, avanet.ChainP, f)
	if err != nil {
		return nil, apireq.Internal(err)
	}
	list, out.NextPageToken = txsNext(q, list, size, scope)
	return txPage(q, a.src, a.assets(q), list, out, a.pTx)
}

// listRewards is listHistoricalPrimaryNetworkRewards: the rewards of
// completed validations and delegations, each a UTXO its RewardValidatorTx
// paid (VALIDATOR, DELEGATOR, or a validator's VALIDATOR_FEE from its
// delegations) to one of the addresses, of one of the nodes' stakes,
// newest first. A reward of a stake the index does not hold (a followed
// network's genesis staker, which no block lists) is left out: its node
// and stake are not known.
func (a *api) listRewards(q *req) (any, error) {
	size := q.PageSize(10)
	desc := q.Desc()
	addrs := q.Addresses("addresses")
	nodes := q.NodeIDs("nodeIds")
	if len(q.Errs) > 0 {
		return nil, nil
	}
	paid, err := a.src.RewardUTXOs(q.ctx, addrs)
	if err != nil {
		return nil, apireq.Internal(err)
	}
	stakes, err := a.src.Stakes(q.ctx)
	if err != nil {
		return nil, apireq.Internal(err)
	}
	byTx := make(map[string]*pindex.Stake, len(stakes))
	for _, s := range stakes {
		byTx[s.TxID] = s
	}
	type item struct {
		u *pindex.UTXO
		s *pindex.Stake
	}
	var items []item
	for _, u := range paid {
		s := byTx[u.TxID]
		if s == nil || len(nodes) > 0 && !slices.Contains(nodes, s.NodeID) {
			continue
		}
		items = append(items, item{u, s})
	}
	apireq.Order(items, desc, func(x, y item) bool {
		return cmp.Or(cmp.Compare(x.u.Height, y.u.Height), cmp.Compare(x.u.TxID, y.u.TxID), cmp.Compare(x.u.OutputIndex, y.u.OutputIndex)) < 0
	})
	page, next, herr := apireq.Paginate(q.Req, items, size, q.Scope())
	if herr != nil {
		return nil, herr
	}
	out := glacier.ListHistoricalRewardsResponse{NextPageToken: next, HistoricalRewards: []glacier.HistoricalReward{}}
	assets := a.assets(q)
	for _, it := range page {
		am, herr := assets.amount(it.u)
		if herr != nil {
			return nil, herr
		}
		out.HistoricalRewards = append(out.HistoricalRewards, glacier.HistoricalReward{Addresses: q.bech32("", it.u.Addresses),
			TxHash: it.s.TxID, AmountStaked: u64(it.s.Weight), NodeID: it.s.NodeID.String(), StartTimestamp: it.s.Start, EndTimestamp: it.s.End,
			RewardType: it.u.Reward, UTXOID: it.u.ID, OutputIndex: it.u.OutputIndex, Reward: am, RewardTxHash: it.u.EmittedBy})
	}
	return out, nil
}
