package catalog

import (
	"net/http"
	"slices"
	"strings"

	"github.com/avaedge/avaedge/avanet"
	"github.com/avaedge/avaedge/cache"
)

// The node's JSON-RPC endpoints are allow-lists: a call is forwarded (or
// answered locally) only when the catalogue names its method, or the
// operator publishes it to the caller's key (config publish: rpc_methods);
// any other method gets the node's own "method not found" answer at the
// edge and never reaches the upstream.

// NodeEndpoints maps each JSON-RPC endpoint name to the paths it answers on.
// "{chain}" stands for a blockchain id that must be one of XChainIDs.
var NodeEndpoints = map[string][]string{
	"info": {"/ext/info"},
	"avm":  {"/ext/bc/X", "/ext/bc/avm", "/ext/X", "/ext/avm", "/ext/bc/{chain}"},
	"evm":  {"/ext/bc/C/rpc"},
	// The P-Chain's aliases are the node's (avalanchego v1.14.2
	// genesis.Aliases): P, platform and the P-Chain's id, the same on
	// every network.
	"platform": {"/ext/bc/P", "/ext/bc/platform", "/ext/P", "/ext/platform", "/ext/bc/" + avanet.PChainID},
	// The C-Chain's atomic API (coreth's avax service).
	"avax": {"/ext/bc/C/avax"},
}

// XChainIDs are the X-Chain blockchain ids the avm endpoint accepts in place
// of the alias: mainnet, fuji and the local network (docs/facts.md, section 2).
var XChainIDs = []string{avanet.Mainnet.XChainID, avanet.Fuji.XChainID, avanet.Local.XChainID}

// EndpointOf names the JSON-RPC endpoint a request path is served by
// ("info", "avm", "platform", "avax", "evm"), or "" for any other path.
func EndpointOf(path string) string {
	for endpoint, paths := range NodeEndpoints {
		for _, p := range paths {
			if p == path {
				return endpoint
			}
			if prefix, ok := strings.CutSuffix(p, "{chain}"); ok && strings.HasPrefix(path, prefix) && slices.Contains(XChainIDs, path[len(prefix):]) {
				return endpoint
			}
		}
	}
	return ""
}

// EVMNamespaces are the method prefixes of the Ethereum JSON-RPC the EVM
// endpoint serves to every client, those a public RPC serves. Matching is
// exact and case-sensitive, as go-ethereum looks methods up: "ETH_call" is
// not a method. Other namespaces (debug_, trace_, txpool_, admin_,
// personal_, ...) reach the node only where the operator publishes them.
var EVMNamespaces = []string{"eth_", "net_", "web3_"}

// EVMServes reports whether the EVM endpoint serves method to every client.
func EVMServes(method string) bool {
	for _, ns := range EVMNamespaces {
		if strings.HasPrefix(method, ns) && len(method) > len(ns) {
			return true
		}
	}
	return false
}

// EVMRoute is the catalogue name of the EVM endpoint: every call of a method
// EVMServes that has no entry of its own is charged at its cost, and plans
// allow the endpoint by this name.
const EVMRoute = "evm.rpc"

// EVMDebugCost is the price of one call of the debug_ namespace where every
// client may make it (the local dev chain with local.evm.debug): a trace
// re-executes a block up to the traced transaction.
const EVMDebugCost = 100

func rpc(endpoint, name string, cost int64, class cache.Class) Route {
	return Route{Name: name, Service: Node, Method: http.MethodPost, Path: NodeEndpoints[endpoint][0],
		Endpoint: endpoint, Cost: cost, Cache: class}
}

// rpcRoutes are the node's JSON-RPC methods. Their costs are avaedge's own
// (the Data API publishes none; see docs/routes.md): 1 for constant answers,
// 10 for a lookup, 20 for balances and for issuing a transaction, 50 for
// UTXO pages; on the EVM endpoint 1 for a plain read, more for the calls
// that execute code or scan logs, by the work they may do.
func rpcRoutes() []Route {
	return []Route{
		// The Info API (avalanchego v1.14.2 api/info: every method).
		rpc("info", "info.acps", 1, medium),
		rpc("info", "info.isBootstrapped", 1, short),
		rpc("info", "info.getBlockchainID", 1, immutable),
		rpc("info", "info.getNetworkID", 1, immutable),
		rpc("info", "info.getNetworkName", 1, immutable),
		rpc("info", "info.getNodeID", 1, medium),
		rpc("info", "info.getNodeIP", 1, medium),
		rpc("info", "info.getNodeVersion", 1, medium),
		rpc("info", "info.getTxFee", 1, medium),
		rpc("info", "info.getVMs", 1, medium),
		rpc("info", "info.peers", 10, short),
		rpc("info", "info.uptime", 10, short),
		rpc("info", "info.upgrades", 1, medium),
		// The X-Chain API (avalanchego v1.14.2 vms/avm Service: every
		// method). avm.issueTx is the one write: a signed transaction sent to
		// the network, as the public API serves it (xchain.yaml); never
		// cached, never retried. avm.getAddressTxs is not here: the node no
		// longer serves it (it was the deprecated indexer's).
		rpc("avm", "avm.getAllBalances", 20, short),
		rpc("avm", "avm.getAssetDescription", 1, immutable),
		rpc("avm", "avm.getBalance", 20, short),
		rpc("avm", "avm.getBlock", 10, immutable),
		rpc("avm", "avm.getBlockByHeight", 10, immutable),
		rpc("avm", "avm.getHeight", 1, short),
		rpc("avm", "avm.getTx", 10, immutable),
		rpc("avm", "avm.getTxFee", 1, medium),
		rpc("avm", "avm.getTxStatus", 10, short),
		rpc("avm", "avm.getUTXOs", 50, short),
		rpc("avm", "avm.issueTx", 20, never),
		// The P-Chain API (avalanchego v1.14.2 vms/platformvm Service: every
		// method of platformvm.yaml). platform.issueTx is the one write;
		// blocks and transactions by id and a height's block are immutable;
		// sampleValidators draws at random, so it is never cached.
		rpc("platform", "platform.getBalance", 20, short),
		rpc("platform", "platform.getBlock", 10, immutable),
		rpc("platform", "platform.getBlockByHeight", 10, immutable),
		rpc("platform", "platform.getBlockchainStatus", 1, short),
		rpc("platform", "platform.getBlockchains", 10, short),
		rpc("platform", "platform.getCurrentSupply", 1, short),
		rpc("platform", "platform.getCurrentValidators", 50, short),
		rpc("platform", "platform.getFeeConfig", 1, medium),
		rpc("platform", "platform.getFeeState", 1, short),
		rpc("platform", "platform.getHeight", 1, short),
		rpc("platform", "platform.getL1Validator", 10, short),
		rpc("platform", "platform.getMinStake", 1, medium),
		rpc("platform", "platform.getProposedHeight", 1, short),
		rpc("platform", "platform.getRewardUTXOs", 10, short),
		rpc("platform", "platform.getStake", 20, short),
		rpc("platform", "platform.getStakingAssetID", 1, medium),
		rpc("platform", "platform.getSubnet", 10, short),
		rpc("platform", "platform.getSubnets", 10, short),
		rpc("platform", "platform.getTimestamp", 1, short),
		rpc("platform", "platform.getTotalStake", 10, short),
		rpc("platform", "platform.getTx", 10, immutable),
		rpc("platform", "platform.getTxStatus", 10, short),
		rpc("platform", "platform.getUTXOs", 50, short),
		rpc("platform", "platform.getValidatorFeeConfig", 1, medium),
		rpc("platform", "platform.getValidatorFeeState", 1, short),
		rpc("platform", "platform.getValidatorsAt", 50, short),
		// Beyond platformvm.yaml: avalanchego v1.14.2's Service serves it
		// (so the public API nodes do): every subnet's validator set at a
		// height, flattened; priced as several getValidatorsAt.
		rpc("platform", "platform.getAllValidatorsAt", 100, short),
		rpc("platform", "platform.issueTx", 20, never),
		rpc("platform", "platform.sampleValidators", 10, never),
		rpc("platform", "platform.validatedBy", 10, short),
		rpc("platform", "platform.validates", 10, short),
		// The C-Chain's atomic API (coreth's avax service in avalanchego
		// v1.14.2): the UTXOs shared with the other chains, the import and
		// export transactions, and the one write.
		rpc("avax", "avax.getAtomicTx", 10, immutable),
		rpc("avax", "avax.getAtomicTxStatus", 10, short),
		rpc("avax", "avax.getUTXOs", 50, short),
		rpc("avax", "avax.issueTx", 20, never),
		// The C-Chain's Ethereum JSON-RPC (the node's, or in local mode the
		// embedded dev chain's): every eth_, net_ and web3_ method at the cost
		// of evm.rpc, batches of up to 100 calls charged call by call, never
		// cached; and the methods that run the EVM or scan logs at the price
		// of the work one call may do: eth_call and its kin execute up to the
		// node's gas cap (eth_estimateGas and eth_createAccessList execute
		// several times), eth_getLogs scans a block range, eth_simulateV1
		// runs many calls over several blocks.
		rpc("evm", EVMRoute, 1, never),
		rpc("evm", "eth_call", 20, never),
		rpc("evm", "eth_estimateGas", 40, never),
		rpc("evm", "eth_createAccessList", 40, never),
		rpc("evm", "eth_getLogs", 50, never),
		rpc("evm", "eth_simulateV1", 100, never),
	}
}
