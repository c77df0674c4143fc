package evmdata

import (
	"context"
	"strconv"

	"github.com/avaedge/avaedge/local/source/evmindex"
	"github.com/ethereum/go-ethereum/common"
)

// transferQuery reads the shared parameters of the transfer lists.
func (s *server) transferQuery(r *req) (*ChainInfo, common.Address, evmindex.TransferQuery, string, error) {
	var q evmindex.TransferQuery
	c, err := s.chain(r)
	if err != nil {
		return nil, common.Address{}, q, "", err
	}
	addr, err := address("address", r.Get("address"))
	if err != nil {
		return nil, common.Address{}, q, "", err
	}
	start, _, err := blockParam(r, "startBlock")
	if err != nil {
		return nil, common.Address{}, q, "", err
	}
	end, hasEnd, err := blockParam(r, "endBlock")
	if err != nil {
		return nil, common.Address{}, q, "", err
	}
	size, err := pageSize(r, 10)
	if err != nil {
		return nil, common.Address{}, q, "", err
	}
	sc := scope(r, "startBlock="+strconv.FormatUint(start, 10), "endBlock="+r.Get("endBlock"))
	before, err := s.cursor(r, sc)
	if err != nil {
		return nil, common.Address{}, q, "", err
	}
	q = evmindex.TransferQuery{ChainID: c.ChainID, StartBlock: start, Before: int64(before), Limit: size + 1}
	if hasEnd {
		if end <= start {
			// An empty range: endBlock is exclusive.
			q.Limit = 0
		}
		q.EndBlock = end
	}
	return c, addr, q, sc, nil
}

// page trims rows to the page size and returns the next page token.
func (s *server) page(rows []evmindex.TransferRow, q evmindex.TransferQuery, sc string) ([]evmindex.TransferRow, string) {
	size := q.Limit - 1
	if size < 0 || len(rows) <= size {
		return rows, ""
	}
	return rows[:size], s.token(sc, uint64(rows[size-1].Seq))
}

func (s *server) transferJSON(d *tokenDescriber, t evmindex.TransferRow) transfer {
	out := transfer{
		BlockNumber: u64(t.BlockNumber), BlockTimestamp: t.BlockTimestamp, BlockHash: t.BlockHash.Hex(), TxHash: t.TxHash.Hex(),
		From: rich(t.From), To: rich(t.To), LogIndex: t.LogIndex,
	}
	switch t.Kind {
	case evmindex.ERC20:
		out.Value, out.Erc20Token = t.Value.String(), d.erc20(t.Contract)
	case evmindex.ERC721:
		out.Erc721Token = d.erc721(t.Contract, t.TokenID)
	case evmindex.ERC1155:
		out.Value, out.Erc1155Token = t.Value.String(), d.erc1155(t.Contract, t.TokenID)
	}
	return out
}

func (s *server) describeTransfers(ctx context.Context, chainID uint64, rows []evmindex.TransferRow) (*tokenDescriber, error) {
	addrs := make([]common.Address, 0, len(rows))
	var keys []evmindex.NFTKey
	for _, t := range rows {
		addrs = append(addrs, t.Contract)
		if t.TokenID != nil {
			keys = append(keys, evmindex.NFTKey{Contract: t.Contract, TokenID: t.TokenID.String()})
		}
	}
	return s.describe(ctx, chainID, addrs, keys)
}

// transferPage answers one page of transfers: the request's shared
// parameters, narrowed by scoped (to an address and standard, or a
// contract).
func (s *server) transferPage(r *req, scoped func(q *evmindex.TransferQuery, addr common.Address)) ([]transfer, string, error) {
	c, addr, q, sc, err := s.transferQuery(r)
	if err != nil {
		return nil, "", err
	}
	scoped(&q, addr)
	var rows []evmindex.TransferRow
	if q.Limit > 0 {
		if rows, err = s.ix.Transfers(r.Context(), q); err != nil {
			return nil, "", err
		}
	}
	rows, next := s.page(rows, q, sc)
	d, err := s.describeTransfers(r.Context(), c.ChainID, rows)
	if err != nil {
		return nil, "", err
	}
	out := make([]transfer, 0, len(rows))
	for _, t := range rows {
		out = append(out, s.transferJSON(d, t))
	}
	return out, next, nil
}

// addressTransfers answers the transfers of one standard from or to an
// address, newest first: GET /v1/chains/{chainId}/addresses/{address}/transactions:listErc20,
// :listErc721 and :listErc1155.
func (s *server) addressTransfers(kind evmindex.TokenKind) func(*req) (any, error) {
	return func(r *req) (any, error) {
		trs, next, err := s.transferPage(r, func(q *evmindex.TransferQuery, addr common.Address) { q.Address, q.Kind = &addr, kind })
		if err != nil {
			return nil, err
		}
		return struct {
			NextPageToken string     `json:"nextPageToken,omitempty"`
			Transactions  []transfer `json:"transactions"`
		}{next, trs}, nil
	}
}

// listTransfers answers GET /v1/chains/{chainId}/tokens/{address}/transfers:
// the transfers of one ERC-20, ERC-721 or ERC-1155 contract.
func (s *server) listTransfers(r *req) (any, error) {
	trs, next, err := s.transferPage(r, func(q *evmindex.TransferQuery, addr common.Address) { q.Contract = &addr })
	if err != nil {
		return nil, err
	}
	return struct {
		NextPageToken string     `json:"nextPageToken,omitempty"`
		Transfers     []transfer `json:"transfers"`
	}{next, trs}, nil
}
