package evmdata

import (
	"context"
	"math/big"

	"github.com/avaedge/avaedge/local/api/apireq"
	"github.com/avaedge/avaedge/local/source/evmindex"
	"github.com/ethereum/go-ethereum/common"
)

func metadataJSON(n evmindex.NFT, kind evmindex.TokenKind) nftMetadata {
	if n.Status == "" {
		return nftMetadata{IndexStatus: evmindex.StatusUnindexed}
	}
	m := nftMetadata{
		IndexStatus: n.Status, MetadataLastUpdatedTimestamp: n.Updated, Name: n.Metadata.Name, ImageURI: n.Metadata.ImageURI,
		Description: n.Metadata.Description, AnimationURI: n.Metadata.AnimationURI, ExternalURL: n.Metadata.ExternalURL,
		Background: n.Metadata.Background,
	}
	if kind == evmindex.ERC721 {
		m.Attributes = n.Metadata.Attributes
	} else {
		m.Properties, m.Decimals = n.Metadata.Properties, n.Metadata.Decimals
	}
	return m
}

// tokenDescriber builds the token objects of one answer, reading every
// token and NFT it needs in batches.
type tokenDescriber struct {
	tokens map[common.Address]evmindex.Token
	nfts   map[evmindex.NFTKey]evmindex.NFT
}

func (s *server) describe(ctx context.Context, chainID uint64, contracts []common.Address, nfts []evmindex.NFTKey) (*tokenDescriber, error) {
	d := &tokenDescriber{}
	var err error
	if d.tokens, err = s.ix.Tokens(ctx, chainID, contracts); err != nil {
		return nil, err
	}
	if len(nfts) > 0 {
		if d.nfts, err = s.ix.NFTs(ctx, chainID, nfts); err != nil {
			return nil, err
		}
	}
	return d, nil
}

func (d *tokenDescriber) erc20(a common.Address) *erc20Token {
	t := d.tokens[a]
	return &erc20Token{Address: checksum(a), Name: t.Name, Symbol: t.Symbol, Decimals: int(t.Decimals), ErcType: "ERC-20"}
}

// erc20v2 is erc20 with the token's reputation (Erc20TokenV2).
func (d *tokenDescriber) erc20v2(a common.Address) *erc20Token {
	t := d.erc20(a)
	t.TokenReputation = "Benign"
	if d.tokens[a].Spam() {
		t.TokenReputation = "Malicious"
	}
	return t
}

func (d *tokenDescriber) erc721(a common.Address, id *big.Int) *erc721Token {
	t := d.tokens[a]
	n := d.nfts[evmindex.NFTKey{Contract: a, TokenID: id.String()}]
	return &erc721Token{Address: checksum(a), Name: t.Name, Symbol: t.Symbol, ErcType: "ERC-721", TokenID: id.String(),
		TokenURI: n.TokenURI, Metadata: metadataJSON(n, evmindex.ERC721)}
}

func (d *tokenDescriber) erc1155(a common.Address, id *big.Int) *erc1155Token {
	n := d.nfts[evmindex.NFTKey{Contract: a, TokenID: id.String()}]
	m := metadataJSON(n, evmindex.ERC1155)
	if t := d.tokens[a]; m.Symbol == "" && t.Symbol != "" {
		m.Symbol = t.Symbol
	}
	return &erc1155Token{Address: checksum(a), ErcType: "ERC-1155", TokenID: id.String(), TokenURI: n.TokenURI, Metadata: m}
}

// getTokenDetails answers GET /v1/chains/{chainId}/nfts/collections/{address}/tokens/{tokenId}.
func (s *server) getTokenDetails(r *req) (any, error) {
	c, err := s.chain(r)
	if err != nil {
		return nil, err
	}
	addr, err := address("address", r.Get("address"))
	if err != nil {
		return nil, err
	}
	id, ok := tokenID(r.Get("tokenId"))
	if !ok {
		return nil, apireq.BadRequest("tokenId must be a non-negative integer")
	}
	ctx := r.Context()
	d, err := s.describe(ctx, c.ChainID, []common.Address{addr}, []evmindex.NFTKey{{Contract: addr, TokenID: id.String()}})
	if err != nil {
		return nil, err
	}
	notFound := apireq.NotFound("Token " + id.String() + " of " + addr.Hex() + " not found")
	switch d.tokens[addr].Kind {
	case evmindex.ERC721:
		owner, err := s.ix.Owner(ctx, c.ChainID, addr, id)
		if err == evmindex.ErrNotFound {
			err = notFound
		}
		if err != nil {
			return nil, err
		}
		t := d.erc721(addr, id)
		t.OwnerAddress = owner.Hex()
		return t, nil
	case evmindex.ERC1155:
		if _, seen := d.nfts[evmindex.NFTKey{Contract: addr, TokenID: id.String()}]; !seen {
			return nil, notFound
		}
		return d.erc1155(addr, id), nil
	default:
		return nil, notFound
	}
}
