// Package metricsapi computes the Metrics API locally from indexed EVM
// blocks: the 17 metrics of the seed at hour, day, week and month intervals,
// maintained incrementally per bucket as blocks arrive, and the /v2/chains
// and /v1/avg_tps routes.
package metricsapi

import (
	"context"
	"errors"
	"log/slog"
	"math/big"
	"strings"
	"sync"
	"time"
)

// Block is one indexed block, delivered in order per chain.
type Block struct {
	ChainID   uint64
	Number    uint64
	Timestamp uint64 // unix seconds
	GasUsed   uint64
	Txs       []Tx
	Transfers []Transfer // ERC-20/721/1155 transfer log parties
	Creations []Creation // contract creations from traces or receipts
}

// Tx is a transaction with its receipt's figures.
type Tx struct {
	From, To string // To is "" for a creation
	GasUsed  uint64
	GasPrice *big.Int // effective, from the receipt
	Fee      *big.Int // gas used times gas price
}

// Transfer names the parties of a token transfer log.
type Transfer struct{ From, To string }

// Creation is a contract creation: "CREATE", "CREATE2" or "CREATE3".
type Creation struct{ Deployer, Address, Kind string }

// Chain describes a chain the engine answers for.
type Chain struct {
	EVMChainID   uint64
	ChainName    string
	BlockchainID string
	SubnetID     string
	Network      string // "mainnet" or "testnet"
}

// Options configures an Engine.
type Options struct {
	// Chains are the chains listed by /v2/chains; blocks of other chains are
	// still counted.
	Chains []Chain
	// Now is the clock of page tokens and lastRun. Nil means time.Now.
	Now    func() time.Time
	Logger *slog.Logger
}

// Engine keeps per-bucket aggregates of every chain. It is safe for
// concurrent use: Apply and Rollback take the write lock, queries the read
// lock.
type Engine struct {
	opts Options
	mu   sync.RWMutex // guards chains
	// chains holds each chain's state by EVM chain id.
	chains map[uint64]*chainState
}

// New returns an Engine.
func New(opts Options) (*Engine, error) {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	return &Engine{opts: opts, chains: map[uint64]*chainState{}}, nil
}

// ErrOutOfOrder is returned for a block that does not follow the last one.
var ErrOutOfOrder = errors.New("metricsapi: block out of order")

// Apply adds one block to its chain's aggregates.
func (e *Engine) Apply(ctx context.Context, b *Block) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	cs := e.chains[b.ChainID]
	if cs == nil {
		cs = newChainState()
		e.chains[b.ChainID] = cs
	}
	if n := len(cs.blocks); n > 0 && b.Number <= cs.blocks[n-1].number {
		return ErrOutOfOrder
	}
	cs.apply(compact(b))
	cs.lastRun = e.opts.Now().Unix()
	return nil
}

// Rollback removes blocks >= fromBlock of a chain (a re-org) and rebuilds
// its aggregates from the blocks that remain.
func (e *Engine) Rollback(ctx context.Context, chainID, fromBlock uint64) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	cs := e.chains[chainID]
	if cs == nil {
		return nil
	}
	keep := cs.blocks[:0:0]
	for _, b := range cs.blocks {
		if b.number < fromBlock {
			keep = append(keep, b)
		}
	}
	fresh := newChainState()
	for _, b := range keep {
		fresh.apply(b)
	}
	fresh.lastRun = cs.lastRun
	e.chains[chainID] = fresh
	return nil
}

// blockRec is what the engine keeps of a block.
type blockRec struct {
	number, ts, gas uint64
	txs             int
	fees, gpSum     *big.Int
	gpMax           *big.Int
	active, senders []string
	deployers       []string
	contracts       int
}

func lower(s string) string { return strings.ToLower(s) }

func compact(b *Block) blockRec {
	r := blockRec{number: b.Number, ts: b.Timestamp, gas: b.GasUsed, txs: len(b.Txs),
		fees: new(big.Int), gpSum: new(big.Int), gpMax: new(big.Int)}
	seen := map[string]bool{}
	sent := map[string]bool{}
	add := func(a string, sender bool) {
		if a == "" {
			return
		}
		a = lower(a)
		if !seen[a] {
			seen[a] = true
			r.active = append(r.active, a)
		}
		if sender && !sent[a] {
			sent[a] = true
			r.senders = append(r.senders, a)
		}
	}
	for _, tx := range b.Txs {
		add(tx.From, true)
		add(tx.To, false)
		if tx.Fee != nil {
			r.fees.Add(r.fees, tx.Fee)
		}
		if tx.GasPrice != nil {
			r.gpSum.Add(r.gpSum, tx.GasPrice)
			if tx.GasPrice.Cmp(r.gpMax) > 0 {
				r.gpMax.Set(tx.GasPrice)
			}
		}
	}
	for _, t := range b.Transfers {
		add(t.From, true)
		add(t.To, false)
	}
	dep := map[string]bool{}
	for _, c := range b.Creations {
		switch c.Kind {
		case "CREATE", "CREATE2", "CREATE3":
		default:
			continue
		}
		r.contracts++
		if d := lower(c.Deployer); !dep[d] {
			dep[d] = true
			r.deployers = append(r.deployers, d)
		}
	}
	return r
}
