package avalanchego

import (
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/avaedge/avaedge/jsonrpc"
	"github.com/avaedge/avaedge/local/api/node"
	"github.com/avaedge/avaedge/local/source/devnet"
	"github.com/avaedge/avaedge/local/world/devnet/primary"
)

// The devnet is deterministic and immutable, so one world serves every test.
var (
	worldOnce sync.Once
	world     *devnet.World
	worldErr  error
)

// devnetWorld returns the default devnet (Config.Seed zero, read as 1),
// built once.
func devnetWorld(t testing.TB) *devnet.World {
	t.Helper()
	worldOnce.Do(func() { world, worldErr = devnet.New(devnet.Config{}) })
	if worldErr != nil {
		t.Fatalf("devnet.New: %v", worldErr)
	}
	return world
}

// xPaths are the X-Chain's endpoint paths on a node.
var xPaths = []string{"/ext/bc/X", "/ext/bc/avm", "/ext/X", "/ext/avm"}

// serveNode starts an httptest server answering the node methods over the
// devnet presented as network ("local", "mainnet", "fuji") on /ext/info,
// the X-Chain paths (also /ext/bc/<X chain id>), /ext/bc/P and
// /ext/bc/C/avax (primary.NodeMethods). It returns the server's
// base URI, for avalanchego's clients, and the node's View.
func serveNode(t testing.TB, network string) (string, *node.View) {
	t.Helper()
	w, err := primary.NodeView(devnetWorld(t), network)
	if err != nil {
		t.Fatalf("NodeView(%q): %v", network, err)
	}
	methods, err := primary.NodeMethods(devnetWorld(t), network)
	if err != nil {
		t.Fatalf("NodeMethods(%q): %v", network, err)
	}
	rpc := jsonrpc.NewServer(methods)
	mux := http.NewServeMux()
	mux.Handle("/ext/info", rpc)
	for _, p := range append(xPaths, "/ext/bc/P", "/ext/P", "/ext/platform", "/ext/bc/platform", "/ext/bc/C/avax") {
		mux.Handle(p, rpc)
	}
	for _, c := range w.Chains {
		for _, a := range c.Aliases {
			if a == "X" {
				mux.Handle("/ext/bc/"+c.ID.String(), rpc)
			}
		}
	}
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL, w
}
