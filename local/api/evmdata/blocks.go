package evmdata

import (
	"strconv"
	"strings"

	"github.com/avaedge/avaedge/local/api/apireq"
	"github.com/avaedge/avaedge/local/source/evmindex"
	"github.com/ethereum/go-ethereum/common"
)

func blockJSON(c *ChainInfo, b evmindex.BlockRow) evmBlock {
	return evmBlock{
		ChainID: c.answerID(), BlockNumber: u64(b.Number), BlockTimestamp: b.Timestamp, BlockHash: b.Hash.Hex(),
		TxCount: b.TxCount, BaseFee: b.BaseFee.String(), GasUsed: u64(b.GasUsed), GasLimit: u64(b.GasLimit),
		GasCost:    "0", // Avalanche's blockGasCost; a go-ethereum chain has none
		ParentHash: b.ParentHash.Hex(), FeesSpent: b.FeesSpent.String(), CumulativeTransactions: u64(b.CumulativeTxs),
	}
}

// getLatestBlocks answers GET /v1/chains/{chainId}/blocks, newest first.
func (s *server) getLatestBlocks(r *req) (any, error) {
	c, err := s.chain(r)
	if err != nil {
		return nil, err
	}
	size, err := pageSize(r, 10)
	if err != nil {
		return nil, err
	}
	sc := scope(r)
	before, err := s.cursor(r, sc)
	if err != nil {
		return nil, err
	}
	rows, err := s.ix.LatestBlocks(r.Context(), c.ChainID, before, size+1)
	if err != nil {
		return nil, err
	}
	out := struct {
		NextPageToken string     `json:"nextPageToken,omitempty"`
		Blocks        []evmBlock `json:"blocks"`
	}{Blocks: make([]evmBlock, 0, min(len(rows), size))}
	for i, b := range rows {
		if i == size {
			// b.Number+1 > 0, so the cursor never reads as "first page".
			out.NextPageToken = s.token(sc, rows[size-1].Number)
			break
		}
		out.Blocks = append(out.Blocks, blockJSON(c, b))
	}
	return out, nil
}

// getBlock answers GET /v1/chains/{chainId}/blocks/{blockId}.
func (s *server) getBlock(r *req) (any, error) {
	c, err := s.chain(r)
	if err != nil {
		return nil, err
	}
	b, err := s.blockByID(r, c)
	if err != nil {
		return nil, err
	}
	return blockJSON(c, b), nil
}

// blockByID reads the {blockId} path value, a block number or a block hash,
// and returns that block.
func (s *server) blockByID(r *req, c *ChainInfo) (evmindex.BlockRow, error) {
	id := r.Get("blockId")
	var b evmindex.BlockRow
	var err error
	switch {
	case strings.HasPrefix(id, "0x") && len(id) == 66:
		b, err = s.ix.BlockByHash(r.Context(), c.ChainID, common.HexToHash(id))
	default:
		n, perr := strconv.ParseUint(id, 10, 64)
		if perr != nil {
			return b, apireq.BadRequest("blockId must be a block number or a block hash")
		}
		b, err = s.ix.Block(r.Context(), c.ChainID, n)
	}
	if err == evmindex.ErrNotFound {
		err = apireq.NotFound("Block " + id + " not found")
	}
	return b, err
}
