package usage

import (
	"net/http"
	"strconv"

	"github.com/avaedge/avaedge/cache"
	"github.com/avaedge/avaedge/catalog"
)

// The usage routes' operation names (glacier.json; getRpcUsageMetrics is
// the deprecated /v1/rpcUsageMetrics the SDKs still call, answered as
// getSubnetRpcUsageMetrics).
const (
	opUsage      = "getApiUsageMetrics"
	opLogs       = "getApiLogs"
	opSubnetRPC  = "getSubnetRpcUsageMetrics"
	opRPC        = "getRpcUsageMetrics"
	opPrimaryRPC = "getPrimaryNetworkRpcUsageMetrics"
)

// routeCost is the usage routes' published price ("XXL", 200 CU, on the Data
// API's rate-limit page).
const routeCost = 200

func str(name string) catalog.Param { return catalog.Param{Name: name} }

func enum(name string, values ...string) catalog.Param {
	return catalog.Param{Name: name, Enum: values}
}

func timestamp(name string) catalog.Param {
	return catalog.Param{Name: name, Kind: catalog.Integer, Format: catalog.UnixTime, Min: 0, HasMin: true}
}

var (
	rangeParams  = []catalog.Param{timestamp("startTimestamp"), timestamp("endTimestamp")}
	rpcIntervals = enum("timeInterval", "hourly", "daily", "weekly", "monthly")
	requestType  = enum("requestType", "data", "rpc")
)

// Routes are the usage routes, with their parameters exactly as glacier.json
// declares them, for the edge to register, validate and charge like any
// catalogued route. They are answered by Answer, never forwarded.
func Routes() []catalog.Route {
	route := func(name, path string, params ...catalog.Param) catalog.Route {
		return catalog.Route{Name: name, Service: catalog.Data, Method: http.MethodGet, Path: path, Cost: routeCost,
			Cache: cache.Never, Params: params, Check: rangeRule}
	}
	rpcParams := func() []catalog.Param {
		return append([]catalog.Param{rpcIntervals}, append(rangeParams[:2:2],
			enum("groupBy", "rpcMethod", "responseCode", "rlBypassToken"),
			str("chainId"), str("responseCode"), str("rpcMethod"), str("rlBypassApiToken"))...)
	}
	return []catalog.Route{
		route(opUsage, "/v1/apiUsageMetrics", append([]catalog.Param{str("orgId")}, append(rangeParams[:2:2],
			enum("timeInterval", "minute", "hourly", "daily", "weekly", "monthly"),
			enum("groupBy", "requestPath", "responseCode", "chainId", "apiKeyId", "requestType"),
			str("chainId"), str("responseCode"), requestType, str("apiKeyId"), str("requestPath"))...)...),
		route(opLogs, "/v1/apiLogs", append([]catalog.Param{str("orgId")}, append(rangeParams[:2:2],
			str("chainId"), str("responseCode"), requestType, str("apiKeyId"), str("requestPath"), str("pageToken"),
			catalog.Param{Name: "pageSize", Kind: catalog.Integer, Min: 1, HasMin: true, Max: 100, HasMax: true, Default: "10"})...)...),
		route(opSubnetRPC, "/v1/subnetRpcUsageMetrics", rpcParams()...),
		route(opRPC, "/v1/rpcUsageMetrics", rpcParams()...),
		route(opPrimaryRPC, "/v1/primaryNetworkRpcUsageMetrics", append([]catalog.Param{rpcIntervals}, append(rangeParams[:2:2],
			enum("groupBy", "rpcMethod", "requestPath", "responseCode", "country", "continent", "userAgent"),
			str("responseCode"), str("requestPath"), str("country"), str("continent"), str("userAgent"), str("rpcMethod"),
			catalog.Param{Name: "network", Required: true, Enum: catalog.Networks})...)...),
	}
}

// rangeRule refuses a range that ends before it starts.
func rangeRule(v catalog.Values) []string {
	if !v.Has("startTimestamp") || !v.Has("endTimestamp") {
		return nil
	}
	s, _ := strconv.ParseInt(v.Get("startTimestamp"), 10, 64)
	e, _ := strconv.ParseInt(v.Get("endTimestamp"), 10, 64)
	if e < s {
		return []string{"endTimestamp must be greater than or equal to startTimestamp"}
	}
	return nil
}
