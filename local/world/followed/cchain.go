package followed

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/avaedge/avaedge/avanet"
	"github.com/avaedge/avaedge/jsonrpc"
	"github.com/avaedge/avaedge/local/api/evmdata"
	"github.com/avaedge/avaedge/local/api/metricsapi"
	"github.com/avaedge/avaedge/local/source/evmindex"
	"github.com/avaedge/avaedge/local/world"
)

// cChain describes the followed node's C-Chain for the EVM indexer, the EVM
// Data API and the Metrics API, with the chain id the node reports, or,
// when its C-Chain does not answer yet (or any more), the one avanet knows
// for the network: the follower then waits for the node in the background
// (evmindex.ChainOptions.CheckLater) and the index answers meanwhile.
func cChain(ctx context.Context, node string, n avanet.Network, log *slog.Logger) (world.EVMChain, error) {
	const path = "/ext/bc/C/rpc"
	c := jsonrpc.NewClient(node, jsonrpc.ClientOptions{Timeout: 5 * time.Second, MaxAnswerBytes: 1 << 16})
	defer c.Close()
	url := c.Base() + path
	var id string
	var chainID uint64
	if err := c.Call(ctx, path, "eth_chainId", []any{}, &id); err != nil {
		known, ok := avanet.ByID(n.ID)
		if !ok {
			return world.EVMChain{}, fmt.Errorf("the C-Chain at %s (network %d, whose C-Chain id avaedge does not know): %w", url, n.ID, err)
		}
		log.Warn("the followed node's C-Chain does not answer; its routes answer from the index, and it is followed once it answers", "url", url, "err", err)
		chainID = known.EVMChainID
	} else {
		hexID, ok := strings.CutPrefix(id, "0x")
		v, err := strconv.ParseUint(hexID, 16, 64)
		if !ok || err != nil {
			return world.EVMChain{}, fmt.Errorf("the C-Chain at %s: eth_chainId %q", url, id)
		}
		chainID = v
	}
	network := avanet.TestnetName
	if n.ID == avanet.Mainnet.ID {
		network = avanet.Mainnet.Name
	}
	return world.EVMChain{
		Index: evmindex.ChainOptions{ChainID: chainID, RPCURL: url, CheckLater: true},
		Info: evmdata.ChainInfo{ChainID: chainID, ChainName: "C-Chain", Description: "the followed node's C-Chain (indexed by avaedge)", RPCURL: url,
			IsTestnet: n.ID != avanet.Mainnet.ID, PlatformChainID: n.CChainID, SubnetID: avanet.PChainID, NetworkToken: evmdata.AVAXToken},
		Metrics: metricsapi.Chain{EVMChainID: chainID, ChainName: "C-Chain", BlockchainID: n.CChainID, SubnetID: avanet.PChainID, Network: network},
		CChain:  true, Real: true, Pending: true,
	}, nil
}
