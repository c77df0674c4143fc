package evmdata

import (
	"github.com/avaedge/avaedge/local/source/evmindex"
)

// listInternalTransactions answers GET
// /v1/chains/{chainId}/addresses/{address}/transactions:listInternals: the
// internal transactions the address sent or received, newest first, as the
// Data API lists them (value-moving CALL and CALLCODE frames and contract
// creations below a transaction's own call). They come from call traces:
// blocks indexed without one (a followed node without
// debug_traceBlockByNumber) have none, and the answer names them in
// X-Avaedge-Untraced-Blocks.
func (s *server) listInternalTransactions(r *req) (any, error) {
	c, addr, err := s.chainAddress(r)
	if err != nil {
		return nil, err
	}
	l, err := s.txListOf(r, c)
	if err != nil {
		return nil, err
	}
	// The page token is an internal transaction's seq, not a position.
	before := int64(l.cursor)
	l.atCursor(uint64(before) >> 28)
	out := struct {
		NextPageToken string           `json:"nextPageToken,omitempty"`
		Transactions  []listedInternal `json:"transactions"`
	}{Transactions: []listedInternal{}}
	if l.empty {
		return out, nil
	}
	rows, err := s.ix.Internals(r.Context(), evmindex.InternalQuery{ChainID: c.ChainID, Address: addr, StartBlock: l.start, EndBlock: l.end,
		Before: before, Limit: l.size + 1})
	if err != nil {
		return nil, err
	}
	if len(rows) > l.size {
		rows = rows[:l.size]
		out.NextPageToken = s.token(l.scope, uint64(rows[l.size-1].Seq))
	}
	for _, it := range rows {
		out.Transactions = append(out.Transactions, listedInternal{
			BlockNumber: u64(it.BlockNumber), BlockTimestamp: it.BlockTimestamp, BlockHash: it.BlockHash.Hex(), TxHash: it.TxHash.Hex(),
			internalTransaction: internalJSON(it.InternalTx),
		})
	}
	var last uint64
	if len(rows) > 0 {
		last = rows[len(rows)-1].BlockNumber
	}
	return s.withUntraced(r.Context(), out, l, out.NextPageToken != "", last)
}
