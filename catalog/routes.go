package catalog

import (
	"net/http"
	"time"

	"github.com/avaedge/avaedge/avanet"
	"github.com/avaedge/avaedge/cache"
)

// Service names one of the three services the edge fronts.
type Service string

// The services.
const (
	Data    Service = "data"
	Metrics Service = "metrics"
	Node    Service = "node"
)

// Short names for the cache classes, to keep the table below readable.
const (
	immutable = cache.Immutable
	medium    = cache.Medium
	short     = cache.Short
	metrics   = cache.Metrics
	never     = cache.Never
)

// Route is one entry of the catalogue: a REST operation, or one JSON-RPC
// method of a node endpoint. Routes are immutable once built.
type Route struct {
	// Name is the operation's name: the OpenAPI operationId for REST routes
	// ("getLatestBlocks"), the method for JSON-RPC ("info.getNetworkID").
	Name    string
	Service Service
	// Method and Path form the Go 1.22 ServeMux pattern of a REST route. For
	// a JSON-RPC method Path is the canonical endpoint path and Endpoint names
	// the endpoint (see NodeEndpoints).
	Method   string
	Path     string
	Endpoint string
	Params   []Param
	// Cost is the route's price in compute units (CU).
	Cost int64
	// Cache is the route's freshness class.
	Cache cache.Class
	// TTL, when positive, replaces the freshness (and the stale-while-
	// revalidate window) of the route's class; zero keeps the class's
	// default. It is set by a route override (see Override).
	TTL time.Duration
	// Check, when set, applies rules that span several parameters and
	// returns their messages.
	Check func(v Values) []string
}

// Pattern returns the ServeMux pattern of a REST route ("GET /v1/chains").
func (r *Route) Pattern() string { return r.Method + " " + r.Path }

// IsRPC reports whether r is a JSON-RPC method.
func (r *Route) IsRPC() bool { return r.Endpoint != "" }

// NodeEndpoints maps each JSON-RPC endpoint name to the paths it answers on.
// "{chain}" stands for a blockchain id that must be one of XChainIDs.
var NodeEndpoints = map[string][]string{
	"info": {"/ext/info"},
	"avm":  {"/ext/bc/X", "/ext/bc/avm", "/ext/X", "/ext/avm", "/ext/bc/{chain}"},
	"evm":  {"/ext/bc/C/rpc"},
}

// XChainIDs are the X-Chain blockchain ids the avm endpoint accepts in place
// of the alias: mainnet, fuji and the local network (docs/facts.md, section 2).
var XChainIDs = []string{avanet.Mainnet.XChainID, avanet.Fuji.XChainID, avanet.Local.XChainID}

// Enumerations shared by several routes (glacier.json; docs/facts.md, section 2).
var (
	Networks   = avanet.DataAPINames
	SortOrders = []string{"asc", "desc"}
	Currencies = []string{"usd", "eur", "aud", "cad", "chf", "clp", "cny", "czk", "dkk", "gbp", "hkd", "huf", "jpy", "nzd"}
	// TxTypes are glacier.json's PrimaryNetworkTxType.
	TxTypes = []string{"AddValidatorTx", "AddSubnetValidatorTx", "AddDelegatorTx", "CreateChainTx", "CreateSubnetTx", "ImportTx",
		"ExportTx", "AdvanceTimeTx", "RewardValidatorTx", "RemoveSubnetValidatorTx", "TransformSubnetTx", "AddPermissionlessValidatorTx",
		"AddPermissionlessDelegatorTx", "BaseTx", "TransferSubnetOwnershipTx", "ConvertSubnetToL1Tx", "RegisterL1ValidatorTx",
		"SetL1ValidatorWeightTx", "DisableL1ValidatorTx", "IncreaseL1ValidatorBalanceTx", "UNKNOWN", "CreateAssetTx", "OperationTx"}
	PrimaryBlockchainID = []string{
		avanet.PChainID,
		avanet.Mainnet.XChainID, avanet.Fuji.XChainID,
		avanet.Mainnet.CChainID, avanet.Fuji.CChainID,
		"p-chain", "x-chain", "c-chain",
	}
	XBlockchainID      = []string{avanet.Mainnet.XChainID, avanet.Fuji.XChainID, "x-chain"}
	ValidationStatuses = []string{"completed", "active", "pending", "removed"}
	DelegationStatuses = []string{"completed", "active", "pending"}
	MetricNames        = []string{"activeAddresses", "activeSenders", "cumulativeTxCount", "cumulativeAddresses",
		"cumulativeContracts", "cumulativeDeployers", "contracts", "deployers", "gasUsed", "txCount", "avgGps",
		"maxGps", "avgTps", "maxTps", "avgGasPrice", "maxGasPrice", "feesPaid"}
	TimeIntervals = []string{"hour", "day", "week", "month"}
)

// Parameter builders keep the table below readable.
func pathP(name string, enum ...string) Param {
	return Param{Name: name, In: Path, Required: true, Enum: enum}
}
func queryP(name string) Param { return Param{Name: name} }
func enumP(name string, enum []string) Param {
	return Param{Name: name, Enum: enum}
}
func pageSize(max float64, def string) Param {
	return Param{Name: "pageSize", Kind: Integer, Min: 1, HasMin: true, Max: max, HasMax: true, Default: def}
}
func intP(name string, min float64) Param {
	return Param{Name: name, Kind: Integer, Min: min, HasMin: true}
}
func numP(name string, min, max float64) Param {
	return Param{Name: name, Kind: Number, Min: min, HasMin: true, Max: max, HasMax: true}
}

var (
	network   = pathP("network", Networks...)
	pageToken = queryP("pageToken")
	sortOrder = enumP("sortOrder", SortOrders)
	chainID   = pathP("chainId")
	address   = pathP("address")
	currency  = enumP("currency", Currencies)
	nodeIDs   = Param{Name: "nodeIds", Format: List}
	addrList  = Param{Name: "addresses", Format: AddressList}
)

func rest(svc Service, name, method, path string, cost int64, class cache.Class, params ...Param) Route {
	return Route{Name: name, Service: svc, Method: method, Path: path, Cost: cost, Cache: class, Params: params}
}

func rpc(endpoint, name string, cost int64, class cache.Class) Route {
	return Route{Name: name, Service: Node, Method: http.MethodPost, Path: NodeEndpoints[endpoint][0],
		Endpoint: endpoint, Cost: cost, Cache: class}
}

// Catalogue returns every route the edge knows, in a fixed order: the 18
// Data API routes of docs/facts.md plus /v1/chains, /v1/chains/{chainId},
// listValidators and getSubnetById; the Metrics routes; and each Info and X-Chain JSON-RPC
// method, plus the EVM block, transaction and ERC-20 balance routes the local
// index answers too. Data API costs are those of the Data API's "Rate Limits"
// page (docs/facts.md, section 1); metrics costs
// those of the Metrics API's "Rate Limits" page (avg_tps priced like a metric); node
// costs are avaedge's own (see the README): 1 for constant answers, 10 for a
// lookup, 20 for balances, 50 for UTXO pages.
func Catalogue() []Route {
	get := http.MethodGet
	routes := []Route{
		// Data API: the 18 primary routes of docs/facts.md, section 2.
		withCheck(rest(Data, "aggregateSignatures", http.MethodPost, "/v1/signatureAggregator/{network}/aggregateSignatures", 20, never,
			network,
			Param{Name: "message", In: Body, Format: Hex},
			Param{Name: "justification", In: Body, Format: Hex},
			Param{Name: "signingSubnetId", In: Body},
			Param{Name: "quorumPercentage", In: Body, Kind: Integer, Min: 0, HasMin: true, Max: 100, HasMax: true, Default: "67"},
			Param{Name: "quorumPercentageBuffer", In: Body, Kind: Integer, Min: 0, HasMin: true, Max: 100, HasMax: true, Default: "0"},
			Param{Name: "pChainHeight", In: Body, Kind: Integer, Min: 0, HasMin: true, Default: "0"},
		), quorumRule),
		rest(Data, "getAggregatedSignatures", get, "/v1/signatureAggregator/{network}/aggregateSignatures/{txHash}", 20, short,
			network, pathP("txHash")),
		rest(Data, "getDeploymentTransaction", get, "/v1/chains/{chainId}/contracts/{address}/transactions:getDeployment", 20, immutable,
			chainID, address, currency),
		rest(Data, "listSubnets", get, "/v1/networks/{network}/subnets", 20, medium,
			network, pageToken, pageSize(10000, "100"), sortOrder),
		rest(Data, "getSubnetById", get, "/v1/networks/{network}/subnets/{subnetId}", 20, medium,
			network, pathP("subnetId")),
		rest(Data, "getUtxosByAddresses", get, "/v1/networks/{network}/blockchains/{blockchainId}/utxos", 100, medium,
			network, pathP("blockchainId", PrimaryBlockchainID...), addrList, pageToken, pageSize(100, "10"),
			queryP("assetId"), Param{Name: "minUtxoAmount", Kind: Number, Min: 0, HasMin: true},
			Param{Name: "includeSpent", Kind: Boolean}, enumP("sortBy", []string{"timestamp", "amount"}), sortOrder),
		rest(Data, "listErc1155Transactions", get, "/v1/chains/{chainId}/addresses/{address}/transactions:listErc1155", 20, short,
			chainID, address, Param{Name: "startBlock", Kind: Number}, Param{Name: "endBlock", Kind: Number}, pageToken, pageSize(100, "10")),
		rest(Data, "listTransfers", get, "/v1/chains/{chainId}/tokens/{address}/transfers", 20, short,
			chainID, address, Param{Name: "startBlock", Kind: Number}, Param{Name: "endBlock", Kind: Number}, pageToken, pageSize(100, "10")),
		rest(Data, "listErc1155Balances", get, "/v1/chains/{chainId}/addresses/{address}/balances:listErc1155", 20, short,
			chainID, address, queryP("blockNumber"), pageToken, pageSize(500, "10"), queryP("contractAddress")),
		rest(Data, "listErc721Balances", get, "/v1/chains/{chainId}/addresses/{address}/balances:listErc721", 20, short,
			chainID, address, pageToken, pageSize(500, "10"), queryP("contractAddress")),
		rest(Data, "getNativeBalance", get, "/v1/chains/{chainId}/addresses/{address}/balances:getNative", 20, short,
			chainID, address, queryP("blockNumber"), currency),
		withCheck(rest(Data, "listPendingPrimaryNetworkRewards", get, "/v1/networks/{network}/rewards:listPending", 100, medium,
			network, addrList, nodeIDs, pageToken, pageSize(100, "10"), sortOrder), atLeastOne("addresses", "nodeIds")),
		rest(Data, "getSingleValidatorDetails", get, "/v1/networks/{network}/validators/{nodeId}", 20, medium,
			network, pathP("nodeId"), pageToken, pageSize(100, "10"), enumP("validationStatus", ValidationStatuses), sortOrder),
		rest(Data, "listDelegators", get, "/v1/networks/{network}/delegators", 20, medium,
			network, pageToken, pageSize(100, "10"), Param{Name: "rewardAddresses", Format: AddressList}, sortOrder,
			enumP("delegationStatus", DelegationStatuses), nodeIDs),
		rest(Data, "getVertexByHeight", get, "/v1/networks/{network}/blockchains/{blockchainId}/vertices:listByHeight", 20, immutable,
			network, pathP("blockchainId", XBlockchainID...), Param{Name: "vertexHeight", Kind: Integer, Required: true, Min: 0, HasMin: true},
			pageToken, pageSize(100, "10"), sortOrder),
		// P- and X-Chain blocks and transactions (costs of docs/facts.md).
		rest(Data, "listLatestPrimaryNetworkBlocks", get, "/v1/networks/{network}/blockchains/{blockchainId}/blocks", 20, short,
			network, pathP("blockchainId", PrimaryBlockchainID...), intP("startTimestamp", 0), intP("endTimestamp", 0),
			pageToken, pageSize(100, "10")),
		rest(Data, "getBlockById", get, "/v1/networks/{network}/blockchains/{blockchainId}/blocks/{blockId}", 100, immutable,
			network, pathP("blockchainId", PrimaryBlockchainID...), pathP("blockId")),
		rest(Data, "listLatestPrimaryNetworkTransactions", get, "/v1/networks/{network}/blockchains/{blockchainId}/transactions", 100, short,
			network, pathP("blockchainId", PrimaryBlockchainID...), addrList, queryP("l1ValidationId"),
			Param{Name: "txTypes", Format: List, Enum: TxTypes}, intP("startTimestamp", 0), intP("endTimestamp", 0),
			pageToken, pageSize(100, "10"), sortOrder),
		rest(Data, "listL1Validators", get, "/v1/networks/{network}/l1Validators", 20, medium,
			network, pageToken, pageSize(100, "10"), queryP("l1ValidationId"), Param{Name: "includeInactiveL1Validators", Kind: Boolean},
			queryP("nodeId"), queryP("subnetId")),
		rest(Data, "getTxByHash", get, "/v1/networks/{network}/blockchains/{blockchainId}/transactions/{txHash}", 20, immutable,
			network, pathP("blockchainId", PrimaryBlockchainID...), pathP("txHash")),
		rest(Data, "getLatestBlocks", get, "/v1/chains/{chainId}/blocks", 10, short,
			chainID, pageToken, pageSize(100, "10")),
		rest(Data, "listPrimaryNetworkBlocksByNodeId", get, "/v1/networks/{network}/blockchains/{blockchainId}/nodes/{nodeId}/blocks", 20, medium,
			network, pathP("blockchainId", PrimaryBlockchainID...), pathP("nodeId"), intP("startTimestamp", 0), intP("endTimestamp", 0),
			pageToken, pageSize(100, "10")),
		rest(Data, "getTokenDetails", get, "/v1/chains/{chainId}/nfts/collections/{address}/tokens/{tokenId}", 20, medium,
			chainID, address, pathP("tokenId")),
		rest(Data, "getChainIdsForAddresses", get, "/v1/networks/{network}/addresses:listChainIds", 100, medium,
			network, Param{Name: "addresses", Required: true, Format: AddressList}),
		// Chains and validators of the real API.
		rest(Data, "supportedChains", get, "/v1/chains", 1, medium,
			enumP("network", Networks), enumP("feature", []string{"nftIndexing", "webhooks", "teleporter"})),
		rest(Data, "getChainInfo", get, "/v1/chains/{chainId}", 1, medium, chainID),
		rest(Data, "listValidators", get, "/v1/networks/{network}/validators", 20, medium,
			network, pageToken, pageSize(100, "10"), nodeIDs,
			enumP("sortBy", []string{"blockIndex", "delegationCapacity", "timeRemaining", "delegationFee", "uptimePerformance"}),
			sortOrder, enumP("validationStatus", ValidationStatuses),
			queryP("minDelegationCapacity"), queryP("maxDelegationCapacity"),
			numP("minTimeRemaining", 0, 2147483647), numP("maxTimeRemaining", 0, 2147483647),
			numP("minFeePercentage", 2, 100), numP("maxFeePercentage", 2, 100),
			numP("minUptimePerformance", 0, 100), numP("maxUptimePerformance", 0, 100),
			queryP("subnetId")),

		// EVM routes of the real API the local index also answers.
		rest(Data, "getBlock", get, "/v1/chains/{chainId}/blocks/{blockId}", 10, immutable, chainID, pathP("blockId")),
		rest(Data, "getTransaction", get, "/v1/chains/{chainId}/transactions/{txHash}", 20, immutable, chainID, pathP("txHash")),
		rest(Data, "listErc20Balances", get, "/v1/chains/{chainId}/addresses/{address}/balances:listErc20", 20, short,
			chainID, address, queryP("blockNumber"), pageToken, pageSize(500, "10"),
			Param{Name: "filterSpamTokens", Kind: Boolean, Default: "true"}, Param{Name: "contractAddresses", Format: List}, currency),

		// Metrics API.
		withCheck(rest(Metrics, "getEvmChainMetrics", get, "/v2/chains/{chainId}/metrics/{metric}", 100, metrics,
			chainID, pathP("metric", MetricNames...), intP("startTimestamp", 0), intP("endTimestamp", 0),
			enumP("timeInterval", TimeIntervals), pageToken, pageSize(2160, "100")), dayOnlyRule),
		rest(Metrics, "listChains", get, "/v2/chains", 1, metrics, pageToken, enumP("network", Networks)),
		rest(Metrics, "getChain", get, "/v2/chains/{chainId}", 1, metrics, chainID),
		rest(Metrics, "getAvgTps", get, "/v1/avg_tps/{chainId}", 100, metrics, chainID, pageToken),

		// Node JSON-RPC: the Info API.
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
		// The X-Chain API.
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
		// The embedded EVM chain's Ethereum JSON-RPC, forwarded whole: one
		// entry for every eth_/net_/web3_ method, batches included.
		rpc("evm", "evm.rpc", 1, never),
	}
	return routes
}

func withCheck(r Route, check func(Values) []string) Route {
	r.Check = check
	return r
}
