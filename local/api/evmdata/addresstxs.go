package evmdata

import (
	"context"
	"net/http"
	"strconv"

	"github.com/avaedge/avaedge/local/api/apireq"
	"github.com/avaedge/avaedge/local/source/evmindex"
	"github.com/ethereum/go-ethereum/common"
)

// txList is one page request of a transaction listing: its chain, the
// positions it covers, its page size and the scope of its page tokens.
type txList struct {
	chain *ChainInfo
	rng   evmindex.Range
	size  int
	scope string
	// start and end are the block range asked for (end exclusive, 0: none).
	start, end uint64
	empty      bool // endBlock <= startBlock: nothing to list
	// cursor is the page token's value, 0 on the first page: a TxPos, which
	// rng starts after, unless the listing says otherwise (atCursor).
	cursor uint64
	// cursorBlock is the block of the cursor's row, when there is one.
	cursorBlock uint64
}

// txListOf reads startBlock, endBlock, sortOrder (when the route has it),
// pageSize and pageToken; filters are the other values that shape the
// listing (they scope its page tokens).
func (s *server) txListOf(r *req, c *ChainInfo, filters ...string) (*txList, error) {
	start, _, err := blockParam(r, "startBlock")
	if err != nil {
		return nil, err
	}
	end, hasEnd, err := blockParam(r, "endBlock")
	if err != nil {
		return nil, err
	}
	l := &txList{chain: c, start: start}
	if hasEnd {
		l.end, l.empty = end, end <= start
	}
	l.rng = evmindex.Blocks(start, l.end)
	l.rng.Asc = r.Get("sortOrder") == "asc"
	if l.size, err = pageSize(r, 10); err != nil {
		return nil, err
	}
	fs := append([]string{"startBlock=" + strconv.FormatUint(start, 10), "endBlock=" + r.Get("endBlock"), "sortOrder=" + r.Get("sortOrder")}, filters...)
	l.scope = scope(r, fs...)
	if l.cursor, err = s.cursor(r, l.scope); err != nil {
		return nil, err
	}
	if l.cursor != 0 {
		l.atCursor(evmindex.TxPos(l.cursor).Block())
		l.rng = l.rng.After(evmindex.TxPos(l.cursor))
	}
	return l, nil
}

// atCursor records the block of the page token's row.
func (l *txList) atCursor(block uint64) { l.cursorBlock = block }

// next trims rows (fetched with a limit of size+1) to the page and returns
// the next page's token, "" on the last page.
func (s *server) next(l *txList, rows []evmindex.ListedTx) ([]evmindex.ListedTx, string) {
	if len(rows) <= l.size {
		return rows, ""
	}
	rows = rows[:l.size]
	return rows, s.token(l.scope, uint64(rows[l.size-1].Pos()))
}

// span returns the blocks a page of l could hold rows from, given its last
// row's block when another page follows (full), for the untraced-blocks
// notice.
func (s *server) span(l *txList, full bool, lastBlock uint64) (lo, hi uint64, ok bool) {
	head, ok := s.ix.Head(l.chain.ChainID)
	if !ok {
		return 0, 0, false
	}
	lo, hi = l.start, head
	if l.end != 0 && l.end-1 < hi {
		hi = l.end - 1
	}
	if l.cursor != 0 {
		if l.rng.Asc {
			lo = l.cursorBlock
		} else {
			hi = min(hi, l.cursorBlock)
		}
	}
	if full {
		if l.rng.Asc {
			hi = lastBlock
		} else {
			lo = lastBlock
		}
	}
	return lo, hi, lo <= hi && !l.empty
}

// withUntraced annotates the answer out of a page of l with the untraced
// blocks of the range it covers (span).
func (s *server) withUntraced(ctx context.Context, out any, l *txList, full bool, lastBlock uint64) (any, error) {
	lo, hi, ok := s.span(l, full, lastBlock)
	if !ok {
		return out, nil
	}
	h, err := s.untracedNotice(ctx, l.chain.ChainID, lo, hi)
	if err != nil || h == nil {
		return out, err
	}
	return &apireq.Answer{Body: out, Header: h}, nil
}

// untracedNotice returns the header saying which blocks among [lo, hi]
// were indexed without call traces, so that their internal transactions
// are missing from the answer (a followed node without
// debug_traceBlockByNumber, or a trace too large to keep); nil when none.
func (s *server) untracedNotice(ctx context.Context, chainID, lo, hi uint64) (http.Header, error) {
	first, last, ok, err := s.ix.UntracedSpan(ctx, chainID, lo, hi)
	if err != nil || !ok {
		return nil, err
	}
	return http.Header{UntracedHeader: {u64(first) + "-" + u64(last)}}, nil
}

// UntracedHeader names, on an answer that lists internal transactions, the
// first and last blocks of the range it covers that were indexed without
// call traces ("12-40"): their internal transactions are not listed.
const UntracedHeader = "X-Avaedge-Untraced-Blocks"

// listedJSON is a listed transaction as NativeTransaction; created is the
// contract a creation made.
func listedJSON(c *ChainInfo, t *evmindex.ListedTx, created map[common.Hash]common.Address) listedTransaction {
	to := created[t.Hash]
	if t.To != nil {
		to = *t.To
	}
	status := "0"
	if t.Status == 1 {
		status = "1"
	}
	return listedTransaction{
		BlockNumber: u64(t.BlockNumber), BlockTimestamp: t.BlockTimestamp, BlockHash: t.BlockHash.Hex(), ChainID: c.answerID(),
		BlockIndex: t.Index, TxHash: t.Hash.Hex(), TxStatus: status, TxType: t.Type, GasLimit: u64(t.GasLimit), GasUsed: u64(t.GasUsed),
		GasPrice: t.EffectiveGasPrice.String(), Nonce: u64(t.Nonce), From: rich(t.From), To: rich(to),
		Method: methodOf(t.To == nil, t.Selector), Value: t.Value.String(),
	}
}

// nativeList answers a list of NativeTransaction.
func (s *server) nativeList(ctx context.Context, c *ChainInfo, rows []evmindex.ListedTx, next string) (any, error) {
	created, err := s.ix.Created(ctx, c.ChainID, rows)
	if err != nil {
		return nil, err
	}
	out := struct {
		NextPageToken string              `json:"nextPageToken,omitempty"`
		Transactions  []listedTransaction `json:"transactions"`
	}{NextPageToken: next, Transactions: make([]listedTransaction, 0, len(rows))}
	for i := range rows {
		out.Transactions = append(out.Transactions, listedJSON(c, &rows[i], created))
	}
	return out, nil
}

// addressTxs runs q for l and returns the page and the next page's token.
func (s *server) addressTxs(ctx context.Context, l *txList, q evmindex.AddressTxQuery) ([]evmindex.ListedTx, string, error) {
	if l.empty {
		return nil, "", nil
	}
	q.ChainID, q.Range, q.Limit = l.chain.ChainID, l.rng, l.size+1
	rows, err := s.ix.AddressTxs(ctx, q)
	if err != nil {
		return nil, "", err
	}
	rows, next := s.next(l, rows)
	return rows, next, nil
}

// listNativeTransactions answers GET
// /v1/chains/{chainId}/addresses/{address}/transactions:listNative: the
// transactions the address sent or received itself (a creation's recipient
// is the contract it created), newest first.
func (s *server) listNativeTransactions(r *req) (any, error) {
	c, addr, err := s.chainAddress(r)
	if err != nil {
		return nil, err
	}
	l, err := s.txListOf(r, c)
	if err != nil {
		return nil, err
	}
	rows, next, err := s.addressTxs(r.Context(), l, evmindex.AddressTxQuery{Address: addr, Native: true})
	if err != nil {
		return nil, err
	}
	return s.nativeList(r.Context(), c, rows, next)
}

// listTransactions answers GET /v1/chains/{chainId}/addresses/{address}/transactions
// (v1) and GET /v2/chains/{chainId}/addresses/{address}/transactions (v2:
// ERC-20 tokens carry their reputation, and filterSpamTokens leaves out
// spam tokens' transfers and the transactions that are nothing else for the
// address): every transaction the address took part in, with the parts of
// it that concern the address.
func (s *server) listTransactions(v2 bool) func(*req) (any, error) {
	return func(r *req) (any, error) {
		c, addr, err := s.chainAddress(r)
		if err != nil {
			return nil, err
		}
		noSpam := v2 && r.Get("filterSpamTokens") == "true"
		l, err := s.txListOf(r, c, "filterSpamTokens="+strconv.FormatBool(noSpam))
		if err != nil {
			return nil, err
		}
		ctx := r.Context()
		rows, next, err := s.addressTxs(ctx, l, evmindex.AddressTxQuery{Address: addr, NoSpam: noSpam})
		if err != nil {
			return nil, err
		}
		items, err := s.transactionDetails(ctx, c, addr, rows, v2, noSpam)
		if err != nil {
			return nil, err
		}
		out := struct {
			NextPageToken string               `json:"nextPageToken,omitempty"`
			Transactions  []transactionDetails `json:"transactions"`
		}{NextPageToken: next, Transactions: items}
		var last uint64
		if len(rows) > 0 {
			last = rows[len(rows)-1].BlockNumber
		}
		return s.withUntraced(ctx, out, l, next != "", last)
	}
}

// transactionDetails describes rows with their token transfers and listed
// internal transactions from or to addr.
func (s *server) transactionDetails(ctx context.Context, c *ChainInfo, addr common.Address, rows []evmindex.ListedTx, v2, noSpam bool) ([]transactionDetails, error) {
	out := make([]transactionDetails, 0, len(rows))
	if len(rows) == 0 {
		return out, nil
	}
	parts, err := s.ix.PartsOf(ctx, c.ChainID, addr, rows)
	if err != nil {
		return nil, err
	}
	created, err := s.ix.Created(ctx, c.ChainID, rows)
	if err != nil {
		return nil, err
	}
	var all []evmindex.TransferRow
	for _, ts := range parts.Transfers {
		all = append(all, ts...)
	}
	d, err := s.describeTransfers(ctx, c.ChainID, all)
	if err != nil {
		return nil, err
	}
	for i := range rows {
		t := &rows[i]
		item := transactionDetails{NativeTransaction: listedJSON(c, t, created)}
		for _, tr := range parts.Transfers[t.Hash] {
			if noSpam && tr.Kind == evmindex.ERC20 && d.tokens[tr.Contract].Spam() {
				continue
			}
			j := s.transferJSON(d, tr)
			// The *TransferDetails shapes carry no block fields.
			j.BlockNumber, j.BlockTimestamp, j.BlockHash, j.TxHash = "", 0, "", ""
			switch tr.Kind {
			case evmindex.ERC20:
				if v2 {
					j.Erc20Token = d.erc20v2(tr.Contract)
				}
				item.Erc20Transfers = append(item.Erc20Transfers, j)
			case evmindex.ERC721:
				item.Erc721Transfers = append(item.Erc721Transfers, j)
			case evmindex.ERC1155:
				item.Erc1155Transfers = append(item.Erc1155Transfers, j)
			}
		}
		for _, it := range parts.Internals[t.Hash] {
			item.InternalTransactions = append(item.InternalTransactions, internalJSON(it))
		}
		out = append(out, item)
	}
	return out, nil
}

func internalJSON(it evmindex.InternalTx) internalTransaction {
	return internalTransaction{From: rich(it.From), To: rich(it.To), InternalTxType: internalTxType(it.Type), Value: it.Value.String(),
		IsReverted: it.Reverted, GasUsed: u64(it.GasUsed), GasLimit: u64(it.Gas)}
}

// chainAddress reads the {chainId} and {address} path values.
func (s *server) chainAddress(r *req) (*ChainInfo, common.Address, error) {
	c, err := s.chain(r)
	if err != nil {
		return nil, common.Address{}, err
	}
	a, err := address("address", r.Get("address"))
	if err != nil {
		return nil, common.Address{}, err
	}
	return c, a, nil
}
