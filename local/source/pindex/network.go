package pindex

import (
	"fmt"

	"github.com/avaedge/avaedge/avanet"
	"github.com/avaedge/avaedge/local/vocab/avax"
)

// storedNetwork is the followed network as the store keeps it (meta
// "network", JSON): what the node reported, the ids in cb58.
type storedNetwork struct {
	ID   uint32 `json:"networkID"`
	HRP  string `json:"hrp"`
	X    string `json:"xChainID"`
	C    string `json:"cChainID"`
	Avax string `json:"avaxAssetID"`
}

func storedOf(n avanet.Network) storedNetwork {
	return storedNetwork{ID: n.ID, HRP: n.HRP, X: n.XChainID, C: n.CChainID, Avax: n.AVAXAssetID}
}

// network is the stored network with its name and, when avanet knows the
// network, its C-avanet.Chain's EVM chain id.
func (s storedNetwork) network() avanet.Network {
	n := avanet.Network{ID: s.ID, Name: avanet.Name(s.ID), HRP: s.HRP, XChainID: s.X, CChainID: s.C, AVAXAssetID: s.Avax}
	if known, ok := avanet.ByID(s.ID); ok {
		n.EVMChainID = known.EVMChainID
	}
	return n
}

// checkNetwork checks that n's chain and asset ids are ids.
func checkNetwork(n avanet.Network) error {
	for _, id := range []string{n.XChainID, n.CChainID, n.AVAXAssetID} {
		if _, err := avax.ParseID(id); err != nil {
			return err
		}
	}
	return nil
}

// chainOf names the primary network chain of blockchain id on n.
func chainOf(n *avanet.Network, id string) (avanet.Chain, error) {
	if c, ok := n.ChainOf(id); ok {
		return c, nil
	}
	return "", fmt.Errorf("blockchain %s is not a primary network chain", id)
}
