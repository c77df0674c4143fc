package metricsapi

import (
	"slices"
	"sort"
)

// group is an aggregate chainId (total, mainnet, testnet): its member
// chains and the first-seen records that make its cumulative distinct counts
// exact. The Engine's lock guards it.
type group struct {
	members     []*chainState
	addrs, deps firstSeen
}

func newGroup() *group {
	return &group{addrs: newFirstSeen(), deps: newFirstSeen()}
}

// firstSeen records, for every id seen on some member chain, the earliest
// day it was seen on any, and how many ids each day saw first. The number
// of distinct ids through day D is the sum of perDay up to D.
type firstSeen struct {
	first  map[uint32]int64 // id -> start of its earliest day
	perDay map[int64]int64  // day start -> ids whose earliest day it is
}

func newFirstSeen() firstSeen {
	return firstSeen{first: map[uint32]int64{}, perDay: map[int64]int64{}}
}

// seen records id on day d (a member chain saw it first that day).
func (f *firstSeen) seen(id uint32, d int64) {
	old, ok := f.first[id]
	if ok && old <= d {
		return
	}
	if ok {
		f.dec(old)
	}
	f.first[id] = d
	f.perDay[d]++
}

// unseen recomputes id's earliest day after a member chain dropped it from
// its own records (pick returns a member's records).
func (f *firstSeen) unseen(id uint32, members []*chainState, pick func(*chainState) map[uint32]int64) {
	old, ok := f.first[id]
	if !ok {
		return
	}
	best, found := int64(0), false
	for _, m := range members {
		if d, ok := pick(m)[id]; ok && (!found || d < best) {
			best, found = d, true
		}
	}
	if found && best == old {
		return
	}
	f.dec(old)
	if !found {
		delete(f.first, id)
		return
	}
	f.first[id] = best
	f.perDay[best]++
}

func (f *firstSeen) dec(d int64) {
	if f.perDay[d]--; f.perDay[d] == 0 {
		delete(f.perDay, d)
	}
}

// running returns the cumulative counts: a function giving the number of
// distinct ids first seen on or before day d. It sorts the days once, so a
// page costs O(days·log days) and never touches the ids.
func (f *firstSeen) running() func(d int64) uint64 {
	days := make([]int64, 0, len(f.perDay))
	for d := range f.perDay {
		days = append(days, d)
	}
	slices.Sort(days)
	sums := make([]uint64, len(days))
	var run uint64
	for i, d := range days {
		run += uint64(f.perDay[d])
		sums[i] = run
	}
	return func(d int64) uint64 {
		k := sort.Search(len(days), func(i int) bool { return days[i] > d })
		if k == 0 {
			return 0
		}
		return sums[k-1]
	}
}
