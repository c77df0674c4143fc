package catalog

import (
	"slices"
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
	// Legacy, for a route neither OpenAPI file lists, names the released
	// SDKs (and versions) that call it: the reason it is published. It is
	// empty for the specs' routes.
	Legacy string
	// Successor, for a legacy route, names the spec route that replaced it
	// (the SDKs' deprecation notes say which): it takes the same parameters,
	// so the local world may answer both with one handler (see the route's
	// comment for any difference in the answer's shape).
	Successor string
}

// Pattern returns the ServeMux pattern of a REST route ("GET /v1/chains").
func (r *Route) Pattern() string { return r.Method + " " + r.Path }

// IsRPC reports whether r is a JSON-RPC method.
func (r *Route) IsRPC() bool { return r.Endpoint != "" }

// Enumerations shared by several routes (glacier.json, popsicle.json;
// docs/facts.md, section 2), each in its spec's order: a validation message
// lists the values in that order, as the services' do.
var (
	Networks   = avanet.DataAPINames
	SortOrders = []string{"asc", "desc"}
	Currencies = []string{"usd", "eur", "aud", "cad", "chf", "clp", "cny", "czk", "dkk", "gbp", "hkd", "huf", "jpy", "nzd"}
	// TxTypes are glacier.json's PrimaryNetworkTxType.
	TxTypes = []string{"AddValidatorTx", "AddSubnetValidatorTx", "AddDelegatorTx", "CreateChainTx", "CreateSubnetTx", "ImportTx",
		"ExportTx", "AdvanceTimeTx", "RewardValidatorTx", "RemoveSubnetValidatorTx", "TransformSubnetTx", "AddPermissionlessValidatorTx",
		"AddPermissionlessDelegatorTx", "BaseTx", "TransferSubnetOwnershipTx", "ConvertSubnetToL1Tx", "RegisterL1ValidatorTx",
		"SetL1ValidatorWeightTx", "DisableL1ValidatorTx", "IncreaseL1ValidatorBalanceTx", "UNKNOWN", "CreateAssetTx", "OperationTx"}
	// PrimaryBlockchainID is glacier.json's BlockchainId: the P-, X- and
	// C-Chain ids of mainnet and fuji, and their aliases.
	PrimaryBlockchainID = []string{
		avanet.PChainID,
		avanet.Mainnet.XChainID, avanet.Fuji.XChainID,
		avanet.Mainnet.CChainID, avanet.Fuji.CChainID,
		"p-chain", "x-chain", "c-chain",
	}
	// XBlockchainID is glacier.json's XChainId.
	XBlockchainID = []string{avanet.Mainnet.XChainID, avanet.Fuji.XChainID, "x-chain"}
	// PBlockchainID is glacier.json's PChainId.
	PBlockchainID      = []string{avanet.PChainID, "p-chain"}
	ValidationStatuses = []string{"completed", "active", "pending", "removed"}
	DelegationStatuses = []string{"completed", "active", "pending"}
	// TxStatuses are glacier.json's TransactionStatus.
	TxStatuses = []string{"failed", "success"}
	// MetricNames are popsicle.json's ChainMetric.
	MetricNames = []string{"activeAddresses", "activeSenders", "cumulativeTxCount", "cumulativeAddresses",
		"cumulativeContracts", "cumulativeDeployers", "contracts", "deployers", "gasUsed", "txCount", "avgGps",
		"maxGps", "avgTps", "maxTps", "avgGasPrice", "maxGasPrice", "feesPaid"}
	TimeIntervals = []string{"hour", "day", "week", "month"}
)

// Parameter builders keep the tables readable.
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
func numP(name string, min, max float64) Param {
	return Param{Name: name, Kind: Number, Min: min, HasMin: true, Max: max, HasMax: true}
}
func boolP(name string) Param { return Param{Name: name, Kind: Boolean} }

// unixTime is a timestamp parameter of the specs: an integer, at least 0,
// at most MaxUnixTime.
func unixTime(name string) Param {
	return Param{Name: name, Kind: Integer, Format: UnixTime, Min: 0, HasMin: true}
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
	// netQuery is the network filter of routes not scoped to one network.
	netQuery = enumP("network", Networks)
	// startBlock and endBlock bound EVM transaction lists.
	startBlock = Param{Name: "startBlock", Kind: Number}
	endBlock   = Param{Name: "endBlock", Kind: Number}
	// startTime and endTime bound lists and series by Unix time.
	startTime = unixTime("startTimestamp")
	endTime   = unixTime("endTimestamp")
	txTypes   = Param{Name: "txTypes", Format: Array, Enum: TxTypes}
)

func rest(svc Service, name, method, path string, cost int64, class cache.Class, params ...Param) Route {
	return Route{Name: name, Service: svc, Method: method, Path: path, Cost: cost, Cache: class, Params: params}
}

// Catalogue returns every route the edge knows, in a fixed order: every
// public read of the Data API's and the Metrics API's OpenAPI files
// (glacier.json, popsicle.json) by area (data_primary.go, data_evm.go,
// data_icm.go, metrics.go, health.go), the legacy reads a released SDK still
// calls (legacy.go), and the node's JSON-RPC methods (rpc.go). The routes'
// costs are the services' published ones (doc.go has the table and the few
// avaedge decides); node costs are avaedge's own (rpc.go).
// Operations of the specs that are not here belong to the operator's account
// or write (and the Metrics API's composite query): never published
// (docs/routes.md lists them).
func Catalogue() []Route {
	routes := slices.Concat(dataPrimary(), dataEVM(), dataICM(), metricsRoutes(), healthRoutes(), legacyRoutes())
	return append(routes, rpcRoutes()...)
}

func withCheck(r Route, check func(Values) []string) Route {
	r.Check = check
	return r
}
