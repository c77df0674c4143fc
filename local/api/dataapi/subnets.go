package dataapi

import (
	"cmp"
	"encoding/json"
	"slices"
	"strconv"

	"github.com/avaedge/avaedge/avanet"
	"github.com/avaedge/avaedge/local/api/apireq"
	"github.com/avaedge/avaedge/local/source/pindex"
	"github.com/avaedge/avaedge/local/vocab/avax"
	"github.com/avaedge/avaedge/local/vocab/glacier"
)

func (q *req) subnet(s *pindex.Subnet) glacier.Subnet {
	owners := q.bech32("", s.Owner.Addresses)
	out := glacier.Subnet{CreateBlockTimestamp: s.Time, CreateBlockIndex: strconv.FormatUint(s.Height, 10), SubnetID: s.ID,
		OwnerAddresses: owners, Threshold: s.Owner.Threshold, Locktime: s.Owner.Locktime,
		SubnetOwnershipInfo: glacier.Ownership{Locktime: s.Owner.Locktime, Threshold: s.Owner.Threshold, Addresses: owners},
		IsL1:                s.Conversion != nil, Blockchains: []glacier.Blockchain{}}
	if c := s.Conversion; c != nil {
		out.L1ConversionTransactionHash = c.TxID
		out.L1ValidatorManagerDetails = &glacier.ManagerDetails{BlockchainID: c.ChainID, ContractAddress: c.Address}
	}
	for _, c := range s.Chains {
		out.Blockchains = append(out.Blockchains, q.blockchain(c))
	}
	return out
}

// evmChainID is the C-Chain's EVM chain id of a network name (avanet),
// which the devnet's C-Chain takes as it answers for that network.
func evmChainID(network string) uint64 {
	n, _ := avanet.ByName(network)
	return n.EVMChainID
}

// blockchain is c as a Blockchain, its id as the view presents it.
func (q *req) blockchain(c pindex.Blockchain) glacier.Blockchain {
	b := glacier.Blockchain{CreateBlockTimestamp: c.Time, CreateBlockNumber: strconv.FormatUint(c.Height, 10), BlockchainID: q.view.id(c.ID),
		VMID: c.VMID, SubnetID: c.SubnetID, BlockchainName: c.Name}
	// An EVM genesis is JSON with config.chainId; other VMs' genesis
	// bytes are not described.
	var g map[string]any
	if json.Unmarshal(c.Genesis, &g) == nil {
		b.GenesisData = g
		if cfg, ok := g["config"].(map[string]any); ok {
			if id, ok := cfg["chainId"].(float64); ok && id > 0 {
				b.EVMChainID = uint64(id)
			}
		}
	}
	if c.ID == q.view.own.net.CChainID && q.view.c != q.view.own.c {
		// The devnet's C-Chain as the named network's: its EVM chain id
		// too, and not the dev chain's genesis.
		b.EVMChainID, b.GenesisData = evmChainID(q.view.network), nil
	}
	return b
}

func (a *api) listSubnets(q *req) (any, error) {
	size := q.PageSize(100)
	desc := q.Desc()
	items, err := a.src.Subnets(q.ctx)
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
	out := glacier.ListSubnetsResponse{NextPageToken: next, Subnets: []glacier.Subnet{}}
	for _, s := range page {
		out.Subnets = append(out.Subnets, q.subnet(s))
	}
	return out, nil
}

func (a *api) getSubnet(q *req) (any, error) {
	raw := q.Q.Get("subnetId")
	if _, err := avax.ParseID(raw); err != nil {
		return nil, apireq.BadRequest("subnetId must be a valid subnet id")
	}
	s, ok, err := a.src.Subnet(q.ctx, raw)
	if err != nil {
		return nil, apireq.Internal(err)
	}
	if !ok {
		return nil, apireq.NotFound("Subnet " + raw + " not found")
	}
	return q.subnet(s), nil
}

// listChainIDs is getChainIdsForAddresses. glacier.json closes the
// blockchain ids in an enum of mainnet's and fuji's, so each chain is named
// by the requested network's id of it (fuji's for testnet), whatever the
// indexed network.
func (a *api) listChainIDs(q *req) (any, error) {
	addrs := q.Addresses("addresses")
	if len(q.Errs) > 0 {
		return nil, nil
	}
	named, _ := avanet.ByName(q.Network)
	out := glacier.ListChainIDsResponse{Addresses: []glacier.AddressChains{}}
	for _, addr := range addrs {
		chains, err := a.src.ChainsOf(q.ctx, addr)
		if err != nil {
			return nil, apireq.Internal(err)
		}
		item := glacier.AddressChains{Address: avax.FormatBech32(q.view.hrp, addr), BlockchainIDs: []string{}}
		for _, c := range []avanet.Chain{avanet.ChainP, avanet.ChainX, avanet.ChainC} {
			if slices.Contains(chains, c) {
				item.BlockchainIDs = append(item.BlockchainIDs, named.ChainID(c))
			}
		}
		out.Addresses = append(out.Addresses, item)
	}
	return out, nil
}
