package devnet

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/core"

	"github.com/avaedge/avaedge/avanet"
	"github.com/avaedge/avaedge/internal/leaktest"
	"github.com/avaedge/avaedge/local/source/devnet/evm"
)

// gethSubscriptionExit: see local's TestBuildFailureClosesEverything.
const gethSubscriptionExit = "eth/filters.(*Subscription).Unsubscribe"

// TestOpen opens the devnet with its embedded chains and finds them as
// world chains: the dev chain first, standing for the C-Chain and served at
// the local C-Chain's path, then every EVM chain the devnet lists, each
// served at its paths with its seeded head to wait for. Close leaves
// nothing running. A world without chains brings none.
func TestOpen(t *testing.T) {
	core.SenderCacher() // process-wide, started by the first chain
	left := leaktest.Take(t).Ignore(gethSubscriptionExit)
	w, err := Open(context.Background(), Options{Chains: true})
	if err != nil {
		t.Fatal(err)
	}
	chains, known := w.EVMChains()
	if len(chains) != 1+len(w.Generated().EVMChains()) || len(known) != len(w.Generated().EVMChains()) {
		t.Fatalf("%d chains, %d known; want the dev chain and the devnet's %d EVM chains", len(chains), len(known), len(w.Generated().EVMChains()))
	}
	for i, c := range chains {
		if c.CChain != (i == 0) || c.Real || c.Pending || c.RPC == nil || c.Head == 0 || len(c.Paths) == 0 || c.Index.Client == nil {
			t.Errorf("chain %d (%d): %+v", i, c.Index.ChainID, c)
		}
	}
	if c := chains[0]; c.Index.ChainID != avanet.Local.EVMChainID || c.Paths[0] != "/ext/bc/"+avanet.Local.CChainID+"/rpc" {
		t.Errorf("the dev chain: %d at %v", c.Index.ChainID, c.Paths)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	left.Check(t)

	w, err = Open(context.Background(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if chains, _ := w.EVMChains(); len(chains) != 0 {
		t.Errorf("without Options.Chains: %d chains", len(chains))
	}
}

// TestOpenFailureClosesEverything fails Open at its embedded chains (a
// block spacing evm.New refuses), after the generated network opened: the
// error names the chain and nothing is left running.
func TestOpenFailureClosesEverything(t *testing.T) {
	left := leaktest.Take(t).Ignore(gethSubscriptionExit)
	_, err := Open(context.Background(), Options{Chains: true, DevChain: evm.Options{BlockSpacing: 500 * time.Millisecond}})
	if err == nil || !strings.Contains(err.Error(), "dev chain") {
		t.Fatalf("Open = %v; want the dev chain's failure", err)
	}
	left.Check(t)
}
