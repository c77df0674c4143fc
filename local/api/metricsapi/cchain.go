package metricsapi

import (
	"github.com/avaedge/avaedge/avanet"
	"github.com/avaedge/avaedge/local/vocab/cchain"
)

// alias returns the chain a C-Chain alias (Options.CChain) names, or nil,
// and the C-Chain as the requested id's network names it. The chains map
// is fixed by New, so no lock is needed.
func (e *Engine) alias(requested string) (*chainState, cchain.ID) {
	id, ok := e.cchain.Resolve(requested)
	if !ok {
		return nil, cchain.ID{}
	}
	return e.chains[e.cchain.Target], id
}

// aliasChain returns the chain a C-Chain alias names, described with the
// requested network's ids.
func (e *Engine) aliasChain(requested string) (Chain, bool) {
	cs, id := e.alias(requested)
	if cs == nil {
		return Chain{}, false
	}
	c := cs.info
	c.EVMChainID, c.BlockchainID = id.EVMChainID, id.BlockchainID
	switch id.Network {
	case avanet.Mainnet.Name:
		c.Network = avanet.Mainnet.Name
	case avanet.Fuji.Name:
		c.Network = avanet.TestnetName
	}
	return c, true
}
