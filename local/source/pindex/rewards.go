package pindex

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/avaedge/avaedge/avanet"
	"github.com/avaedge/avaedge/local/vocab/avax"
)

// Reward UTXOs. A RewardValidatorTx's block does not list the rewards it
// pays: avalanchego adds them to the UTXO set when the option block after
// its proposal block commits (the validation or delegation reward, and a
// validator's delegation fees) or aborts (a validator's delegation fees
// alone), and platform.getRewardUTXOs gives them by staking tx. The
// follower asks for them once the option block is indexed, and stores them
// as UTXOs of that block, emitted by the RewardValidatorTx (a generated
// network's blocks carry them in RawBlock.Paid instead). Meta
// "rewards_height" is the height of the last RewardValidatorTx read; a
// store written before the follower read rewards has none, so its reward
// transactions are read on the first catch-up.

// rewardsPerRead bounds the reward transactions one readRewards handles.
const rewardsPerRead = 100

// Reward kinds, as the Data API's RewardType names them.
const (
	RewardValidator    = "VALIDATOR"
	RewardDelegator    = "DELEGATOR"
	RewardValidatorFee = "VALIDATOR_FEE"
)

// pendingReward is a RewardValidatorTx whose deciding option block is
// indexed.
type pendingReward struct {
	id, stakingTx string
	height        uint64 // of the option block
	time          int64
	committed     bool
	delegation    bool
}

// readRewards stores the reward UTXOs of the RewardValidatorTxs indexed
// since the last read, up to rewardsPerRead of them.
func (ix *Index) readRewards(ctx context.Context) error {
	pending, err := ix.pendingRewards(ctx)
	if err != nil || len(pending) == 0 {
		return err
	}
	paid := make([][]Paid, len(pending))
	for i, p := range pending {
		if paid[i], err = ix.rewardUTXOs(ctx, p); err != nil {
			return err
		}
	}
	ix.writeMu.Lock()
	defer ix.writeMu.Unlock()
	err = ix.st.Write(ctx, func(b Batch) error {
		w := &writer{b: b, net: &ix.net, chain: avanet.ChainP}
		for i, p := range pending {
			// The option block may have been rolled back since it was read.
			if _, err := b.BlockID(avanet.ChainP, p.height); err != nil {
				return fmt.Errorf("pindex: the option block after reward tx %s: %w", p.id, err)
			}
			w.height, w.time = p.height, p.time
			for _, r := range paid[i] {
				if err := w.paidUTXO(p.id, r); err != nil {
					return fmt.Errorf("pindex: reward UTXO of %s: %w", p.id, err)
				}
			}
		}
		return b.SetMeta("rewards_height", strconv.FormatUint(pending[len(pending)-1].height-1, 10))
	})
	if err != nil {
		return err
	}
	ix.version.Add(1)
	return nil
}

// pendingRewards returns the RewardValidatorTxs above the last read whose
// option block is indexed, oldest first.
func (ix *Index) pendingRewards(ctx context.Context) ([]pendingReward, error) {
	from := int64(-1)
	if s, ok, err := ix.st.Meta("rewards_height"); err != nil {
		return nil, err
	} else if ok {
		if from, err = strconv.ParseInt(s, 10, 64); err != nil {
			return nil, fmt.Errorf("pindex: meta rewards_height %q: %w", s, err)
		}
	}
	txs, err := ix.st.RewardTxs(ctx, from, rewardsPerRead)
	if err != nil {
		return nil, err
	}
	out := make([]pendingReward, 0, len(txs))
	for _, r := range txs {
		p := pendingReward{id: r.ID, height: r.OptionHeight, time: r.OptionTime}
		var t struct {
			Unsigned struct {
				TxID string `json:"txID"`
			} `json:"unsignedTx"`
		}
		if err := json.Unmarshal(r.Body, &t); err != nil || t.Unsigned.TxID == "" {
			return nil, fmt.Errorf("pindex: reward tx %s names no staking tx", p.id)
		}
		p.stakingTx = t.Unsigned.TxID
		// A genesis staker, which no block lists, is a validator.
		p.committed, p.delegation = strings.HasSuffix(r.OptionType, "CommitBlock"), r.StakeKind == stakeDelegator
		out = append(out, p)
	}
	return out, nil
}

// rewardUTXOs asks the node for the reward UTXOs of p's staking tx and
// names their kinds: after a commit the first is the validation's or
// delegation's reward and the others a validator's delegation fees; after
// an abort there are only delegation fees. (A committed validation whose
// reward is zero pays none, and its fees would read as the reward: the
// reward of a real validation is never zero.)
func (ix *Index) rewardUTXOs(ctx context.Context, p pendingReward) ([]Paid, error) {
	utxos, err := ix.node.P().RewardUTXOs(ctx, p.stakingTx)
	if err != nil {
		return nil, err
	}
	out := make([]Paid, 0, len(utxos))
	for _, b := range utxos {
		u, err := parseRewardUTXO(b, p.stakingTx)
		if err != nil {
			return nil, fmt.Errorf("platform.getRewardUTXOs %s: %w", p.stakingTx, err)
		}
		out = append(out, Paid{UTXO: *u})
	}
	slices.SortFunc(out, func(a, b Paid) int { return cmp.Compare(a.UTXO.OutputIndex, b.UTXO.OutputIndex) })
	for i := range out {
		switch {
		case !p.committed || i > 0:
			out[i].Reward = RewardValidatorFee
		case p.delegation:
			out[i].Reward = RewardDelegator
		default:
			out[i].Reward = RewardValidator
		}
	}
	return out, nil
}

// parseRewardUTXO reads one UTXO of platform.getRewardUTXOs, which must be
// an output of the staking tx.
func parseRewardUTXO(b []byte, stakingTx string) (*avax.UTXO, error) {
	u, err := avax.ParseUTXO(b)
	if err != nil {
		return nil, err
	}
	if u.TxID.String() != stakingTx {
		return nil, fmt.Errorf("a reward UTXO of tx %s", u.TxID)
	}
	return u, nil
}
