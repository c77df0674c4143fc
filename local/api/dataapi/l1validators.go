package dataapi

import (
	"strconv"

	"github.com/avaedge/avaedge/local/apireq"
	"github.com/avaedge/avaedge/local/avax"
	"github.com/avaedge/avaedge/local/source/devnet"
)

// listL1Validators is listL1Validators over the devnet: the validators its
// L1 conversions registered (the devnet charges no continuous fee, so each
// keeps the balance it was given).
func (a *api) listL1Validators(q *req) (any, *apireq.Error) {
	size := q.PageSize(10)
	subnetFilter, nodeFilter, vidFilter := q.Q.Get("subnetId"), q.Q.Get("nodeId"), q.Q.Get("l1ValidationId")
	owner := func(o devnet.Owner) balanceOwner {
		return balanceOwner{Addresses: q.bech32("", o.Addresses), Threshold: o.Threshold}
	}
	var items []l1Validator
	for _, s := range a.w.Subnets() {
		c := s.Conversion
		if c == nil || (subnetFilter != "" && s.ID.String() != subnetFilter) {
			continue
		}
		for i, v := range c.Validators {
			vid := s.ID.Append(uint32(i))
			if (nodeFilter != "" && v.NodeID.String() != nodeFilter) || (vidFilter != "" && vid.String() != vidFilter) {
				continue
			}
			items = append(items, l1Validator{ValidationID: vid.String(), ValidationIDHex: avax.EncodeHexNC(vid[:]),
				NodeID: v.NodeID.String(), SubnetID: s.ID.String(), Weight: v.Weight, RemainingBalance: v.Balance, CreationTimestamp: c.Time,
				BLSCredentials:        blsCredentials{PublicKey: avax.EncodeHexNC(v.BLS.PublicKey), ProofOfPossession: avax.EncodeHexNC(v.BLS.ProofOfPossession)},
				RemainingBalanceOwner: owner(v.RemainingBalanceOwner), DeactivationOwner: owner(v.DeactivationOwner)})
		}
	}
	page, next, herr := apireq.Paginate(q.Req, items, size, q.Scope())
	if herr != nil {
		return nil, herr
	}
	if page == nil {
		page = []l1Validator{}
	}
	var head uint64
	if bs := a.w.PBlocks(); len(bs) > 0 {
		head = bs[len(bs)-1].Height
	}
	return listL1ValidatorsResponse{NextPageToken: next, Validators: page, BlockHeight: strconv.FormatUint(head, 10)}, nil
}
