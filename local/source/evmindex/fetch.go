package evmindex

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/rpc"
	"golang.org/x/sync/errgroup"
)

// rpcBlock, rpcTx, rpcReceipt, rpcLog and callFrame are the JSON-RPC shapes
// the indexer reads; decoding them directly is cheaper than building
// go-ethereum's types (which recompute hashes).
type rpcBlock struct {
	Number       hexutil.Uint64 `json:"number"`
	Hash         common.Hash    `json:"hash"`
	ParentHash   common.Hash    `json:"parentHash"`
	Timestamp    hexutil.Uint64 `json:"timestamp"`
	GasUsed      hexutil.Uint64 `json:"gasUsed"`
	GasLimit     hexutil.Uint64 `json:"gasLimit"`
	BaseFee      *hexutil.Big   `json:"baseFeePerGas"`
	Transactions []rpcTx        `json:"transactions"`
}

type rpcTx struct {
	Hash                 common.Hash     `json:"hash"`
	TransactionIndex     hexutil.Uint    `json:"transactionIndex"`
	Type                 hexutil.Uint64  `json:"type"`
	From                 common.Address  `json:"from"`
	To                   *common.Address `json:"to"`
	Value                *hexutil.Big    `json:"value"`
	Nonce                hexutil.Uint64  `json:"nonce"`
	Gas                  hexutil.Uint64  `json:"gas"`
	GasPrice             *hexutil.Big    `json:"gasPrice"`
	MaxFeePerGas         *hexutil.Big    `json:"maxFeePerGas"`
	MaxPriorityFeePerGas *hexutil.Big    `json:"maxPriorityFeePerGas"`
	Input                hexutil.Bytes   `json:"input"`
}

type rpcReceipt struct {
	TransactionHash   common.Hash     `json:"transactionHash"`
	Status            hexutil.Uint64  `json:"status"`
	GasUsed           hexutil.Uint64  `json:"gasUsed"`
	EffectiveGasPrice *hexutil.Big    `json:"effectiveGasPrice"`
	ContractAddress   *common.Address `json:"contractAddress"`
	Logs              []rpcLog        `json:"logs"`
}

type rpcLog struct {
	Address  common.Address `json:"address"`
	Topics   []common.Hash  `json:"topics"`
	Data     hexutil.Bytes  `json:"data"`
	LogIndex hexutil.Uint   `json:"logIndex"`
	TxHash   common.Hash    `json:"transactionHash"`
	Removed  bool           `json:"removed"`
}

type callFrame struct {
	Type    string         `json:"type"`
	From    common.Address `json:"from"`
	To      common.Address `json:"to"`
	Value   *hexutil.Big   `json:"value"`
	Gas     hexutil.Uint64 `json:"gas"`
	GasUsed hexutil.Uint64 `json:"gasUsed"`
	Error   string         `json:"error"`
	Calls   []callFrame    `json:"calls"`
}

type txTrace struct {
	TxHash common.Hash `json:"txHash"`
	Result *callFrame  `json:"result"`
	Error  string      `json:"error"`
}

// fetched is one block with everything the indexer reads about it.
type fetched struct {
	block    rpcBlock
	receipts []rpcReceipt
	traces   []txTrace // nil when tracing is off or failed for this block
	// untraced says why a block the chain's tracing covers has no traces
	// (trace.go); empty when it has them or tracing is off.
	untraced string
	// balances are the native balances after the block of the addresses it
	// touched (native.go).
	balances []nativeBalance
}

// isMethodMissing reports whether err says the node lacks the method.
func isMethodMissing(err error) bool {
	var re rpc.Error
	if errors.As(err, &re) && re.ErrorCode() == -32601 {
		return true
	}
	s := strings.ToLower(err.Error())
	return strings.Contains(s, "does not exist") || strings.Contains(s, "not available") ||
		strings.Contains(s, "method not found") || strings.Contains(s, "not supported")
}

// fetchRange reads blocks [from, to] with batched JSON-RPC calls, chunk
// blocks per batch and up to conc batches in flight.
func (f *follower) fetchRange(ctx context.Context, from, to uint64) ([]*fetched, error) {
	n := int(to - from + 1)
	out := make([]*fetched, n)
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(f.opts.Concurrency)
	chunk := f.opts.RPCBatch
	for lo := 0; lo < n; lo += chunk {
		hi := min(lo+chunk, n)
		g.Go(func() error { return f.fetchChunk(gctx, from+uint64(lo), out[lo:hi]) })
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return out, nil
}

func (f *follower) fetchChunk(ctx context.Context, first uint64, out []*fetched) error {
	elems := make([]rpc.BatchElem, 0, 2*len(out))
	for i := range out {
		out[i] = &fetched{}
		num := hexutil.EncodeUint64(first + uint64(i))
		elems = append(elems,
			rpc.BatchElem{Method: "eth_getBlockByNumber", Args: []any{num, true}, Result: &out[i].block},
			rpc.BatchElem{Method: "eth_getBlockReceipts", Args: []any{num}, Result: &out[i].receipts})
	}
	if err := f.client.BatchCallContext(ctx, elems); err != nil {
		return fmt.Errorf("batch %d+%d: %w", first, len(out), err)
	}
	for i := range out {
		e := elems[i*2 : i*2+2]
		if e[0].Error != nil {
			return fmt.Errorf("block %d: %w", first+uint64(i), e[0].Error)
		}
		if out[i].block.Hash == (common.Hash{}) {
			return fmt.Errorf("block %d: %w", first+uint64(i), errNotFound)
		}
		if e[1].Error != nil || len(out[i].receipts) != len(out[i].block.Transactions) {
			if e[1].Error != nil && !isMethodMissing(e[1].Error) {
				return fmt.Errorf("block %d receipts: %w", first+uint64(i), e[1].Error)
			}
			if err := f.fetchReceipts(ctx, out[i]); err != nil {
				return err
			}
		}
	}
	if f.trace.Load() {
		if err := f.traceChunk(ctx, first, out); err != nil {
			return err
		}
	}
	return f.fetchBalances(ctx, out)
}

// fetchReceipts reads a block's receipts one transaction at a time, for
// nodes without eth_getBlockReceipts.
func (f *follower) fetchReceipts(ctx context.Context, b *fetched) error {
	b.receipts = make([]rpcReceipt, len(b.block.Transactions))
	if len(b.receipts) == 0 {
		return nil
	}
	elems := make([]rpc.BatchElem, len(b.receipts))
	for i, tx := range b.block.Transactions {
		elems[i] = rpc.BatchElem{Method: "eth_getTransactionReceipt", Args: []any{tx.Hash}, Result: &b.receipts[i]}
	}
	if err := f.client.BatchCallContext(ctx, elems); err != nil {
		return fmt.Errorf("block %d receipts: %w", b.block.Number, err)
	}
	for _, e := range elems {
		if e.Error != nil {
			return fmt.Errorf("block %d receipts: %w", b.block.Number, e.Error)
		}
	}
	return nil
}

// headerHash returns the canonical hash of block n on the node.
func (f *follower) headerHash(ctx context.Context, n uint64) (common.Hash, error) {
	var h struct {
		Hash common.Hash `json:"hash"`
	}
	if err := f.client.CallContext(ctx, &h, "eth_getBlockByNumber", hexutil.EncodeUint64(n), false); err != nil {
		return common.Hash{}, err
	}
	if h.Hash == (common.Hash{}) {
		return common.Hash{}, errNotFound
	}
	return h.Hash, nil
}

var errNotFound = errors.New("not found")
