package local

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/avaedge/avaedge/avanet"
	"github.com/avaedge/avaedge/catalog"
	"github.com/avaedge/avaedge/local/api/evmdata"
	"github.com/avaedge/avaedge/local/api/metricsapi"
	"github.com/avaedge/avaedge/local/source/devnet"
	"github.com/avaedge/avaedge/local/source/devnet/evm"
)

// devChain is one embedded EVM chain of the devnet: the dev chain that
// stands for the C-Chain, or a subnet chain the devnet lists.
type devChain struct {
	// name names the chain's closers ("dev chain", "dev chain devl1").
	name string
	opts evm.Options
	// paths are the JSON-RPC paths it answers on besides /ext/bc/C/rpc:
	// its blockchain id's and its alias's.
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
// seed sends a message to the devnet's L1 (devICM). known are the devnet's
// EVM chains by blockchain id.
func devChains(o BuildOptions, dev *devnet.World) (specs []devChain, known map[string]uint64) {
	c := o.DevChain
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Shares == nil {
		c.Shares = evm.NewShares(c)
	}
	c.BlockchainID, c.ICMDestination, known = devICM(dev)
	id := c.ChainID
	if id == 0 {
		id = avanet.Local.EVMChainID
	}
	out := []devChain{{name: "dev chain", opts: c, paths: rpcPaths(avanet.Local.CChainID, "C")[:1],
		info: evmdata.LocalChain(id, o.PublicURL+"/ext/bc/C/rpc"),
		metrics: metricsapi.Chain{EVMChainID: id, ChainName: "c_chain_local",
			BlockchainID: avanet.Local.CChainID, SubnetID: avanet.PChainID, Network: avanet.TestnetName}}}
	for _, bc := range dev.EVMChains() {
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
				RPCURL:      o.PublicURL + paths[0], IsTestnet: true, PlatformChainID: bc.ID.String(), SubnetID: bc.SubnetID.String(), VMID: bc.VMID.String(),
				NetworkToken: evmdata.NetworkToken{Name: bc.Name + " token", Symbol: strings.ToUpper(bc.Name), Decimals: 18,
					Description: "The native token of the devnet's chain " + bc.Name + "."}},
			metrics: metricsapi.Chain{EVMChainID: bc.EVMChainID, ChainName: bc.Name, BlockchainID: bc.ID.String(),
				SubnetID: bc.SubnetID.String(), Network: avanet.TestnetName}})
	}
	return out, known
}

// startDevChain starts one embedded chain and serves its JSON-RPC: the
// dev chain at /ext/bc/C/rpc, every chain at its paths.
func (b *builder) startDevChain(ctx context.Context, spec devChain) (*evm.Chain, error) {
	if b.wired.devChain == nil {
		opts := spec.opts
		b.wired.devChain = &opts
	}
	chain, err := evm.New(ctx, spec.opts)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", spec.name, err)
	}
	b.opened(spec.name, chain.Close)
	h := chain.Handler()
	// One in-process client serves every WebSocket subscription of the
	// chain: the edge shares each of its subscriptions between the clients
	// that subscribe alike.
	subs := b.devClient(spec.name+" subscriptions", chain)
	if b.evmRPC == nil {
		b.evmRPC = h
		b.evmSubs["/ext/bc/C/rpc"] = subs
	}
	for _, p := range spec.paths {
		b.evmPaths[p] = h
		b.evmSubs[p] = subs
	}
	return chain, nil
}

// devClient is an in-process client of chain for the indexer, closed with
// the rest.
func (b *builder) devClient(name string, chain *evm.Chain) *rpc.Client {
	c := chain.Client()
	b.opened(name+" client", func() error { c.Close(); return nil })
	return c
}

// ServesEVM reports whether path is the JSON-RPC endpoint of one of the
// local world's own EVM chains besides /ext/bc/C/rpc (a devnet chain's
// /ext/bc/<blockchainId>/rpc or its alias's), answered locally when the
// node service is.
func (h *Handler) ServesEVM(path string) bool {
	_, ok := h.opts.EVMPaths[path]
	return ok && h.opts.LocalMode[catalog.Node]
}

// EVMSubscriber returns the in-process client that serves eth_subscribe
// for the local world's EVM chain at path (/ext/bc/C/rpc, a devnet chain's
// /ext/bc/<blockchainId>/rpc or its alias's), when the node service is
// local; nil otherwise. The Handler closes it.
func (h *Handler) EVMSubscriber(path string) *rpc.Client {
	if !h.opts.LocalMode[catalog.Node] {
		return nil
	}
	return h.opts.EVMSubs[path]
}

// evmHandler is the handler of an EVM JSON-RPC request on path.
func (h *Handler) evmHandler(path string) http.Handler {
	if eh, ok := h.opts.EVMPaths[path]; ok {
		return eh
	}
	return h.rpc["evm"]
}
