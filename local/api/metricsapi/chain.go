package metricsapi

import (
	"math/big"
	"sort"
	"strconv"
)

// blockRec is what a chain keeps of one block: enough to rebuild any of its
// buckets after a re-org and to undo the first-seen records it made.
type blockRec struct {
	number, ts uint64
	gas        uint64
	txs        uint32
	contracts  uint32
	nSenders   uint32 // addrs[:nSenders] are the senders
	gpN        uint32 // transactions with a gas price
	// fees, gpSum and gpMax are the sums of fees and gas prices and the
	// highest gas price; nil means none.
	fees, gpSum, gpMax *big.Int
	addrs              []uint32 // distinct active addresses, senders first
	deployers          []uint32 // distinct deployers
	newAddrs           []uint32 // addresses first seen on the chain in this block
	newDeps            []uint32 // deployers first seen on the chain in this block
}

// bucket aggregates the blocks of one interval of one chain.
type bucket struct {
	start                  int64
	txs, contracts, gas    uint64
	gpN                    uint64
	fees, gpSum, gpMax     big.Int
	active, senders, deps  idset
	maxGps, maxTps         float64
	firstTs, lastTs        uint64
	prevTs                 uint64 // the chain's last block before the bucket
	hasPrev                bool   // prevTs is set
	cumTxs, cumContracts   uint64 // totals from the first indexed block through the bucket
	cumAddrs, cumDeployers uint64
}

// seal compacts the bucket's sets once a later bucket starts.
func (b *bucket) seal() {
	b.active.seal()
	b.senders.seal()
	b.deps.seal()
}

// chainState is one chain's blocks, buckets and first-seen records. The
// Engine's lock guards it.
type chainState struct {
	info   Chain
	label  string   // chain id for Prometheus labels
	groups []*group // the aggregates the chain belongs to
	// blocks are the applied blocks in order.
	blocks []blockRec
	// buckets holds, per interval, the buckets with blocks, by start.
	buckets [numIntervals][]*bucket
	// firstSeen and firstDep map an address (deployer) id to the start of
	// the day of its first block on the chain.
	firstSeen, firstDep map[uint32]int64
}

// lastRun is when the chain's data last changed: the newest applied
// block's time (unix seconds), 0 without one. It is the chain's, not the
// replica's clock, so every replica of a fleet answers the same.
func (cs *chainState) lastRun() int64 {
	if n := len(cs.blocks); n > 0 {
		return int64(cs.blocks[n-1].ts)
	}
	return 0
}

func newChainState(c Chain) *chainState {
	return &chainState{info: c, label: strconv.FormatUint(c.EVMChainID, 10),
		firstSeen: map[uint32]int64{}, firstDep: map[uint32]int64{}}
}

// apply appends r, whose newAddrs and newDeps are filled in.
func (cs *chainState) apply(r blockRec) {
	cs.blocks = append(cs.blocks, r)
	for iv := range numIntervals {
		cs.addTo(iv, len(cs.blocks)-1)
	}
}

// addTo adds block i to its bucket of interval iv, which is the newest
// bucket or a new one after it.
func (cs *chainState) addTo(iv interval, i int) {
	r := &cs.blocks[i]
	start := iv.floor(int64(r.ts))
	bs := cs.buckets[iv]
	var bk *bucket
	if n := len(bs); n > 0 && bs[n-1].start == start {
		bk = bs[n-1]
	} else {
		bk = &bucket{start: start, firstTs: r.ts}
		if n > 0 {
			last := bs[n-1]
			last.seal()
			bk.cumTxs, bk.cumContracts, bk.cumAddrs, bk.cumDeployers = last.cumTxs, last.cumContracts, last.cumAddrs, last.cumDeployers
		}
		if i > 0 {
			bk.prevTs, bk.hasPrev = cs.blocks[i-1].ts, true
		}
		cs.buckets[iv] = append(bs, bk)
	}
	bk.txs += uint64(r.txs)
	bk.gas += r.gas
	bk.contracts += uint64(r.contracts)
	bk.gpN += uint64(r.gpN)
	if r.fees != nil {
		bk.fees.Add(&bk.fees, r.fees)
	}
	if r.gpSum != nil {
		bk.gpSum.Add(&bk.gpSum, r.gpSum)
	}
	if r.gpMax != nil && r.gpMax.Cmp(&bk.gpMax) > 0 {
		bk.gpMax.Set(r.gpMax)
	}
	for j, id := range r.addrs {
		bk.active.add(id)
		if j < int(r.nSenders) {
			bk.senders.add(id)
		}
	}
	for _, id := range r.deployers {
		bk.deps.add(id)
	}
	if i > 0 {
		dt := float64(max(1, r.ts-cs.blocks[i-1].ts))
		bk.maxGps = max(bk.maxGps, float64(r.gas)/dt)
		bk.maxTps = max(bk.maxTps, float64(r.txs)/dt)
	}
	bk.lastTs = r.ts
	bk.cumTxs += uint64(r.txs)
	bk.cumContracts += uint64(r.contracts)
	bk.cumAddrs += uint64(len(r.newAddrs))
	bk.cumDeployers += uint64(len(r.newDeps))
}

// rollback removes the blocks numbered from and above and returns how many
// it removed. Buckets from the one holding the first removed block on are
// rebuilt from the remaining blocks; first-seen records the removed blocks
// made are undone, in the chain and in its groups.
func (cs *chainState) rollback(from uint64) int {
	i := sort.Search(len(cs.blocks), func(j int) bool { return cs.blocks[j].number >= from })
	removed := len(cs.blocks) - i
	if removed == 0 {
		return 0
	}
	for j := len(cs.blocks) - 1; j >= i; j-- {
		r := &cs.blocks[j]
		for _, id := range r.newAddrs {
			delete(cs.firstSeen, id)
			for _, g := range cs.groups {
				g.addrs.unseen(id, g.members, func(m *chainState) map[uint32]int64 { return m.firstSeen })
			}
		}
		for _, id := range r.newDeps {
			delete(cs.firstDep, id)
			for _, g := range cs.groups {
				g.deps.unseen(id, g.members, func(m *chainState) map[uint32]int64 { return m.firstDep })
			}
		}
	}
	cut := int64(cs.blocks[i].ts)
	clear(cs.blocks[i:]) // let the removed records' slices go
	cs.blocks = cs.blocks[:i]
	for iv := range numIntervals {
		from := iv.floor(cut)
		bs := cs.buckets[iv]
		k := sort.Search(len(bs), func(j int) bool { return bs[j].start >= from })
		clear(bs[k:])
		cs.buckets[iv] = bs[:k]
		j := sort.Search(len(cs.blocks), func(j int) bool { return int64(cs.blocks[j].ts) >= from })
		for ; j < len(cs.blocks); j++ {
			cs.addTo(iv, j)
		}
	}
	return removed
}

// bucketAt returns the bucket of interval iv starting at start, or nil.
func (cs *chainState) bucketAt(iv interval, start int64) *bucket {
	bs := cs.buckets[iv]
	k := sort.Search(len(bs), func(j int) bool { return bs[j].start >= start })
	if k < len(bs) && bs[k].start == start {
		return bs[k]
	}
	return nil
}

// dayThrough returns the newest day bucket starting at or before start, or
// nil: the one whose cumulative totals hold at start.
func (cs *chainState) dayThrough(start int64) *bucket {
	bs := cs.buckets[day]
	k := sort.Search(len(bs), func(j int) bool { return bs[j].start > start })
	if k == 0 {
		return nil
	}
	return bs[k-1]
}

// span returns the starts of the first and last buckets of interval iv, or
// false when the chain has no blocks.
func (cs *chainState) span(iv interval) (first, last int64, ok bool) {
	bs := cs.buckets[iv]
	if len(bs) == 0 {
		return 0, 0, false
	}
	return bs[0].start, bs[len(bs)-1].start, true
}
