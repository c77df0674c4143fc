package avalanchego

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/api/info"
	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/upgrade"
	"github.com/ava-labs/avalanchego/utils/constants"

	"github.com/avaedge/avaedge/local/source/devnet"
)

func TestInfoClient(t *testing.T) {
	uri, w := serveNode(t, "local")
	c := info.NewClient(uri)
	ctx := context.Background()

	t.Run("getNodeVersion", func(t *testing.T) {
		v, err := c.GetNodeVersion(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(v.Version, "avalanchego/1.14.") || v.DatabaseVersion != "v1.4.5" || v.RPCProtocolVersion != 45 || v.VMVersions["avm"] == "" {
			t.Errorf("got %+v", v)
		}
	})
	t.Run("getNodeID", func(t *testing.T) {
		id, pop, err := c.GetNodeID(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if id.String() != w.Node.ID.String() {
			t.Errorf("got node id %s; want %s", id, w.Node.ID)
		}
		if pop == nil {
			t.Fatal("got no nodePOP")
		}
		if err := pop.Verify(); err != nil {
			t.Errorf("proof of possession: %v", err)
		}
	})
	t.Run("getNodeIP", func(t *testing.T) {
		ip, err := c.GetNodeIP(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if ip != w.Node.IP || !ip.IsValid() {
			t.Errorf("got %v; want %v", ip, w.Node.IP)
		}
	})
	t.Run("getNetworkID", func(t *testing.T) {
		id, err := c.GetNetworkID(ctx)
		if err != nil || id != constants.LocalID {
			t.Errorf("got %d, %v; want %d", id, err, constants.LocalID)
		}
	})
	t.Run("getNetworkName", func(t *testing.T) {
		name, err := c.GetNetworkName(ctx)
		if err != nil || name != constants.LocalName {
			t.Errorf("got %q, %v; want %q", name, err, constants.LocalName)
		}
	})
	t.Run("getBlockchainID", func(t *testing.T) {
		for alias, want := range map[string]string{
			"X": devnet.XChainID.String(), "avm": devnet.XChainID.String(), "P": constants.PlatformChainID.String(),
			"C": devnet.CChainID.String(), devnet.XChainID.String(): devnet.XChainID.String(),
		} {
			got, err := c.GetBlockchainID(ctx, alias)
			if err != nil || got.String() != want {
				t.Errorf("%s: got %s, %v; want %s", alias, got, err, want)
			}
		}
		for _, s := range devnetWorld(t).Subnets() {
			for _, ch := range s.Chains {
				got, err := c.GetBlockchainID(ctx, ch.ID.String())
				if err != nil || got.String() != ch.ID.String() {
					t.Errorf("%s: got %s, %v", ch.ID, got, err)
				}
			}
		}
		if _, err := c.GetBlockchainID(ctx, "x"); err == nil || !strings.Contains(err.Error(), "there is no ID with alias: x") {
			t.Errorf("lower-case x: got %v; want the node's alias error", err)
		}
	})
	t.Run("isBootstrapped", func(t *testing.T) {
		for _, chain := range []string{"X", "P", "C", devnet.XChainID.String()} {
			ok, err := c.IsBootstrapped(ctx, chain)
			if err != nil || !ok {
				t.Errorf("%s: got %v, %v; want true", chain, ok, err)
			}
		}
		_, err := c.IsBootstrapped(ctx, "Q")
		if err == nil || !strings.Contains(err.Error(), "there is no chain with alias/ID 'Q'") {
			t.Errorf("unknown chain: got %v", err)
		}
	})
	t.Run("peers", func(t *testing.T) {
		peers, err := c.Peers(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(peers) != len(w.Peers) || len(peers) == 0 {
			t.Fatalf("got %d peers; want %d", len(peers), len(w.Peers))
		}
		for i, p := range peers {
			want := w.Peers[i]
			if p.ID.String() != want.NodeID.String() || p.IP != want.IP || p.Version != want.Version ||
				uint32(p.ObservedUptime) != want.ObservedUptime || !p.LastReceived.Equal(want.LastReceived) ||
				p.TrackedSubnets.Len() != len(want.TrackedSubnets) {
				t.Errorf("peer %d: got %+v; want %+v", i, p, want)
			}
			if p.ID == ids.NodeID(w.Node.ID) {
				t.Errorf("the node lists itself as a peer")
			}
		}
		first, err := ids.NodeIDFromString(w.Peers[0].NodeID.String())
		if err != nil {
			t.Fatal(err)
		}
		got, err := c.Peers(ctx, []ids.NodeID{ids.GenerateTestNodeID(), first})
		if err != nil || len(got) != 1 || got[0].ID != first {
			t.Errorf("filtered: got %v, %v; want only %s", got, err, first)
		}
	})
	t.Run("uptime", func(t *testing.T) {
		up, err := c.Uptime(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if up.RewardingStakePercentage <= 0 || up.RewardingStakePercentage > 100 ||
			up.WeightedAveragePercentage <= 0 || up.WeightedAveragePercentage > 100 {
			t.Errorf("got %+v", up)
		}
	})
	t.Run("getVMs", func(t *testing.T) {
		vms, err := c.GetVMs(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for id, name := range map[ids.ID]string{constants.AVMID: "avm", constants.PlatformVMID: "platform", constants.EVMID: "evm"} {
			if !slices.Contains(vms[id], name) {
				t.Errorf("vms[%s] = %v; want %q", id, vms[id], name)
			}
		}
	})
	t.Run("upgrades", func(t *testing.T) {
		got, err := c.Upgrades(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := got.Validate(); err != nil {
			t.Error(err)
		}
		want := upgrade.Default
		blk, _ := devnetWorld(t).XBlock(0)
		want.CortinaXChainStopVertexID = ids.ID(blk.Parent)
		if *got != want {
			t.Errorf("got %+v; want %+v", *got, want)
		}
	})
}

// TestInfoImpersonating checks the answers of the devnet presented as
// mainnet and fuji: avalanchego's own schedule and identifiers.
func TestInfoImpersonating(t *testing.T) {
	for _, tc := range []struct {
		network string
		id      uint32
		want    upgrade.Config
		helicon time.Time
	}{
		{"mainnet", constants.MainnetID, upgrade.Mainnet, time.Date(2026, time.September, 22, 15, 0, 0, 0, time.UTC)},
		{"fuji", constants.FujiID, upgrade.Fuji, time.Date(2026, time.July, 28, 15, 0, 0, 0, time.UTC)},
	} {
		t.Run(tc.network, func(t *testing.T) {
			uri, _ := serveNode(t, tc.network)
			c := info.NewClient(uri)
			ctx := context.Background()
			if id, err := c.GetNetworkID(ctx); err != nil || id != tc.id {
				t.Errorf("networkID: got %d, %v; want %d", id, err, tc.id)
			}
			if name, err := c.GetNetworkName(ctx); err != nil || name != tc.network {
				t.Errorf("networkName: got %q, %v", name, err)
			}
			got, err := c.Upgrades(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if err := got.Validate(); err != nil {
				t.Error(err)
			}
			// v1.14.2 leaves Helicon unscheduled; the live networks run
			// v1.15.0, which schedules it (mainnet 2026-09-22T15:00:00Z,
			// fuji 2026-07-28T15:00:00Z).
			want := tc.want
			want.HeliconTime = tc.helicon
			if *got != want {
				t.Errorf("got %+v; want %+v", *got, want)
			}
			xID, err := c.GetBlockchainID(ctx, "X")
			if err != nil {
				t.Fatal(err)
			}
			if want := map[uint32]string{1: "2oYMBNV4eNHyqk2fjjV5nVQLDbtmNJzq5s3qs3Lo6ftnC6FByM", 5: "2JVSBoinj9C2J33VntvzYtVJNZdN2NKiwwKjcumHUWEb5DbBrm"}[tc.id]; xID.String() != want {
				t.Errorf("X: got %s; want %s", xID, want)
			}
		})
	}
}
