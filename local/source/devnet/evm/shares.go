package evm

import "cmp"

// Shares are the per-client bounds that several chains of one edge keep
// together: a client's call slots and filters count across every chain
// whose Options.Shares they are, and the filter table's bound is theirs in
// all. It is safe for concurrent use.
type Shares struct {
	slots   *callSlots
	filters *filterTable
}

// NewShares returns the bounds of o's CallsPerClient, FiltersPerClient and
// MaxFilters (zero means their defaults), for the Options of each chain
// that shares them.
func NewShares(o Options) *Shares {
	return &Shares{
		slots:   newCallSlots(cmp.Or(o.CallsPerClient, DefaultCallsPerClient)),
		filters: newFilterTable(cmp.Or(o.FiltersPerClient, DefaultFiltersPerClient), cmp.Or(o.MaxFilters, DefaultMaxFilters)),
	}
}
