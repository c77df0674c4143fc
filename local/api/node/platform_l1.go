package node

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/avaedge/avaedge/avanet"
	"github.com/avaedge/avaedge/local/source/pindex"
	"github.com/avaedge/avaedge/local/vocab/avax"
	"github.com/avaedge/avaedge/local/vocab/warpmsg"
)

// l1Conversion returns an L1's conversion data, read back from the node's
// JSON of the ConvertSubnetToL1Tx the index holds: the node keeps the
// sha256 of its bytes as the conversion id, which nothing else records.
func (p platform) l1Conversion(ctx context.Context, c *pindex.Conversion) (*warpmsg.ConversionData, error) {
	t, ok, err := p.ix.Tx(ctx, c.TxID)
	if err != nil {
		return nil, fmt.Errorf("conversion tx %s: %w", c.TxID, err)
	}
	if !ok {
		return nil, fmt.Errorf("conversion tx %s: not in the index", c.TxID)
	}
	d, err := warpmsg.ConversionOfTx(t.Body)
	if err != nil {
		return nil, fmt.Errorf("conversion tx %s: %w", c.TxID, err)
	}
	return d, nil
}

// getL1 is platformvm's GetSubnet of an L1: its owner, and the conversion
// id, manager chain and address of its ConvertSubnetToL1Tx; not
// permissioned any more.
func (p platform) getL1(ctx context.Context, s *pindex.Subnet) (*getSubnetReply, error) {
	d, err := p.l1Conversion(ctx, s.Conversion)
	if err != nil {
		return nil, err
	}
	a := p.apiSubnet(s)
	addr := avax.EncodeHexNC(d.ManagerAddress)
	return &getSubnetReply{IsPermissioned: false, ControlKeys: a.ControlKeys, Threshold: a.Threshold, Locktime: uint64s(s.Owner.Locktime),
		SubnetTransformationTxID: avax.EmptyID.String(), ConversionID: avax.ID(d.ID()).String(),
		ManagerChainID: avax.ID(d.ManagerChainID).String(), ManagerAddress: &addr}, nil
}

type getL1ValidatorArgs struct {
	ValidationID jsonID `json:"validationID"`
}

// l1ValidatorJSON is platformapi.APIL1Validator as getCurrentValidators
// prints an L1's validators; the fields getL1Validator repeats are kept raw.
type l1ValidatorJSON struct {
	NodeID                json.RawMessage `json:"nodeID"`
	Weight                json.RawMessage `json:"weight"`
	StartTime             json.RawMessage `json:"startTime"`
	ValidationID          string          `json:"validationID"`
	PublicKey             json.RawMessage `json:"publicKey,omitempty"`
	RemainingBalanceOwner json.RawMessage `json:"remainingBalanceOwner,omitempty"`
	DeactivationOwner     json.RawMessage `json:"deactivationOwner,omitempty"`
	MinNonce              json.RawMessage `json:"minNonce,omitempty"`
	Balance               json.RawMessage `json:"balance,omitempty"`
}

// getL1ValidatorReply is platformvm's GetL1ValidatorReply.
type getL1ValidatorReply struct {
	l1ValidatorJSON
	SubnetID string  `json:"subnetID"`
	Height   uint64s `json:"height"`
}

// getL1Validator is platformvm's GetL1Validator, read from the index's
// getCurrentValidators answers of the L1s: the validator with the
// validation id (active, or inactive with no balance left), its L1 and the
// current height; the node's "not found" for any other id and for a
// validator whose weight was set to 0 (the node deletes it). It answers
// for a view whose node is the index's own (the devnet's), whose current
// validators are its node's current state.
func (p platform) getL1Validator(ctx context.Context, args *getL1ValidatorArgs) (*getL1ValidatorReply, error) {
	id := avax.ID(args.ValidationID)
	head, ok := p.ix.Head(avanet.ChainP)
	if !ok {
		return nil, errNoPBlock
	}
	subnets, err := p.ix.Subnets(ctx)
	if err != nil {
		return nil, fmt.Errorf("fetching L1 validator %q failed: %w", id.String(), err)
	}
	for _, s := range subnets {
		if s.Conversion == nil {
			continue
		}
		body, _, ok, err := p.ix.CurrentValidators(ctx, s.ID)
		if err != nil {
			return nil, fmt.Errorf("fetching L1 validator %q failed: %w", id.String(), err)
		}
		if !ok {
			continue
		}
		var current struct {
			Validators []l1ValidatorJSON `json:"validators"`
		}
		if err := json.Unmarshal(body, &current); err != nil {
			return nil, fmt.Errorf("the current validators of L1 %s: %w", s.ID, err)
		}
		for _, v := range current.Validators {
			if v.ValidationID == id.String() && string(v.Weight) != `"0"` {
				return &getL1ValidatorReply{l1ValidatorJSON: v, SubnetID: s.ID, Height: uint64s(head)}, nil
			}
		}
	}
	return nil, fmt.Errorf("fetching L1 validator %q failed: not found", id.String())
}
