package catalog

import (
	"slices"
	"strconv"
	"strings"
)

// Rules that span several parameters of one route. Each returns the
// messages of the rules it breaks, nil when none.

// atLeastOne returns a check that requires one of names to be sent.
func atLeastOne(names ...string) func(Values) []string {
	return func(v Values) []string {
		for _, n := range names {
			if v[n] != "" {
				return nil
			}
		}
		return []string{"at least one of " + strings.Join(names, ", ") + " must be provided"}
	}
}

// DayOnlyMetrics are the metrics of getEvmChainMetrics that support only
// timeInterval=day. The Metrics API's published spec (popsicle.json) says so
// twice, and the two statements differ: the timeInterval parameter names the
// metrics prefixed with cumulative, max or avg, while the operation's table
// of metrics marks each one, and marks contracts, deployers and feesPaid
// "Only timeInterval=day supported" as well. The per-metric table is the more
// specific statement, and the prefix rule is a subset of it, so avaedge
// enforces the table: the prefixed metrics plus contracts, deployers and
// feesPaid. The edge and the local world both take this rule from here.
var DayOnlyMetrics = []string{
	"cumulativeTxCount", "cumulativeAddresses", "cumulativeContracts", "cumulativeDeployers",
	"contracts", "deployers", "avgGps", "maxGps", "avgTps", "maxTps", "avgGasPrice", "maxGasPrice", "feesPaid",
}

// DayOnly reports whether metric supports only timeInterval=day.
func DayOnly(metric string) bool { return slices.Contains(DayOnlyMetrics, metric) }

// dayOnlyRule refuses any interval but day for the DayOnlyMetrics. An absent
// timeInterval means day.
func dayOnlyRule(v Values) []string {
	m := v["metric"]
	if ti, ok := v["timeInterval"]; ok && ti != "day" && DayOnly(m) {
		return []string{"timeInterval must be day for metric " + m}
	}
	return nil
}

// DefaultQuorumPercentage is the quorum of aggregateSignatures when the body
// gives none.
const DefaultQuorumPercentage = 67

// quorumRule is aggregateSignatures' rule across fields: message or
// justification must be sent, and quorumPercentage + quorumPercentageBuffer
// must not exceed 100. The Data API's spec (SignatureAggregatorRequest) says
// quorumPercentage "defaults to 67 if omitted"; the aggregator behind it reads
// the field as an unsigned integer where 0 cannot be told from omitted, so 0
// means 67 as well: {quorumPercentage: 0, quorumPercentageBuffer: 50} is
// 67 + 50 and refused.
func quorumRule(v Values) []string {
	var msgs []string
	if v["message"] == "" && v["justification"] == "" {
		msgs = append(msgs, "Must provide either message or justification")
	}
	q, _ := strconv.ParseUint(v["quorumPercentage"], 10, 64)
	if q == 0 {
		q = DefaultQuorumPercentage
	}
	b, _ := strconv.ParseUint(v["quorumPercentageBuffer"], 10, 64)
	if q+b > 100 {
		msgs = append(msgs, "quorumPercentage + quorumPercentageBuffer must not be greater than 100")
	}
	return msgs
}
