package pdata

import (
	"encoding/hex"
	"encoding/json"
	"strconv"

	"github.com/avaedge/avaedge/local/apireq"
	"github.com/avaedge/avaedge/local/avax"
	"github.com/avaedge/avaedge/local/source/pindex"
)

// currentL1 is an L1 validator in platform.getCurrentValidators.
type currentL1 struct {
	ValidationID          string `json:"validationID"`
	NodeID                string `json:"nodeID"`
	PublicKey             string `json:"publicKey"`
	StartTime             string `json:"startTime"`
	Weight                string `json:"weight"`
	Balance               string `json:"balance"`
	RemainingBalanceOwner struct {
		Addresses []string `json:"addresses"`
		Threshold string   `json:"threshold"`
	} `json:"remainingBalanceOwner"`
	DeactivationOwner struct {
		Addresses []string `json:"addresses"`
		Threshold string   `json:"threshold"`
	} `json:"deactivationOwner"`
}

// listL1Validators is listL1Validators: the active validators of every
// L1, as the followed node last listed them (platform.getCurrentValidators
// for each converted subnet, refreshed by the index), with the proofs of
// possession their registering transactions carried.
func (a *api) listL1Validators(q *req) (any, *apireq.Error) {
	size := q.PageSize(10)
	subnetFilter, nodeFilter, vidFilter := q.Q.Get("subnetId"), q.Q.Get("nodeId"), q.Q.Get("l1ValidationId")
	ctx := q.R.Context()
	subnets, err := a.ix.Subnets(ctx)
	if err != nil {
		return nil, apireq.Internal(err)
	}
	stakes, err := a.ix.Stakes(ctx)
	if err != nil {
		return nil, apireq.Internal(err)
	}
	pops := map[string]string{}
	for _, s := range stakes {
		if s.ValidationID != "" {
			pops[s.ValidationID] = s.BLSPoP
		}
	}
	var items []l1Validator
	for _, s := range subnets {
		if s.Conversion == nil || (subnetFilter != "" && s.ID != subnetFilter) {
			continue
		}
		raw, _, ok, err := a.ix.CurrentValidators(ctx, s.ID)
		if err != nil {
			return nil, apireq.Internal(err)
		}
		if !ok {
			continue
		}
		var r struct {
			Validators []currentL1 `json:"validators"`
		}
		if err := json.Unmarshal(raw, &r); err != nil {
			return nil, apireq.Internal(err)
		}
		for _, c := range r.Validators {
			if c.ValidationID == "" || (nodeFilter != "" && c.NodeID != nodeFilter) || (vidFilter != "" && c.ValidationID != vidFilter) {
				continue
			}
			vid, err := avax.ParseID(c.ValidationID)
			if err != nil {
				return nil, apireq.Internal(err)
			}
			items = append(items, l1Validator{ValidationID: c.ValidationID, ValidationIDHex: "0x" + hex.EncodeToString(vid[:]),
				NodeID: c.NodeID, SubnetID: s.ID, Weight: num(c.Weight), RemainingBalance: num(c.Balance),
				CreationTimestamp: int64(num(c.StartTime)),
				BLSCredentials:    blsCredentials{PublicKey: c.PublicKey, ProofOfPossession: pops[c.ValidationID]},
				RemainingBalanceOwner: balanceOwner{Addresses: stripChain(c.RemainingBalanceOwner.Addresses),
					Threshold: uint32(num(c.RemainingBalanceOwner.Threshold))},
				DeactivationOwner: balanceOwner{Addresses: stripChain(c.DeactivationOwner.Addresses),
					Threshold: uint32(num(c.DeactivationOwner.Threshold))}})
		}
	}
	page, next, herr := apireq.Paginate(q.Req, items, size, q.Scope())
	if herr != nil {
		return nil, herr
	}
	if page == nil {
		page = []l1Validator{}
	}
	head, _ := a.ix.Head(pindex.ChainP)
	return listL1ValidatorsResponse{NextPageToken: next, Validators: page, BlockHeight: strconv.FormatUint(head, 10)}, nil
}
