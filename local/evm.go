package local

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/avaedge/avaedge/avanet"
	"github.com/avaedge/avaedge/catalog"
	"github.com/avaedge/avaedge/jsonrpc"
	"github.com/avaedge/avaedge/local/api/evmdata"
	"github.com/avaedge/avaedge/local/api/metricsapi"
	"github.com/avaedge/avaedge/local/source/devnet"
	"github.com/avaedge/avaedge/local/source/devnet/evm"
	"github.com/avaedge/avaedge/local/source/evmindex"
	"github.com/avaedge/avaedge/local/source/pindex"
	"github.com/avaedge/avaedge/local/vocab/cchain"
)

// avaxToken is the native token of the Avalanche EVM chains.
var avaxToken = evmdata.NetworkToken{Name: "Avalanche", Symbol: "AVAX", Decimals: 18}

// buildEVM starts the embedded dev chains (the C-Chain and every EVM chain
// the devnet lists, when some service is local and no node is followed), the
// indexer that follows it, the followed node's
// C-Chain and Options.EVMChains, the metrics engine that the indexer feeds,
// and the EVM Data API and Metrics API handlers over them. dev is the
// devnet, nil when a node is followed.
func (b *builder) buildEVM(ctx context.Context, followed *pindex.Index, dev *devnet.World) error {
	o := b.opts
	runDev := !o.DisableDevChain && followed == nil &&
		(o.LocalMode[catalog.Data] || o.LocalMode[catalog.Metrics] || o.LocalMode[catalog.Node])
	var chains []evmindex.ChainOptions
	var infos []evmdata.ChainInfo
	var mchains []metricsapi.Chain
	// In local mode the C-Chain answers under every id clients of the real
	// services use for it (mainnet's, fuji's, the local network's): the
	// dev chain, or the followed network's C-Chain, as the network names
	// resolve to the devnet or the followed network. Never in proxy mode,
	// where devnet data must not pass for a real network's.
	var aliases *cchain.Aliases
	var pending *pendingChain
	indexed := func(c evmindex.ChainOptions, info evmdata.ChainInfo, mc metricsapi.Chain) {
		chains, infos, mchains = append(chains, c), append(infos, info), append(mchains, mc)
		b.indexed[strconv.FormatUint(c.ChainID, 10)] = true
	}
	if followed != nil {
		c, info, mc, err := nodeCChain(ctx, o.Node, followed.Network(), b.log)
		if err != nil {
			b.log.Warn("the followed node's C-Chain is not indexed", "err", err)
		} else {
			indexed(c, info, mc)
			aliases = &cchain.Aliases{Target: c.ChainID, BlockchainID: mc.BlockchainID}
			pending = &pendingChain{evmID: c.ChainID, blockchainID: mc.BlockchainID}
		}
	}
	var devs []*evm.Chain
	var known map[string]uint64 // the devnet's EVM chains, for the ICM answers
	if runDev {
		if err := b.step("dev chain"); err != nil {
			return err
		}
		var specs []devChain
		specs, known = devChains(o, dev)
		for _, spec := range specs {
			chain, err := b.startDevChain(ctx, spec)
			if err != nil {
				return err
			}
			devs = append(devs, chain)
			chains = append(chains, evmindex.ChainOptions{ChainID: chain.ChainID(), Client: b.devClient(spec.name, chain), PollInterval: 200 * time.Millisecond, Tracer: evm.CallTracer})
			infos, mchains = append(infos, spec.info), append(mchains, spec.metrics)
		}
	}
	for _, c := range o.EVMChains {
		name := c.Name
		if name == "" {
			name = "EVM chain " + strconv.FormatUint(c.ChainID, 10)
		}
		network := avanet.TestnetName
		if c.ChainID == avanet.Mainnet.EVMChainID {
			network = avanet.Mainnet.Name
		}
		indexed(evmindex.ChainOptions{ChainID: c.ChainID, RPCURL: c.RPC, StartBlock: c.StartBlock},
			evmdata.ChainInfo{ChainID: c.ChainID, ChainName: name, Description: name + " (indexed by avaedge)", RPCURL: c.RPC,
				IsTestnet: c.ChainID != avanet.Mainnet.EVMChainID, NetworkToken: avaxToken},
			metricsapi.Chain{EVMChainID: c.ChainID, ChainName: name, BlockchainID: strconv.FormatUint(c.ChainID, 10), SubnetID: avanet.PChainID, Network: network})
	}
	if len(chains) == 0 {
		// No EVM chain to index: the Metrics routes of the primary network
		// (staking, L1 validator fees, validators' addresses) still answer.
		if err := b.step("metrics"); err != nil {
			return err
		}
		b.wired.metrics = metricsapi.Options{Logger: b.log, Registerer: o.Registerer, Path: b.path("metrics.db")}
		b.wired.metrics.Stakes, b.wired.metrics.HRP = stakeSource(followed, dev)
		engine, err := metricsapi.New(b.wired.metrics)
		if err != nil {
			return fmt.Errorf("metrics engine: %w", err)
		}
		b.opened("metrics", engine.Close)
		b.add(engine.Handlers())
		return nil
	}
	icmChains(chains, mchains)
	if len(devs) > 0 {
		aliases = &cchain.Aliases{Target: devs[0].ChainID(), BlockchainID: avanet.Local.CChainID}
	}
	only := func(s catalog.Service) *cchain.Aliases {
		if o.LocalMode[s] {
			return aliases
		}
		return nil
	}

	// The engine, fed by the index's hooks, also reads the index (ICM
	// messages, holders): the index opens first, its hooks reach the engine
	// before it starts following, and it closes (its followers stop) before
	// the engine.
	if err := b.step("evm index"); err != nil {
		return err
	}
	var onBlock evmindex.BlockHook
	var onRollback evmindex.RollbackHook
	b.wired.evmIndex = evmindex.Options{Path: b.path("evmindex.db"), Chains: chains, Registerer: o.Registerer, Logger: b.log,
		OnBlock:    func(ctx context.Context, blk *evmindex.Block) { onBlock(ctx, blk) },
		OnRollback: func(ctx context.Context, chainID, from uint64) { onRollback(ctx, chainID, from) }}
	b.wired.evmInfos = infos
	ix, err := evmindex.Open(ctx, b.wired.evmIndex)
	if err != nil {
		return fmt.Errorf("evm index: %w", err)
	}
	if err := b.step("metrics"); err != nil {
		ix.Close()
		return err
	}
	b.wired.metrics = metricsapi.Options{Chains: mchains, Logger: b.log, Registerer: o.Registerer, Path: b.path("metrics.db"), CChain: only(catalog.Metrics),
		ICM: ix, Holders: ix}
	b.wired.metrics.Stakes, b.wired.metrics.HRP = stakeSource(followed, dev)
	engine, err := metricsapi.New(b.wired.metrics)
	if err != nil {
		ix.Close()
		return fmt.Errorf("metrics engine: %w", err)
	}
	b.opened("metrics", engine.Close)
	b.opened("evm index", ix.Close)
	onBlock, onRollback = metricsHooks(engine, b.log)
	for _, c := range chains {
		ih, iok := ix.Head(c.ChainID)
		mh, mok := engine.Head(c.ChainID)
		if iok && (!mok || mh < ih) {
			b.log.Warn("the metrics history in the data directory ends before the EVM index; metrics miss those blocks until both files are removed and rebuilt",
				"chain", c.ChainID, "indexHead", ih, "metricsHead", mh)
		}
	}
	ix.Start(ctx)
	if len(devs) > 0 {
		if err := b.step("evm catch-up"); err != nil {
			return err
		}
		wctx, cancel := context.WithTimeout(ctx, 60*time.Second)
		defer cancel()
		for _, chain := range devs {
			if err := ix.WaitFor(wctx, chain.ChainID(), chain.Seed().Head); err != nil {
				return fmt.Errorf("evm index: catching up with the dev chain %d: %w", chain.ChainID(), err)
			}
		}
	}
	data, metrics := evmdata.Handlers(evmdata.Options{Index: ix, Chains: infos, Logger: b.log, CChain: only(catalog.Data), KnownChains: known}), engine.Handlers()
	if pending != nil {
		// The followed C-Chain comes up when its node first answers; until
		// then, with nothing of it indexed, its routes answer 503.
		pending.ready = func() bool { return ix.Ready(pending.evmID) }
		pending.aliases = only(catalog.Data)
		data = pending.gate(data, catalog.Data)
		pending.aliases = only(catalog.Metrics)
		metrics = pending.gate(metrics, catalog.Metrics)
	}
	b.add(data)
	b.add(metrics)
	return nil
}

// nodeCChain describes the followed node's C-Chain for the EVM indexer, the
// EVM Data API and the Metrics API, with the chain id the node reports, or,
// when its C-Chain does not answer yet (or any more), the one avanet knows
// for the network: the follower then waits for the node in the background
// (evmindex.ChainOptions.CheckLater) and the index answers meanwhile.
func nodeCChain(ctx context.Context, node string, n avanet.Network, log *slog.Logger) (evmindex.ChainOptions, evmdata.ChainInfo, metricsapi.Chain, error) {
	const path = "/ext/bc/C/rpc"
	c := jsonrpc.NewClient(node, jsonrpc.ClientOptions{Timeout: 5 * time.Second, MaxAnswerBytes: 1 << 16})
	defer c.Close()
	url := c.Base() + path
	var id string
	var chainID uint64
	if err := c.Call(ctx, path, "eth_chainId", []any{}, &id); err != nil {
		known, ok := avanet.ByID(n.ID)
		if !ok {
			return evmindex.ChainOptions{}, evmdata.ChainInfo{}, metricsapi.Chain{}, fmt.Errorf("the C-Chain at %s (network %d, whose C-Chain id avaedge does not know): %w", url, n.ID, err)
		}
		log.Warn("the followed node's C-Chain does not answer; its routes answer from the index, and it is followed once it answers", "url", url, "err", err)
		chainID = known.EVMChainID
	} else {
		hexID, ok := strings.CutPrefix(id, "0x")
		v, err := strconv.ParseUint(hexID, 16, 64)
		if !ok || err != nil {
			return evmindex.ChainOptions{}, evmdata.ChainInfo{}, metricsapi.Chain{}, fmt.Errorf("the C-Chain at %s: eth_chainId %q", url, id)
		}
		chainID = v
	}
	network := avanet.TestnetName
	if n.ID == avanet.Mainnet.ID {
		network = avanet.Mainnet.Name
	}
	info := evmdata.ChainInfo{ChainID: chainID, ChainName: "C-Chain", Description: "the followed node's C-Chain (indexed by avaedge)", RPCURL: url,
		IsTestnet: n.ID != avanet.Mainnet.ID, PlatformChainID: n.CChainID, SubnetID: avanet.PChainID, NetworkToken: avaxToken}
	mc := metricsapi.Chain{EVMChainID: chainID, ChainName: "C-Chain", BlockchainID: n.CChainID, SubnetID: avanet.PChainID, Network: network}
	return evmindex.ChainOptions{ChainID: chainID, RPCURL: url, CheckLater: true}, info, mc, nil
}

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
