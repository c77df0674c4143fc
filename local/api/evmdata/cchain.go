package evmdata

import (
	"math/big"
	"strconv"
)

// alias returns the chain a C-Chain alias (Options.CChain) names, as a copy
// that answers under the requested network's ids, or nil.
func (s *server) alias(requested string) *ChainInfo {
	id, ok := s.cchain.Resolve(requested)
	if !ok {
		return nil
	}
	for i := range s.chains {
		if c := &s.chains[i]; c.ChainID == s.cchain.Target && s.ix.Has(c.ChainID) {
			as := *c
			as.as, as.PlatformChainID, as.IsTestnet = id.EVMChainID, id.BlockchainID, id.Network != "mainnet"
			return &as
		}
	}
	return nil
}

// answerID is the chain id answers name: the one the client asked for.
func (c *ChainInfo) answerID() string {
	if c.as != 0 {
		return strconv.FormatUint(c.as, 10)
	}
	return strconv.FormatUint(c.ChainID, 10)
}

// maxTokenIDLen is the length of the largest token id, 2^256-1, in decimal.
// Longer strings are refused before parsing: big.Int's decimal parsing is
// quadratic in the length.
const maxTokenIDLen = 78

// tokenID parses a decimal ERC-721/1155 token id (a uint256).
func tokenID(raw string) (*big.Int, bool) {
	if len(raw) > maxTokenIDLen {
		return nil, false
	}
	id, ok := new(big.Int).SetString(raw, 10)
	if !ok || id.Sign() < 0 || id.BitLen() > 256 {
		return nil, false
	}
	return id, true
}
