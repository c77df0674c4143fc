package pindex

import (
	"context"
	"encoding/json"
	"fmt"
)

// fetchPGenesis reads the transactions of the P-Chain's genesis that made
// the primary network's chains (the X- and C-Chain's CreateChainTxs, which
// no block lists): platform.getBlockchains names them, platform.getTx gives
// each. They are stored with the P-Chain's block 0, as a generated
// network's genesis transactions are.
func (ix *Index) fetchPGenesis(ctx context.Context, f *RawBlock) error {
	chains, err := ix.node.P().Blockchains(ctx)
	if err != nil {
		return err
	}
	for _, c := range chains {
		if c.SubnetID != PrimaryNetworkID {
			continue // created by a CreateChainTx of a block
		}
		tx, err := ix.node.P().TxJSON(ctx, c.ID)
		if err != nil {
			return err
		}
		var t txJSON
		if err := json.Unmarshal(tx, &t); err != nil || t.ID != c.ID {
			return fmt.Errorf("platform.getTx %s: not the chain's CreateChainTx: %.200s", c.ID, tx)
		}
		f.Genesis = append(f.Genesis, tx)
	}
	return nil
}
