package metricsapi

import (
	"encoding/json"
	"math/big"
	"strconv"

	"github.com/avaedge/avaedge/local/api/apireq"
)

// Rolling windows (getEvmChainRollingWindowMetrics, getICMSummary): the
// seconds before now each covers, in popsicle.json's order; allTime has no
// bound.
var rollingWindows = []struct {
	name string
	secs int64
}{
	{"lastHour", 3600}, {"lastDay", daySeconds}, {"lastWeek", 7 * daySeconds}, {"lastMonth", 30 * daySeconds},
	{"last90Days", 90 * daySeconds}, {"lastYear", 365 * daySeconds}, {"allTime", 0},
}

// distinctWindows is how many of rollingWindows the distinct counts
// (activeAddresses, activeSenders) answer: popsicle.json says they support
// only the last hour, day and week.
const distinctWindows = 3

// window accumulates one rolling window's blocks.
type window struct {
	from                 int64 // blocks with a later timestamp count
	gas, txs, contracts  uint64
	gpN                  uint64
	fees, gpSum, gpMax   big.Int
	maxGps, maxTps       float64
	first                uint64 // the window's first block's time, for allTime's span
	hasBlock             bool
	active, senders, dep map[uint32]struct{} // nil: not kept
}

// serveRolling answers getEvmChainRollingWindowMetrics: each window holds
// the blocks whose timestamp is within its length before now (a month is 30
// days, a year 365); allTime holds every indexed block. Sums (gasUsed,
// txCount, feesPaid, contracts) add the window's blocks; deployers,
// activeAddresses and activeSenders count distinct addresses (the last two
// for the last hour, day and week only, as the spec says: the other windows
// are left out); avgGps and avgTps divide the sum by the window's length
// (allTime's: from its first block to now); maxGps, maxTps, maxGasPrice and
// avgGasPrice are the series' definitions over the window's blocks. A
// request reads every block of the longest window: O(blocks indexed).
func (e *Engine) serveRolling(q *apireq.Req) (any, error) {
	v := q.Q
	chainID, metric := v["chainId"], v["metric"]
	now := e.now().Unix()
	ws := make([]window, len(rollingWindows))
	for i, rw := range rollingWindows {
		ws[i].from = now - rw.secs
		if rw.secs == 0 {
			ws[i].from = -1 << 62
		}
	}
	// The sets a window keeps: the active addresses for the windows that
	// answer them, the deployers for every window of deployers.
	active := metric == "activeAddresses" || metric == "activeSenders"
	deployers := metric == "deployers"
	e.mu.RLock()
	sel, ok := e.resolve(chainID)
	if ok {
		for _, cs := range sel.chains {
			for i := len(cs.blocks) - 1; i >= 0; i-- {
				b := &cs.blocks[i]
				k := len(ws)
				for k > 0 && int64(b.ts) > ws[k-1].from {
					k--
				}
				// b counts in windows k.. (the longer ones).
				for j := k; j < len(ws); j++ {
					ws[j].add(cs, i, active && j < distinctWindows, deployers)
				}
				if k == len(ws) {
					break
				}
			}
		}
	}
	e.mu.RUnlock()
	if !ok {
		return nil, apireq.NotFound("chainId " + chainID + " is not a supported chain id, total, mainnet or testnet")
	}
	buf := append(make([]byte, 0, 256), `{"result":{`...)
	n := 0
	for i, rw := range rollingWindows {
		if (metric == "activeAddresses" || metric == "activeSenders") && i >= distinctWindows {
			continue
		}
		if n > 0 {
			buf = append(buf, ',')
		}
		n++
		buf = append(buf, '"')
		buf = append(buf, rw.name...)
		buf = append(buf, `":`...)
		span := rw.secs
		if span == 0 {
			span = 1
			if ws[i].hasBlock {
				span = max(1, now-int64(ws[i].first))
			}
		}
		buf = ws[i].appendValue(buf, metric, span)
	}
	buf = append(buf, "}}"...)
	return json.RawMessage(buf), nil
}

// add counts block i of cs in the window, and its addresses in the active
// sets (active) and deployer set (deployers).
func (wn *window) add(cs *chainState, i int, active, deployers bool) {
	b := &cs.blocks[i]
	wn.gas += b.gas
	wn.txs += uint64(b.txs)
	wn.contracts += uint64(b.contracts)
	wn.gpN += uint64(b.gpN)
	if b.fees != nil {
		wn.fees.Add(&wn.fees, b.fees)
	}
	if b.gpSum != nil {
		wn.gpSum.Add(&wn.gpSum, b.gpSum)
	}
	if b.gpMax != nil && b.gpMax.Cmp(&wn.gpMax) > 0 {
		wn.gpMax.Set(b.gpMax)
	}
	if i > 0 {
		dt := float64(max(1, b.ts-cs.blocks[i-1].ts))
		wn.maxGps = max(wn.maxGps, float64(b.gas)/dt)
		wn.maxTps = max(wn.maxTps, float64(b.txs)/dt)
	}
	if !wn.hasBlock || b.ts < wn.first {
		wn.first, wn.hasBlock = b.ts, true
	}
	if active {
		if wn.active == nil {
			wn.active, wn.senders = map[uint32]struct{}{}, map[uint32]struct{}{}
		}
		for j, id := range b.addrs {
			wn.active[id] = struct{}{}
			if j < int(b.nSenders) {
				wn.senders[id] = struct{}{}
			}
		}
	}
	if deployers {
		if wn.dep == nil {
			wn.dep = map[uint32]struct{}{}
		}
		for _, id := range b.deployers {
			wn.dep[id] = struct{}{}
		}
	}
}

// appendValue appends the window's value of metric; span is its length in
// seconds, for the averages.
func (wn *window) appendValue(buf []byte, metric string, span int64) []byte {
	switch metric {
	case "gasUsed":
		return strconv.AppendUint(buf, wn.gas, 10)
	case "txCount":
		return strconv.AppendUint(buf, wn.txs, 10)
	case "contracts":
		return strconv.AppendUint(buf, wn.contracts, 10)
	case "feesPaid":
		return wn.fees.Append(buf, 10)
	case "maxGasPrice":
		return wn.gpMax.Append(buf, 10)
	case "deployers":
		return strconv.AppendInt(buf, int64(len(wn.dep)), 10)
	case "activeAddresses":
		return strconv.AppendInt(buf, int64(len(wn.active)), 10)
	case "activeSenders":
		return strconv.AppendInt(buf, int64(len(wn.senders)), 10)
	}
	var f float64
	switch metric {
	case "avgGps":
		f = float64(wn.gas) / float64(span)
	case "avgTps":
		f = float64(wn.txs) / float64(span)
	case "maxGps":
		f = wn.maxGps
	case "maxTps":
		f = wn.maxTps
	case "avgGasPrice":
		if wn.gpN > 0 {
			f, _ = new(big.Rat).SetFrac(&wn.gpSum, new(big.Int).SetUint64(wn.gpN)).Float64()
		}
	}
	return strconv.AppendFloat(buf, f, 'f', -1, 64)
}
