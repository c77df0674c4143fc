package evmindex

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/rpc"
)

// Native balances are recorded while following, so that they are answered
// when the node is gone: after each block, the balance of every address the
// block touched (senders, recipients, created contracts, the parties of
// internal calls that moved value), and every balance the node answered
// NativeBalance. A balance the state changed without a transaction touching
// the address (a C-Chain atomic import) is recorded only once NativeBalance
// asked for it.

// maxBalancesPerBlock bounds the balances read after one block: a block
// touching more addresses records the first ones only.
const maxBalancesPerBlock = 1024

// balanceBatch is how many eth_getBalance calls one batch request holds.
const balanceBatch = 100

// nativeBalance is one address's balance after a block.
type nativeBalance struct {
	addr    common.Address
	balance *big.Int
}

// touched returns the addresses whose native balance b may have changed,
// each once, in order of appearance, at most maxBalancesPerBlock.
func touched(b *fetched) []common.Address {
	seen := map[common.Address]bool{}
	var out []common.Address
	add := func(a common.Address) {
		if len(out) < maxBalancesPerBlock && !seen[a] {
			seen[a] = true
			out = append(out, a)
		}
	}
	for i, tx := range b.block.Transactions {
		add(tx.From)
		if tx.To != nil {
			add(*tx.To)
		}
		if i < len(b.receipts) && b.receipts[i].ContractAddress != nil {
			add(*b.receipts[i].ContractAddress)
		}
	}
	var walk func(c *callFrame)
	walk = func(c *callFrame) {
		if c.Value != nil && c.Value.ToInt().Sign() > 0 && c.Error == "" {
			add(c.From)
			add(c.To)
		}
		for i := range c.Calls {
			walk(&c.Calls[i])
		}
	}
	for _, t := range b.traces {
		if t.Result != nil {
			walk(t.Result)
		}
	}
	return out
}

// fetchBalances reads, for each block of out, the balances after it of the
// addresses it touched. A block whose state the node no longer holds (a
// pruned node while catching up) records none: its balances are not known.
func (f *follower) fetchBalances(ctx context.Context, out []*fetched) error {
	type want struct {
		block int
		addr  common.Address
		bal   hexutil.Big
	}
	var ws []*want
	for i, b := range out {
		for _, a := range touched(b) {
			ws = append(ws, &want{block: i, addr: a})
		}
	}
	failed := map[int]bool{}
	for lo := 0; lo < len(ws); lo += balanceBatch {
		part := ws[lo:min(lo+balanceBatch, len(ws))]
		elems := make([]rpc.BatchElem, len(part))
		for j, w := range part {
			elems[j] = rpc.BatchElem{Method: "eth_getBalance", Args: []any{w.addr, hexutil.EncodeUint64(uint64(out[w.block].block.Number))}, Result: &w.bal}
		}
		if err := f.client.BatchCallContext(ctx, elems); err != nil {
			return fmt.Errorf("balances: %w", err)
		}
		for j, e := range elems {
			if e.Error != nil {
				failed[part[j].block] = true
			}
		}
	}
	for _, w := range ws {
		if !failed[w.block] {
			b := out[w.block]
			b.balances = append(b.balances, nativeBalance{addr: w.addr, balance: w.bal.ToInt()})
		}
	}
	return nil
}

// ErrNoBalance is returned by NativeBalance when the node does not answer
// and the index recorded no balance of the address.
var ErrNoBalance = errors.New("evmindex: the node is unreachable and the index recorded no balance of this address")

// ErrStatePruned is returned by NativeBalance when the node answers that
// it no longer keeps the state of the block asked (a pruning node) and the
// index recorded no balance of the address at or before it.
var ErrStatePruned = errors.New("evmindex: the node no longer keeps the state of that block")

// NativeBalance returns addr's balance after block (nil means the indexed
// head) and the block it is as of. The node is asked first and its answer
// recorded; when it does not answer, the balance the index recorded last
// at or before block answers, as of the block it was recorded at.
func (ix *Index) NativeBalance(ctx context.Context, chainID uint64, addr common.Address, block *uint64) (*big.Int, uint64, error) {
	f := ix.chains[chainID]
	if f == nil {
		return nil, 0, ErrUnknownChain
	}
	at, ok := f.indexed()
	if block != nil {
		at, ok = *block, true
	}
	if !ok {
		return nil, 0, ErrNoBalance
	}
	var bal hexutil.Big
	err := f.client.CallContext(ctx, &bal, "eth_getBalance", addr, hexutil.EncodeUint64(at))
	if err == nil {
		ix.recordBalance(ctx, chainID, addr, at, bal.ToInt())
		return bal.ToInt(), at, nil
	}
	if ctx.Err() != nil {
		return nil, 0, fmt.Errorf("evmindex: eth_getBalance: %w", err)
	}
	v, as, ok, qerr := ix.reader.StoredBalance(ctx, chainID, addr, at)
	switch {
	case qerr != nil:
		return nil, 0, qerr
	case !ok && statePruned(err):
		return nil, 0, fmt.Errorf("%w (eth_getBalance at block %d: %v)", ErrStatePruned, at, err)
	case !ok:
		return nil, 0, fmt.Errorf("%w (eth_getBalance: %v)", ErrNoBalance, err)
	}
	return v, as, nil
}

// statePruned says err is the node's JSON-RPC answer that it does not keep
// a block's state: libevm's trie.MissingNodeError ("missing trie node ...")
// around its trie databases' "state 0x... is not available", as coreth and
// subnet-evm answer for a block whose state they pruned.
func statePruned(err error) bool {
	var re rpc.Error
	if !errors.As(err, &re) {
		return false
	}
	msg := re.Error()
	return strings.Contains(msg, "missing trie node") || strings.Contains(msg, "is not available")
}

// recordBalance stores a balance the node answered, so that it answers when
// the node is gone, unless a follower is writing the store at that moment. A
// failure is logged: the answer stands without it.
func (ix *Index) recordBalance(ctx context.Context, chainID uint64, addr common.Address, block uint64, bal *big.Int) {
	// A write under way is not waited for: the request goes on.
	if _, err := ix.st.RecordBalance(ctx, chainID, addr, block, bal); err != nil && ctx.Err() == nil {
		ix.log.Warn("evmindex: recording a native balance", "chain", chainID, "err", err)
	}
}
