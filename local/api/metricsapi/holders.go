package metricsapi

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/ethereum/go-ethereum/common"

	"github.com/avaedge/avaedge/catalog"
	"github.com/avaedge/avaedge/local/api/apireq"
	"github.com/avaedge/avaedge/local/source/evmindex"
	"github.com/avaedge/avaedge/local/vocab/pagetoken"
)

// HolderSource reads token holders from the EVM index (evmindex.Index).
type HolderSource interface {
	NFTHolders(ctx context.Context, chainID uint64, contract common.Address) ([]evmindex.Holder, uint64, error)
	BalanceHolders(ctx context.Context, chainID uint64, contract common.Address, threshold *big.Int, start, end int64) ([]evmindex.Holder, error)
	Tokens(ctx context.Context, chainID uint64, addrs []common.Address) (map[common.Address]evmindex.Token, error)
}

// holderArgs reads the chain and contract of a holder list.
func (e *Engine) holderArgs(v catalog.Values) (chainID uint64, contract common.Address, err error) {
	e.mu.RLock()
	sel, found := e.resolve(v["chainId"])
	e.mu.RUnlock()
	if !found || sel.group != nil {
		return 0, common.Address{}, apireq.NotFound("chainId " + v["chainId"] + " is not a supported chain id")
	}
	raw := v["address"]
	if !common.IsHexAddress(raw) || !strings.HasPrefix(strings.ToLower(raw), "0x") {
		return 0, common.Address{}, apireq.BadRequest("address must be a valid EVM address")
	}
	return sel.chains[0].info.EVMChainID, common.HexToAddress(raw), nil
}

// writeHolders writes a page of hs ({"addresses":[{address, sortKey}]},
// sortKey the amount), from the offset of the request's page token, with
// extra members after the list.
func (e *Engine) writeHolders(v catalog.Values, scope string, hs []evmindex.Holder, extra func([]byte) []byte) (any, error) {
	now := e.now()
	offset := 0
	if tok := v["pageToken"]; tok != "" {
		c, err := pagetoken.Decode(scope, tok, now)
		if err != nil || c > uint64(len(hs)) {
			return nil, apireq.BadRequest("pageToken is invalid or expired")
		}
		offset = int(c)
	}
	size := int(intValue(v, "pageSize", 1000))
	last := min(len(hs), offset+size)
	buf := append(make([]byte, 0, 128+80*(last-offset)), `{"addresses":[`...)
	for i := offset; i < last; i++ {
		if i > offset {
			buf = append(buf, ',')
		}
		buf = append(buf, `{"address":"`...)
		buf = append(buf, hs[i].Address.Hex()...)
		buf = append(buf, `","sortKey":"`...)
		buf = hs[i].Amount.Append(buf, 10)
		buf = append(buf, `"}`...)
	}
	buf = append(buf, ']')
	if extra != nil {
		buf = extra(buf)
	}
	if last < len(hs) {
		buf = append(buf, `,"nextPageToken":"`...)
		buf = append(buf, pagetoken.Encode(scope, uint64(last), now)...)
		buf = append(buf, '"')
	}
	return json.RawMessage(append(buf, '}')), nil
}

// serveNftHolders answers the legacy getNftHoldersByContractAddress: the
// current holders of an ERC-721 or ERC-1155 contract, sortKey the number of
// its token ids each holds, the most first; totalHolders and totalTokens
// (the ids the contract has moved), and its name and symbol when read.
func (e *Engine) serveNftHolders(q *apireq.Req) (any, error) {
	v := q.Q
	chainID, contract, err := e.holderArgs(v)
	if err != nil {
		return nil, err
	}
	hs, total, err := e.holders.NFTHolders(q.Context(), chainID, contract)
	var toks map[common.Address]evmindex.Token
	if err == nil {
		toks, err = e.holders.Tokens(q.Context(), chainID, []common.Address{contract})
	}
	if err != nil {
		return nil, apireq.Failed("reading the EVM index failed", fmt.Errorf("nft holders: %w", err))
	}
	tok, named := toks[contract]
	scope := "getNftHoldersByContractAddress|" + strconv.FormatUint(chainID, 10) + "|" + contract.Hex()
	return e.writeHolders(v, scope, hs, func(buf []byte) []byte {
		if named && tok.Kind != evmindex.ERC20 {
			buf = append(buf, `,"nftCollectionName":[`...)
			buf = strconv.AppendQuote(buf, tok.Name)
			buf = append(buf, `],"nftSymbol":[`...)
			buf = strconv.AppendQuote(buf, tok.Symbol)
			buf = append(buf, ']')
		}
		buf = append(buf, `,"totalHolders":`...)
		buf = strconv.AppendInt(buf, int64(len(hs)), 10)
		buf = append(buf, `,"totalTokens":`...)
		return strconv.AppendUint(buf, total, 10)
	})
}

// serveBalanceHolders answers the legacy getAddressesByBalanceOverTime: the
// addresses whose balance of an ERC-20 contract reached threshold (in the
// token's smallest unit) at some time within [startTimestamp,
// endTimestamp], sortKey the highest balance each held then, the largest
// first.
func (e *Engine) serveBalanceHolders(q *apireq.Req) (any, error) {
	v := q.Q
	chainID, contract, err := e.holderArgs(v)
	if err != nil {
		return nil, err
	}
	threshold, good := new(big.Int).SetString(v["threshold"], 10)
	if len(v["threshold"]) > 78 || !good || threshold.Sign() < 0 {
		return nil, apireq.BadRequest("threshold must be a non-negative integer")
	}
	start := intValue(v, "startTimestamp", 0)
	end := intValue(v, "endTimestamp", math.MaxInt64)
	if start > end {
		return nil, apireq.BadRequest("startTimestamp must not be greater than endTimestamp")
	}
	hs, err := e.holders.BalanceHolders(q.Context(), chainID, contract, threshold, start, end)
	if err != nil {
		return nil, apireq.Failed("reading the EVM index failed", fmt.Errorf("balance holders: %w", err))
	}
	scope := "getAddressesByBalanceOverTime|" + strconv.FormatUint(chainID, 10) + "|" + contract.Hex() + "|" + threshold.String() + "|" +
		strconv.FormatInt(start, 10) + "|" + strconv.FormatInt(end, 10)
	return e.writeHolders(v, scope, hs, nil)
}
