package metricsapi

import (
	"math/big"
	"strconv"
	"strings"
)

// selection is the chains one chainId names: one chain, or the members of
// an aggregate (group non-nil).
type selection struct {
	chains []*chainState
	group  *group
}

// span returns the first and last bucket starts of interval iv over the
// selected chains, or false when none has blocks.
func (s selection) span(iv interval) (first, last int64, ok bool) {
	for _, cs := range s.chains {
		f, l, has := cs.span(iv)
		if !has {
			continue
		}
		if !ok || f < first {
			first = f
		}
		if !ok || l > last {
			last = l
		}
		ok = true
	}
	return first, last, ok
}

// evaluator writes the values of one metric at one interval over a
// selection. The caller holds the Engine's read lock while it is used.
type evaluator struct {
	sel    selection
	metric string
	iv     interval
	// running counts distinct ids through a day for cumulativeAddresses
	// and cumulativeDeployers over a group.
	running func(int64) uint64
	// scratch, reused from point to point
	bks   []*bucket
	union map[uint32]struct{}
	sum   big.Int
}

func newEvaluator(sel selection, metric string, iv interval) *evaluator {
	ev := &evaluator{sel: sel, metric: metric, iv: iv}
	if sel.group != nil {
		switch metric {
		case "cumulativeAddresses":
			ev.running = sel.group.addrs.running()
		case "cumulativeDeployers":
			ev.running = sel.group.deps.running()
		}
	}
	return ev
}

// appendValue appends the JSON number of the bucket starting at ts.
func (ev *evaluator) appendValue(buf []byte, ts int64) []byte {
	if strings.HasPrefix(ev.metric, "cumulative") {
		return strconv.AppendUint(buf, ev.cumulative(ts), 10)
	}
	ev.bks = ev.bks[:0]
	for _, cs := range ev.sel.chains {
		if bk := cs.bucketAt(ev.iv, ts); bk != nil {
			ev.bks = append(ev.bks, bk)
		}
	}
	var n uint64
	var f float64
	switch ev.metric {
	case "activeAddresses":
		return strconv.AppendInt(buf, int64(ev.distinct(func(b *bucket) *idset { return &b.active })), 10)
	case "activeSenders":
		return strconv.AppendInt(buf, int64(ev.distinct(func(b *bucket) *idset { return &b.senders })), 10)
	case "deployers":
		return strconv.AppendInt(buf, int64(ev.distinct(func(b *bucket) *idset { return &b.deps })), 10)
	case "txCount":
		for _, b := range ev.bks {
			n += b.txs
		}
		return strconv.AppendUint(buf, n, 10)
	case "gasUsed":
		for _, b := range ev.bks {
			n += b.gas
		}
		return strconv.AppendUint(buf, n, 10)
	case "contracts":
		for _, b := range ev.bks {
			n += b.contracts
		}
		return strconv.AppendUint(buf, n, 10)
	case "feesPaid":
		ev.sum.SetInt64(0)
		for _, b := range ev.bks {
			ev.sum.Add(&ev.sum, &b.fees)
		}
		return ev.sum.Append(buf, 10)
	case "maxGasPrice":
		ev.sum.SetInt64(0)
		for _, b := range ev.bks {
			if b.gpMax.Cmp(&ev.sum) > 0 {
				ev.sum.Set(&b.gpMax)
			}
		}
		return ev.sum.Append(buf, 10)
	case "avgGasPrice":
		ev.sum.SetInt64(0)
		for _, b := range ev.bks {
			ev.sum.Add(&ev.sum, &b.gpSum)
			n += b.gpN
		}
		if n > 0 {
			f, _ = new(big.Rat).SetFrac(&ev.sum, new(big.Int).SetUint64(n)).Float64()
		}
	case "maxGps":
		for _, b := range ev.bks {
			f = max(f, b.maxGps)
		}
	case "maxTps":
		for _, b := range ev.bks {
			f = max(f, b.maxTps)
		}
	case "avgGps":
		for _, b := range ev.bks {
			f += float64(b.gas) / avgSpan(b)
		}
	case "avgTps":
		for _, b := range ev.bks {
			f += float64(b.txs) / avgSpan(b)
		}
	}
	return strconv.AppendFloat(buf, f, 'f', -1, 64)
}

// avgSpan is the divisor of avgGps and avgTps in seconds: from the chain's
// last block before the day (or the day's first block when there is none) to
// the day's last block, at least 1.
func avgSpan(b *bucket) float64 {
	from := b.firstTs
	if b.hasPrev {
		from = b.prevTs
	}
	return float64(max(1, b.lastTs-from))
}

// distinct returns the size of the union of the picked sets.
func (ev *evaluator) distinct(pick func(*bucket) *idset) int {
	switch len(ev.bks) {
	case 0:
		return 0
	case 1:
		return pick(ev.bks[0]).len()
	}
	if ev.union == nil {
		ev.union = map[uint32]struct{}{}
	}
	clear(ev.union)
	for _, b := range ev.bks {
		pick(b).addTo(ev.union)
	}
	return len(ev.union)
}

// cumulative returns a cumulative metric through the end of day ts.
func (ev *evaluator) cumulative(ts int64) uint64 {
	if ev.running != nil {
		return ev.running(ts)
	}
	var n uint64
	for _, cs := range ev.sel.chains {
		b := cs.dayThrough(ts)
		if b == nil {
			continue
		}
		switch ev.metric {
		case "cumulativeTxCount":
			n += b.cumTxs
		case "cumulativeContracts":
			n += b.cumContracts
		case "cumulativeAddresses":
			n += b.cumAddrs // one chain: the group case uses running
		case "cumulativeDeployers":
			n += b.cumDeployers
		}
	}
	return n
}
