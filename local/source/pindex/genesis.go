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
	var r struct {
		Blockchains []struct {
			ID       string `json:"id"`
			SubnetID string `json:"subnetID"`
		} `json:"blockchains"`
	}
	if err := ix.rpc.Call(ctx, pathP, "platform.getBlockchains", nil, &r); err != nil {
		return err
	}
	for _, c := range r.Blockchains {
		if c.SubnetID != PrimaryNetworkID {
			continue // created by a CreateChainTx of a block
		}
		var tx struct {
			Tx json.RawMessage `json:"tx"`
		}
		if err := ix.rpc.Call(ctx, pathP, "platform.getTx", map[string]string{"txID": c.ID, "encoding": "json"}, &tx); err != nil {
			return err
		}
		var t txJSON
		if err := json.Unmarshal(tx.Tx, &t); err != nil || t.ID != c.ID {
			return fmt.Errorf("platform.getTx %s: not the chain's CreateChainTx: %.200s", c.ID, tx.Tx)
		}
		f.Genesis = append(f.Genesis, tx.Tx)
	}
	return nil
}
