package pdata

import (
	"strconv"

	"github.com/avaedge/avaedge/local/apireq"
	"github.com/avaedge/avaedge/local/source/pindex"
)

func blockItem(b *pindex.Block) primaryBlock {
	txs := b.Txs
	if txs == nil {
		txs = []string{}
	}
	return primaryBlock{BlockNumber: strconv.FormatUint(b.Height, 10), BlockHash: b.ID, ParentHash: b.Parent, BlockTimestamp: b.Time,
		BlockType: b.Type, TxCount: len(txs), Transactions: txs, BlockSizeBytes: b.Size}
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
// first.
func (a *api) listBlocks(q *req) (any, *apireq.Error) {
	chain, herr := q.resolveChain(pindex.ChainP, pindex.ChainX)
	if herr != nil {
		return nil, herr
	}
	r := q.timeRange()
	size := q.PageSize(10)
	scope := q.Scope(string(chain))
	lo, herr := q.Offset(scope)
	if herr != nil || len(q.Errs) > 0 {
		return nil, herr
	}
	r.Limit, r.Offset = size+1, lo
	bs, err := a.ix.Blocks(q.R.Context(), chain, r)
	if err != nil {
		return nil, apireq.Internal(err)
	}
	more := len(bs) > size
	if more {
		bs = bs[:size]
	}
	out := listBlocksResponse{NextPageToken: q.Next(scope, lo, size, more), Blocks: []primaryBlock{}, ChainInfo: chainInfo{ChainName: alias(chain), Network: q.Network}}
	for _, b := range bs {
		out.Blocks = append(out.Blocks, blockItem(b))
	}
	return out, nil
}

// getBlock is getBlockById.
func (a *api) getBlock(q *req) (any, *apireq.Error) {
	chain, herr := q.resolveChain(pindex.ChainP, pindex.ChainX)
	if herr != nil {
		return nil, herr
	}
	id := q.Q.Get("blockId")
	b, ok, err := a.ix.BlockByID(q.R.Context(), chain, id)
	if err != nil {
		return nil, apireq.Internal(err)
	}
	if !ok {
		return nil, apireq.NotFound("Block " + apireq.Shorten(id) + " not found on the " + alias(chain))
	}
	return blockItem(b), nil
}
