package devnet

import (
	"cmp"
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/avaedge/avaedge/avanet"
	"github.com/avaedge/avaedge/local/api/evmdata"
	"github.com/avaedge/avaedge/local/api/metricsapi"
	gen "github.com/avaedge/avaedge/local/source/devnet"
	"github.com/avaedge/avaedge/local/source/devnet/evm"
	"github.com/avaedge/avaedge/local/source/evmindex"
	"github.com/avaedge/avaedge/local/world"
)

// devChain is one embedded EVM chain of the devnet: the dev chain that
// stands for the C-Chain, or a subnet chain the devnet lists.
type devChain struct {
	// name names the chain in errors ("dev chain", "dev chain devl1").
	name string
	opts evm.Options
	// paths are the JSON-RPC paths it answers on: its blockchain id's and
	// its alias's (the dev chain's alias is the node's C-Chain paths').
	paths   []string
	info    evmdata.ChainInfo
	metrics metricsapi.Chain
}

// rpcPaths are the JSON-RPC paths of a chain known by its blockchain id and
// alias, as avalanchego serves a chain.
func rpcPaths(blockchainID, alias string) []string {
	return []string{"/ext/bc/" + blockchainID + "/rpc", "/ext/bc/" + alias + "/rpc"}
}

// devChains are the embedded chains of the devnet: the dev chain (the local
// network's C-Chain) and every EVM chain the devnet lists, each with
// Options.DevChain's bounds (gas cap, call budget, write limits), a client's
// call slots and filters counted across all of them (one evm.Shares), and
// ewoq funded in its genesis. The subnet chains start at their
// CreateChainTx's time, ewoq holding what their listed genesis gives it.
// Each runs the ICM messenger with its own blockchain id; the dev chain's
// seed sends a message to the devnet's L1 (devICM).
func (w *World) devChains() []devChain {
	c := w.opts.DevChain
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Shares == nil {
		c.Shares = evm.NewShares(c)
	}
	c.BlockchainID, c.ICMDestination = w.devICM()
	id := c.ChainID
	if id == 0 {
		id = avanet.Local.EVMChainID
	}
	public := w.opts.PublicURL
	out := []devChain{{name: "dev chain", opts: c, paths: rpcPaths(avanet.Local.CChainID, "C")[:1],
		info: evmdata.LocalChain(id, public+"/ext/bc/C/rpc"),
		metrics: metricsapi.Chain{EVMChainID: id, ChainName: "c_chain_local",
			BlockchainID: avanet.Local.CChainID, SubnetID: avanet.PChainID, Network: avanet.TestnetName}}}
	for _, bc := range w.gen.EVMChains() {
		opts := c
		opts.ChainID, opts.GenesisTime = bc.EVMChainID, time.Unix(bc.CreateTime, 0).UTC()
		opts.BlockchainID, opts.ICMDestination = common.Hash(bc.ID), common.Hash{}
		if bal, ok := bc.EwoqBalance(); ok {
			opts.EwoqBalance = bal
		}
		paths := rpcPaths(bc.ID.String(), bc.Name)
		out = append(out, devChain{name: "dev chain " + bc.Name, opts: opts, paths: paths,
			info: evmdata.ChainInfo{ChainID: bc.EVMChainID, ChainName: bc.Name,
				Description: "The devnet's chain " + bc.Name + ": an embedded EVM with chain id " + strconv.FormatUint(bc.EVMChainID, 10) + ".",
				RPCURL:      public + paths[0], IsTestnet: true, PlatformChainID: bc.ID.String(), SubnetID: bc.SubnetID.String(), VMID: bc.VMID.String(),
				NetworkToken: evmdata.NetworkToken{Name: bc.Name + " token", Symbol: strings.ToUpper(bc.Name), Decimals: 18,
					Description: "The native token of the devnet's chain " + bc.Name + "."}},
			metrics: metricsapi.Chain{EVMChainID: bc.EVMChainID, ChainName: bc.Name, BlockchainID: bc.ID.String(),
				SubnetID: bc.SubnetID.String(), Network: avanet.TestnetName}})
	}
	return out
}

// devICM returns what the dev chain's seed needs to send its message: its
// own blockchain id, and the devnet L1's chain as the destination.
func (w *World) devICM() (self, dest common.Hash) {
	for _, s := range w.gen.Subnets() {
		for _, c := range s.Chains {
			if c.EVMChainID != 0 && s.IsL1() {
				dest = common.Hash(c.ID)
			}
		}
	}
	return common.Hash(gen.CChainID), dest
}

// knownChains are the devnet's EVM chains by blockchain id, for the ICM
// answers.
func (w *World) knownChains() map[string]uint64 {
	known := map[string]uint64{}
	for _, s := range w.gen.Subnets() {
		for _, c := range s.Chains {
			if c.EVMChainID != 0 {
				known[c.ID.String()] = c.EVMChainID
			}
		}
	}
	return known
}

// startChains starts the embedded chains, each with an in-process client
// for the EVM index and one for the edge's WebSocket subscriptions; the
// first is the world's C-Chain.
func (w *World) startChains(ctx context.Context) error {
	for i, spec := range w.devChains() {
		if w.opts.ChainsDir != "" {
			spec.opts.Dir = filepath.Join(w.opts.ChainsDir, strconv.FormatUint(cmp.Or(spec.opts.ChainID, avanet.Local.EVMChainID), 10))
		}
		chain, err := evm.New(ctx, spec.opts)
		if err != nil {
			return fmt.Errorf("%s: %w", spec.name, err)
		}
		w.opened(chain.Close)
		client, subs := chain.Client(), chain.Client()
		w.opened(func() error { client.Close(); subs.Close(); return nil })
		w.chains = append(w.chains, world.EVMChain{
			Index:      evmindex.ChainOptions{ChainID: chain.ChainID(), Client: client, PollInterval: 200 * time.Millisecond, Tracer: evm.CallTracer},
			Info:       spec.info,
			Metrics:    spec.metrics,
			CChain:     i == 0,
			RPC:        chain.Handler(),
			Paths:      spec.paths,
			Subscriber: subs,
			Head:       chain.Seed().Head,
		})
	}
	return nil
}
