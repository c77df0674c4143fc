package pdata

import (
	"cmp"
	"encoding/json"
	"strconv"

	"github.com/avaedge/avaedge/avanet"
	"github.com/avaedge/avaedge/local/apireq"
	"github.com/avaedge/avaedge/local/avax"
	"github.com/avaedge/avaedge/local/source/pindex"
)

func (q *req) subnet(s *pindex.Subnet) subnet {
	owners := q.bech32("", s.Owner.Addresses)
	out := subnet{CreateBlockTimestamp: s.Time, CreateBlockIndex: strconv.FormatUint(s.Height, 10), SubnetID: s.ID,
		OwnerAddresses: owners, Threshold: s.Owner.Threshold, Locktime: s.Owner.Locktime,
		SubnetOwnershipInfo: ownership{Locktime: s.Owner.Locktime, Threshold: s.Owner.Threshold, Addresses: owners},
		IsL1:                s.Conversion != nil, Blockchains: []blockchain{}}
	if c := s.Conversion; c != nil {
		out.L1ConversionTransactionHash = c.TxID
		out.L1ValidatorManagerDetails = &managerDetails{BlockchainID: c.ChainID, ContractAddress: c.Address}
	}
	for _, c := range s.Chains {
		b := blockchain{CreateBlockTimestamp: c.Time, CreateBlockNumber: strconv.FormatUint(c.Height, 10), BlockchainID: c.ID,
			VMID: c.VMID, SubnetID: c.SubnetID, BlockchainName: c.Name}
		// A Subnet-EVM genesis is JSON with config.chainId; other VMs'
		// genesis bytes are not described.
		var g map[string]any
		if json.Unmarshal(c.Genesis, &g) == nil {
			b.GenesisData = g
			if cfg, ok := g["config"].(map[string]any); ok {
				if id, ok := cfg["chainId"].(float64); ok && id > 0 {
					b.EVMChainID = uint64(id)
				}
			}
		}
		out.Blockchains = append(out.Blockchains, b)
	}
	return out
}

func (a *api) listSubnets(q *req) (any, *apireq.Error) {
	size := q.PageSize(100)
	desc := q.Desc()
	if len(q.Errs) > 0 {
		return nil, nil
	}
	items, err := a.ix.Subnets(q.R.Context())
	if err != nil {
		return nil, apireq.Internal(err)
	}
	apireq.Order(items, desc, func(x, y *pindex.Subnet) bool {
		return cmp.Or(cmp.Compare(x.Height, y.Height), cmp.Compare(x.ID, y.ID)) < 0
	})
	page, next, herr := apireq.Paginate(q.Req, items, size, q.Scope())
	if herr != nil {
		return nil, herr
	}
	out := listSubnetsResponse{NextPageToken: next, Subnets: []subnet{}}
	for _, s := range page {
		out.Subnets = append(out.Subnets, q.subnet(s))
	}
	return out, nil
}

func (a *api) getSubnet(q *req) (any, *apireq.Error) {
	raw := q.Q.Get("subnetId")
	if _, err := avax.ParseID(raw); err != nil {
		return nil, apireq.BadRequest("subnetId must be a valid subnet id")
	}
	s, ok, err := a.ix.Subnet(q.R.Context(), raw)
	if err != nil {
		return nil, apireq.Internal(err)
	}
	if !ok {
		return nil, apireq.NotFound("Subnet " + raw + " not found")
	}
	return q.subnet(s), nil
}

// enumChainID names chain c of network (mainnet, fuji, testnet) by the id
// glacier.json's closed enum of blockchain ids allows: the P-Chain's id, or
// that network's X- or C-Chain id. The followed network's own X- and C-Chain
// ids are not in the enum, and the SDK rejects an answer with them.
func enumChainID(network string, c pindex.Chain) string {
	n := avanet.Fuji
	if network == avanet.Mainnet.Name {
		n = avanet.Mainnet
	}
	switch c {
	case pindex.ChainX:
		return n.XChainID
	case pindex.ChainC:
		return n.CChainID
	}
	return avanet.PChainID
}

func (a *api) listChainIDs(q *req) (any, *apireq.Error) {
	if q.Q.Get("addresses") == "" {
		q.Fail("addresses should not be empty")
	}
	addrs := q.Addresses("addresses")
	if len(q.Errs) > 0 {
		return nil, nil
	}
	out := listChainIDsResponse{Addresses: []addressChains{}}
	for _, addr := range addrs {
		chains, err := a.ix.ChainsOf(q.R.Context(), addr)
		if err != nil {
			return nil, apireq.Internal(err)
		}
		item := addressChains{Address: avax.FormatBech32(q.net.HRP, addr), BlockchainIDs: []string{}}
		for _, c := range chains {
			item.BlockchainIDs = append(item.BlockchainIDs, enumChainID(q.Network, c))
		}
		out.Addresses = append(out.Addresses, item)
	}
	return out, nil
}
