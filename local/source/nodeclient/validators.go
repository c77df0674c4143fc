package nodeclient

import (
	"context"
	"encoding/json"
	"fmt"
)

// WithDelegators puts the delegators, with their potential rewards, into a
// primary network's platform.getCurrentValidators answer (body): the node
// lists them only for the validators a call names, so those with
// delegators are asked for again, by node id, in one call
// (CurrentValidatorsOf).
func (p Platform) WithDelegators(ctx context.Context, body json.RawMessage) (json.RawMessage, error) {
	nodes, err := delegated(body)
	if err != nil || len(nodes) == 0 {
		return body, err
	}
	detail, err := p.CurrentValidatorsOf(ctx, nodes)
	if err != nil {
		return nil, err
	}
	return mergeDelegators(body, detail)
}

// delegated returns the node ids of a getCurrentValidators answer's
// validators that have delegators.
func delegated(body json.RawMessage) ([]string, error) {
	var all struct {
		Validators []json.RawMessage `json:"validators"`
	}
	if err := json.Unmarshal(body, &all); err != nil {
		return nil, fmt.Errorf("platform.getCurrentValidators: %w", err)
	}
	var nodes []string
	for _, v := range all.Validators {
		var c struct {
			NodeID         string `json:"nodeID"`
			DelegatorCount string `json:"delegatorCount"`
		}
		if json.Unmarshal(v, &c) == nil && c.DelegatorCount != "" && c.DelegatorCount != "0" {
			nodes = append(nodes, c.NodeID)
		}
	}
	return nodes, nil
}

// mergeDelegators replaces the validators of body, a getCurrentValidators
// answer, by those of detail (the answer for their node ids, which lists
// their delegators) with the same staking tx.
func mergeDelegators(body, detail json.RawMessage) (json.RawMessage, error) {
	var all, more struct {
		Validators []json.RawMessage `json:"validators"`
	}
	if err := json.Unmarshal(body, &all); err != nil {
		return nil, fmt.Errorf("platform.getCurrentValidators: %w", err)
	}
	if err := json.Unmarshal(detail, &more); err != nil {
		return nil, fmt.Errorf("platform.getCurrentValidators by node id: %w", err)
	}
	byTx := map[string]json.RawMessage{}
	for _, v := range more.Validators {
		var c struct {
			TxID string `json:"txID"`
		}
		if json.Unmarshal(v, &c) == nil {
			byTx[c.TxID] = v
		}
	}
	for i, v := range all.Validators {
		var c struct {
			TxID string `json:"txID"`
		}
		if json.Unmarshal(v, &c) == nil && byTx[c.TxID] != nil {
			all.Validators[i] = byTx[c.TxID]
		}
	}
	return json.Marshal(all)
}
