package evmdata

import (
	"strconv"

	"github.com/avaedge/avaedge/local/source/evmindex"
)

// statusOf reads the status filter (TransactionStatus: "failed" or
// "success"; absent: any).
func statusOf(r *req) evmindex.TxStatus {
	switch r.Get("status") {
	case "failed":
		return evmindex.Failed
	case "success":
		return evmindex.Succeeded
	}
	return evmindex.AnyStatus
}

// listLatestTransactions answers GET /v1/chains/{chainId}/transactions: the
// chain's transactions, newest first, with the status filter.
func (s *server) listLatestTransactions(r *req) (any, error) {
	c, err := s.chain(r)
	if err != nil {
		return nil, err
	}
	size, _ := pageSize(r, 10)
	sc := scope(r, "status="+r.Get("status"))
	cur, err := s.cursor(r, sc)
	if err != nil {
		return nil, err
	}
	rng := evmindex.Blocks(0, 0)
	if cur != 0 {
		rng = rng.After(evmindex.TxPos(cur))
	}
	return s.chainTxPage(r, c, statusOf(r), rng, size, sc)
}

// chainTxPage answers a page of size of c's transactions with status in
// rng, whose page tokens have scope sc.
func (s *server) chainTxPage(r *req, c *ChainInfo, status evmindex.TxStatus, rng evmindex.Range, size int, sc string) (any, error) {
	rows, err := s.ix.ChainTxs(r.Context(), c.ChainID, status, rng, size+1)
	if err != nil {
		return nil, err
	}
	next := ""
	if len(rows) > size {
		rows = rows[:size]
		next = s.token(sc, uint64(rows[size-1].Pos()))
	}
	return s.nativeList(r.Context(), c, rows, next)
}

// blockPageMax bounds a page of getTransactionsForBlock asked with
// pageSize 0 (the spec's default), which lists the whole block: a block
// with more transactions continues on another page.
const blockPageMax = 1000

// getTransactionsForBlock answers GET
// /v1/chains/{chainId}/blocks/{blockId}/transactions: a block's (by number
// or hash) transactions in block order.
func (s *server) getTransactionsForBlock(r *req) (any, error) {
	c, err := s.chain(r)
	if err != nil {
		return nil, err
	}
	b, err := s.blockByID(r, c)
	if err != nil {
		return nil, err
	}
	size, _ := pageSize(r, 0)
	if size == 0 {
		size = blockPageMax
	}
	sc := scope(r, "pageSize="+strconv.Itoa(size))
	cur, err := s.cursor(r, sc)
	if err != nil {
		return nil, err
	}
	rng := evmindex.Blocks(b.Number, b.Number+1)
	rng.Asc = true
	if cur != 0 {
		rng = rng.After(evmindex.TxPos(cur))
	}
	return s.chainTxPage(r, c, evmindex.AnyStatus, rng, size, sc)
}
