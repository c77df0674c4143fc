package avanet_test

import (
	"testing"

	"github.com/avaedge/avaedge/avanet"
	"github.com/avaedge/avaedge/local/vocab/avax"
)

// TestVMIDs: each VM id is its VM's name as 32 zero-padded bytes (test/
// avalanchego checks the primary network's against avalanchego's constants).
func TestVMIDs(t *testing.T) {
	for name, id := range map[string]string{"platformvm": avanet.PlatformVMID, "avm": avanet.AVMID, "evm": avanet.EVMID, "subnetevm": avanet.SubnetEVMID} {
		var want avax.ID
		copy(want[:], name)
		if id != want.String() {
			t.Errorf("the VM id of %s is %s; want %s", name, id, want)
		}
	}
}
