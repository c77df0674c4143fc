package metricsapi

import (
	"context"
	"math"
	"math/big"
	"net/http"
	"strconv"
	"strings"

	"github.com/ethereum/go-ethereum/common"

	"github.com/avaedge/avaedge/apierror"
	"github.com/avaedge/avaedge/catalog"
	"github.com/avaedge/avaedge/local/source/evmindex"
	"github.com/avaedge/avaedge/local/vocab/pagetoken"
)

// HolderSource reads token holders from the EVM index (evmindex.Index).
type HolderSource interface {
	NFTHolders(ctx context.Context, chainID uint64, contract common.Address) ([]evmindex.Holder, uint64, error)
	BalanceHolders(ctx context.Context, chainID uint64, contract common.Address, threshold *big.Int, start, end int64) ([]evmindex.Holder, error)
	Tokens(ctx context.Context, chainID uint64, addrs []common.Address) (map[common.Address]evmindex.Token, error)
}

// holderArgs reads the chain and contract of a holder list; ok is false
// once an error is written.
func (e *Engine) holderArgs(w http.ResponseWriter, v catalog.Values) (chainID uint64, contract common.Address, ok bool) {
	e.mu.RLock()
	sel, found := e.resolve(v["chainId"])
	e.mu.RUnlock()
	if !found || sel.group != nil {
		apierror.WriteList(w, http.StatusNotFound, "chainId "+v["chainId"]+" is not a supported chain id")
		return 0, common.Address{}, false
	}
	raw := v["address"]
	if !common.IsHexAddress(raw) || !strings.HasPrefix(strings.ToLower(raw), "0x") {
		apierror.WriteList(w, http.StatusBadRequest, "address must be a valid EVM address")
		return 0, common.Address{}, false
	}
	return sel.chains[0].info.EVMChainID, common.HexToAddress(raw), true
}

// writeHolders writes a page of hs ({"addresses":[{address, sortKey}]},
// sortKey the amount), from the offset of the request's page token, with
// extra members after the list.
func (e *Engine) writeHolders(w http.ResponseWriter, v catalog.Values, scope string, hs []evmindex.Holder, extra func([]byte) []byte) {
	now := e.now()
	offset := 0
	if tok := v["pageToken"]; tok != "" {
		c, err := pagetoken.Decode(scope, tok, now)
		if err != nil || c > uint64(len(hs)) {
			apierror.WriteList(w, http.StatusBadRequest, "pageToken is invalid or expired")
			return
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
	writeBody(w, append(buf, '}'))
}

// serveNftHolders answers the legacy getNftHoldersByContractAddress: the
// current holders of an ERC-721 or ERC-1155 contract, sortKey the number of
// its token ids each holds, the most first; totalHolders and totalTokens
// (the ids the contract has moved), and its name and symbol when read.
func (e *Engine) serveNftHolders(w http.ResponseWriter, r *http.Request, v catalog.Values) {
	chainID, contract, ok := e.holderArgs(w, v)
	if !ok {
		return
	}
	hs, total, err := e.holders.NFTHolders(r.Context(), chainID, contract)
	var toks map[common.Address]evmindex.Token
	if err == nil {
		toks, err = e.holders.Tokens(r.Context(), chainID, []common.Address{contract})
	}
	if err != nil {
		e.log.Error("metricsapi: nft holders", "err", err)
		apierror.WriteList(w, http.StatusInternalServerError, "reading the EVM index failed")
		return
	}
	tok, named := toks[contract]
	scope := "getNftHoldersByContractAddress|" + strconv.FormatUint(chainID, 10) + "|" + contract.Hex()
	e.writeHolders(w, v, scope, hs, func(buf []byte) []byte {
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
func (e *Engine) serveBalanceHolders(w http.ResponseWriter, r *http.Request, v catalog.Values) {
	chainID, contract, ok := e.holderArgs(w, v)
	if !ok {
		return
	}
	threshold, good := new(big.Int).SetString(v["threshold"], 10)
	if len(v["threshold"]) > 78 || !good || threshold.Sign() < 0 {
		apierror.WriteList(w, http.StatusBadRequest, "threshold must be a non-negative integer")
		return
	}
	start := intValue(v, "startTimestamp", 0)
	end := intValue(v, "endTimestamp", math.MaxInt64)
	if start > end {
		apierror.WriteList(w, http.StatusBadRequest, "startTimestamp must not be greater than endTimestamp")
		return
	}
	hs, err := e.holders.BalanceHolders(r.Context(), chainID, contract, threshold, start, end)
	if err != nil {
		e.log.Error("metricsapi: balance holders", "err", err)
		apierror.WriteList(w, http.StatusInternalServerError, "reading the EVM index failed")
		return
	}
	scope := "getAddressesByBalanceOverTime|" + strconv.FormatUint(chainID, 10) + "|" + contract.Hex() + "|" + threshold.String() + "|" +
		strconv.FormatInt(start, 10) + "|" + strconv.FormatInt(end, 10)
	e.writeHolders(w, v, scope, hs, nil)
}
