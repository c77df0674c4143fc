package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"path/filepath"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/avaedge/avaedge/catalog"
	"github.com/avaedge/avaedge/config"
	"github.com/avaedge/avaedge/jsonrpc"
	"github.com/avaedge/avaedge/limits"
	"github.com/avaedge/avaedge/local"
	"github.com/avaedge/avaedge/local/api/dataapi"
	"github.com/avaedge/avaedge/local/api/evmdata"
	"github.com/avaedge/avaedge/local/api/metricsapi"
	"github.com/avaedge/avaedge/local/api/node"
	"github.com/avaedge/avaedge/local/api/warp"
	"github.com/avaedge/avaedge/local/cchain"
	"github.com/avaedge/avaedge/local/source/devnet"
	"github.com/avaedge/avaedge/local/source/devnet/evm"
	"github.com/avaedge/avaedge/local/source/evmindex"
	"github.com/avaedge/avaedge/local/source/pindex"
)

// world is the assembled local world.
type world struct {
	handler *local.Handler
	close   []func() error
	wired   localWiring
}

// localWiring is what buildLocal handed the local packages.
type localWiring struct {
	opts        local.Options
	seed        int64                   // the devnet's
	devChain    bool                    // whether the embedded EVM dev chain runs
	devOpts     evm.Options             // what the dev chain is (or would be) built with
	node        string                  // the avalanchego node the local world follows, "" for the devnet
	evmChains   []evmindex.ChainOptions // the chains the indexer follows
	evmInfos    []evmdata.ChainInfo     // the chains the EVM Data API lists
	indexPath   string                  // the EVM index's file, "" in memory
	metricsPath string                  // the metrics history's file, "" in memory
}

// localParts collects what the local packages contribute.
type localParts struct {
	handlers map[string]catalog.Handler
	evmRPC   http.Handler
	wired    localWiring
	methods  map[string]jsonrpc.Method
	indexed  map[string]bool // EVM chain ids followed from real nodes
	close    []func() error
}

func (p *localParts) add(hs map[string]catalog.Handler) {
	for name, h := range hs {
		p.handlers[name] = h
	}
}

// buildLocal assembles the local world from its packages.
func buildLocal(ctx context.Context, cfg *config.Config, log *slog.Logger, reg prometheus.Registerer, routes []catalog.Route, localMode map[catalog.Service]bool, nodeNetwork string) (*world, error) {
	parts := &localParts{handlers: map[string]catalog.Handler{}, indexed: map[string]bool{}}
	fail := func(err error) (*world, error) {
		for i := len(parts.close) - 1; i >= 0; i-- {
			parts.close[i]()
		}
		return nil, err
	}
	var followed *pindex.Index
	if cfg.Local.Node != "" {
		ix, err := buildNodeIndex(ctx, cfg, log, reg)
		if err != nil {
			return fail(err)
		}
		parts.close = append(parts.close, ix.Close)
		followed = ix
		parts.wired.node = cfg.Local.Node
	}
	if err := buildEVM(ctx, cfg, log, reg, localMode, followed, parts); err != nil {
		return fail(err)
	}
	dev, err := devnet.New(devnet.Config{Seed: cfg.Local.Seed})
	if err != nil {
		return fail(fmt.Errorf("devnet: %w", err))
	}
	parts.close = append(parts.close, dev.Close)
	if followed != nil {
		// The local world is the followed network: its index answers the
		// primary-network routes, and nothing of the devnet is passed off as
		// that network's (routes it cannot answer have no local
		// implementation).
		parts.add(dataapi.Handlers(dataapi.Options{Source: followed, Logger: log}))
	} else {
		// The devnet's index, read the same way, answering as any network.
		parts.add(dataapi.Handlers(dataapi.Options{Source: dev.Index(), AnyNetwork: true, Nodes: dev, Proposers: dev, LinearX: true, Logger: log}))
	}
	// The node answers as the local network, or impersonates the node
	// upstream's network when that is mapped to the devnet.
	nodeAs := "local"
	if !localMode[catalog.Node] && nodeNetwork != "" {
		nodeAs = nodeNetwork
	}
	if followed != nil {
		// The followed node's own methods fall back to its index, never to
		// the devnet.
		ms, err := node.IndexMethods(ctx, followed)
		if err != nil {
			return fail(fmt.Errorf("local node: %w", err))
		}
		parts.methods = ms
	} else {
		nw, err := node.FromDevnet(dev, nodeAs)
		if err != nil {
			return fail(fmt.Errorf("local node: %w", err))
		}
		parts.methods = node.Methods(nw)
	}
	// Signatures come from the devnet's validators, or from the followed
	// network's over the p2p protocol.
	var src warp.Source = local.WarpSource(dev)
	if followed != nil {
		nodeSrc, err := local.NodeWarpSource(local.NodeWarpOptions{Index: followed, Node: cfg.Local.Node})
		if err != nil {
			return fail(fmt.Errorf("warp source: %w", err))
		}
		parts.close = append(parts.close, nodeSrc.Close)
		src = nodeSrc
	}
	parts.add(warp.NewAggregator(src, warp.Options{Registerer: reg, Logger: log}).Handlers())
	wired := parts.wired
	wired.seed = cfg.Local.Seed
	wired.opts = local.Options{
		Routes:       routes,
		Handlers:     parts.handlers,
		Methods:      parts.methods,
		EVM:          parts.evmRPC,
		LocalMode:    localMode,
		Networks:     cfg.Local.Networks,
		NodeNetwork:  nodeNetwork,
		FollowedNode: followed != nil,
		IndexedChain: func(id string) bool { return parts.indexed[id] },
	}
	h := local.New(wired.opts)
	return &world{handler: h, close: parts.close, wired: wired}, nil
}

// buildEVM starts the embedded dev chain (when some service is local), the
// indexer that follows it and the configured external EVM nodes, and the EVM
// Data API handlers over the index.
func buildEVM(ctx context.Context, cfg *config.Config, log *slog.Logger, reg prometheus.Registerer, localMode map[catalog.Service]bool, followed *pindex.Index, parts *localParts) error {
	runDev := !cfg.Local.DisableDevChain && (localMode[catalog.Data] || localMode[catalog.Metrics] || localMode[catalog.Node]) && followed == nil
	var chains []evmindex.ChainOptions
	var infos []evmdata.ChainInfo
	var mchains []metricsapi.Chain
	// In local mode the C-Chain answers under every id clients of the real
	// services use for it (mainnet's, fuji's, the local network's): the
	// dev chain, or the followed network's C-Chain, as the network names
	// resolve to the devnet or the followed network. Never in proxy mode,
	// where devnet data must not pass for a real network's.
	var aliases *cchain.Aliases
	if followed != nil {
		c, info, mc, err := nodeCChain(ctx, cfg.Local.Node, followed.Network())
		if err != nil {
			log.Warn("the followed node's C-Chain is not indexed", "err", err)
		} else {
			chains, infos, mchains = append(chains, c), append(infos, info), append(mchains, mc)
			parts.indexed[strconv.FormatUint(c.ChainID, 10)] = true
			aliases = &cchain.Aliases{Target: c.ChainID, BlockchainID: mc.BlockchainID}
		}
	}
	var chain *evm.Chain
	trusted := parsePrefixes(cfg.TrustedProxies)
	e := cfg.Local.EVM
	devOpts := evm.Options{Now: time.Now, Debug: e.Debug, WritesPerMinute: e.WritesPerMinute, WriteKeys: writeKeys(trusted),
		Client: func(r *http.Request) string { return limits.AddressID(r, trusted) }, CallGasCap: e.CallGasCap,
		CallTimeout: e.CallTimeout.D(), CallsPerClient: e.CallsPerClient, FiltersPerClient: e.FiltersPerClient, MaxFilters: e.MaxFilters}
	parts.wired.devOpts = devOpts
	if runDev {
		var err error
		chain, err = evm.New(ctx, devOpts)
		if err != nil {
			return fmt.Errorf("dev chain: %w", err)
		}
		parts.close = append(parts.close, func() error { chain.Close(); return nil })
		parts.evmRPC = chain.Handler()
		rpcc := chain.Client()
		parts.close = append(parts.close, func() error { rpcc.Close(); return nil })
		chains = append(chains, evmindex.ChainOptions{ChainID: chain.ChainID(), Client: rpcc, PollInterval: 200 * time.Millisecond, Tracer: evm.CallTracer})
		infos = append(infos, evmdata.LocalChain(chain.ChainID(), publicURL(cfg.Listen)+"/ext/bc/C/rpc"))
		mchains = append(mchains, metricsapi.Chain{EVMChainID: chain.ChainID(), ChainName: "c_chain_local",
			BlockchainID: devnet.CChainID.String(), SubnetID: devnet.PChainID.String(), Network: "testnet"})
	}
	for _, c := range cfg.Local.EVMChains {
		chains = append(chains, evmindex.ChainOptions{ChainID: c.ChainID, RPCURL: c.RPC, StartBlock: c.StartBlock})
		name := c.Name
		if name == "" {
			name = "EVM chain " + strconv.FormatUint(c.ChainID, 10)
		}
		infos = append(infos, evmdata.ChainInfo{ChainID: c.ChainID, ChainName: name, Description: name + " (indexed by avaedge)", RPCURL: c.RPC,
			IsTestnet: c.ChainID != 43114, NetworkToken: evmdata.NetworkToken{Name: "Avalanche", Symbol: "AVAX", Decimals: 18}})
		parts.indexed[strconv.FormatUint(c.ChainID, 10)] = true
		network := "mainnet"
		if c.ChainID != 43114 {
			network = "testnet"
		}
		mchains = append(mchains, metricsapi.Chain{EVMChainID: c.ChainID, ChainName: name, BlockchainID: strconv.FormatUint(c.ChainID, 10),
			SubnetID: devnet.PChainID.String(), Network: network})
	}
	if len(chains) == 0 {
		return nil
	}
	path, mpath := "", ""
	if cfg.DataDir != "" {
		path = filepath.Join(cfg.DataDir, "evmindex.db")
		mpath = filepath.Join(cfg.DataDir, "metrics.db")
	}
	if chain != nil {
		aliases = &cchain.Aliases{Target: chain.ChainID(), BlockchainID: devnet.CChainID.String()}
	}
	only := func(s catalog.Service) *cchain.Aliases {
		if localMode[s] {
			return aliases
		}
		return nil
	}
	engine, err := metricsapi.New(metricsapi.Options{Chains: mchains, Logger: log, Registerer: reg, Path: mpath, CChain: only(catalog.Metrics)})
	parts.wired.devChain, parts.wired.evmChains, parts.wired.evmInfos = runDev, chains, infos
	parts.wired.indexPath, parts.wired.metricsPath = path, mpath
	if err != nil {
		return fmt.Errorf("metrics engine: %w", err)
	}
	parts.close = append(parts.close, engine.Close)
	onBlock, onRollback := metricsHooks(engine, log)
	ix, err := evmindex.Open(ctx, evmindex.Options{Path: path, Chains: chains, Registerer: reg, Logger: log, OnBlock: onBlock, OnRollback: onRollback})
	if err != nil {
		return fmt.Errorf("evm index: %w", err)
	}
	parts.close = append(parts.close, func() error { return ix.Close() })
	for _, c := range chains {
		ih, iok := ix.Head(c.ChainID)
		mh, mok := engine.Head(c.ChainID)
		if iok && (!mok || mh < ih) {
			log.Warn("the metrics history in the data directory ends before the EVM index; metrics miss those blocks until both files are removed and rebuilt",
				"chain", c.ChainID, "indexHead", ih, "metricsHead", mh)
		}
	}
	ix.Start(ctx)
	if chain != nil {
		wctx, cancel := context.WithTimeout(ctx, 60*time.Second)
		err := ix.WaitFor(wctx, chain.ChainID(), chain.Seed().Head)
		cancel()
		if err != nil {
			return fmt.Errorf("evm index: catching up with the dev chain: %w", err)
		}
	}
	parts.add(evmdata.Handlers(evmdata.Options{Index: ix, Chains: infos, Logger: log, CChain: only(catalog.Data)}))
	parts.add(engine.Handlers())
	return nil
}

// publicURL is the base URL clients reach the listener at, for answers that
// name it (the dev chain's rpcUrl).
func publicURL(listen string) string {
	host, port, err := net.SplitHostPort(listen)
	if err != nil {
		return "http://" + listen
	}
	if host == "" || host == "0.0.0.0" || host == "::" {
		host = "127.0.0.1"
	}
	return "http://" + net.JoinHostPort(host, port)
}

// writeKeys names the identities a dev chain write counts against: the
// client's address (IPv6 by /64, as the edge counts anonymous clients) and,
// when it sends one, the hash of its API key (never the key itself), each
// with its own allowance, so that fresh keys do not buy fresh writes.
func writeKeys(trusted []netip.Prefix) func(r *http.Request) []string {
	return func(r *http.Request) []string {
		keys := []string{limits.AddressID(r, trusted)}
		key := r.Header.Get("X-Glacier-Api-Key")
		if key == "" {
			key = r.Header.Get("X-Data-Api-Key")
		}
		if key != "" {
			sum := sha256.Sum256([]byte(key))
			keys = append(keys, "key:"+hex.EncodeToString(sum[:]))
		}
		return keys
	}
}
