// Package e2e is avaedge's end-to-end suite: it builds the real avaedge
// binary once, runs it as a process in each mode (local; proxy to a
// recording upstream; proxy with a failing upstream and
// AVAEDGE_LOCAL_NETWORKS; with and without a keys file; with Redis) and
// drives it with real clients: the official AvaCloud SDK and ethers
// (test/sdk), avalanchego v1.14.2's info and avm clients, and a real
// avalanchego node as the node upstream, whose answers avaedge must repeat
// byte for byte.
//
// The cases:
//
//   - TestRoutesLocal, TestRoutesProxy, TestRoutesFailingUpstream,
//     TestRoutesKeysFile, TestRoutesRedis: every catalogued route (parameters
//     built from the local world, see world_test.go) in each mode, with its
//     status, content type and OpenAPI schema (testdata/glacier.json,
//     testdata/popsicle.json) checked, cache hits and upstream calls counted;
//   - TestSDKLocal, TestSDKProxy, TestSDKKeysFile, TestEthers: the official
//     SDK and ethers (test/sdk);
//   - TestEVMListingsDevnet, TestNodeModeSDK, TestNodeModeNoTraces (evm_test.go):
//     ethers' EVM activity read back through @avalanche-sdk/chainkit's EVM
//     reads and Core wallet's @avalabs/glacier-sdk calls under the chain ids
//     43112, 43113 and 43114, in devnet mode and following a node with and
//     without the call tracer, each answer checked against glacier.json and
//     the chain;
//   - TestRealNode*: avaedge in front of a real avalanchego node answers every
//     info.* and avm.* method and the JSON-RPC wire behaviour byte for byte as
//     the node does, first and cached call, and avalanchego's clients and
//     ethers see the same results;
//   - findings_test.go: one test per finding of issue 17.
//
// It is a separate module because avalanchego cannot link with
// go-ethereum. Run it with:
//
//	cd test/e2e && go test ./...
//
// The node binary is built once per machine under the Go build cache
// ($(go env GOCACHE)/avaedge-nodes/avalanchego-v1.14.2); the SDK cases need
// `npm ci` in test/sdk. Without node, npm packages or redis-server the cases
// that need them skip, unless AVAEDGE_TEST_SDK=required or
// AVAEDGE_TEST_REDIS=required (set by .ci/run), when they fail.
package e2e
