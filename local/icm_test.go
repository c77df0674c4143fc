package local

import (
	"context"
	"log/slog"
	"slices"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"github.com/avaedge/avaedge/avanet"
	"github.com/avaedge/avaedge/catalog"
	"github.com/avaedge/avaedge/local/source/evmindex"
	"github.com/avaedge/avaedge/local/vocab/avax"
)

// TestBuildICMWiring builds a devnet world and a followed node's world and
// finds the ICM wiring in the components: every indexed chain reads the
// published TeleporterMessenger's events, the C-Chains and the devnet's
// subnet chains with their blockchain ids (an extra EVM chain without one:
// it announces it); the metrics engine reads the index's messages and the
// P-Chain stakes of the world's primary network. (What the dev chain's seed
// sends is local/world/devnet's TestDevChainsICM.)
func TestBuildICMWiring(t *testing.T) {
	node := fakeNode(t, avanet.Local.EVMChainID)
	evmNode := fakeNode(t, 99999)
	log := slog.New(slog.DiscardHandler)
	open := func(opts BuildOptions) *Handler {
		t.Helper()
		opts.Logger = log
		h, err := Build(context.Background(), opts)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { h.Close() })
		return h
	}
	dev := open(BuildOptions{LocalMode: map[catalog.Service]bool{catalog.Data: true, catalog.Metrics: true}}).wired
	followed := open(BuildOptions{Node: node.URL, EVMChains: []EVMChain{{ChainID: 99999, RPC: evmNode.URL}},
		LocalMode: map[catalog.Service]bool{catalog.Metrics: true}}).wired
	localC, err := avax.CB58Decode(avanet.Local.CChainID)
	if err != nil {
		t.Fatal(err)
	}
	for name, w := range map[string]wiring{"devnet": dev, "followed node": followed} {
		for i, c := range w.evmIndex.Chains {
			if !slices.Contains(c.TeleporterAddresses, evmindex.TeleporterMessenger) {
				t.Errorf("%s: chain %d reads the messengers %v; want the TeleporterMessenger's", name, c.ChainID, c.TeleporterAddresses)
			}
			want := common.BytesToHash(localC)
			switch {
			case name == "devnet" && i > 0: // the devnet's subnet chains, under their own ids
				id, err := avax.CB58Decode(w.metrics.Chains[i].BlockchainID)
				if err != nil {
					t.Fatal(err)
				}
				want = common.BytesToHash(id)
			case i > 0:
				want = common.Hash{}
			}
			if c.BlockchainID != want {
				t.Errorf("%s: chain %d has the blockchain id %s; want %s", name, c.ChainID, c.BlockchainID, want)
			}
		}
		if w.metrics.ICM == nil || w.metrics.Holders == nil || w.metrics.Stakes == nil || w.metrics.HRP == nil {
			t.Errorf("%s: the metrics engine reads ICM %v, holders %v, stakes %v, HRP set %v", name, w.metrics.ICM, w.metrics.Holders, w.metrics.Stakes, w.metrics.HRP != nil)
		}
	}
	if got, want := followed.metrics.HRP("mainnet"), avanet.Local.HRP; got != want {
		t.Errorf("followed node: the stakers' HRP for mainnet %q; want the followed network's %q", got, want)
	}
	if got, want := dev.metrics.HRP("mainnet"), avanet.Mainnet.HRP; got != want {
		t.Errorf("devnet: the stakers' HRP for mainnet %q; want %q", got, want)
	}
}
