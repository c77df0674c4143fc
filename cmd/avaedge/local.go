package main

import (
	"log/slog"
	"net/http"
	"net/netip"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/avaedge/avaedge/catalog"
	"github.com/avaedge/avaedge/config"
	"github.com/avaedge/avaedge/limits"
	"github.com/avaedge/avaedge/local"
	"github.com/avaedge/avaedge/local/source/devnet/evm"
)

// localOptions is the local section as the local world's options.
func localOptions(cfg *config.Config, log *slog.Logger, reg prometheus.Registerer, routes []catalog.Route, localMode map[catalog.Service]bool, nodeNetwork string) local.BuildOptions {
	trusted, e := cfg.TrustedPrefixes(), cfg.Local.EVM
	o := local.BuildOptions{
		Routes:          routes,
		LocalMode:       localMode,
		Networks:        cfg.Local.Networks,
		NodeNetwork:     nodeNetwork,
		Node:            cfg.Local.Node,
		Seed:            cfg.Local.Seed,
		DisableDevChain: cfg.Local.DisableDevChain,
		DevChain: evm.Options{Debug: e.Debug, WritesPerMinute: e.WritesPerMinute, WriteKeys: func(r *http.Request) []string { return limits.RequestIDs(r, trusted) },
			Client: func(r *http.Request) string { return devChainClient(r, trusted) }, CallGasCap: e.CallGasCap,
			CallTimeout: e.CallTimeout.D(), CallBudget: e.CallBudget.D(), CallsPerClient: e.CallsPerClient, FiltersPerClient: e.FiltersPerClient, MaxFilters: e.MaxFilters},
		DataDir:        cfg.DataDir,
		IndexURL:       cfg.Local.IndexURL,
		IndexReadURL:   cfg.Local.IndexReadURL,
		ResetDevChains: e.ResetDevChains,
		PublicURL:      cfg.PublicURL(),
		Registerer:     reg,
		Logger:         log,
	}
	for _, c := range cfg.Local.EVMChains {
		o.EVMChains = append(o.EVMChains, local.EVMChain(c))
	}
	return o
}

// devChainClient names the client of a dev chain request as the edge
// identified it (its key, or its address; limits.Client.Owner), or, for a
// request the edge did not identify, by its address.
func devChainClient(r *http.Request, trusted []netip.Prefix) string {
	if c, ok := limits.FromContext(r.Context()); ok {
		return c.Owner()
	}
	return limits.AddressID(r, trusted)
}
