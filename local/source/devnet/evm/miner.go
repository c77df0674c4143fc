package evm

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"github.com/ethereum/go-ethereum/beacon/engine"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/txpool"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/miner"
)

// Coinbase receives the fees of every block, as on Avalanche's C-chain.
var Coinbase = common.HexToAddress("0x0100000000000000000000000000000000000000")

// ErrTxRejected wraps the pool's reason for refusing a transaction.
var ErrTxRejected = errors.New("evm: transaction rejected")

// Commit seals one block with whatever the pool holds (possibly none) and
// returns it.
func (c *Chain) Commit(ctx context.Context) (*types.Block, error) {
	c.sealMu.Lock()
	defer c.sealMu.Unlock()
	return c.seal(ctx)
}

// SendBlock adds txs to the pool and seals them into one block, which it
// returns with the receipts of txs in order. A transaction the pool refuses
// fails the call before anything is sealed.
func (c *Chain) SendBlock(ctx context.Context, txs ...*types.Transaction) (*types.Block, types.Receipts, error) {
	c.sealMu.Lock()
	defer c.sealMu.Unlock()
	// The pool checks balances against the head it last reset to: let it
	// catch up with the block sealed before, which may have funded a sender.
	if err := c.eth.TxPool().Sync(); err != nil {
		return nil, nil, err
	}
	for i, err := range c.eth.TxPool().Add(txs, true) {
		if err != nil {
			return nil, nil, fmt.Errorf("%w: tx %d (%s): %w", ErrTxRejected, i, txs[i].Hash(), err)
		}
	}
	b, err := c.seal(ctx)
	if err != nil {
		return nil, nil, err
	}
	receipts := c.eth.BlockChain().GetReceiptsByHash(b.Hash())
	byHash := make(map[common.Hash]*types.Receipt, len(receipts))
	for _, r := range receipts {
		byHash[r.TxHash] = r
	}
	out := make(types.Receipts, len(txs))
	for i, tx := range txs {
		r := byHash[tx.Hash()]
		if r == nil {
			return b, nil, fmt.Errorf("evm: tx %s not included in block %d", tx.Hash(), b.NumberU64())
		}
		out[i] = r
	}
	return b, out, nil
}

// mineIfPending seals a block when the pool has executable transactions.
func (c *Chain) mineIfPending(ctx context.Context) error {
	c.sealMu.Lock()
	defer c.sealMu.Unlock()
	pool := c.eth.TxPool()
	if err := pool.Sync(); err != nil {
		return err
	}
	if _, n := pool.Pending(txpool.PendingFilter{}); n == 0 {
		return nil
	}
	_, err := c.seal(ctx)
	return err
}

// autoMine seals a block whenever transactions enter the pool, until Close.
//
// The pool's event feed waits until every subscriber has taken its event,
// and sealing waits for the pool (TxPool.Sync waits for a reorg that ends
// by announcing what it promoted). So the events are taken by a goroutine of
// their own that never waits for sealing, and folded into one wake-up:
// reading them between blocks deadlocked the chain once 17 arrived while a
// block was sealed (the pool blocked announcing the 18th, the sealer in
// Sync waiting for the pool).
func (c *Chain) autoMine() {
	defer close(c.done)
	ch := make(chan core.NewTxsEvent, 16)
	sub := c.eth.TxPool().SubscribeTransactions(ch, false)
	wake := make(chan struct{}, 1) // set when transactions arrived since the last look
	relayed := make(chan struct{}) // closed when the relay has returned
	go func() {
		defer close(relayed)
		for {
			select {
			case <-c.stop:
				return
			case <-sub.Err():
				return
			case <-ch:
				select {
				case wake <- struct{}{}:
				default: // a wake-up is already due; it covers these too
				}
			}
		}
	}()
	defer func() { <-relayed }()
	defer sub.Unsubscribe()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for {
		select {
		case <-c.stop:
			return
		case <-relayed:
			return
		case <-wake:
			_ = c.mineIfPending(ctx) // a failing block leaves the txs pending for the next try
		}
	}
}

// blockTime returns the timestamp of block number n on top of parentTime.
func (c *Chain) blockTime(n, parentTime uint64) uint64 {
	if c.opts.Now != nil && c.seed != nil {
		if t := uint64(c.opts.Now().Unix()); t > parentTime {
			return t
		}
		return parentTime + 1
	}
	t := uint64(c.opts.GenesisTime.Unix()) + n*uint64(c.opts.BlockSpacing/time.Second)
	if t <= parentTime {
		t = parentTime + 1
	}
	return t
}

// seal builds, inserts and makes canonical one block on the current head,
// then, once seeding is done, the block that restores the dev accounts it
// drained (restore.go). It returns the first. The caller holds sealMu.
func (c *Chain) seal(ctx context.Context) (*types.Block, error) {
	block, err := c.sealWith(ctx, types.Withdrawals{})
	if err != nil || c.seed == nil {
		return block, err
	}
	// block is sealed whatever happens next; a restoring block that fails
	// is tried again after the next block (and a chain that cannot seal an
	// empty block fails that one too).
	if ws, err := c.restoring(); err == nil && len(ws) > 0 {
		c.sealWith(ctx, ws)
	}
	return block, nil
}

// sealWith builds, inserts and makes canonical one block with ws on the
// current head. The caller holds sealMu.
func (c *Chain) sealWith(ctx context.Context, ws types.Withdrawals) (*types.Block, error) {
	bc := c.eth.BlockChain()
	if err := c.eth.TxPool().Sync(); err != nil {
		return nil, fmt.Errorf("evm: txpool sync: %w", err)
	}
	parent := bc.CurrentBlock()
	n := parent.Number.Uint64() + 1
	var nb [8]byte
	binary.BigEndian.PutUint64(nb[:], n)
	args := &miner.BuildPayloadArgs{
		Parent:       parent.Hash(),
		Timestamp:    c.blockTime(n, parent.Time),
		FeeRecipient: Coinbase,
		Random:       crypto.Keccak256Hash([]byte("avaedge prevrandao"), nb[:]),
		Withdrawals:  ws,
		BeaconRoot:   &common.Hash{},
		Version:      engine.PayloadV3,
	}
	payload, err := c.eth.Miner().BuildPayload(ctx, args, false)
	if err != nil {
		return nil, fmt.Errorf("evm: build block %d: %w", n, err)
	}
	env := payload.ResolveFull()
	if env == nil {
		return nil, fmt.Errorf("evm: build block %d: no payload", n)
	}
	block, err := engine.ExecutableDataToBlock(*env.ExecutionPayload, []common.Hash{}, &common.Hash{}, env.Requests)
	if err != nil {
		return nil, fmt.Errorf("evm: block %d: %w", n, err)
	}
	if _, err := bc.InsertBlockWithoutSetHead(ctx, block, false); err != nil {
		return nil, fmt.Errorf("evm: insert block %d: %w", n, err)
	}
	if _, err := bc.SetCanonical(block); err != nil {
		return nil, fmt.Errorf("evm: head block %d: %w", n, err)
	}
	bc.SetSafe(block.Header())
	bc.SetFinalized(block.Header())
	if c.opts.Dir != "" && !c.noSync {
		// The block is on disk before anyone hears of it: a process killed
		// later does not take it back (the database writes without sync).
		if err := c.eth.ChainDb().SyncKeyValue(); err != nil {
			return nil, fmt.Errorf("evm: sync block %d: %w", n, err)
		}
	}
	return block, nil
}
