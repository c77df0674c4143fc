package catalog

import (
	"net/http"

	"github.com/avaedge/avaedge/avanet"
)

// Enumerations of the Metrics API (popsicle.json), in its order.
var (
	// RollingWindowMetrics are popsicle.json's ChainRollingWindowMetric.
	RollingWindowMetrics = []string{"gasUsed", "txCount", "avgGps", "maxGps", "avgTps", "maxTps", "avgGasPrice",
		"maxGasPrice", "feesPaid", "contracts", "deployers", "activeAddresses", "activeSenders"}
	// StakingMetrics are popsicle.json's NetworkMetric.
	StakingMetrics = []string{"delegatorCount", "delegatorWeight", "validatorCount", "validatorWeight"}
	// ICMGroupings are the groupBy values of the ICM summary and series.
	ICMGroupings = []string{"srcBlockchainId", "destBlockchainId", "srcBlockchainId,destBlockchainId"}
)

// metricsRoutes returns the Metrics API's routes (popsicle.json's GETs).
func metricsRoutes() []Route {
	get := http.MethodGet
	// An L1 validator fee series: a metric of its enum over a time range.
	l1Series := func(name, path string, names []string, params ...Param) Route {
		return rest(Metrics, name, get, path, 100, metrics,
			append(params, pathP("metric", names...), startTime, endTime)...)
	}
	icmFilters := []Param{queryP("srcBlockchainId"), queryP("destBlockchainId"), enumP("groupBy", ICMGroupings), netQuery}
	return []Route{
		rest(Metrics, "listChains", get, "/v2/chains", 1, metrics, pageToken, netQuery),
		rest(Metrics, "getChain", get, "/v2/chains/{chainId}", 1, metrics, chainID),
		withCheck(rest(Metrics, "getEvmChainMetrics", get, "/v2/chains/{chainId}/metrics/{metric}", 100, metrics,
			chainID, pathP("metric", MetricNames...), startTime, endTime,
			enumP("timeInterval", TimeIntervals), pageToken, pageSize(2160, "100")), dayOnlyRule),
		rest(Metrics, "getEvmChainRollingWindowMetrics", get, "/v2/chains/{chainId}/rollingWindowMetrics/{metric}", 100, metrics,
			chainID, pathP("metric", RollingWindowMetrics...)),
		rest(Metrics, "getICMTimeseries", get, "/v2/icm/timeseries", 100, metrics,
			append([]Param{startTime, endTime, enumP("timeInterval", TimeIntervals), pageToken, pageSize(2160, "100")}, icmFilters...)...),
		rest(Metrics, "getICMSummary", get, "/v2/icm/summary", 100, metrics, icmFilters...),
		rest(Metrics, "getStakingMetrics", get, "/v2/networks/{network}/metrics/{metric}", 100, metrics,
			network, pathP("metric", StakingMetrics...), startTime, endTime, pageToken, pageSize(2160, "100"),
			Param{Name: "subnetId", Default: avanet.PChainID}),
		l1Series("getTotalL1ValidatorMetrics", "/v2/validators/metrics/{metric}",
			[]string{"totalCumulativeFeesDaily", "totalValidatorFeesDaily", "totalPayingValidatorsDaily"}),
		l1Series("getMetricsByValidationId", "/v2/validation/{l1ValidationId}/metrics/{metric}",
			[]string{"validationCumulativeFeesDaily", "validationFeesDaily"}, pathP("l1ValidationId")),
		l1Series("getMetricsByNodeId", "/v2/validator/{nodeId}/metrics/{metric}",
			[]string{"perNodeCumulativeFeesPaid", "perNodeDailyFeesPaid"}, pathP("nodeId")),
		l1Series("getMetricsBySubnetId", "/v2/subnet/{subnetId}/metrics/{metric}",
			[]string{"perSubnetDailyFeesPaid", "perSubnetCumulativeFeesPaid", "perSubnetPayingValidators"}, pathP("subnetId")),
		rest(Metrics, "getAddressesByBtcbBridged", get, "/v2/chains/43114/btcb/bridged:getAddresses", 500, metrics,
			Param{Name: "threshold", Required: true}, pageToken, pageSize(5000, "1000")),
		rest(Metrics, "getValidatorsByDateRange", get, "/v2/subnets/{subnetId}/validators:getAddresses", 500, metrics,
			pathP("subnetId"), startTime, endTime, pageToken, pageSize(5000, "1000"), netQuery),
	}
}
