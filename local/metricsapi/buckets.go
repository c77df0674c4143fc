package metricsapi

import (
	"math/big"
	"sort"
	"time"
)

// Intervals of the seed.
const (
	Hour  = "hour"
	Day   = "day"
	Week  = "week"
	Month = "month"
)

var intervals = []string{Hour, Day, Week, Month}

// bucketStart aligns ts to its interval: the hour; 00:00 UTC; Monday 00:00
// UTC; the first of the month 00:00 UTC.
func bucketStart(ts uint64, interval string) int64 {
	t := int64(ts)
	switch interval {
	case Hour:
		return t - t%3600
	case Day:
		return t - t%86400
	case Week:
		day := t / 86400
		// 1970-01-01 was a Thursday: Monday is 3 days before it.
		return (day - (day+3)%7) * 86400
	}
	y, m, _ := time.Unix(t, 0).UTC().Date()
	return time.Date(y, m, 1, 0, 0, 0, 0, time.UTC).Unix()
}

// nextBucket returns the start of the bucket after start.
func nextBucket(start int64, interval string) int64 {
	switch interval {
	case Hour:
		return start + 3600
	case Day:
		return start + 86400
	case Week:
		return start + 7*86400
	}
	return time.Unix(start, 0).UTC().AddDate(0, 1, 0).Unix()
}

// bucket aggregates one interval of one chain.
type bucket struct {
	txs        int64
	gas        uint64
	fees       *big.Int
	gpSum      *big.Int
	gpMax      *big.Int
	contracts  int64
	active     map[string]struct{}
	senders    map[string]struct{}
	deployers  map[string]struct{}
	maxGps     float64 // per block: gas / seconds since the previous block
	maxTps     float64
	lastTs     uint64 // timestamp of the last block in the bucket
	firstTs    uint64
	newAddrs   int64 // addresses first seen in this bucket (day buckets)
	newDeploys int64 // deployers first seen in this bucket (day buckets)
}

func newBucket() *bucket {
	return &bucket{fees: new(big.Int), gpSum: new(big.Int), gpMax: new(big.Int),
		active: map[string]struct{}{}, senders: map[string]struct{}{}, deployers: map[string]struct{}{}}
}

// chainState is one chain's blocks and buckets.
type chainState struct {
	blocks    []blockRec
	buckets   map[string]map[int64]*bucket // interval -> start -> bucket
	firstSeen map[string]int64             // address -> day it first appeared
	firstDep  map[string]int64             // deployer -> day it first deployed
	lastRun   int64
}

func newChainState() *chainState {
	cs := &chainState{buckets: map[string]map[int64]*bucket{}, firstSeen: map[string]int64{}, firstDep: map[string]int64{}}
	for _, iv := range intervals {
		cs.buckets[iv] = map[int64]*bucket{}
	}
	return cs
}

func (cs *chainState) apply(b blockRec) {
	var prevTs uint64
	hasPrev := len(cs.blocks) > 0
	if hasPrev {
		prevTs = cs.blocks[len(cs.blocks)-1].ts
	}
	cs.blocks = append(cs.blocks, b)
	dt := float64(1)
	if hasPrev && b.ts > prevTs {
		dt = float64(b.ts - prevTs)
	}
	day := bucketStart(b.ts, Day)
	for _, iv := range intervals {
		start := bucketStart(b.ts, iv)
		bk := cs.buckets[iv][start]
		if bk == nil {
			bk = newBucket()
			bk.firstTs = b.ts
			cs.buckets[iv][start] = bk
		}
		bk.txs += int64(b.txs)
		bk.gas += b.gas
		bk.fees.Add(bk.fees, b.fees)
		bk.gpSum.Add(bk.gpSum, b.gpSum)
		if b.gpMax.Cmp(bk.gpMax) > 0 {
			bk.gpMax.Set(b.gpMax)
		}
		bk.contracts += int64(b.contracts)
		for _, a := range b.active {
			bk.active[a] = struct{}{}
		}
		for _, a := range b.senders {
			bk.senders[a] = struct{}{}
		}
		for _, a := range b.deployers {
			bk.deployers[a] = struct{}{}
		}
		if hasPrev {
			bk.maxGps = max(bk.maxGps, float64(b.gas)/dt)
			bk.maxTps = max(bk.maxTps, float64(b.txs)/dt)
		}
		bk.lastTs = b.ts
	}
	dayBk := cs.buckets[Day][day]
	for _, a := range b.active {
		if _, ok := cs.firstSeen[a]; !ok {
			cs.firstSeen[a] = day
			dayBk.newAddrs++
		}
	}
	for _, d := range b.deployers {
		if _, ok := cs.firstDep[d]; !ok {
			cs.firstDep[d] = day
			dayBk.newDeploys++
		}
	}
}

// span returns the first and last bucket starts of an interval, or false
// when the chain has no blocks.
func (cs *chainState) span(iv string) (first, last int64, ok bool) {
	if len(cs.blocks) == 0 {
		return 0, 0, false
	}
	return bucketStart(cs.blocks[0].ts, iv), bucketStart(cs.blocks[len(cs.blocks)-1].ts, iv), true
}

// sortedDays returns the chain's day bucket starts in order.
func (cs *chainState) sortedDays() []int64 {
	days := make([]int64, 0, len(cs.buckets[Day]))
	for d := range cs.buckets[Day] {
		days = append(days, d)
	}
	sort.Slice(days, func(i, j int) bool { return days[i] < days[j] })
	return days
}
