package nodeclient

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/avaedge/avaedge/local/vocab/avax"
)

// Platform is the P-Chain's API (platform.*). Its methods are safe for
// concurrent use.
type Platform struct{ chain }

// Blockchain is a chain platform.getBlockchains lists.
type Blockchain struct {
	ID, SubnetID string
}

// Blockchains returns every chain the P-Chain created, the primary
// network's included (platform.getBlockchains).
func (p Platform) Blockchains(ctx context.Context) ([]Blockchain, error) {
	var r struct {
		Blockchains []struct {
			ID       string `json:"id"`
			SubnetID string `json:"subnetID"`
		} `json:"blockchains"`
	}
	if err := p.rpc.Call(ctx, p.path, "platform.getBlockchains", nil, &r); err != nil {
		return nil, err
	}
	out := make([]Blockchain, len(r.Blockchains))
	for i, b := range r.Blockchains {
		out[i] = Blockchain{ID: b.ID, SubnetID: b.SubnetID}
	}
	return out, nil
}

// CurrentValidators returns platform.getCurrentValidators' answer for
// subnetID ("" for the primary network) as the node encoded it. The node
// lists a primary network validator's delegators only when asked for its
// node id (CurrentValidatorsOf).
func (p Platform) CurrentValidators(ctx context.Context, subnetID string) (json.RawMessage, error) {
	var params any
	if subnetID != "" {
		params = map[string]string{"subnetID": subnetID}
	}
	return call(ctx, p.rpc, p.path, "platform.getCurrentValidators", params)
}

// CurrentValidatorsOf returns platform.getCurrentValidators' answer for the
// primary network validators nodeIDs, their delegators listed, as the node
// encoded it.
func (p Platform) CurrentValidatorsOf(ctx context.Context, nodeIDs []string) (json.RawMessage, error) {
	return call(ctx, p.rpc, p.path, "platform.getCurrentValidators", map[string]any{"nodeIDs": nodeIDs})
}

// Supply is the primary network's AVAX supply at a P-Chain height
// (platform.getCurrentSupply), in nAVAX.
type Supply struct {
	Supply, Height uint64
}

// CurrentSupply returns platform.getCurrentSupply's answer.
func (p Platform) CurrentSupply(ctx context.Context) (Supply, error) {
	raw, err := call(ctx, p.rpc, p.path, "platform.getCurrentSupply", nil)
	if err != nil {
		return Supply{}, err
	}
	s, err := decodeSupply(raw)
	if err != nil {
		return Supply{}, fmt.Errorf("platform.getCurrentSupply: %w", err)
	}
	return s, nil
}

// decodeSupply reads platform.getCurrentSupply's answer.
func decodeSupply(raw json.RawMessage) (Supply, error) {
	var r struct {
		Supply string `json:"supply"`
		Height string `json:"height"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return Supply{}, err
	}
	var s Supply
	var err error
	if s.Supply, err = strconv.ParseUint(r.Supply, 10, 64); err != nil {
		return Supply{}, fmt.Errorf("supply %q: %w", r.Supply, err)
	}
	if s.Height, err = ParseHeight(r.Height); err != nil {
		return Supply{}, err
	}
	return s, nil
}

// RewardUTXOs returns the bytes of the UTXOs staking transaction txID's
// reward paid (platform.getRewardUTXOs, encoding hex: checksummed).
func (p Platform) RewardUTXOs(ctx context.Context, txID string) ([][]byte, error) {
	var r struct {
		UTXOs []string `json:"utxos"`
	}
	if err := p.rpc.Call(ctx, p.path, "platform.getRewardUTXOs", map[string]string{"txID": txID, "encoding": "hex"}, &r); err != nil {
		return nil, err
	}
	out := make([][]byte, len(r.UTXOs))
	for i, s := range r.UTXOs {
		b, err := avax.DecodeHex(s)
		if err != nil {
			return nil, fmt.Errorf("platform.getRewardUTXOs %s: %w", txID, err)
		}
		out[i] = b
	}
	return out, nil
}

// Validator is a member of a validator set at a height: its weight and BLS
// public key (compressed, 48 bytes; nil for a validator without one).
type Validator struct {
	NodeID    avax.NodeID
	Weight    uint64
	PublicKey []byte
}

// ValidatorsAt returns subnetID's validator set at P-Chain height
// (platform.getValidatorsAt), in no particular order.
func (p Platform) ValidatorsAt(ctx context.Context, subnetID string, height uint64) ([]Validator, error) {
	params := map[string]string{"height": strconv.FormatUint(height, 10), "subnetID": subnetID}
	raw, err := call(ctx, p.rpc, p.path, "platform.getValidatorsAt", params)
	if err != nil {
		return nil, err
	}
	return decodeValidatorSet(raw)
}

// decodeValidatorSet reads platform.getValidatorsAt's answer: node id →
// weight and BLS key (null for a validator without one).
func decodeValidatorSet(raw json.RawMessage) ([]Validator, error) {
	var r map[string]struct {
		PublicKey *string `json:"publicKey"`
		Weight    string  `json:"weight"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, fmt.Errorf("platform.getValidatorsAt: %w", err)
	}
	out := make([]Validator, 0, len(r))
	for node, v := range r {
		id, err := avax.ParseNodeID(node)
		if err != nil {
			return nil, fmt.Errorf("platform.getValidatorsAt: %w", err)
		}
		w, err := strconv.ParseUint(v.Weight, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("platform.getValidatorsAt: weight of %s: %w", node, err)
		}
		val := Validator{NodeID: id, Weight: w}
		if v.PublicKey != nil {
			rest, ok := strings.CutPrefix(*v.PublicKey, "0x")
			if !ok {
				return nil, fmt.Errorf("platform.getValidatorsAt: key of %s: hex %q: missing 0x prefix", node, *v.PublicKey)
			}
			if val.PublicKey, err = hex.DecodeString(rest); err != nil {
				return nil, fmt.Errorf("platform.getValidatorsAt: key of %s: %w", node, err)
			}
		}
		out = append(out, val)
	}
	return out, nil
}
