package evmdata

import (
	"context"
	"net/http"
	"strconv"
	"strings"

	"github.com/avaedge/avaedge/local/api/apireq"
	"github.com/avaedge/avaedge/local/source/evmindex"
	"github.com/avaedge/avaedge/local/vocab/pagetoken"
	"github.com/ethereum/go-ethereum/common"
)

// atBlock reads blockNumber (a decimal string); nil means latest. A number
// past the indexed head also means latest.
func (s *server) atBlock(r *req, chainID uint64) (*uint64, error) {
	raw := r.Get("blockNumber")
	if raw == "" {
		return nil, nil
	}
	n, err := strconv.ParseUint(raw, 10, 64)
	if err != nil {
		return nil, apireq.BadRequest("blockNumber must be a non-negative integer string")
	}
	if head, ok := s.ix.Head(chainID); ok && n >= head {
		return nil, nil
	}
	return &n, nil
}

// nativeBalance returns addr's native balance at block at (nil means the
// indexed head) and the block it is as of: the node's answer, or, when the
// node does not answer, the balance the index recorded last.
func (s *server) nativeBalance(ctx context.Context, c *ChainInfo, addr common.Address, at *uint64) (nativeTokenBalance, uint64, error) {
	bal, asOf, err := s.ix.NativeBalance(ctx, c.ChainID, addr, at)
	if err != nil {
		return nativeTokenBalance{}, 0, err
	}
	t := c.NetworkToken
	return nativeTokenBalance{Name: t.Name, Symbol: t.Symbol, Decimals: t.Decimals, LogoURI: t.LogoURI, ChainID: c.answerID(), Balance: bal.String()}, asOf, nil
}

// BalanceBlockHeader names the block a native balance is as of.
const BalanceBlockHeader = "X-Avaedge-Balance-Block"

// balanceRequest is what every balance route reads first.
type balanceRequest struct {
	chain *ChainInfo
	owner common.Address
	at    *uint64
	size  int
	after []byte // the previous page's last holding's Key; nil on the first page
	scope string
}

func (s *server) balanceRequest(r *req, maxSize int, withBlock bool, filters ...string) (*balanceRequest, error) {
	c, err := s.chain(r)
	if err != nil {
		return nil, err
	}
	b := &balanceRequest{chain: c}
	if b.owner, err = address("address", r.Get("address")); err != nil {
		return nil, err
	}
	if withBlock {
		if b.at, err = s.atBlock(r, c.ChainID); err != nil {
			return nil, err
		}
	}
	if maxSize == 0 { // a route without paging
		return b, nil
	}
	if b.size, err = pageSize(r, 10); err != nil {
		return nil, err
	}
	q := r
	fs := []string{"blockNumber=" + q.Get("blockNumber")}
	for _, f := range filters {
		fs = append(fs, f+"="+q.Get(f))
	}
	b.scope = scope(r, fs...)
	if tok := r.Get("pageToken"); tok != "" {
		if b.after, err = pagetoken.DecodeKey(b.scope, tok, s.now()); err != nil {
			return nil, apireq.BadRequest("Invalid page token")
		}
	}
	return b, nil
}

// contracts parses a comma-separated list of contract addresses.
func contracts(name, raw string) ([]common.Address, error) {
	if raw == "" {
		return nil, nil
	}
	var out []common.Address
	for _, p := range strings.Split(raw, ",") {
		a, err := address(name, strings.TrimSpace(p))
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, nil
}

// holdings runs the holdings query of b and says whether more follow.
// noSpam leaves out spam tokens.
func (s *server) holdings(ctx context.Context, b *balanceRequest, kind evmindex.TokenKind, cs []common.Address, noSpam bool) ([]evmindex.Holding, string, error) {
	hs, err := s.ix.Holdings(ctx, evmindex.HoldingQuery{ChainID: b.chain.ChainID, Owner: b.owner, Kind: kind, Contracts: cs, AtBlock: b.at, NoSpam: noSpam,
		After: b.after, Limit: b.size + 1})
	if err != nil {
		return nil, "", err
	}
	next := ""
	if len(hs) > b.size {
		hs = hs[:b.size]
		next = pagetoken.EncodeKey(b.scope, hs[b.size-1].Key(), s.now())
	}
	return hs, next, nil
}

// getNativeBalance answers GET /v1/chains/{chainId}/addresses/{address}/balances:getNative.
func (s *server) getNativeBalance(r *req) (any, error) {
	b, err := s.balanceRequest(r, 0, true)
	if err != nil {
		return nil, err
	}
	nb, asOf, err := s.nativeBalance(r.Context(), b.chain, b.owner, b.at)
	if err != nil {
		return nil, err
	}
	return &apireq.Answer{Body: struct {
		NativeTokenBalance nativeTokenBalance `json:"nativeTokenBalance"`
	}{nb}, Header: http.Header{BalanceBlockHeader: {strconv.FormatUint(asOf, 10)}}}, nil
}

// listErc20Balances answers GET /v1/chains/{chainId}/addresses/{address}/balances:listErc20.
func (s *server) listErc20Balances(r *req) (any, error) {
	b, err := s.balanceRequest(r, 500, true, "contractAddresses", "filterSpamTokens")
	if err != nil {
		return nil, err
	}
	cs, err := contracts("contractAddresses", r.Get("contractAddresses"))
	if err != nil {
		return nil, err
	}
	ctx := r.Context()
	hs, next, err := s.holdings(ctx, b, evmindex.ERC20, cs, r.Get("filterSpamTokens") != "false")
	if err != nil {
		return nil, err
	}
	nb, _, err := s.nativeBalance(ctx, b.chain, b.owner, b.at)
	if err != nil {
		return nil, err
	}
	addrs := make([]common.Address, len(hs))
	for i, h := range hs {
		addrs[i] = h.Contract
	}
	d, err := s.describe(ctx, b.chain.ChainID, addrs, nil)
	if err != nil {
		return nil, err
	}
	out := struct {
		NextPageToken      string              `json:"nextPageToken,omitempty"`
		NativeTokenBalance nativeTokenBalance  `json:"nativeTokenBalance"`
		Erc20TokenBalances []erc20TokenBalance `json:"erc20TokenBalances"`
	}{NextPageToken: next, NativeTokenBalance: nb, Erc20TokenBalances: make([]erc20TokenBalance, 0, len(hs))}
	for _, h := range hs {
		out.Erc20TokenBalances = append(out.Erc20TokenBalances, erc20TokenBalance{erc20Token: *d.erc20v2(h.Contract),
			ChainID: b.chain.answerID(), Balance: h.Balance.String()})
	}
	return out, nil
}

// listErc721Balances answers GET /v1/chains/{chainId}/addresses/{address}/balances:listErc721.
func (s *server) listErc721Balances(r *req) (any, error) {
	b, err := s.balanceRequest(r, 500, false, "contractAddress")
	if err != nil {
		return nil, err
	}
	cs, err := contracts("contractAddress", r.Get("contractAddress"))
	if err != nil {
		return nil, err
	}
	ctx := r.Context()
	hs, next, err := s.holdings(ctx, b, evmindex.ERC721, cs, false)
	if err != nil {
		return nil, err
	}
	nb, _, err := s.nativeBalance(ctx, b.chain, b.owner, nil)
	if err != nil {
		return nil, err
	}
	d, err := s.describeHoldings(ctx, b.chain.ChainID, hs)
	if err != nil {
		return nil, err
	}
	out := struct {
		NextPageToken       string             `json:"nextPageToken,omitempty"`
		NativeTokenBalance  nativeTokenBalance `json:"nativeTokenBalance"`
		Erc721TokenBalances []erc721Token      `json:"erc721TokenBalances"`
	}{NextPageToken: next, NativeTokenBalance: nb, Erc721TokenBalances: make([]erc721Token, 0, len(hs))}
	for _, h := range hs {
		t := d.erc721(h.Contract, h.TokenID)
		t.OwnerAddress, t.ChainID = b.owner.Hex(), b.chain.answerID()
		out.Erc721TokenBalances = append(out.Erc721TokenBalances, *t)
	}
	return out, nil
}

// listErc1155Balances answers GET /v1/chains/{chainId}/addresses/{address}/balances:listErc1155.
func (s *server) listErc1155Balances(r *req) (any, error) {
	b, err := s.balanceRequest(r, 500, true, "contractAddress")
	if err != nil {
		return nil, err
	}
	cs, err := contracts("contractAddress", r.Get("contractAddress"))
	if err != nil {
		return nil, err
	}
	ctx := r.Context()
	hs, next, err := s.holdings(ctx, b, evmindex.ERC1155, cs, false)
	if err != nil {
		return nil, err
	}
	nb, _, err := s.nativeBalance(ctx, b.chain, b.owner, b.at)
	if err != nil {
		return nil, err
	}
	d, err := s.describeHoldings(ctx, b.chain.ChainID, hs)
	if err != nil {
		return nil, err
	}
	out := struct {
		NextPageToken        string             `json:"nextPageToken,omitempty"`
		NativeTokenBalance   nativeTokenBalance `json:"nativeTokenBalance"`
		Erc1155TokenBalances []erc1155Token     `json:"erc1155TokenBalances"`
	}{NextPageToken: next, NativeTokenBalance: nb, Erc1155TokenBalances: make([]erc1155Token, 0, len(hs))}
	for _, h := range hs {
		t := d.erc1155(h.Contract, h.TokenID)
		t.ChainID, t.Balance = b.chain.answerID(), h.Balance.String()
		out.Erc1155TokenBalances = append(out.Erc1155TokenBalances, *t)
	}
	return out, nil
}

func (s *server) describeHoldings(ctx context.Context, chainID uint64, hs []evmindex.Holding) (*tokenDescriber, error) {
	addrs := make([]common.Address, len(hs))
	keys := make([]evmindex.NFTKey, len(hs))
	for i, h := range hs {
		addrs[i] = h.Contract
		keys[i] = evmindex.NFTKey{Contract: h.Contract, TokenID: h.TokenID.String()}
	}
	return s.describe(ctx, chainID, addrs, keys)
}
