package evmdata

import (
	"github.com/avaedge/avaedge/local/api/apireq"
	"github.com/avaedge/avaedge/local/source/evmindex"
	"github.com/ethereum/go-ethereum/common"
)

// listCollectibleBalances answers GET
// /v1/chains/{chainId}/addresses/{address}/balances:listCollectibles: the
// address's ERC-721 tokens and ERC-1155 balances together (of
// contractAddress, when set), the most recently received or changed first.
func (s *server) listCollectibleBalances(r *req) (any, error) {
	c, owner, err := s.chainAddress(r)
	if err != nil {
		return nil, err
	}
	var contract *common.Address
	if raw := r.Get("contractAddress"); raw != "" {
		a, err := address("contractAddress", raw)
		if err != nil {
			return nil, err
		}
		contract = &a
	}
	size, _ := pageSize(r, 10)
	sc := scope(r, "contractAddress="+r.Get("contractAddress"))
	before, err := s.cursor(r, sc)
	if err != nil {
		return nil, err
	}
	ctx := r.Context()
	cs, err := s.ix.Collectibles(ctx, c.ChainID, owner, contract, int64(before), size+1)
	if err != nil {
		return nil, err
	}
	out := struct {
		NextPageToken       string `json:"nextPageToken,omitempty"`
		CollectibleBalances []any  `json:"collectibleBalances"`
	}{CollectibleBalances: make([]any, 0, len(cs))}
	if len(cs) > size {
		cs = cs[:size]
		out.NextPageToken = s.token(sc, uint64(cs[size-1].Seq))
	}
	hs := make([]evmindex.Holding, len(cs))
	for i := range cs {
		hs[i] = cs[i].Holding
	}
	d, err := s.describeHoldings(ctx, c.ChainID, hs)
	if err != nil {
		return nil, err
	}
	for _, h := range hs {
		if h.Kind == evmindex.ERC721 {
			t := d.erc721(h.Contract, h.TokenID)
			t.OwnerAddress, t.ChainID = owner.Hex(), c.answerID()
			out.CollectibleBalances = append(out.CollectibleBalances, t)
			continue
		}
		t := d.erc1155(h.Contract, h.TokenID)
		t.ChainID, t.Balance = c.answerID(), h.Balance.String()
		out.CollectibleBalances = append(out.CollectibleBalances, t)
	}
	return out, nil
}

// listTokens answers GET /v1/chains/{chainId}/nfts/collections/{address}/tokens:
// every token id the ERC-721 or ERC-1155 contract has moved, in the order
// they first moved (minted), with their metadata (read from the contract
// on first request) and an ERC-721 token's current owner.
func (s *server) listTokens(r *req) (any, error) {
	c, contract, err := s.chainAddress(r)
	if err != nil {
		return nil, err
	}
	size, _ := pageSize(r, 10)
	sc := scope(r)
	after, err := s.cursor(r, sc)
	if err != nil {
		return nil, err
	}
	ctx := r.Context()
	toks, err := s.ix.Tokens(ctx, c.ChainID, []common.Address{contract})
	if err != nil {
		return nil, err
	}
	kind := toks[contract].Kind
	if kind != evmindex.ERC721 && kind != evmindex.ERC1155 {
		return nil, apireq.NotFound("No NFT collection known at " + contract.Hex())
	}
	ts, err := s.ix.CollectionTokens(ctx, c.ChainID, contract, int64(after), size+1)
	if err != nil {
		return nil, err
	}
	out := struct {
		NextPageToken string `json:"nextPageToken,omitempty"`
		Tokens        []any  `json:"tokens"`
	}{Tokens: make([]any, 0, len(ts))}
	if len(ts) > size {
		ts = ts[:size]
		out.NextPageToken = s.token(sc, uint64(ts[size-1].Seq))
	}
	keys := make([]evmindex.NFTKey, len(ts))
	for i, t := range ts {
		keys[i] = evmindex.NFTKey{Contract: contract, TokenID: t.TokenID.String()}
	}
	d, err := s.describe(ctx, c.ChainID, []common.Address{contract}, keys)
	if err != nil {
		return nil, err
	}
	for _, t := range ts {
		if kind == evmindex.ERC1155 {
			out.Tokens = append(out.Tokens, d.erc1155(contract, t.TokenID))
			continue
		}
		j := d.erc721(contract, t.TokenID)
		if t.Owner != nil {
			j.OwnerAddress = t.Owner.Hex()
		}
		out.Tokens = append(out.Tokens, j)
	}
	return out, nil
}
