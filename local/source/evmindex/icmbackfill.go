package evmindex

import (
	"context"
	"fmt"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
)

// icmBackfillBlocks is how many blocks one eth_getLogs call of the backfill
// covers.
const icmBackfillBlocks = 2048

// backfillLog is an eth_getLogs entry.
type backfillLog struct {
	rpcLog
	BlockNumber hexutil.Uint64 `json:"blockNumber"`
	BlockHash   common.Hash    `json:"blockHash"`
}

// backfillICM reads the messenger events of the next icmBackfillBlocks
// blocks the store held before version 3 (icm_backfill) with eth_getLogs,
// and stores them as the follower stores a new block's. done reports that
// nothing is left to read. A log of a block whose stored hash differs (the
// node re-orged since) is skipped: the follower's re-org handling indexes
// that block again.
func (f *follower) backfillICM(ctx context.Context) (done bool, err error) {
	next, end, ok, err := f.ix.st.ICMBackfill(ctx, f.id)
	if err != nil {
		return false, fmt.Errorf("icm backfill: %w", err)
	}
	if !ok {
		return true, nil
	}
	to := min(end, next+icmBackfillBlocks-1)
	var logs []backfillLog
	if next <= end {
		addrs := make([]common.Address, 0, len(f.messengers))
		for a := range f.messengers {
			addrs = append(addrs, a)
		}
		filter := map[string]any{"fromBlock": hexutil.EncodeUint64(next), "toBlock": hexutil.EncodeUint64(to), "address": addrs}
		if err := f.client.CallContext(ctx, &logs, "eth_getLogs", filter); err != nil {
			return false, fmt.Errorf("icm backfill: eth_getLogs %d-%d: %w", next, to, err)
		}
	}
	err = f.ix.st.Write(ctx, f.id, func(b Batch) error {
		if err := f.backfillBlocks(b, logs); err != nil {
			return err
		}
		return b.ICMBackfilled(to+1, to >= end)
	})
	if err != nil {
		return false, fmt.Errorf("icm backfill: %w", err)
	}
	if to >= end {
		f.ix.log.Info("evmindex: messenger events of the blocks indexed before them read", "chain", f.id)
	}
	return to >= end, nil
}

// backfillBlocks stores the messenger events of logs (in block order), block
// by block, as the follower stores a new block's; a block no longer stored
// or stored with another hash is skipped.
func (f *follower) backfillBlocks(b Batch, logs []backfillLog) error {
	for i := 0; i < len(logs); {
		n := uint64(logs[i].BlockNumber)
		var events []ICMEvent
		j := i
		for ; j < len(logs) && uint64(logs[j].BlockNumber) == n; j++ {
			if !logs[j].Removed {
				events = decodeICM(events, f.messengers, logs[j].TxHash, &logs[j].rpcLog)
			}
		}
		hash, ts, ok, err := b.BlockTime(n)
		switch {
		case err != nil:
			return err
		case ok && hash == logs[i].BlockHash:
			if err := f.writeICM(b, n, ts, events); err != nil {
				return fmt.Errorf("block %d: %w", n, err)
			}
		}
		i = j
	}
	return nil
}
