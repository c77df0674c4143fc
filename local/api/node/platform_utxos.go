package node

import (
	"cmp"
	"context"
	"math"
	"slices"

	"github.com/avaedge/avaedge/avanet"
	"github.com/avaedge/avaedge/local/source/pindex"
	"github.com/avaedge/avaedge/local/vocab/avax"
)

// chainUTXOs are the unspent outputs the index holds on holder (the P- or
// the C-Chain): its own and those exported to it and not yet imported;
// chains names the primary network's chains by the ids a caller may give
// as a source.
type chainUTXOs struct {
	ix     PIndex
	holder avanet.Chain
	chains map[avax.ID]avanet.Chain
}

// UTXOs returns the unspent outputs addr may spend on the holder (source
// the holder), newest first as the node's per-address list holds them (a
// block's outputs after the older blocks', a transaction's in index order
// at the head), or those exported to it from source. A stake is not in the
// UTXO set while it runs: its outputs are left out until it ends.
func (u chainUTXOs) UTXOs(source avax.ID, addr avax.ShortID) []*avax.UTXO {
	return u.UTXOsOf(source, []avax.ShortID{addr})[addr]
}

// UTXOsOf returns UTXOs' answer for each of addrs, read in one query: a
// page of 1,024 addresses is one read of the store, not 1,024.
func (u chainUTXOs) UTXOsOf(source avax.ID, addrs []avax.ShortID) map[avax.ShortID][]*avax.UTXO {
	chain, ok := u.chains[source]
	if !ok {
		return nil
	}
	rows, err := u.ix.UTXOs(context.Background(), u.holder, addrs, false)
	if err != nil {
		return nil
	}
	rows = slices.DeleteFunc(rows, func(r *pindex.UTXO) bool {
		return r.CreatedOn != chain || (r.Staked && !r.StakeEnded) || len(r.Bytes) == 0
	})
	// Newest first: by the height that put the output in the set, then
	// by its place in its transaction, last first.
	slices.SortStableFunc(rows, func(a, b *pindex.UTXO) int {
		if c := cmp.Compare(b.Height, a.Height); c != 0 {
			return c
		}
		return cmp.Compare(b.OutputIndex, a.OutputIndex)
	})
	want := make(map[avax.ShortID]bool, len(addrs))
	for _, a := range addrs {
		want[a] = true
	}
	out := make(map[avax.ShortID][]*avax.UTXO, len(addrs))
	for _, r := range rows {
		p, err := avax.ParseUTXO(r.Bytes)
		if err != nil {
			continue
		}
		for _, a := range r.Addresses {
			if want[a] {
				out[a] = append(out[a], p)
			}
		}
	}
	return out
}

type pBalanceArgs struct {
	Addresses []string `json:"addresses"`
}

// pBalanceReply is platformvm's GetBalanceResponse: AVAX's amounts, then
// every asset's by id, then the UTXOs counted.
type pBalanceReply struct {
	Balance             uint64s            `json:"balance"`
	Unlocked            uint64s            `json:"unlocked"`
	LockedStakeable     uint64s            `json:"lockedStakeable"`
	LockedNotStakeable  uint64s            `json:"lockedNotStakeable"`
	Balances            map[string]uint64s `json:"balances"`
	Unlockeds           map[string]uint64s `json:"unlockeds"`
	LockedStakeables    map[string]uint64s `json:"lockedStakeables"`
	LockedNotStakeables map[string]uint64s `json:"lockedNotStakeables"`
	UTXOIDs             []utxoID           `json:"utxoIDs"`
}

// getBalance is platformvm's GetBalance over the index's P-Chain UTXOs:
// each output counted unlocked, locked and stakeable (a stakeable lock not
// passed) or locked and not stakeable (a locktime not passed) at the
// node's clock, sums saturating at the largest uint64 as the node's do.
func (p platform) getBalance(_ context.Context, args *pBalanceArgs) (*pBalanceReply, error) {
	addrs := make([]avax.ShortID, 0, len(args.Addresses))
	for _, str := range args.Addresses {
		a, err := p.s.parseAddress(str)
		if err != nil {
			return nil, err
		}
		if !slices.Contains(addrs, a) {
			addrs = append(addrs, a)
		}
	}
	utxos, _, _ := p.s.paginate(p.s.xChain, addrs, avax.ShortID{}, avax.ID{}, math.MaxInt)
	now := uint64(p.s.w.now().Unix())
	unlocked, stakeable, notStakeable := map[string]uint64s{}, map[string]uint64s{}, map[string]uint64s{}
	r := &pBalanceReply{}
	for _, u := range utxos {
		dst := unlocked
		switch out := u.Out.(type) {
		case *avax.TransferOutput:
			if out.Locktime > now {
				dst = notStakeable
			}
		case *avax.StakeableLockOut:
			switch {
			case out.Out.Locktime > now:
				dst = notStakeable
			case out.Locktime > now:
				dst = stakeable
			}
		default:
			continue
		}
		asset := p.assetName(u.AssetID)
		dst[asset] = addSat(dst[asset], u.Out.Amount())
		r.UTXOIDs = append(r.UTXOIDs, utxoID{TxID: u.TxID.String(), OutputIndex: u.OutputIndex})
	}
	balances := map[string]uint64s{}
	for _, m := range []map[string]uint64s{stakeable, notStakeable, unlocked} {
		for a, v := range m {
			balances[a] = addSat(balances[a], uint64(v))
		}
	}
	r.Balances, r.Unlockeds, r.LockedStakeables, r.LockedNotStakeables = balances, unlocked, stakeable, notStakeable
	a := p.avax.String()
	r.Balance, r.Unlocked, r.LockedStakeable, r.LockedNotStakeable = balances[a], unlocked[a], stakeable[a], notStakeable[a]
	return r, nil
}

// assetName is the id the methods print for an asset id in UTXO bytes.
func (p platform) assetName(raw avax.ID) string {
	if a, ok := p.s.rawAssets[raw]; ok {
		return a.ID.String()
	}
	return raw.String()
}

// addSat adds v to sum, saturating at the largest uint64.
func addSat(sum uint64s, v uint64) uint64s {
	if uint64(sum) > math.MaxUint64-v {
		return math.MaxUint64
	}
	return sum + uint64s(v)
}
