package evmdata

import (
	"slices"

	"github.com/avaedge/avaedge/local/vocab/cchain"
)

func toChainInfoJSON(c *ChainInfo) chainInfoJSON {
	return chainInfoJSON{
		ChainID: c.answerID(), Status: "OK", ChainName: c.ChainName, Description: c.Description,
		PlatformChainID: c.PlatformChainID, SubnetID: c.SubnetID, VMID: c.VMID, VMName: "EVM",
		ExplorerURL: c.ExplorerURL, RPCURL: c.RPCURL, WSURL: c.WSURL, IsTestnet: c.IsTestnet,
		NetworkToken: networkToken{Name: c.NetworkToken.Name, Symbol: c.NetworkToken.Symbol, Decimals: c.NetworkToken.Decimals,
			LogoURI: c.NetworkToken.LogoURI, Description: c.NetworkToken.Description},
		ChainLogoURI: c.ChainLogoURI, EnabledFeatures: localFeatures,
	}
}

// localFeatures are the ApiFeature values every chain of the local world
// has: its NFTs are indexed, and its TeleporterMessengers' events (the ICM
// routes). It has no webhooks.
var localFeatures = []string{"nftIndexing", "teleporter"}

// supportedChains answers GET /v1/chains: every chain once under its own
// ids, or with network the chains of that network (networkChains), with
// feature those that have it.
func (s *server) supportedChains(r *req) (any, error) {
	out := struct {
		Chains []chainInfoJSON `json:"chains"`
	}{Chains: []chainInfoJSON{}}
	if f := r.Get("feature"); f != "" && !slices.Contains(localFeatures, f) {
		return out, nil
	}
	for _, c := range s.networkChains(r.Get("network")) {
		out.Chains = append(out.Chains, toChainInfoJSON(c))
	}
	return out, nil
}

// networkChains returns the chains answering for network: every chain
// once, under its own ids, when network is ""; for "mainnet" the chains
// that are not testnets, for "fuji" and "testnet" the testnets. With C-Chain
// aliases (Options.CChain), the C-Chain they target answers for every
// network under that network's ids, unless a chain of that id is served
// itself.
func (s *server) networkChains(network string) []*ChainInfo {
	var out []*ChainInfo
	for i := range s.chains {
		c := &s.chains[i]
		if !s.ix.Has(c.ChainID) {
			continue
		}
		switch {
		case network == "":
			out = append(out, c)
		case s.cchain != nil && c.ChainID == s.cchain.Target:
			id := cchain.Fuji
			if network == "mainnet" {
				id = cchain.Mainnet
			}
			if s.serves(id.EVMChainID) {
				continue
			}
			if a := s.alias(id.BlockchainID); a != nil {
				out = append(out, a)
			}
		case c.IsTestnet == (network != "mainnet"):
			out = append(out, c)
		}
	}
	return out
}

// serves reports whether a chain of id is served under its own id.
func (s *server) serves(id uint64) bool {
	for i := range s.chains {
		if s.chains[i].ChainID == id && s.ix.Has(id) {
			return true
		}
	}
	return false
}

// getChainInfo answers GET /v1/chains/{chainId}.
func (s *server) getChainInfo(r *req) (any, error) {
	c, err := s.chain(r)
	if err != nil {
		return nil, err
	}
	return toChainInfoJSON(c), nil
}

// listAddressChains answers GET /v1/address/{address}/chains: the chains,
// each once under its own ids, where the address sent or received a
// transaction, a token transfer or an internal transaction.
func (s *server) listAddressChains(r *req) (any, error) {
	addr, err := address("address", r.Get("address"))
	if err != nil {
		return nil, err
	}
	out := struct {
		IndexedChains []chainInfoJSON `json:"indexedChains"`
	}{IndexedChains: []chainInfoJSON{}}
	for _, c := range s.networkChains("") {
		active, err := s.ix.Active(r.Context(), c.ChainID, addr)
		if err != nil {
			return nil, err
		}
		if active {
			out.IndexedChains = append(out.IndexedChains, toChainInfoJSON(c))
		}
	}
	return out, nil
}
