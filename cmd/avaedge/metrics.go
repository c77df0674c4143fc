package main

import (
	"context"
	"errors"
	"log/slog"

	"github.com/ethereum/go-ethereum/common"

	"github.com/avaedge/avaedge/local/api/metricsapi"
	"github.com/avaedge/avaedge/local/source/evmindex"
)

// metricsHooks feed indexed blocks to the metrics engine.
// A block the engine already holds (it keeps its own history in the data
// directory, so after a restart the index may hand it blocks it has) is
// skipped before it is converted. The engine logs the blocks it drops
// (unknown chain, out of order); other failures (its store) are logged here.
func metricsHooks(e *metricsapi.Engine, log *slog.Logger) (evmindex.BlockHook, evmindex.RollbackHook) {
	onBlock := func(ctx context.Context, b *evmindex.Block) {
		if head, ok := e.Head(b.ChainID); ok && b.Number <= head {
			return
		}
		err := e.Apply(ctx, metricsBlock(b))
		if err != nil && ctx.Err() == nil && !errors.Is(err, metricsapi.ErrUnknownChain) && !errors.Is(err, metricsapi.ErrOutOfOrder) {
			log.Error("metrics engine failed to apply a block", "chain", b.ChainID, "block", b.Number, "err", err)
		}
	}
	onRollback := func(ctx context.Context, chainID, from uint64) {
		if err := e.Rollback(ctx, chainID, from); err != nil && ctx.Err() == nil {
			log.Error("metrics engine rollback failed", "chain", chainID, "from", from, "err", err)
		}
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
