package main

import (
	"context"

	"github.com/ethereum/go-ethereum/common"

	"github.com/avaedge/avaedge/local/evmindex"
	"github.com/avaedge/avaedge/local/metricsapi"
)

// metricsHooks feed indexed blocks to the metrics engine.
func metricsHooks(e *metricsapi.Engine) (evmindex.BlockHook, evmindex.RollbackHook) {
	onBlock := func(ctx context.Context, b *evmindex.Block) {
		e.Apply(ctx, metricsBlock(b))
	}
	onRollback := func(ctx context.Context, chainID, from uint64) {
		e.Rollback(ctx, chainID, from)
	}
	return onBlock, onRollback
}

// metricsBlock converts an indexed block. Mints and burns name the zero
// address, which is nobody's activity, so it is left out.
func metricsBlock(b *evmindex.Block) *metricsapi.Block {
	addr := func(a common.Address) string {
		if a == (common.Address{}) {
			return ""
		}
		return a.Hex()
	}
	out := &metricsapi.Block{ChainID: b.ChainID, Number: b.Number, Timestamp: b.Timestamp, GasUsed: b.GasUsed}
	for _, tx := range b.Txs {
		t := metricsapi.Tx{From: addr(tx.From), GasUsed: tx.GasUsed, GasPrice: tx.EffectiveGasPrice, Fee: tx.Fee}
		if tx.To != nil {
			t.To = addr(*tx.To)
		}
		out.Txs = append(out.Txs, t)
	}
	for _, tr := range b.Transfers {
		out.Transfers = append(out.Transfers, metricsapi.Transfer{From: addr(tr.From), To: addr(tr.To)})
	}
	for _, c := range b.Creations {
		out.Creations = append(out.Creations, metricsapi.Creation{Deployer: addr(c.Deployer), Address: addr(c.Address), Kind: string(c.Kind)})
	}
	return out
}
