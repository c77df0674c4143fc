package evmindex

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/rpc"
)

// DefaultMaxTraceBytes is ChainOptions.MaxTraceBytes's default: about
// 40,000 call frames of go-ethereum's callTracer without inputs, or a few
// thousand with them, where an ordinary full block of token transfers
// traces to a few megabytes.
const DefaultMaxTraceBytes = 8 << 20

// traceChunk traces the blocks of out (first, first+1, ...) with
// debug_traceBlockByNumber, in a batch of its own: a block whose trace the
// node fails, or answers beyond ChainOptions.MaxTraceBytes, is indexed
// without internal transactions and says why (fetched.untraced), and its
// block and receipts are never lost with it.
func (f *follower) traceChunk(ctx context.Context, first uint64, out []*fetched) error {
	tracer := map[string]any{"tracer": f.opts.Tracer}
	raws := make([]json.RawMessage, len(out))
	elems := make([]rpc.BatchElem, 0, len(out))
	blocks := make([]int, 0, len(out)) // the index in out of each of elems
	for i, b := range out {
		if len(b.block.Transactions) == 0 {
			b.traces = []txTrace{} // nothing to trace (and the genesis cannot be)
			continue
		}
		elems = append(elems, rpc.BatchElem{Method: "debug_traceBlockByNumber", Args: []any{hexutil.EncodeUint64(first + uint64(i)), tracer}, Result: &raws[i]})
		blocks = append(blocks, i)
	}
	if len(elems) == 0 {
		return nil
	}
	if err := f.client.BatchCallContext(ctx, elems); err != nil {
		return fmt.Errorf("traces %d+%d: %w", first, len(out), err)
	}
	for j, e := range elems {
		if e.Error != nil && isMethodMissing(e.Error) {
			f.disableTrace(e.Error)
			for _, b := range out {
				b.traces = nil
			}
			return nil
		}
		i := blocks[j]
		out[i].traces, out[i].untraced = f.decodeTrace(raws[i], e.Error, len(out[i].block.Transactions))
		raws[i] = nil
	}
	return nil
}

// decodeTrace decodes one block's trace, or says why the block has none.
func (f *follower) decodeTrace(raw json.RawMessage, callErr error, txs int) ([]txTrace, string) {
	if callErr != nil {
		return nil, "trace failed: " + callErr.Error()
	}
	if len(raw) > f.opts.MaxTraceBytes {
		return nil, fmt.Sprintf("trace of %d bytes exceeds the bound of %d", len(raw), f.opts.MaxTraceBytes)
	}
	var traces []txTrace
	if err := json.Unmarshal(raw, &traces); err != nil {
		return nil, "trace does not decode: " + err.Error()
	}
	if len(traces) != txs {
		return nil, fmt.Sprintf("trace of %d transactions for a block of %d", len(traces), txs)
	}
	for _, tr := range traces {
		if tr.Error != "" || tr.Result == nil {
			return nil, fmt.Sprintf("trace of transaction %s failed: %s", tr.TxHash, tr.Error)
		}
	}
	return traces, ""
}

// noteUntraced logs and counts the blocks of ds indexed without internal
// transactions although their chain is traced.
func (f *follower) noteUntraced(ds []*decoded) {
	for _, d := range ds {
		if d.untraced != "" {
			f.ix.log.Warn("evmindex: block indexed without internal transactions", "chain", f.id, "block", d.Number, "reason", d.untraced)
			f.ix.metrics.untraced.WithLabelValues(f.label).Inc()
		}
	}
}
