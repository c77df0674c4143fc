package dataapi

import (
	"cmp"
	"encoding/hex"
	"slices"
	"strconv"

	"github.com/avaedge/avaedge/local/apireq"
	"github.com/avaedge/avaedge/local/avax"
	"github.com/avaedge/avaedge/local/source/devnet"
)

func (q *req) subnet(s *devnet.Subnet) subnet {
	owners := q.bech32("", s.Owner.Addresses)
	out := subnet{CreateBlockTimestamp: s.CreateTime, CreateBlockIndex: strconv.FormatUint(s.CreateBlock, 10), SubnetID: s.ID.String(),
		OwnerAddresses: owners, Threshold: s.Owner.Threshold, Locktime: s.Owner.Locktime,
		SubnetOwnershipInfo: ownership{Locktime: s.Owner.Locktime, Threshold: s.Owner.Threshold, Addresses: owners},
		IsL1:                s.IsL1(), Blockchains: []blockchain{}}
	if c := s.Conversion; c != nil {
		out.L1ConversionTransactionHash = c.TxID.String()
		out.L1ValidatorManagerDetails = &managerDetails{BlockchainID: c.ChainID.String(), ContractAddress: "0x" + hex.EncodeToString(c.Address)}
	}
	for _, c := range s.Chains {
		out.Blockchains = append(out.Blockchains, blockchain{CreateBlockTimestamp: c.CreateTime,
			CreateBlockNumber: strconv.FormatUint(c.CreateBlock, 10), BlockchainID: c.ID.String(), VMID: c.VMID.String(),
			SubnetID: c.SubnetID.String(), BlockchainName: c.Name, EVMChainID: c.EVMChainID, GenesisData: c.Genesis})
	}
	return out
}

func (a *api) listSubnets(q *req) (any, *apireq.Error) {
	size := q.PageSize(100)
	desc := q.Desc()
	if len(q.Errs) > 0 {
		return nil, nil
	}
	items := slices.Clone(a.w.Subnets())
	apireq.Order(items, desc, func(x, y *devnet.Subnet) bool {
		return cmp.Or(cmp.Compare(x.CreateTime, y.CreateTime), cmp.Compare(x.ID.String(), y.ID.String())) < 0
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

func (a *api) getSubnetByID(q *req) (any, *apireq.Error) {
	raw := q.Q.Get("subnetId")
	id, err := avax.ParseID(raw)
	if err != nil {
		return nil, apireq.BadRequest("subnetId must be a valid subnet id")
	}
	s, ok := a.w.Subnet(id)
	if !ok {
		return nil, apireq.NotFound("Subnet " + raw + " not found")
	}
	return q.subnet(s), nil
}

// viewBytes returns u's bytes with the AVAX asset id as the network presents
// it, so that utxoBytes agrees with assetId.
func (q *req) viewBytes(u *devnet.UTXO) string {
	c := u.UTXO
	if c.AssetID == devnet.AVAXAssetID {
		c.AssetID = q.net.AVAX
	}
	return avax.EncodeHex(c.Bytes())
}

func (a *api) getUtxos(q *req) (any, *apireq.Error) {
	chain, herr := q.resolveChain(devnet.ChainP, devnet.ChainX, devnet.ChainC)
	if herr != nil {
		return nil, herr
	}
	size := q.PageSize(10)
	desc := q.Desc()
	sortBy := q.Q.Get("sortBy")
	addrs := q.Addresses("addresses")
	minAmount, _ := q.Number("minUtxoAmount")
	includeSpent := q.Q.Get("includeSpent") == "true"
	var asset *avax.ID
	if s := q.Q.Get("assetId"); s != "" {
		id, err := avax.ParseID(s)
		if err != nil {
			q.Fail("assetId must be a valid asset id")
		} else if chain == devnet.ChainX {
			if id == q.net.AVAX {
				id = devnet.AVAXAssetID
			}
			asset = &id
		}
	}
	if len(q.Errs) > 0 {
		return nil, nil
	}
	info := chainInfo{ChainName: chain.Alias(), Network: q.Network}
	var items []*devnet.UTXO
	if len(addrs) > 0 && chain != devnet.ChainC {
		for _, u := range a.w.UTXOs(chain.LocalID(), addrs, includeSpent) {
			if float64(u.Out.Amount()) < minAmount || (asset != nil && u.AssetID != *asset) {
				continue
			}
			items = append(items, u)
		}
	}
	apireq.Order(items, desc, func(x, y *devnet.UTXO) bool {
		kx, ky := x.Created, y.Created
		if sortBy == "amount" {
			if c := cmp.Compare(x.Out.Amount(), y.Out.Amount()); c != 0 {
				return c < 0
			}
		}
		return cmp.Or(cmp.Compare(kx, ky), cmp.Compare(x.ID().String(), y.ID().String())) < 0
	})
	page, next, herr := apireq.Paginate(q.Req, items, size, q.Scope(chain.String()))
	if herr != nil {
		return nil, herr
	}
	chainID := q.net.ChainID(chain).String()
	if chain == devnet.ChainP {
		out := listUTXOsResponse[pChainUTXO]{NextPageToken: next, UTXOs: []pChainUTXO{}, ChainInfo: info}
		for _, u := range page {
			owners := u.Out.Owners()
			item := pChainUTXO{Addresses: q.bech32("", owners.Addrs), Asset: q.avaxAmount(u.Out.Amount()),
				ConsumedOnChainID: chainID, CreatedOnChainID: chainID, UTXOID: u.ID().String(), UTXOBytes: q.viewBytes(u),
				Amount: u64(u.Out.Amount()), AssetID: q.net.AVAX.String(), BlockNumber: strconv.FormatUint(u.CreatedHeight, 10),
				BlockTimestamp: u.Created, PlatformLocktime: owners.Locktime, OutputIndex: u.OutputIndex,
				RewardType: string(u.Reward), Staked: u.Staked, Threshold: owners.Threshold, TxHash: u.TxID.String(), UTXOType: "TRANSFER"}
			if u.Spent {
				item.ConsumingTxHash = u.ConsumingTxID.String()
				item.ConsumingBlockNumber = strconv.FormatUint(u.ConsumedHeight, 10)
				item.ConsumingBlockTimestamp = u.ConsumedTime
			}
			if lock, ok := u.Out.(*avax.StakeableLockOut); ok {
				item.StakeableLocktime = lock.Locktime
			}
			if u.Staked {
				item.UTXOType, item.UTXOStartTimestamp, item.UTXOEndTimestamp = "STAKE", u.StakeStart, u.StakeEnd
			}
			out.UTXOs = append(out.UTXOs, item)
		}
		return out, nil
	}
	out := listUTXOsResponse[xUTXO]{NextPageToken: next, UTXOs: []xUTXO{}, ChainInfo: info}
	for _, u := range page {
		owners := u.Out.Owners()
		item := xUTXO{Addresses: q.bech32("", owners.Addrs), Asset: q.avaxAmount(u.Out.Amount()),
			ConsumedOnChainID: chainID, CreatedOnChainID: chainID, UTXOID: u.ID().String(), UTXOBytes: q.viewBytes(u),
			CreationTxHash: u.TxID.String(), Locktime: owners.Locktime, OutputIndex: strconv.FormatUint(uint64(u.OutputIndex), 10),
			Threshold: owners.Threshold, Timestamp: u.Created, UTXOType: "TRANSFER"}
		if u.TxID == devnet.AVAXAssetID {
			item.CreationTxHash = q.net.AVAX.String() // the genesis CreateAssetTx is the asset
		}
		if u.Spent {
			item.ConsumingTxHash, item.ConsumingTxTimestamp = u.ConsumingTxID.String(), u.ConsumedTime
		}
		out.UTXOs = append(out.UTXOs, item)
	}
	return out, nil
}

type vertex struct {
	VertexHash      string   `json:"vertexHash"`
	ParentHashes    []string `json:"parentHashes"`
	VertexHeight    uint64   `json:"vertexHeight"`
	VertexIndex     int      `json:"vertexIndex"`
	VertexTimestamp int64    `json:"vertexTimestamp"`
	TxCount         int      `json:"txCount"`
	Transactions    []string `json:"transactions"`
	VertexSizeBytes int      `json:"vertexSizeBytes"`
}

type listVerticesResponse struct {
	NextPageToken string    `json:"nextPageToken,omitempty"`
	Vertices      []vertex  `json:"vertices"`
	ChainInfo     chainInfo `json:"chainInfo"`
}

func ids(in []avax.ID) []string {
	out := make([]string, len(in))
	for i, id := range in {
		out[i] = id.String()
	}
	return out
}

func (a *api) getVertices(q *req) (any, *apireq.Error) {
	if _, herr := q.resolveChain(devnet.ChainX); herr != nil {
		return nil, herr
	}
	size := q.PageSize(10)
	desc := q.Desc()
	height, _ := q.Integer("vertexHeight")
	items := a.w.VerticesAt(uint64(height))
	apireq.Order(items, desc, func(x, y *devnet.Vertex) bool { return x.Index < y.Index })
	page, next, herr := apireq.Paginate(q.Req, items, size, q.Scope("X"))
	if herr != nil {
		return nil, herr
	}
	out := listVerticesResponse{NextPageToken: next, Vertices: []vertex{}, ChainInfo: chainInfo{ChainName: "x-chain", Network: q.Network}}
	for _, v := range page {
		out.Vertices = append(out.Vertices, vertex{VertexHash: v.ID.String(), ParentHashes: ids(v.Parents), VertexHeight: v.Height,
			VertexIndex: v.Index, VertexTimestamp: v.Time, TxCount: len(v.Txs), Transactions: ids(v.Txs), VertexSizeBytes: len(v.Bytes)})
	}
	return out, nil
}

func (a *api) listBlocksByNode(q *req) (any, *apireq.Error) {
	chain, herr := q.resolveChain(devnet.ChainP, devnet.ChainX, devnet.ChainC)
	if herr != nil {
		return nil, herr
	}
	size := q.PageSize(10)
	start, hasStart := q.Integer("startTimestamp")
	end, hasEnd := q.Integer("endTimestamp")
	raw := q.Q.Get("nodeId")
	node, err := avax.ParseNodeID(raw)
	if err != nil {
		q.Fail("nodeId must be a valid node id")
	}
	if len(q.Errs) > 0 {
		return nil, nil
	}
	if !a.w.HasNode(node) {
		return nil, apireq.NotFound("Node " + raw + " not found")
	}
	var src []*devnet.Block
	switch chain {
	case devnet.ChainP:
		src = a.w.PBlocks()
	case devnet.ChainX:
		src = a.w.XBlocks()
	}
	var items []*devnet.Block
	for i := len(src) - 1; i >= 0; i-- { // latest first
		b := src[i]
		if !b.HasProposer || b.Proposer != node || (hasStart && b.Time < start) || (hasEnd && b.Time > end) {
			continue
		}
		items = append(items, b)
	}
	page, next, herr := apireq.Paginate(q.Req, items, size, q.Scope(chain.String(), raw))
	if herr != nil {
		return nil, herr
	}
	out := listBlocksResponse{NextPageToken: next, Blocks: []primaryBlock{}, ChainInfo: chainInfo{ChainName: chain.Alias(), Network: q.Network}}
	for _, b := range page {
		out.Blocks = append(out.Blocks, blockItem(chain, b))
	}
	return out, nil
}

// blockItem is a devnet block as a PrimaryNetworkBlock.
func blockItem(chain devnet.Chain, b *devnet.Block) primaryBlock {
	item := primaryBlock{BlockNumber: strconv.FormatUint(b.Height, 10), BlockHash: b.ID.String(), ParentHash: b.Parent.String(),
		BlockTimestamp: b.Time, BlockType: b.Type, TxCount: len(b.Txs), Transactions: ids(b.Txs), BlockSizeBytes: b.Size}
	if b.HasProposer {
		item.ProposerDetails = &proposerDetails{ProposerID: b.ProposerID.String(), ProposerParentID: b.ProposerParentID.String(),
			ProposerNodeID: b.Proposer.String(), ProposerPChainHeight: b.ProposerPChainHeight, ProposerTimestamp: b.Time}
	}
	if chain == devnet.ChainP {
		fees, n := b.L1AccruedFees, b.ActiveL1Validators
		item.L1ValidatorsAccruedFees, item.ActiveL1Validators, item.CurrentSupply = &fees, &n, u64(b.Supply)
	}
	return item
}

// chainBlocks are the devnet's blocks of chain, oldest first.
func (a *api) chainBlocks(chain devnet.Chain) []*devnet.Block {
	if chain == devnet.ChainX {
		return a.w.XBlocks()
	}
	return a.w.PBlocks()
}

// listLatestBlocks is listLatestPrimaryNetworkBlocks: the chain's blocks,
// newest first.
func (a *api) listLatestBlocks(q *req) (any, *apireq.Error) {
	chain, herr := q.resolveChain(devnet.ChainP, devnet.ChainX)
	if herr != nil {
		return nil, herr
	}
	size := q.PageSize(10)
	start, hasStart := q.Integer("startTimestamp")
	end, hasEnd := q.Integer("endTimestamp")
	src := a.chainBlocks(chain)
	var items []*devnet.Block
	for i := len(src) - 1; i >= 0; i-- {
		if b := src[i]; (!hasStart || b.Time >= start) && (!hasEnd || b.Time <= end) {
			items = append(items, b)
		}
	}
	page, next, herr := apireq.Paginate(q.Req, items, size, q.Scope(chain.String()))
	if herr != nil {
		return nil, herr
	}
	out := listBlocksResponse{NextPageToken: next, Blocks: []primaryBlock{}, ChainInfo: chainInfo{ChainName: chain.Alias(), Network: q.Network}}
	for _, b := range page {
		out.Blocks = append(out.Blocks, blockItem(chain, b))
	}
	return out, nil
}

// getBlockByID is getBlockById.
func (a *api) getBlockByID(q *req) (any, *apireq.Error) {
	chain, herr := q.resolveChain(devnet.ChainP, devnet.ChainX)
	if herr != nil {
		return nil, herr
	}
	raw := q.Q.Get("blockId")
	for _, b := range a.chainBlocks(chain) {
		if b.ID.String() == raw {
			return blockItem(chain, b), nil
		}
	}
	return nil, apireq.NotFound("Block " + apireq.Shorten(raw) + " not found on the " + chain.Alias())
}

func (a *api) listChainIDs(q *req) (any, *apireq.Error) {
	addrs := q.Addresses("addresses")
	if len(q.Errs) > 0 {
		return nil, nil
	}
	out := listChainIDsResponse{Addresses: []addressChains{}}
	for _, addr := range addrs {
		item := addressChains{Address: avax.FormatBech32(q.net.HRP, addr), BlockchainIDs: []string{}}
		for _, c := range a.w.ChainsOf(addr) {
			item.BlockchainIDs = append(item.BlockchainIDs, q.net.ChainID(c).String())
		}
		out.Addresses = append(out.Addresses, item)
	}
	return out, nil
}
