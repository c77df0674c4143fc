package primary

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"slices"

	"github.com/avaedge/avaedge/local/api/node"
	gen "github.com/avaedge/avaedge/local/source/devnet"
	"github.com/avaedge/avaedge/local/source/pindex"
	"github.com/avaedge/avaedge/local/vocab/avax"
)

// staking is the devnet's primary-network staker set and its history as its
// node holds them (node.Staking): what getStake, getMinStake and
// getValidatorsAt answer in devnet mode. It reads the immutable world and
// is safe for concurrent use.
type staking struct{ w *gen.World }

var _ node.Staking = staking{}

// MinStake is the devnet's: avalanchego's local network's minimums.
func (s staking) MinStake() (validator, delegator uint64) {
	return gen.MinValidatorStake, gen.MinDelegatorStake
}

// stakerAt is one primary-network stake with what orders it in the node's
// staker iterators.
type stakerAt struct {
	next      int64 // the end of a current stake, the start of a pending one
	validator bool
	txID      avax.ID
}

// Stakers are the primary network's stakes running at the world's clock,
// then those not yet started, ordered as avalanchego's staker iterators
// order them (state.Staker.Less): by time, then delegators before
// validators when current (PrimaryNetworkDelegatorCurrentPriority <
// PrimaryNetworkValidatorCurrentPriority) and validators before Banff
// delegators when pending, then by tx id.
func (s staking) Stakers() []node.Staker {
	now := s.w.Now().Unix()
	var current, pending []stakerAt
	for _, v := range s.w.Validations() {
		if !v.SubnetID.IsEmpty() {
			continue
		}
		switch v.Status(now) {
		case gen.StatusActive:
			current = append(current, stakerAt{next: v.End, validator: true, txID: v.TxID})
		case gen.StatusPending:
			pending = append(pending, stakerAt{next: v.Start, validator: true, txID: v.TxID})
		}
	}
	for _, d := range s.w.Delegations() {
		switch d.Status(now) {
		case gen.StatusActive:
			current = append(current, stakerAt{next: d.End, txID: d.TxID})
		case gen.StatusPending:
			pending = append(pending, stakerAt{next: d.Start, txID: d.TxID})
		}
	}
	priority := func(current bool) func(a, b stakerAt) int {
		return func(a, b stakerAt) int {
			pa, pb := a.validator != current, b.validator != current // current: delegators first
			return cmp.Or(cmp.Compare(a.next, b.next), boolCompare(pa, pb), bytes.Compare(a.txID[:], b.txID[:]))
		}
	}
	slices.SortFunc(current, priority(true))
	slices.SortFunc(pending, priority(false))
	out := make([]node.Staker, 0, len(current)+len(pending))
	for _, k := range append(current, pending...) {
		out = append(out, node.Staker{Validator: k.validator, Stake: s.w.StakeOutputs(k.txID)})
	}
	return out
}

// boolCompare orders true before false.
func boolCompare(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return -1
	}
	return 1
}

// ValidatorsAt is the devnet's validator set of subnet at height; an
// unknown subnet has none, as on a node.
func (s staking) ValidatorsAt(subnet avax.ID, height uint64) ([]node.SetMember, error) {
	set, err := s.w.SetAt(subnet, height)
	if errors.Is(err, gen.ErrUnknownSubnet) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	out := make([]node.SetMember, len(set))
	for i, m := range set {
		out[i] = node.SetMember{NodeID: m.NodeID, Weight: m.Weight, PublicKey: m.PublicKey}
	}
	return out, nil
}

// RewardUTXOs are the reward UTXOs the devnet's index holds for the stake
// of stakingTx: those its RewardValidatorTx paid (the index's UTXOs it
// emitted with a reward kind), by output index.
func (s staking) RewardUTXOs(ctx context.Context, stakingTx avax.ID) ([][]byte, error) {
	ix := s.w.Index()
	stakes, err := ix.Stakes(ctx)
	if err != nil {
		return nil, err
	}
	id := stakingTx.String()
	i := slices.IndexFunc(stakes, func(st *pindex.Stake) bool { return st.TxID == id && st.EndKind == "completed" })
	if i < 0 {
		return nil, nil
	}
	paid, _, err := ix.TxUTXOs(ctx, stakes[i].EndTx)
	if err != nil {
		return nil, err
	}
	var out [][]byte
	for _, u := range paid {
		if u.Reward != "" && u.TxID == id {
			out = append(out, u.Bytes)
		}
	}
	return out, nil
}
