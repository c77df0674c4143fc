package dataapi

import (
	"strconv"

	"github.com/avaedge/avaedge/avanet"
	"github.com/avaedge/avaedge/local/api/apireq"
	"github.com/avaedge/avaedge/local/source/pindex"
	"github.com/avaedge/avaedge/local/vocab/avax"
	"github.com/avaedge/avaedge/local/vocab/glacier"
)

// blockItem is b as a PrimaryNetworkBlock, with its proposer and P-Chain
// state where they are known.
func (a *api) blockItem(b *pindex.Block) glacier.PrimaryBlock {
	txs := b.Txs
	if txs == nil {
		txs = []string{}
	}
	item := glacier.PrimaryBlock{BlockNumber: strconv.FormatUint(b.Height, 10), BlockHash: b.ID, ParentHash: b.Parent, BlockTimestamp: b.Time,
		BlockType: b.Type, TxCount: len(txs), Transactions: txs, BlockSizeBytes: b.Size}
	if p := a.opts.Proposers; p != nil {
		if d, ok := p.Proposer(b.Chain, b.ID); ok {
			item.ProposerDetails = &d
		}
		if b.Chain == avanet.ChainP {
			if supply, n, fees, ok := p.PChainState(b.ID); ok {
				item.CurrentSupply, item.ActiveL1Validators, item.L1ValidatorsAccruedFees = u64(supply), &n, &fees
			}
		}
	}
	return item
}

// timeRange reads startTimestamp and endTimestamp.
func (q *req) timeRange() pindex.BlockRange {
	var r pindex.BlockRange
	r.Start, _ = q.Integer("startTimestamp")
	r.End, _ = q.Integer("endTimestamp")
	if r.Start > 0 && r.End > 0 && r.Start > r.End {
		q.Fail("startTimestamp must be less than or equal to endTimestamp")
	}
	return r
}

// listBlocks is listLatestPrimaryNetworkBlocks: the chain's blocks, newest
// first, read a page at a time.
func (a *api) listBlocks(q *req) (any, error) {
	chain, herr := q.resolveChain(avanet.ChainP, avanet.ChainX)
	if herr != nil {
		return nil, herr
	}
	r := q.timeRange()
	size := q.PageSize(10)
	scope := q.Scope(string(chain))
	if herr := q.after(&r, scope); herr != nil || len(q.Errs) > 0 {
		return nil, herr
	}
	r.Limit = size + 1
	bs, err := a.src.Blocks(q.ctx, chain, r)
	if err != nil {
		return nil, apireq.Internal(err)
	}
	next := ""
	if len(bs) > size {
		bs = bs[:size]
		next = q.Next(scope, uint64(bs[size-1].Pos()), true)
	}
	out := glacier.ListBlocksResponse{NextPageToken: next, Blocks: []glacier.PrimaryBlock{},
		ChainInfo: glacier.ChainInfo{ChainName: alias(chain), Network: q.Network}}
	for _, b := range bs {
		out.Blocks = append(out.Blocks, a.blockItem(b))
	}
	return out, nil
}

// getBlock is getBlockById.
func (a *api) getBlock(q *req) (any, error) {
	chain, herr := q.resolveChain(avanet.ChainP, avanet.ChainX)
	if herr != nil {
		return nil, herr
	}
	id := q.Q.Get("blockId")
	b, ok, err := a.src.BlockByID(q.ctx, chain, id)
	if err != nil {
		return nil, apireq.Internal(err)
	}
	if !ok {
		return nil, apireq.NotFound("Block " + apireq.Shorten(id) + " not found on the " + alias(chain))
	}
	return a.blockItem(b), nil
}

// listBlocksByNode is listPrimaryNetworkBlocksByNodeId: the blocks of the
// chain a node proposed, newest first. Only Options.Proposers knows
// proposers (the devnet's); over a followed node's index the blocks of a
// node the network knows are the ones whose proposer is known: none, since
// the node's APIs give the inner blocks without their ProposerVM header.
// The C-Chain's blocks are not indexed here: none either. A node the
// network does not know is 404.
func (a *api) listBlocksByNode(q *req) (any, error) {
	chain, herr := q.resolveChain(avanet.ChainP, avanet.ChainX, avanet.ChainC)
	if herr != nil {
		return nil, herr
	}
	size := q.PageSize(10)
	r := q.timeRange()
	raw := q.Q.Get("nodeId")
	node, err := avax.ParseNodeID(raw)
	if err != nil {
		q.Fail("nodeId must be a valid node id")
	}
	if len(q.Errs) > 0 {
		return nil, nil
	}
	var ids []string
	known := false
	if p := a.opts.Proposers; p != nil {
		ids, known = p.Proposed(chain, node)
	} else if known, herr = a.knownNode(q, node); herr != nil {
		return nil, herr
	}
	if !known {
		return nil, apireq.NotFound("Node " + raw + " not found")
	}
	var items []*pindex.Block
	for _, id := range ids {
		b, found, err := a.src.BlockByID(q.ctx, chain, id)
		if err != nil {
			return nil, apireq.Internal(err)
		}
		if found && (r.Start == 0 || b.Time >= r.Start) && (r.End == 0 || b.Time <= r.End) {
			items = append(items, b)
		}
	}
	page, next, herr := apireq.Paginate(q.Req, items, size, q.Scope(string(chain), raw))
	if herr != nil {
		return nil, herr
	}
	out := glacier.ListBlocksResponse{NextPageToken: next, Blocks: []glacier.PrimaryBlock{}, ChainInfo: glacier.ChainInfo{ChainName: alias(chain), Network: q.Network}}
	for _, b := range page {
		out.Blocks = append(out.Blocks, a.blockItem(b))
	}
	return out, nil
}

// knownNode reports whether node validated or validates the network: an
// indexed stake or a current validator names it.
func (a *api) knownNode(q *req, node avax.NodeID) (bool, *apireq.Error) {
	all, _, herr := a.validations(q)
	if herr != nil {
		return false, herr
	}
	for _, v := range all {
		if v.node == node.String() {
			return true, nil
		}
	}
	return false, nil
}

// linearX reports whether the X-Chain had no vertex: its block 0's
// parent is the empty id (the devnet's), or the stop vertex avalanchego
// builds over an empty DAG (a network started after the linearization:
// every network but mainnet and fuji, which name a well-known stop vertex
// over their DAG). Otherwise the index holds none of the vertices before
// the linearization: 503.
func (a *api) linearX(q *req) *apireq.Error {
	bs, err := a.src.Blocks(q.ctx, avanet.ChainX, pindex.BlockRange{Asc: true, Limit: 1})
	if err != nil {
		return apireq.Internal(err)
	}
	if len(bs) == 0 || bs[0].Height != 0 {
		return apireq.Unavailable("the X-Chain's genesis is not indexed yet")
	}
	if p := bs[0].Parent; p != avax.EmptyID.String() && p != emptyStopVertex(a.own.x).String() {
		return apireq.Unavailable("the X-Chain's vertices, before its linearization, are not indexed")
	}
	return nil
}

// emptyStopVertex is the id of the stop vertex avalanchego (v1.10 on)
// builds for chain when its DAG has no vertex
// (snow/engine/avalanche/vertex.BuildStopVertex(chain, 0, nil)): the hash
// of codec version 1, the chain id, height 0 and no parents.
func emptyStopVertex(chain avax.ID) avax.ID {
	b := make([]byte, 0, 2+32+8+4)
	b = append(b, 0, 1)
	b = append(b, chain[:]...)
	b = append(b, make([]byte, 8+4)...)
	return avax.Hash256(b)
}

// listVertices is listLatestXChainVertices and getVertexByHeight: an
// X-Chain linear from its genesis has no vertex at any height.
func (a *api) listVertices(q *req) (any, error) {
	if _, herr := q.resolveChain(avanet.ChainX); herr != nil {
		return nil, herr
	}
	if herr := a.linearX(q); herr != nil {
		return nil, herr
	}
	if _, _, herr := apireq.Paginate(q.Req, []struct{}{}, q.PageSize(10), q.Scope("X")); herr != nil {
		return nil, herr
	}
	return glacier.ListVerticesResponse{Vertices: []glacier.Vertex{}, ChainInfo: glacier.ChainInfo{ChainName: "x-chain", Network: q.Network}}, nil
}

// getVertex is getVertexByHash: an X-Chain linear from its genesis has no
// vertex, so every hash is 404.
func (a *api) getVertex(q *req) (any, error) {
	if _, herr := q.resolveChain(avanet.ChainX); herr != nil {
		return nil, herr
	}
	if herr := a.linearX(q); herr != nil {
		return nil, herr
	}
	return nil, apireq.NotFound("Vertex " + apireq.Shorten(q.Q.Get("vertexHash")) + " not found on the x-chain")
}
