package node

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"

	"github.com/avaedge/avaedge/avanet"
	"github.com/avaedge/avaedge/jsonrpc"
	"github.com/avaedge/avaedge/local/vocab/avax"
)

// Staking is a P-Chain's staker set as its own node holds it, with its
// history: what getStake, getMinStake, getValidatorsAt,
// getAllValidatorsAt, sampleValidators and getRewardUTXOs read. The devnet's
// world is one (local/world/devnet/primary); a followed node's index is
// not, since it keeps neither the node's staking configuration nor its
// validator set at each height. Implementations must be safe for
// concurrent use.
type Staking interface {
	// MinStake returns the primary network's minimum validator and
	// delegator stakes, in nAVAX.
	MinStake() (validator, delegator uint64)
	// Stakers returns the primary network's current stakers, then its
	// pending ones, each in the node's iteration order (by end or start
	// time, then delegators before validators, then by tx id).
	Stakers() []Staker
	// ValidatorsAt returns subnet's validator set (the empty id: the
	// primary network, weights with delegations) at a P-Chain height no
	// greater than the current one; an unknown subnet has none.
	ValidatorsAt(subnet avax.ID, height uint64) ([]SetMember, error)
	// RewardUTXOs returns the bytes of the UTXOs (avax.UTXO.Bytes) the
	// stake of stakingTx was rewarded with when it ended, by output
	// index; none for a stake not rewarded (yet) or another transaction.
	RewardUTXOs(ctx context.Context, stakingTx avax.ID) ([][]byte, error)
}

// Staker is one stake: a validator's or a delegator's, with the outputs it
// staked (their TxID and OutputIndex are not used).
type Staker struct {
	Validator bool
	Stake     []*avax.UTXO
}

// SetMember is one validator of a set at a height; PublicKey is its 48-byte
// compressed BLS key, nil when it registered none.
type SetMember struct {
	NodeID    avax.NodeID
	Weight    uint64
	PublicKey []byte
}

// maxGetStakeAddrs is platformvm's bound on getStake's addresses.
const maxGetStakeAddrs = 256

// stakingMethods returns getStake, getMinStake, getValidatorsAt,
// getAllValidatorsAt, sampleValidators and getRewardUTXOs over st.
func (p platform) stakingMethods(st Staking) map[string]jsonrpc.Method {
	s := staking{platform: p, st: st}
	return map[string]jsonrpc.Method{
		"platform.getStake":           method(s.getStake),
		"platform.getMinStake":        method(s.getMinStake),
		"platform.getValidatorsAt":    method(s.getValidatorsAt),
		"platform.sampleValidators":   method(s.sampleValidators),
		"platform.getAllValidatorsAt": method(s.getAllValidatorsAt),
		"platform.getRewardUTXOs":     method(s.getRewardUTXOs),
	}
}

type staking struct {
	platform
	st Staking
}

type getMinStakeReply struct {
	MinValidatorStake uint64s `json:"minValidatorStake"`
	MinDelegatorStake uint64s `json:"minDelegatorStake"`
}

// getMinStake is platformvm's GetMinStake: the primary network's minimums;
// a subnet's come from its TransformSubnetTx, which no subnet here has.
func (s staking) getMinStake(_ context.Context, args *subnetArgs) (*getMinStakeReply, error) {
	if id := avax.ID(args.SubnetID); !id.IsEmpty() {
		return nil, fmt.Errorf("failed fetching subnet transformation for %s: not found", id)
	}
	v, d := s.st.MinStake()
	return &getMinStakeReply{MinValidatorStake: uint64s(v), MinDelegatorStake: uint64s(d)}, nil
}

type getStakeArgs struct {
	Addresses      []string `json:"addresses"`
	ValidatorsOnly bool     `json:"validatorsOnly"`
	Encoding       encoding `json:"encoding"`
}

type getStakeReply struct {
	Staked  uint64s            `json:"staked"`
	Stakeds map[string]uint64s `json:"stakeds"`
	Outputs []string           `json:"stakedOutputs"`
	Enc     encoding           `json:"encoding"`
}

// getStake is platformvm's GetStake: the outputs that the current, then
// the pending, stakers staked and that one of the addresses owns, summed by
// asset (saturating) and listed in the node's order.
func (s staking) getStake(_ context.Context, args *getStakeArgs) (*getStakeReply, error) {
	if len(args.Addresses) > maxGetStakeAddrs {
		return nil, fmt.Errorf("%d addresses provided but this method can take at most %d", len(args.Addresses), maxGetStakeAddrs)
	}
	addrs := make([]avax.ShortID, 0, len(args.Addresses))
	for _, str := range args.Addresses {
		a, err := s.s.parseAddress(str)
		if err != nil {
			return nil, err
		}
		addrs = append(addrs, a)
	}
	totals := map[string]uint64s{}
	r := &getStakeReply{Stakeds: totals, Outputs: []string{}, Enc: args.Encoding}
	for _, k := range s.st.Stakers() {
		if args.ValidatorsOnly && !k.Validator {
			continue
		}
		for _, u := range k.Stake {
			if !slices.ContainsFunc(u.Out.Owners().Addrs, func(a avax.ShortID) bool { return slices.Contains(addrs, a) }) {
				continue
			}
			asset := s.assetName(u.AssetID)
			totals[asset] = addSat(totals[asset], u.Out.Amount())
			str, err := args.Encoding.encode(u.OutputBytes())
			if err != nil {
				return nil, fmt.Errorf("couldn't encode output %s as %s: %w", asset, args.Encoding, err)
			}
			r.Outputs = append(r.Outputs, str)
		}
	}
	r.Staked = totals[s.avax.String()]
	return r, nil
}

// heightArg is platformvm's api.Height: a decimal, or "proposed".
type heightArg struct {
	h        uint64s
	proposed bool
}

var errInvalidHeight = errors.New("invalid height")

// UnmarshalJSON accepts "proposed" or a decimal below the largest uint64,
// quoted or not, and null.
func (h *heightArg) UnmarshalJSON(b []byte) error {
	switch string(b) {
	case null:
		return nil
	case `"proposed"`:
		h.proposed = true
		return nil
	}
	if err := h.h.UnmarshalJSON(b); err != nil || uint64(h.h) == math.MaxUint64 {
		h.h = 0
		return errInvalidHeight
	}
	return nil
}

type getValidatorsAtArgs struct {
	Height   heightArg `json:"height"`
	SubnetID jsonID    `json:"subnetID"`
}

type validatorAt struct {
	PublicKey *string `json:"publicKey"`
	Weight    uint64s `json:"weight"`
}

// getValidatorsAt is platformvm's GetValidatorsAt: the set at the height
// (the current one for "proposed": no block is being built), as a map by
// node id, which encoding/json writes in node id order as the node's does.
func (s staking) getValidatorsAt(ctx context.Context, args *getValidatorsAtArgs) (map[string]validatorAt, error) {
	head, ok := s.ix.Head(avanet.ChainP)
	if !ok {
		return nil, errNoPBlock
	}
	height, subnet := uint64(args.Height.h), avax.ID(args.SubnetID)
	if args.Height.proposed {
		height = head
	}
	if height > head {
		return nil, fmt.Errorf("failed to get validator set at %d: failed to fetch validator set at unfinalized height with SubnetID = %s: current P-chain height (%d) < requested P-Chain height (%d)",
			height, subnet, head, height)
	}
	set, err := s.st.ValidatorsAt(subnet, height)
	if err != nil {
		return nil, fmt.Errorf("failed to get validator set at %d: %w", height, err)
	}
	out := make(map[string]validatorAt, len(set))
	for _, m := range set {
		v := validatorAt{Weight: uint64s(m.Weight)}
		if m.PublicKey != nil {
			pk := avax.EncodeHexNC(m.PublicKey)
			v.PublicKey = &pk
		}
		out[m.NodeID.String()] = v
	}
	return out, nil
}

type sampleValidatorsArgs struct {
	Size     uint32s `json:"size"` // avalanchego's json.Uint16
	SubnetID jsonID  `json:"subnetID"`
}

type sampleValidatorsReply struct {
	Validators []string `json:"validators"`
}

// sampleValidators is platformvm's SampleValidators: size distinct current
// validators of the subnet drawn at random in proportion to their weights
// (avalanchego's weighted sampler without replacement), listed by node id.
func (s staking) sampleValidators(_ context.Context, args *sampleValidatorsArgs) (*sampleValidatorsReply, error) {
	subnet, size := avax.ID(args.SubnetID), int(args.Size)
	if size > math.MaxUint16 {
		return nil, fmt.Errorf("strconv.ParseUint: parsing %q: value out of range", strconv.Itoa(size))
	}
	r := &sampleValidatorsReply{Validators: []string{}}
	if size == 0 {
		return r, nil
	}
	head, ok := s.ix.Head(avanet.ChainP)
	if !ok {
		return nil, errNoPBlock
	}
	set, err := s.st.ValidatorsAt(subnet, head)
	if err != nil {
		return nil, fmt.Errorf("sampling %s errored with %w", subnet, err)
	}
	if len(set) == 0 {
		return nil, fmt.Errorf("sampling %s errored with missing validators", subnet)
	}
	if size > len(set) {
		return nil, fmt.Errorf("sampling %s errored with insufficient weight", subnet)
	}
	var total uint64
	for _, m := range set {
		total += m.Weight
	}
	drawn := make([]avax.NodeID, 0, size)
	for len(drawn) < size {
		x := rand.Uint64N(total)
		for i, m := range set {
			if x < m.Weight {
				drawn = append(drawn, m.NodeID)
				total -= m.Weight
				set = slices.Delete(set, i, i+1)
				break
			}
			x -= m.Weight
		}
	}
	slices.SortFunc(drawn, func(a, b avax.NodeID) int { return bytes.Compare(a[:], b[:]) })
	for _, id := range drawn {
		r.Validators = append(r.Validators, id.String())
	}
	return r, nil
}

type getRewardUTXOsReply struct {
	NumFetched uint64s  `json:"numFetched"`
	UTXOs      []string `json:"utxos"`
	Encoding   encoding `json:"encoding"`
}

// getRewardUTXOs is platformvm's GetRewardUTXOs: the UTXOs the stake of a
// transaction was rewarded with, in output index order (the order the node
// adds them in, and lists them in while it holds them in its cache; read
// back from its database it lists them in reverse), none for a stake not
// rewarded or an unknown transaction, as the node answers.
func (s staking) getRewardUTXOs(ctx context.Context, args *getTxArgs) (*getRewardUTXOsReply, error) {
	utxos, err := s.st.RewardUTXOs(ctx, avax.ID(args.TxID))
	if err != nil {
		return nil, fmt.Errorf("couldn't get reward UTXOs: %w", err)
	}
	r := &getRewardUTXOsReply{NumFetched: uint64s(len(utxos)), UTXOs: make([]string, len(utxos)), Encoding: args.Encoding}
	for i, b := range utxos {
		str, err := args.Encoding.encode(b)
		if err != nil {
			return nil, fmt.Errorf("couldn't encode utxo as %s: %w", args.Encoding, err)
		}
		r.UTXOs[i] = str
	}
	return r, nil
}
