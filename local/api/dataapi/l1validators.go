package dataapi

import (
	"encoding/hex"
	"strconv"

	"github.com/avaedge/avaedge/avanet"
	"github.com/avaedge/avaedge/local/api/apireq"
	"github.com/avaedge/avaedge/local/vocab/avax"
	"github.com/avaedge/avaedge/local/vocab/glacier"
)

// listL1Validators is listL1Validators: the validators of every L1, as the
// network last listed them (platform.getCurrentValidators of each
// converted subnet), with the proofs of possession their registering
// transactions carried. An inactive validator (no balance left, or
// disabled) is listed only with includeInactiveL1Validators.
func (a *api) listL1Validators(q *req) (any, error) {
	size := q.PageSize(10)
	subnetFilter, nodeFilter, vidFilter := q.Q.Get("subnetId"), q.Q.Get("nodeId"), q.Q.Get("l1ValidationId")
	inactive := q.Q.Get("includeInactiveL1Validators") == "true"
	subnets, err := a.src.Subnets(q.ctx)
	if err != nil {
		return nil, apireq.Internal(err)
	}
	stakes, err := a.src.Stakes(q.ctx)
	if err != nil {
		return nil, apireq.Internal(err)
	}
	pops := map[string]string{}
	for _, s := range stakes {
		if s.ValidationID != "" {
			pops[s.ValidationID] = s.BLSPoP
		}
	}
	owner := func(o apiOwner) glacier.BalanceOwner {
		return glacier.BalanceOwner{Addresses: q.rebech32("", o.Addresses), Threshold: uint32(num(o.Threshold))}
	}
	var items []glacier.L1Validator
	for _, s := range subnets {
		if s.Conversion == nil || (subnetFilter != "" && s.ID != subnetFilter) {
			continue
		}
		cur, herr := a.currentOf(q, s.ID)
		if herr != nil {
			return nil, herr
		}
		for _, c := range cur {
			if c.ValidationID == "" || (nodeFilter != "" && c.NodeID != nodeFilter) || (vidFilter != "" && c.ValidationID != vidFilter) ||
				(!inactive && num(c.Balance) == 0) {
				continue
			}
			vid, err := avax.ParseID(c.ValidationID)
			if err != nil {
				return nil, apireq.Internal(err)
			}
			items = append(items, glacier.L1Validator{ValidationID: c.ValidationID, ValidationIDHex: "0x" + hex.EncodeToString(vid[:]),
				NodeID: c.NodeID, SubnetID: s.ID, Weight: num(c.Weight), RemainingBalance: num(c.Balance),
				CreationTimestamp:     int64(num(c.StartTime)),
				BLSCredentials:        glacier.BlsCredentials{PublicKey: c.PublicKey, ProofOfPossession: pops[c.ValidationID]},
				RemainingBalanceOwner: owner(c.RemainingBalanceOwner), DeactivationOwner: owner(c.DeactivationOwner)})
		}
	}
	page, next, herr := apireq.Paginate(q.Req, items, size, q.Scope())
	if herr != nil {
		return nil, herr
	}
	if page == nil {
		page = []glacier.L1Validator{}
	}
	head, _ := a.src.Head(avanet.ChainP)
	return glacier.ListL1ValidatorsResponse{NextPageToken: next, Validators: page, BlockHeight: strconv.FormatUint(head, 10)}, nil
}
