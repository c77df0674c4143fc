package avalanchego

import (
	"encoding/json"
	"testing"

	"github.com/ava-labs/avalanchego/genesis"
	"github.com/ava-labs/avalanchego/utils/constants"

	"github.com/avaedge/avaedge/avanet"
)

// TestNetworkFacts checks avaedge's table of network facts against
// avalanchego's own: its constants (names, HRPs) and the genesis it builds
// for each network (the X- and C-Chain ids are the ids of the genesis's
// CreateChainTxs, the AVAX asset id comes with it, the C-Chain's EVM chain
// id is in its genesis config).
func TestNetworkFacts(t *testing.T) {
	if avanet.PChainID != constants.PlatformChainID.String() {
		t.Errorf("PChainID = %s; avalanchego %s", avanet.PChainID, constants.PlatformChainID)
	}
	for name, vm := range map[string]struct{ ours, theirs string }{
		"platformvm": {avanet.PlatformVMID, constants.PlatformVMID.String()},
		"avm":        {avanet.AVMID, constants.AVMID.String()},
		"evm":        {avanet.EVMID, constants.EVMID.String()},
	} {
		if vm.ours != vm.theirs {
			t.Errorf("the VM id of %s is %s; avalanchego %s", name, vm.ours, vm.theirs)
		}
	}
	for _, n := range avanet.All() {
		t.Run(n.Name, func(t *testing.T) {
			if got := constants.NetworkName(n.ID); got != n.Name {
				t.Errorf("name %q; avalanchego %q", n.Name, got)
			}
			if got := constants.GetHRP(n.ID); got != n.HRP {
				t.Errorf("HRP %q; avalanchego %q", n.HRP, got)
			}
			cfg := genesis.GetConfig(n.ID)
			bytes, avaxID, err := genesis.FromConfig(cfg)
			if err != nil {
				t.Fatal(err)
			}
			if avaxID.String() != n.AVAXAssetID {
				t.Errorf("AVAX asset %s; avalanchego %s", n.AVAXAssetID, avaxID)
			}
			for vm, want := range map[string]string{"X": n.XChainID, "C": n.CChainID} {
				vmID := constants.AVMID
				if vm == "C" {
					vmID = constants.EVMID
				}
				tx, err := genesis.VMGenesis(bytes, vmID)
				if err != nil {
					t.Fatal(err)
				}
				if tx.ID().String() != want {
					t.Errorf("%s-Chain %s; avalanchego %s", vm, want, tx.ID())
				}
			}
			var c struct {
				Config struct {
					ChainID uint64 `json:"chainId"`
				} `json:"config"`
			}
			if err := json.Unmarshal([]byte(cfg.CChainGenesis), &c); err != nil {
				t.Fatal(err)
			}
			if c.Config.ChainID != n.EVMChainID {
				t.Errorf("EVM chain id %d; avalanchego's C-Chain genesis %d", n.EVMChainID, c.Config.ChainID)
			}
		})
	}
}
