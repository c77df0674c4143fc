// Package avalanchego tests avaedge's local node JSON-RPC with avalanchego
// v1.14.2's own Go clients (api/info, vms/avm) and codecs (the avm block and
// transaction parser, avax.UTXO). It is a separate module so that
// avalanchego's dependencies never enter the main module; it imports only
// main-module packages free of go-ethereum (jsonrpc, local/avax,
// local/source/devnet, local/api/node), since avalanchego and go-ethereum cannot link
// into one binary.
//
// Run it with:
//
//	cd test/avalanchego && go test ./...
//
// Helpers for further tests (for example Warp messages checked with
// vms/platformvm/warp): devnetWorld returns the shared default devnet, and
// serveNode serves the node methods over it on /ext/info and the X-Chain
// paths of an httptest server.
package avalanchego
