package devnet

import (
	"cmp"
	"fmt"
	"math/big"
	"math/rand/v2"
	"slices"

	"github.com/avaedge/avaedge/local/vocab/avax"
)

// Staking parameters of the devnet.
const (
	// RewardRatePercent is the yearly staking reward rate.
	RewardRatePercent = 8
	yearSeconds       = 365 * day
)

// reward returns weight * rate * duration / year.
func reward(weight uint64, start, end int64) uint64 {
	if end <= start {
		return 0
	}
	r := new(big.Int).SetUint64(weight)
	r.Mul(r, big.NewInt(RewardRatePercent*(end-start)))
	r.Quo(r, big.NewInt(100*yearSeconds))
	return r.Uint64()
}

func (w *World) pickOwner(r interface{ IntN(int) int }) []avax.ShortID {
	return []avax.ShortID{w.addrs[r.IntN(len(w.addrs))]}
}

// scheduleStaking lays out the primary network's validations and delegations so
// that every status appears (see the package tests for the invariants).
func (w *World) scheduleStaking(p *schedule) {
	s := &stakePlan{w: w, r: w.rng("staking")}
	vals := s.validations()
	for _, v := range vals {
		kind := "AddPermissionlessValidatorTx"
		if v.BLS == nil {
			kind = "AddValidatorTx"
		}
		tx := &PTx{Kind: kind, Time: txTime(v.Start, w.now, day), funder: v.RewardOwner[0], validation: v}
		if v.Start == w.genesis {
			tx.ID, tx.genesis = v.TxID, true
		}
		v.TxID = p.add(tx).ID
		w.validations = append(w.validations, v)
	}
	for _, v := range vals {
		s.delegations(p, v)
	}
	for _, v := range vals {
		v.Reward = reward(v.Weight, v.Start, v.End)
		if v.Status(w.now) == StatusCompleted {
			v.RewardTxID = p.add(&PTx{Kind: "RewardValidatorTx", Time: v.End, rewardOf: p.byID(v.TxID)}).ID
		}
	}
	w.sortStakes()
}

// The devnet's minimum stakes on the primary network, avalanchego's local
// network's (genesis/genesis_local.go): every stake it draws is at least
// these.
const (
	MinValidatorStake = 2000 * nAVAX
	MinDelegatorStake = 25 * nAVAX
)

// stakePlan draws the devnet's stakes from r, in scheduleStaking's order.
type stakePlan struct {
	w *World
	r *rand.Rand
}

// weight draws a weight of lo to hi AVAX.
func (s *stakePlan) weight(lo, hi uint64) uint64 { return (lo + s.r.Uint64N(hi-lo+1)) * nAVAX }

// validation draws a validation of nd from start to end, with its BLS key
// when bls.
func (s *stakePlan) validation(nd *node, start, end int64, bls bool) *Validation {
	v := &Validation{
		NodeID: nd.id, Weight: s.weight(MinValidatorStake/nAVAX, 10000), Start: start, End: end,
		DelegationFee: uint32(20000 + 10000*s.r.IntN(9)), RewardOwner: s.w.pickOwner(s.r),
		Uptime: 90 + float64(s.r.IntN(1000))/100, Version: nd.version, Geo: nd.geo,
	}
	if bls {
		b := nd.bls
		v.BLS = &b
	}
	return v
}

// validations are the primary network's validations: the genesis
// validators (nodes 0..n-3, whose staking transactions are in the
// P-Chain's genesis), a completed then an active validation of node n-2, a
// completed legacy one (no BLS) then a pending one of node n-1.
func (s *stakePlan) validations() []*Validation {
	w := s.w
	G, now, n := w.genesis, w.now, w.cfg.Validators
	var vals []*Validation
	for i := range n - 2 {
		v := s.validation(w.nodes[i], G, now+(60+17*int64(i))*day, true)
		v.TxID = w.deriveID("genesis validator", fmt.Sprint(i))
		vals = append(vals, v)
	}
	a := w.nodes[n-2]
	vals = append(vals, s.validation(a, G+1*day, G+15*day, true), s.validation(a, now-3*day, now+100*day, true))
	b := w.nodes[n-1]
	return append(vals, s.validation(b, G+2*day, G+16*day, false), s.validation(b, now+3*day, now+60*day, true))
}

// delegations schedules v's delegations, by its status: two of a completed
// validation, four of an active one (completed, active and pending), one
// of a pending one; a completed delegation is rewarded.
func (s *stakePlan) delegations(p *schedule, v *Validation) {
	w, now := s.w, s.w.now
	var spans [][2]int64
	switch v.Status(now) {
	case StatusCompleted:
		spans = [][2]int64{{v.Start + day, v.Start + 8*day}, {v.Start + 2*day, v.End}}
	case StatusActive:
		half := (now - v.Start) / 2
		spans = [][2]int64{
			{v.Start + day, v.Start + day + half},
			{v.Start + (now-v.Start)*2/3, v.End - day},
			{now - hour, v.End - 2*day},
			{now + day, v.End - 3*day},
		}
	case StatusPending:
		spans = [][2]int64{{v.Start + day, v.End - day}}
	}
	for _, sp := range spans {
		d := &Delegation{
			NodeID: v.NodeID, Weight: s.weight(MinDelegatorStake/nAVAX, 1000), Start: sp[0], End: sp[1],
			RewardOwner: w.pickOwner(s.r), DelegationFee: v.DelegationFee,
		}
		d.GrossReward = reward(d.Weight, d.Start, d.End)
		fee := d.GrossReward * uint64(d.DelegationFee) / 1_000_000
		d.NetReward = d.GrossReward - fee
		v.DelegationReward += fee
		tx := p.add(&PTx{Kind: "AddPermissionlessDelegatorTx", Time: txTime(d.Start, now, 12*hour),
			funder: d.RewardOwner[0], delegation: d, validation: v})
		d.TxID = tx.ID
		w.delegations = append(w.delegations, d)
		if d.Status(now) == StatusCompleted {
			d.RewardTxID = p.add(&PTx{Kind: "RewardValidatorTx", Time: d.End, rewardOf: tx}).ID
		}
	}
}

// txTime is when a staking transaction is issued: at its start, or lead
// before now for a stake that starts in the future.
func txTime(start, now, lead int64) int64 {
	if start <= now {
		return start
	}
	return now - lead
}

func (w *World) sortStakes() {
	slices.SortStableFunc(w.validations, func(a, b *Validation) int {
		return cmp.Or(cmp.Compare(a.Start, b.Start), cmpID(a.TxID, b.TxID))
	})
	slices.SortStableFunc(w.delegations, func(a, b *Delegation) int {
		return cmp.Or(cmp.Compare(a.Start, b.Start), cmpID(a.TxID, b.TxID))
	})
}

func cmpID(a, b avax.ID) int {
	for i := range a {
		if c := cmp.Compare(a[i], b[i]); c != 0 {
			return c
		}
	}
	return 0
}

// Validations returns every primary-network and subnet validation, by start
// time. The slice is shared: do not modify it.
func (w *World) Validations() []*Validation { return w.validations }

// Delegations returns every delegation, by start time. The slice is shared:
// do not modify it.
func (w *World) Delegations() []*Delegation { return w.delegations }

// NodeValidations returns the validations of one node, by start time.
func (w *World) NodeValidations(id avax.NodeID) []*Validation {
	var out []*Validation
	for _, v := range w.validations {
		if v.NodeID == id {
			out = append(out, v)
		}
	}
	return out
}

// StakeOutputs returns the outputs a validation's or a delegation's
// transaction staked (its TxID), as UTXOs of that transaction; none for
// another transaction.
func (w *World) StakeOutputs(txID avax.ID) []*avax.UTXO {
	if tx, ok := w.pTxs[txID]; ok {
		return tx.stake
	}
	return nil
}

// HasNode reports whether id is one of the world's nodes.
func (w *World) HasNode(id avax.NodeID) bool { _, ok := w.nodeIdx[id]; return ok }

// validationOf returns the primary validation that d delegates to.
func (w *World) validationOf(d *Delegation) *Validation {
	for _, v := range w.validations {
		if v.NodeID == d.NodeID && v.SubnetID.IsEmpty() && d.Start >= v.Start && d.End <= v.End {
			return v
		}
	}
	return nil
}
