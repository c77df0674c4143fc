package evmindex

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
)

// migrateV3 records, for every chain the store holds blocks of, the blocks
// indexed before the messenger events were kept (schema version 3): the
// follower reads their events again (backfillICM).
var migrateV3 = []string{
	`INSERT OR IGNORE INTO icm_backfill (chain_id, next_block, end_block) SELECT chain_id, MIN(number), MAX(number) FROM blocks GROUP BY chain_id`,
}

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
	var next, end int64
	err = f.ix.w.QueryRowContext(ctx, `SELECT next_block, end_block FROM icm_backfill WHERE chain_id=?`, f.id).Scan(&next, &end)
	if errors.Is(err, sql.ErrNoRows) {
		return true, nil
	}
	if err != nil {
		return false, fmt.Errorf("icm backfill: %w", err)
	}
	to := min(end, next+icmBackfillBlocks-1)
	var logs []backfillLog
	if next <= end {
		addrs := make([]common.Address, 0, len(f.messengers))
		for a := range f.messengers {
			addrs = append(addrs, a)
		}
		filter := map[string]any{"fromBlock": hexutil.EncodeUint64(uint64(next)), "toBlock": hexutil.EncodeUint64(uint64(to)), "address": addrs}
		if err := f.client.CallContext(ctx, &logs, "eth_getLogs", filter); err != nil {
			return false, fmt.Errorf("icm backfill: eth_getLogs %d-%d: %w", next, to, err)
		}
	}
	f.ix.writeMu.Lock()
	defer f.ix.writeMu.Unlock()
	tx, err := f.ix.w.BeginTx(ctx, nil)
	if err != nil {
		return false, fmt.Errorf("icm backfill: %w", err)
	}
	defer tx.Rollback()
	w, err := f.newICMWriter(ctx, tx)
	if err != nil {
		return false, fmt.Errorf("icm backfill: %w", err)
	}
	defer w.close()
	for i := 0; i < len(logs); {
		n := uint64(logs[i].BlockNumber)
		var events []ICMEvent
		j := i
		for ; j < len(logs) && uint64(logs[j].BlockNumber) == n; j++ {
			if !logs[j].Removed {
				events = decodeICM(events, f.messengers, logs[j].TxHash, &logs[j].rpcLog)
			}
		}
		var hash []byte
		var ts uint64
		err := tx.QueryRowContext(ctx, `SELECT hash, timestamp FROM blocks WHERE chain_id=? AND number=?`, f.id, n).Scan(&hash, &ts)
		switch {
		case errors.Is(err, sql.ErrNoRows) || (err == nil && common.BytesToHash(hash) != logs[i].BlockHash):
		case err != nil:
			return false, fmt.Errorf("icm backfill: %w", err)
		default:
			if err := w.write(n, ts, events); err != nil {
				return false, fmt.Errorf("icm backfill: block %d: %w", n, err)
			}
		}
		i = j
	}
	if to >= end {
		_, err = tx.ExecContext(ctx, `DELETE FROM icm_backfill WHERE chain_id=?`, f.id)
	} else {
		_, err = tx.ExecContext(ctx, `UPDATE icm_backfill SET next_block=? WHERE chain_id=?`, to+1, f.id)
	}
	if err != nil {
		return false, fmt.Errorf("icm backfill: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return false, fmt.Errorf("icm backfill: %w", err)
	}
	if to >= end {
		f.ix.log.Info("evmindex: messenger events of the blocks indexed before them read", "chain", f.id)
	}
	return to >= end, nil
}
