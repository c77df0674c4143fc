package devnet

import (
	"testing"

	"github.com/ethereum/go-ethereum/common"

	gen "github.com/avaedge/avaedge/local/source/devnet"
)

// TestDevChainsICM: the dev chain's seed sends its ICM message from the
// devnet's C-Chain to the devnet's L1 chain; the subnet chains run the
// messenger under their own blockchain ids and send nothing; the devnet's
// EVM chains are known by blockchain id.
func TestDevChainsICM(t *testing.T) {
	g, err := gen.New(gen.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	w := &World{gen: g}
	var l1 common.Hash
	for _, s := range g.Subnets() {
		if s.IsL1() && len(s.Chains) == 1 {
			l1 = common.Hash(s.Chains[0].ID)
		}
	}
	specs := w.devChains()
	if len(specs) != 1+len(g.EVMChains()) {
		t.Fatalf("%d embedded chains; want the dev chain and the devnet's %d EVM chains", len(specs), len(g.EVMChains()))
	}
	if dc := specs[0].opts; dc.BlockchainID != common.Hash(gen.CChainID) || dc.ICMDestination != l1 || l1 == (common.Hash{}) {
		t.Errorf("the dev chain's seed: blockchain id %s, message to %s; want %s, to the devnet's L1 chain %s",
			dc.BlockchainID, dc.ICMDestination, common.Hash(gen.CChainID), l1)
	}
	known := w.knownChains()
	for i, bc := range g.EVMChains() {
		if o := specs[i+1].opts; o.BlockchainID != common.Hash(bc.ID) || o.ICMDestination != (common.Hash{}) || o.ChainID != bc.EVMChainID {
			t.Errorf("%s: blockchain id %s, destination %s, chain id %d", bc.Name, o.BlockchainID, o.ICMDestination, o.ChainID)
		}
		if known[bc.ID.String()] != bc.EVMChainID {
			t.Errorf("known chains %v lack %s", known, bc.Name)
		}
	}
}
