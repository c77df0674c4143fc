package main

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"time"

	"github.com/ethereum/go-ethereum/rpc"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/avaedge/avaedge/config"
	"github.com/avaedge/avaedge/local/api/evmdata"
	"github.com/avaedge/avaedge/local/api/metricsapi"
	"github.com/avaedge/avaedge/local/source/evmindex"
	"github.com/avaedge/avaedge/local/source/pindex"
)

// buildNodeIndex opens the index of the followed node's P- and X-Chain
// (local.node) and starts following.
func buildNodeIndex(ctx context.Context, cfg *config.Config, log *slog.Logger, reg prometheus.Registerer) (*pindex.Index, error) {
	path := ""
	if cfg.DataDir != "" {
		path = filepath.Join(cfg.DataDir, "pindex.db")
	}
	ix, err := pindex.Open(ctx, pindex.Options{Node: cfg.Local.Node, Path: path, Registerer: reg, Logger: log})
	if err != nil {
		return nil, err
	}
	ix.Start(context.WithoutCancel(ctx))
	return ix, nil
}

// nodeCChain describes the followed node's C-Chain for the EVM indexer, with
// the chain id the node reports.
func nodeCChain(ctx context.Context, node string, n pindex.Network) (evmindex.ChainOptions, evmdata.ChainInfo, metricsapi.Chain, error) {
	url := node + "/ext/bc/C/rpc"
	cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	c, err := rpc.DialContext(cctx, url)
	if err != nil {
		return evmindex.ChainOptions{}, evmdata.ChainInfo{}, metricsapi.Chain{}, err
	}
	defer c.Close()
	var id string
	if err := c.CallContext(cctx, &id, "eth_chainId"); err != nil {
		return evmindex.ChainOptions{}, evmdata.ChainInfo{}, metricsapi.Chain{}, fmt.Errorf("eth_chainId at %s: %w", url, err)
	}
	var chainID uint64
	if _, err := fmt.Sscanf(id, "0x%x", &chainID); err != nil {
		return evmindex.ChainOptions{}, evmdata.ChainInfo{}, metricsapi.Chain{}, fmt.Errorf("eth_chainId at %s: %q", url, id)
	}
	name := "C-Chain"
	network := "testnet"
	if n.ID == 1 {
		network = "mainnet"
	}
	info := evmdata.ChainInfo{ChainID: chainID, ChainName: name, Description: "the followed node's C-Chain (indexed by avaedge)", RPCURL: url,
		IsTestnet: n.ID != 1, PlatformChainID: n.C, SubnetID: pindex.PrimaryNetworkID,
		NetworkToken: evmdata.NetworkToken{Name: "Avalanche", Symbol: "AVAX", Decimals: 18}}
	mc := metricsapi.Chain{EVMChainID: chainID, ChainName: name, BlockchainID: n.C, SubnetID: pindex.PrimaryNetworkID, Network: network}
	return evmindex.ChainOptions{ChainID: chainID, RPCURL: url}, info, mc, nil
}
