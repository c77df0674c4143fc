package local

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/avaedge/avaedge/avanet"
	"github.com/avaedge/avaedge/catalog"
	"github.com/avaedge/avaedge/local/api/evmdata"
	"github.com/avaedge/avaedge/local/api/metricsapi"
	"github.com/avaedge/avaedge/local/source/evmindex"
	"github.com/avaedge/avaedge/local/vocab/cchain"
	"github.com/avaedge/avaedge/local/world"
)

// evmWorld is the EVM index that follows a world's EVM chains and the
// metrics engine it feeds.
type evmWorld struct {
	index  *evmindex.Index // nil when no EVM chain is followed
	engine *metricsapi.Engine
	infos  []evmdata.ChainInfo
	log    *slog.Logger
}

// openEVM opens the EVM index over chains (none without chains) and the
// metrics engine fed by it, which also reads the P-Chain stakes of the
// world's primary network. The engine reads the index too (ICM messages,
// holders): the index opens first, its hooks reach the engine before it
// starts following, and it closes (its followers stop) before the engine.
func (b *builder) openEVM(ctx context.Context, chains []world.EVMChain, p world.Primary) (*evmWorld, error) {
	o := b.opts
	e := &evmWorld{log: b.log}
	b.wired.metrics = metricsapi.Options{Logger: b.log, Registerer: o.Registerer, Path: b.path("metrics.db")}
	b.wired.metrics.Stakes, b.wired.metrics.HRP = p.Stakes()
	var feed metricsFeed
	if len(chains) > 0 {
		if err := b.step("evm index"); err != nil {
			return nil, err
		}
		opts := make([]evmindex.ChainOptions, len(chains))
		for i, c := range chains {
			opts[i] = icmChain(c.Index, c.Metrics.BlockchainID)
			e.infos = append(e.infos, c.Info)
			b.wired.metrics.Chains = append(b.wired.metrics.Chains, c.Metrics)
		}
		b.wired.evmIndex = evmindex.Options{Path: b.path("evmindex.db"), Chains: opts, Registerer: o.Registerer, Logger: b.log,
			OnBlock: feed.block, OnRollback: feed.rollback}
		b.wired.evmInfos = e.infos
		if o.IndexURL != "" {
			if err := b.openShared(ctx, chains); err != nil {
				return nil, err
			}
		}
		ix, err := evmindex.Open(ctx, b.wired.evmIndex)
		if err != nil {
			if b.wired.fleet != nil {
				b.wired.fleet.close()
			}
			return nil, fmt.Errorf("evm index: %w", err)
		}
		e.index = ix
		b.wired.metrics.ICM, b.wired.metrics.Holders = ix, ix
		if o.LocalMode[catalog.Metrics] {
			b.wired.metrics.CChain = cChainAliases(chains)
		}
	}
	if o.IndexURL != "" && b.wired.fleet == nil {
		// No EVM chain: the lease elects the P/X index's follower alone.
		f, err := b.newFleet(ctx, nil)
		if err != nil {
			return nil, err
		}
		b.wired.fleet = f
	}
	b.wired.metrics.URL, b.wired.metrics.ReadURL = o.IndexURL, o.IndexReadURL
	engine, err := b.openMetrics()
	if err != nil {
		if b.wired.fleet != nil {
			b.wired.fleet.close()
		}
		if e.index != nil {
			e.index.Close()
		}
		return nil, err
	}
	e.engine, b.wired.engine = engine, engine
	if e.index == nil {
		b.startShared(nil, engine)
		return e, nil
	}
	b.opened("evm index", e.index.Close)
	feed.engine, feed.log = engine, b.log
	for _, c := range chains {
		ih, iok := e.index.Head(c.Index.ChainID)
		mh, mok := engine.Head(c.Index.ChainID)
		if iok && (!mok || mh < ih) {
			b.log.Warn("the metrics history in the data directory ends before the EVM index; metrics miss those blocks until both files are removed and rebuilt",
				"chain", c.Index.ChainID, "indexHead", ih, "metricsHead", mh)
		}
	}
	if o.IndexURL == "" {
		e.index.Start(ctx)
		return e, nil
	}
	b.startShared(e.index, engine)
	return e, nil
}

// startShared starts the replica's part in the fleet sharing
// BuildOptions.IndexURL over the followed network's P/X index and the EVM
// index (nil: none), one lease for both, and the metrics engine they feed;
// without IndexURL it does nothing.
func (b *builder) startShared(evm *evmindex.Index, engine *metricsapi.Engine) {
	if b.wired.fleet == nil {
		return
	}
	var ixs []ledIndex
	if b.sharedPX != nil {
		ixs = append(ixs, b.sharedPX)
	}
	if evm != nil {
		ixs = append(ixs, evm)
	}
	b.wired.fleet.start(b, ixs, []ledReader{engine})
	b.opened("index lease", b.wired.fleet.close)
}

// openShared starts electing the writer of chains' index in
// BuildOptions.IndexURL and opens the PostgreSQL store there, its writes
// fenced by the lease.
func (b *builder) openShared(ctx context.Context, chains []world.EVMChain) error {
	ids := make([]uint64, len(chains))
	for i, c := range chains {
		ids[i] = c.Index.ChainID
	}
	f, err := b.newFleet(ctx, ids)
	if err != nil {
		return err
	}
	st, err := evmindex.OpenPostgres(ctx, b.opts.IndexURL, b.log, f.fence)
	if err != nil {
		f.close()
		return fmt.Errorf("evm index: %w", err)
	}
	if b.opts.IndexReadURL != "" {
		if b.wired.evmIndex.Replica, err = evmindex.OpenPostgresReplica(ctx, b.opts.IndexReadURL); err != nil {
			st.Close()
			f.close()
			return fmt.Errorf("evm index: %w", err)
		}
	}
	b.wired.fleet, b.wired.evmIndex.Store = f, st
	return nil
}

// openMetrics opens the metrics engine (Options.metrics as wired).
func (b *builder) openMetrics() (*metricsapi.Engine, error) {
	if err := b.step("metrics"); err != nil {
		return nil, err
	}
	engine, err := metricsapi.New(b.wired.metrics)
	if err != nil {
		return nil, fmt.Errorf("metrics engine: %w", err)
	}
	b.opened("metrics", engine.Close)
	return engine, nil
}

// waitFor waits, at most 60s, until the index holds every chain's Head (an
// embedded chain's seeded history).
func (b *builder) waitFor(ctx context.Context, ix *evmindex.Index, chains []world.EVMChain) error {
	if ix == nil || !slices.ContainsFunc(chains, func(c world.EVMChain) bool { return c.Head > 0 }) {
		return nil
	}
	if err := b.step("evm catch-up"); err != nil {
		return err
	}
	wctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	for _, c := range chains {
		if c.Head == 0 {
			continue
		}
		if err := ix.WaitFor(wctx, c.Index.ChainID, c.Head); err != nil {
			return fmt.Errorf("evm index: catching up with the chain %d: %w", c.Index.ChainID, err)
		}
	}
	return nil
}

// handlers are the EVM Data API's handlers over the index (none without
// one) and the Metrics API's. In local mode a service answers for the
// C-Chain under every id clients of the real services use for it (the
// world's C-Chain: the dev chain, or the followed network's); never in proxy
// mode, where devnet data must not pass for a real network's. A pending
// chain's routes answer 503 until its node first answers (with nothing of
// it indexed), each service's gate resolving the aliases of its own mode.
func (e *evmWorld) handlers(chains []world.EVMChain, known map[string]uint64, localMode map[catalog.Service]bool) (data, metrics map[string]catalog.Handler) {
	aliases := cChainAliases(chains)
	only := func(s catalog.Service) *cchain.Aliases {
		if localMode[s] {
			return aliases
		}
		return nil
	}
	if e.index != nil {
		data = evmdata.Handlers(evmdata.Options{Index: e.index, Chains: e.infos, Logger: e.log, CChain: only(catalog.Data), KnownChains: known})
	}
	metrics = e.engine.Handlers()
	for _, c := range chains {
		if c.Pending {
			p := pendingChain{evmID: c.Index.ChainID, blockchainID: c.Metrics.BlockchainID, ready: readyIn(e.index, c.Index.ChainID)}
			data, metrics = p.gate(data, catalog.Data, only(catalog.Data)), p.gate(metrics, catalog.Metrics, only(catalog.Metrics))
		}
	}
	return data, metrics
}

// configuredChains are Options.EVMChains as the world's chains: followed
// from real nodes, on mainnet when the chain id is the C-Chain's there, on
// the test networks otherwise.
func configuredChains(cs []EVMChain) []world.EVMChain {
	out := make([]world.EVMChain, 0, len(cs))
	for _, c := range cs {
		name := c.Name
		if name == "" {
			name = "EVM chain " + strconv.FormatUint(c.ChainID, 10)
		}
		network := avanet.TestnetName
		if c.ChainID == avanet.Mainnet.EVMChainID {
			network = avanet.Mainnet.Name
		}
		out = append(out, world.EVMChain{
			Index: evmindex.ChainOptions{ChainID: c.ChainID, RPCURL: c.RPC, StartBlock: c.StartBlock},
			Info: evmdata.ChainInfo{ChainID: c.ChainID, ChainName: name, Description: name + " (indexed by avaedge)", RPCURL: c.RPC,
				IsTestnet: c.ChainID != avanet.Mainnet.EVMChainID, NetworkToken: evmdata.AVAXToken},
			Metrics: metricsapi.Chain{EVMChainID: c.ChainID, ChainName: name, BlockchainID: strconv.FormatUint(c.ChainID, 10), SubnetID: avanet.PChainID, Network: network},
			Real:    true,
		})
	}
	return out
}

// cChainAliases are the ids clients of the real services use for the
// C-Chain (mainnet's, fuji's, the local network's), resolving to the
// world's C-Chain; nil when the world has none.
func cChainAliases(chains []world.EVMChain) *cchain.Aliases {
	for _, c := range chains {
		if c.CChain {
			return &cchain.Aliases{Target: c.Index.ChainID, BlockchainID: c.Metrics.BlockchainID}
		}
	}
	return nil
}

// indexedChains reports whether an EVM chain id is one of chains followed
// from a real node.
func indexedChains(chains []world.EVMChain) func(string) bool {
	fromNodes := map[string]bool{}
	for _, c := range chains {
		if c.Real {
			fromNodes[strconv.FormatUint(c.Index.ChainID, 10)] = true
		}
	}
	return func(id string) bool { return fromNodes[id] }
}

// evmRPC are the embedded chains' JSON-RPC handlers: the C-Chain's for the
// node's C-Chain endpoints, and every chain's by its paths.
func evmRPC(chains []world.EVMChain) (http.Handler, map[string]http.Handler, map[string]*rpc.Client) {
	var c http.Handler
	paths, subs := map[string]http.Handler{}, map[string]*rpc.Client{}
	for _, ch := range chains {
		if ch.RPC == nil {
			continue
		}
		if ch.CChain {
			c = ch.RPC
			if ch.Subscriber != nil {
				subs["/ext/bc/C/rpc"] = ch.Subscriber
			}
		}
		for _, p := range ch.Paths {
			paths[p] = ch.RPC
			if ch.Subscriber != nil {
				subs[p] = ch.Subscriber
			}
		}
	}
	return c, paths, subs
}

// metricsFeed feeds indexed blocks to the metrics engine, once it is set.
// A block the engine already holds (it keeps its own history in the data
// directory, so after a restart the index may hand it blocks it has) is
// skipped before it is converted. The engine logs the blocks it drops
// (unknown chain, out of order); other failures (its store) are logged here.
type metricsFeed struct {
	engine *metricsapi.Engine
	log    *slog.Logger
}

func (f *metricsFeed) block(ctx context.Context, b *evmindex.Block) {
	if head, ok := f.engine.Head(b.ChainID); ok && b.Number <= head {
		return
	}
	err := f.engine.Apply(ctx, metricsBlock(b))
	if err != nil && ctx.Err() == nil && !errors.Is(err, metricsapi.ErrUnknownChain) && !errors.Is(err, metricsapi.ErrOutOfOrder) {
		f.log.Error("metrics engine failed to apply a block", "chain", b.ChainID, "block", b.Number, "err", err)
	}
}

func (f *metricsFeed) rollback(ctx context.Context, chainID, from uint64) {
	if err := f.engine.Rollback(ctx, chainID, from); err != nil && ctx.Err() == nil {
		f.log.Error("metrics engine rollback failed", "chain", chainID, "from", from, "err", err)
	}
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
