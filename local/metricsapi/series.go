package metricsapi

import (
	"math/big"
	"strings"
)

// point is one value of a series.
type point struct {
	ts    int64
	value float64
}

// dayOnly reports whether a metric supports only the day interval: the
// seed's parameter rule names those starting with cumulative, max or avg.
func dayOnly(metric string) bool {
	return strings.HasPrefix(metric, "cumulative") || strings.HasPrefix(metric, "max") || strings.HasPrefix(metric, "avg")
}

// Metrics are the seed's 17 metric names.
var Metrics = []string{"activeAddresses", "activeSenders", "cumulativeTxCount", "cumulativeAddresses",
	"cumulativeContracts", "cumulativeDeployers", "contracts", "deployers", "gasUsed", "txCount", "avgGps",
	"maxGps", "avgTps", "maxTps", "avgGasPrice", "maxGasPrice", "feesPaid"}

func bigFloat(b *big.Int) float64 {
	f, _ := new(big.Float).SetInt(b).Float64()
	return f
}

// series computes metric at interval iv over chains (one chain, or every
// chain of an aggregate), for every bucket from the first indexed block to
// the last, oldest first. Across chains, counts and sums add, distinct
// counts take the union, maxima the maximum, and per-chain rates (avgGps,
// avgTps) add up to the aggregate's throughput.
func series(chains []*chainState, metric, iv string) []point {
	var first, last int64
	found := false
	for _, cs := range chains {
		f, l, ok := cs.span(iv)
		if !ok {
			continue
		}
		if !found || f < first {
			first = f
		}
		if !found || l > last {
			last = l
		}
		found = true
	}
	if !found {
		return nil
	}
	var cum map[int64]float64
	if strings.HasPrefix(metric, "cumulative") {
		cum = cumulative(chains, metric)
	}
	var out []point
	running := 0.0
	for ts := first; ts <= last; ts = nextBucket(ts, iv) {
		if cum != nil {
			if v, ok := cum[ts]; ok {
				running = v
			}
			out = append(out, point{ts, running})
			continue
		}
		out = append(out, point{ts, value(chains, metric, iv, ts)})
	}
	return out
}

func value(chains []*chainState, metric, iv string, ts int64) float64 {
	var bks []*bucket
	var owners []*chainState
	for _, cs := range chains {
		if bk := cs.buckets[iv][ts]; bk != nil {
			bks = append(bks, bk)
			owners = append(owners, cs)
		}
	}
	if len(bks) == 0 {
		return 0
	}
	union := func(pick func(*bucket) map[string]struct{}) float64 {
		if len(bks) == 1 {
			return float64(len(pick(bks[0])))
		}
		all := map[string]struct{}{}
		for _, bk := range bks {
			for a := range pick(bk) {
				all[a] = struct{}{}
			}
		}
		return float64(len(all))
	}
	var v float64
	switch metric {
	case "activeAddresses":
		return union(func(b *bucket) map[string]struct{} { return b.active })
	case "activeSenders":
		return union(func(b *bucket) map[string]struct{} { return b.senders })
	case "deployers":
		return union(func(b *bucket) map[string]struct{} { return b.deployers })
	case "txCount":
		for _, bk := range bks {
			v += float64(bk.txs)
		}
	case "gasUsed":
		for _, bk := range bks {
			v += float64(bk.gas)
		}
	case "contracts":
		for _, bk := range bks {
			v += float64(bk.contracts)
		}
	case "feesPaid":
		sum := new(big.Int)
		for _, bk := range bks {
			sum.Add(sum, bk.fees)
		}
		return bigFloat(sum)
	case "avgGasPrice":
		sum, n := new(big.Int), int64(0)
		for _, bk := range bks {
			sum.Add(sum, bk.gpSum)
			n += bk.txs
		}
		if n == 0 {
			return 0
		}
		return bigFloat(sum) / float64(n)
	case "maxGasPrice":
		m := new(big.Int)
		for _, bk := range bks {
			if bk.gpMax.Cmp(m) > 0 {
				m = bk.gpMax
			}
		}
		return bigFloat(m)
	case "maxGps", "maxTps":
		for _, bk := range bks {
			if metric == "maxGps" {
				v = max(v, bk.maxGps)
			} else {
				v = max(v, bk.maxTps)
			}
		}
	case "avgGps", "avgTps":
		for i, bk := range bks {
			num := float64(bk.gas)
			if metric == "avgTps" {
				num = float64(bk.txs)
			}
			v += num / daySeconds(owners[i], ts, bk)
		}
	}
	return v
}

// daySeconds is the seed's denominator of avgGps and avgTps: the time between
// the last block of the previous day (with blocks) and the last block of this
// day; for the chain's first day, since its first block.
func daySeconds(cs *chainState, day int64, bk *bucket) float64 {
	prev := bk.firstTs
	for d := day - 86400; d >= bucketStart(cs.blocks[0].ts, Day); d -= 86400 {
		if p := cs.buckets[Day][d]; p != nil {
			prev = p.lastTs
			break
		}
	}
	if bk.lastTs <= prev {
		return 1
	}
	return float64(bk.lastTs - prev)
}

// cumulative returns a cumulative metric's value at the end of every day
// that has blocks on some chain (days without change carry the last value).
func cumulative(chains []*chainState, metric string) map[int64]float64 {
	out := map[int64]float64{}
	switch metric {
	case "cumulativeAddresses", "cumulativeDeployers":
		// First day each address (or deployer) appears on any chain.
		firsts := map[string]int64{}
		for _, cs := range chains {
			src := cs.firstSeen
			if metric == "cumulativeDeployers" {
				src = cs.firstDep
			}
			for a, d := range src {
				if f, ok := firsts[a]; !ok || d < f {
					firsts[a] = d
				}
			}
		}
		perDay := map[int64]float64{}
		for _, d := range firsts {
			perDay[d]++
		}
		running := 0.0
		for _, d := range allDays(chains) {
			running += perDay[d]
			out[d] = running
		}
	default: // cumulativeTxCount, cumulativeContracts
		running := 0.0
		for _, d := range allDays(chains) {
			for _, cs := range chains {
				if bk := cs.buckets[Day][d]; bk != nil {
					if metric == "cumulativeTxCount" {
						running += float64(bk.txs)
					} else {
						running += float64(bk.contracts)
					}
				}
			}
			out[d] = running
		}
	}
	return out
}

func allDays(chains []*chainState) []int64 {
	seen := map[int64]bool{}
	var days []int64
	for _, cs := range chains {
		for _, d := range cs.sortedDays() {
			if !seen[d] {
				seen[d] = true
				days = append(days, d)
			}
		}
	}
	sortInt64(days)
	return days
}
