// Package evm is the embedded EVM dev chain of the local world: a go-ethereum
// node without networking whose blocks are sealed by the package itself,
// deterministically (fixed genesis time, fixed spacing, randomness derived
// from the height), so the seeded history is byte-identical on every machine.
//
// The chain mines a block as soon as transactions arrive, serves Ethereum
// JSON-RPC through Handler (wallets, ethers, viem and foundry work against
// it), and on start deploys the project's own ERC-20, ERC-721, ERC-1155 and
// factory contracts and seeds activity so that every EVM route of the Data API
// has data.
package evm

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"github.com/ethereum/go-ethereum/common"
	"math/big"
	"net/http"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/eth"
	"github.com/ethereum/go-ethereum/eth/ethconfig"
	"github.com/ethereum/go-ethereum/node"
	"github.com/ethereum/go-ethereum/p2p"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/avaedge/avaedge/avanet"
)

// DefaultGenesisTime is the genesis timestamp when Options.GenesisTime is zero.
var DefaultGenesisTime = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

// Options configures a Chain. The zero value is the default dev chain.
type Options struct {
	// ChainID is the EVM chain id. Zero means avalanchego's local C-Chain's,
	// 43112 (avanet.Local).
	ChainID uint64
	// GenesisTime is the genesis block's timestamp. Zero means
	// DefaultGenesisTime (2025-01-01T00:00:00Z).
	GenesisTime time.Time
	// BlockSpacing is the time between the seeded blocks. Zero means 2s.
	BlockSpacing time.Duration
	// Now is the clock that stamps blocks mined after seeding (a block is
	// never older than its parent plus one second). Nil means that those
	// blocks, too, follow GenesisTime + height*BlockSpacing, which keeps
	// every answer deterministic at the price of timestamps in the past.
	Now func() time.Time
	// EwoqBalance is ewoq's genesis balance, in wei. Nil means 50,000,000
	// AVAX, as on avalanchego's local C-Chain.
	EwoqBalance *big.Int
	// NoSeed skips the seeded activity: the chain starts at genesis.
	NoSeed bool
	// Dir, when set, is the directory the chain keeps its blocks and state
	// in (go-ethereum's database, as geth lays it out: Dir/geth/chaindata;
	// store.go): a chain opened again on it continues from its last block,
	// and the seeded activity runs only when the directory is new. Empty
	// means memory: every New starts from genesis and seeds again.
	Dir string
	// BlockchainID is the chain's Avalanche blockchain id. When set, the
	// seeded activity also deploys the ICM messenger (MessengerDeployment)
	// and gives it this id (the chain has no Warp precompile to ask).
	BlockchainID common.Hash
	// ICMDestination, with BlockchainID, is the blockchain id of the chain
	// the seeded activity's ICM message goes to. Zero means none is sent.
	ICMDestination common.Hash
	// NoAutoMine leaves pending transactions in the pool until Commit or
	// SendBlock seals them.
	NoAutoMine bool
	// GasLimit is every block's gas limit. Zero means 30,000,000.
	GasLimit uint64
	// Debug serves the debug namespace through Handler. Client always has
	// it (the indexer traces blocks).
	Debug bool
	// WritesPerMinute bounds the transactions (eth_sendRawTransaction,
	// eth_sendTransaction) each client sends through Handler per minute,
	// with bursts of as many. Zero means DefaultWritesPerMinute (60);
	// negative means no limit.
	WritesPerMinute int
	// WriteKeys names the identities a request's writes count against,
	// each with its own allowance (say its address and its API key's hash).
	// Nil means Client's identity alone.
	WriteKeys func(r *http.Request) []string
	// Client names the client of a request to Handler, for the limits kept
	// per client: calls running at once and filters. Nil means the
	// connection's address, IPv6 addresses by /64.
	Client func(r *http.Request) string
	// Shares, when set, are the call slots and filters this chain shares
	// with the other chains given the same (NewShares): a client's
	// CallsPerClient and FiltersPerClient, and MaxFilters, hold across all
	// of them, and these fields of Shares' Options apply, not this chain's.
	// Nil means the chain's own.
	Shares *Shares
	// CallGasCap bounds the gas of one call that runs the EVM without a
	// transaction (eth_call, eth_estimateGas, eth_createAccessList,
	// eth_simulateV1 in all, eth_fillTransaction): go-ethereum's RPCGasCap.
	// Zero means DefaultCallGasCap (25,000,000).
	CallGasCap uint64
	// CallTimeout bounds the time of one such call through Handler, after
	// which it answers "execution aborted (timeout = ...)": go-ethereum's
	// RPCEVMTimeout. Zero means DefaultCallTimeout (1s).
	CallTimeout time.Duration
	// CallBudget bounds the time all the calls of one request to Handler
	// that run the EVM spend together: a batch's calls share it, each cut
	// off at CallTimeout or at what is left of the budget, and a call
	// after it is spent is refused with -32005. So a batch buys no more of
	// the machine than one call. Zero means CallTimeout.
	CallBudget time.Duration
	// CallsPerClient bounds the calls that run the EVM at once for one
	// client through Handler; a batch's calls run one after another. A call
	// waits up to CallTimeout for a slot, then is refused with -32005. Zero
	// means DefaultCallsPerClient (2).
	CallsPerClient int
	// FiltersPerClient and MaxFilters bound the filters installed through
	// Handler (eth_newFilter, eth_newBlockFilter,
	// eth_newPendingTransactionFilter) per client and in all; a filter
	// lives until it is uninstalled or not polled for 5 minutes (go-
	// ethereum's timeout). A client past its share is refused ("exceed max
	// filters per client"); a filter past MaxFilters evicts the one idle
	// the longest, so a full table refuses nobody. Zero means
	// DefaultFiltersPerClient (16) and DefaultMaxFilters (1024).
	FiltersPerClient int
	MaxFilters       int
}

// Defaults of Options.CallGasCap and Options.CallTimeout: one call costs at
// most about a second of one core (an ecrecover loop burns 25,000,000 gas
// in about 0.6 s here).
const (
	DefaultCallGasCap  = 25_000_000
	DefaultCallTimeout = time.Second
)

// Chain is a running dev chain. It is safe for concurrent use.
type Chain struct {
	opts     Options
	chainID  *big.Int
	stack    *node.Node
	eth      *eth.Ethereum
	rpc      *rpc.Server  // Client's: every served namespace
	public   *rpc.Server  // Handler's: without debug unless Options.Debug
	filters  *filterGuard // the filters installed through Handler
	writes   *writeLimiter
	accounts []Account
	seed     *Seed

	// sealMu serializes sealing: one block at a time, on the current head.
	sealMu sync.Mutex
	// withdrawals counts the withdrawals sealed so far; guarded by sealMu.
	withdrawals uint64
	// noSync, set before the first block by a measurement's fill only,
	// seals blocks without syncing them to disk (Options.Dir).
	noSync bool

	stop chan struct{} // closed by Close: ends the auto-miner
	done chan struct{} // closed when the auto-miner has returned
	once sync.Once     // guards Close
}

// New starts a dev chain and, unless opts.NoSeed, seeds its activity before
// returning. Close releases it.
func New(ctx context.Context, opts Options) (*Chain, error) {
	if opts.ChainID == 0 {
		opts.ChainID = avanet.Local.EVMChainID
	}
	if opts.GenesisTime.IsZero() {
		opts.GenesisTime = DefaultGenesisTime
	}
	if opts.BlockSpacing <= 0 {
		opts.BlockSpacing = 2 * time.Second
	}
	if opts.BlockSpacing < time.Second {
		return nil, errors.New("evm: block spacing must be at least 1s")
	}
	if opts.GasLimit == 0 {
		opts.GasLimit = 30_000_000
	}
	if opts.WritesPerMinute == 0 {
		opts.WritesPerMinute = DefaultWritesPerMinute
	}
	opts.CallGasCap = cmp.Or(opts.CallGasCap, DefaultCallGasCap)
	opts.CallTimeout = cmp.Or(opts.CallTimeout, DefaultCallTimeout)
	opts.CallBudget = cmp.Or(opts.CallBudget, opts.CallTimeout)
	if opts.Shares == nil {
		opts.Shares = NewShares(opts)
	}
	c := &Chain{
		opts:     opts,
		chainID:  new(big.Int).SetUint64(opts.ChainID),
		accounts: DevAccounts(),
		stop:     make(chan struct{}),
		done:     make(chan struct{}),
	}
	if opts.WritesPerMinute > 0 {
		c.writes = newWriteLimiter(opts.WritesPerMinute)
	}
	if err := c.open(ctx); err != nil {
		return nil, err
	}
	if opts.NoAutoMine {
		close(c.done)
	} else {
		go c.autoMine()
	}
	return c, nil
}

// open starts the node and seeds the chain when it is new: always in
// memory, once with Options.Dir. On failure nothing is left running.
func (c *Chain) open(ctx context.Context) error {
	fresh, seed := true, (*Seed)(nil)
	if c.opts.Dir != "" {
		var err error
		if fresh, seed, err = openDir(c.opts.Dir, c.opts); err != nil {
			return err
		}
	}
	if err := c.start(); err != nil {
		return err
	}
	var err error
	switch {
	case !fresh:
		err = c.reopened(seed)
	case !c.opts.NoSeed:
		if c.seed, err = c.seedActivity(ctx); err != nil {
			err = fmt.Errorf("evm: seed: %w", err)
		}
	}
	if err == nil && fresh && c.opts.Dir != "" {
		err = c.recordSeed()
	}
	if err != nil {
		close(c.done) // the auto-miner has not started
		c.Close()
		return err
	}
	return nil
}

// chainConfig is go-ethereum's all-forks dev config cut at Cancun (the
// engine API versions stay simple and solc's default target runs), with the
// chain's id.
func chainConfig(id *big.Int) *params.ChainConfig {
	cfg := *params.AllDevChainProtocolChanges
	cfg.ChainID = id
	cfg.PragueTime = nil
	cfg.OsakaTime = nil
	cfg.BogotaTime = nil
	cfg.BlobScheduleConfig = &params.BlobScheduleConfig{Cancun: params.DefaultCancunBlobConfig}
	return &cfg
}

func (c *Chain) start() error {
	nodeConf := node.DefaultConfig
	nodeConf.DataDir = c.opts.Dir
	nodeConf.Name = "geth" // the instance directory's name, as geth's own
	nodeConf.P2P = p2p.Config{NoDiscovery: true, MaxPeers: 0}
	nodeConf.HTTPHost, nodeConf.WSHost, nodeConf.IPCPath = "", "", ""
	stack, err := node.New(&nodeConf)
	if err != nil {
		return fmt.Errorf("evm: node: %w", err)
	}
	alloc := core.SystemContractAllocs()
	for i, a := range c.accounts {
		alloc[a.Address] = types.Account{Balance: c.genesisBalance(i)}
	}
	ethConf := ethconfig.Defaults
	ethConf.NetworkId = c.opts.ChainID
	ethConf.Genesis = &core.Genesis{
		Config:    chainConfig(c.chainID),
		Timestamp: uint64(c.opts.GenesisTime.Unix()),
		GasLimit:  c.opts.GasLimit,
		BaseFee:   big.NewInt(params.InitialBaseFee),
		Alloc:     alloc,
	}
	ethConf.Miner.GasCeil = c.opts.GasLimit
	ethConf.SyncMode = ethconfig.FullSync
	ethConf.TxPool.NoLocals = true
	ethConf.LogNoHistory = true
	ethConf.RPCGasCap = c.opts.CallGasCap
	ethConf.RPCEVMTimeout = c.opts.CallTimeout
	if c.opts.Dir != "" {
		diskConfig(&ethConf)
	}
	backend, err := eth.New(stack, &ethConf)
	if err != nil {
		stack.Close()
		if c.opts.Dir != "" {
			return fmt.Errorf("evm: opening the chain in %s (reset the dev chains to make it again): %w", c.opts.Dir, err)
		}
		return fmt.Errorf("evm: eth: %w", err)
	}
	srv, public, filters, err := newRPCServers(backend, c.opts)
	if err != nil {
		stack.Close()
		return err
	}
	if err := stack.Start(); err != nil {
		stack.Close()
		return fmt.Errorf("evm: start: %w", err)
	}
	c.stack, c.eth, c.rpc, c.public, c.filters = stack, backend, srv, public, filters
	return nil
}

// Close stops the auto-miner and the node. It is safe to call more than once.
func (c *Chain) Close() error {
	var err error
	c.once.Do(func() {
		close(c.stop)
		<-c.done
		c.rpc.Stop()
		c.public.Stop()
		err = c.stack.Close()
	})
	return err
}

// ChainID returns the EVM chain id.
func (c *Chain) ChainID() uint64 { return c.opts.ChainID }

// Accounts returns the pre-funded accounts (ewoq first).
func (c *Chain) Accounts() []Account { return append([]Account(nil), c.accounts...) }

// Seed returns what seeding deployed and did, or nil with Options.NoSeed.
func (c *Chain) Seed() *Seed { return c.seed }

// Client returns a new in-process JSON-RPC client of the chain, with the same
// namespaces as Handler. The caller closes it.
func (c *Chain) Client() *rpc.Client { return rpc.DialInProc(c.rpc) }

// Head returns the current head block.
func (c *Chain) Head() *types.Block {
	h := c.eth.BlockChain().CurrentBlock()
	return c.eth.BlockChain().GetBlock(h.Hash(), h.Number.Uint64())
}
