package node

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"

	blst "github.com/supranational/blst/bindings/go"

	"github.com/avaedge/avaedge/avanet"
	"github.com/avaedge/avaedge/local/vocab/avax"
)

type getAllValidatorsAtArgs struct {
	Height heightArg `json:"height"`
}

// warpValidator is avalanchego's validators.Warp in JSON: the validators
// sharing one BLS key, their summed weight and their node ids.
type warpValidator struct {
	PublicKey string   `json:"publicKey"`
	Weight    uint64s  `json:"weight"`
	NodeIDs   []string `json:"nodeIDs"`
	key       []byte   // uncompressed, which orders the set
}

// warpSet is avalanchego's validators.WarpSet in JSON.
type warpSet struct {
	Validators  []warpValidator `json:"validators"`
	TotalWeight uint64s         `json:"totalWeight"`
}

type getAllValidatorsAtReply struct {
	ValidatorSets map[string]warpSet `json:"validatorSets"`
}

var (
	errBadBLSKey      = errors.New("invalid BLS public key")
	errWeightOverflow = errors.New("total weight overflows")
)

// getAllValidatorsAt is platformvm's GetAllValidatorsAt: the validator set
// at the height (the current one for "proposed", as getValidatorsAt) of the
// primary network and of every subnet with at least one validator then,
// each flattened as avalanchego's validators.FlattenValidatorSet does: the
// total weight of every validator, and those with a BLS key grouped by key,
// ordered by the key's uncompressed bytes, a group's node ids in node id
// order (avalanchego appends them as it walks a map: a key is never shared
// on the devnet). encoding/json writes the sets in subnet id order, as the
// node's map of ids.ID.
func (s staking) getAllValidatorsAt(ctx context.Context, args *getAllValidatorsAtArgs) (*getAllValidatorsAtReply, error) {
	head, ok := s.ix.Head(avanet.ChainP)
	if !ok {
		return nil, errNoPBlock
	}
	height := uint64(args.Height.h)
	if args.Height.proposed {
		height = head
	}
	if height > head {
		return nil, fmt.Errorf("failed to get validator sets at %d: failed to fetch validator set at unfinalized height: current P-chain height (%d) < requested P-Chain height (%d)",
			height, head, height)
	}
	subnets, err := s.ix.Subnets(ctx)
	if err != nil {
		return nil, fmt.Errorf("failed to get validator sets at %d: %w", height, err)
	}
	ids := []avax.ID{avax.EmptyID}
	for _, sub := range subnets {
		id, err := avax.ParseID(sub.ID)
		if err != nil {
			return nil, fmt.Errorf("subnet %q: %w", sub.ID, err)
		}
		ids = append(ids, id)
	}
	r := &getAllValidatorsAtReply{ValidatorSets: map[string]warpSet{}}
	for _, id := range ids {
		set, err := s.st.ValidatorsAt(id, height)
		if err != nil {
			return nil, fmt.Errorf("failed to get validator sets at %d: %w", height, err)
		}
		if len(set) == 0 {
			continue
		}
		ws, err := flatten(set)
		if errors.Is(err, errWeightOverflow) {
			continue // the node skips a set it cannot flatten
		}
		if err != nil {
			return nil, fmt.Errorf("validator set of %s at %d: %w", id, height, err)
		}
		r.ValidatorSets[id.String()] = ws
	}
	return r, nil
}

// flatten is validators.FlattenValidatorSet of set (ordered by node id).
func flatten(set []SetMember) (warpSet, error) {
	ws := warpSet{Validators: []warpValidator{}}
	byKey := map[string]int{}
	for _, m := range set {
		if uint64(ws.TotalWeight)+m.Weight < m.Weight {
			return warpSet{}, errWeightOverflow
		}
		ws.TotalWeight += uint64s(m.Weight)
		if m.PublicKey == nil {
			continue
		}
		pk := new(blst.P1Affine).Uncompress(m.PublicKey)
		if pk == nil {
			return warpSet{}, fmt.Errorf("%w of %s", errBadBLSKey, m.NodeID)
		}
		key := pk.Serialize()
		i, ok := byKey[string(key)]
		if !ok {
			i = len(ws.Validators)
			byKey[string(key)] = i
			ws.Validators = append(ws.Validators, warpValidator{PublicKey: avax.EncodeHexNC(pk.Compress()), key: key})
		}
		ws.Validators[i].Weight += uint64s(m.Weight)
		ws.Validators[i].NodeIDs = append(ws.Validators[i].NodeIDs, m.NodeID.String())
	}
	slices.SortFunc(ws.Validators, func(a, b warpValidator) int { return bytes.Compare(a.key, b.key) })
	return ws, nil
}
