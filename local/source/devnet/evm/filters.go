package evm

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/eth/filters"
	"github.com/ethereum/go-ethereum/rpc"
)

// Defaults of Options.FiltersPerClient and Options.MaxFilters.
const (
	DefaultFiltersPerClient = 16
	DefaultMaxFilters       = 1024
)

// filterTimeout is how long a filter lives after it was installed or last
// polled with eth_getFilterChanges (go-ethereum's default).
const filterTimeout = 5 * time.Minute

// The refusals of a full table, in go-ethereum's words for its other
// limits ("exceed max topics", "exceed max addresses or topics per search
// position").
var (
	errClientFilters = errors.New("exceed max filters per client")
	errFilters       = errors.New("exceed max filters")
)

// filterTable bounds the filters clients install through Handler
// (eth_newFilter, eth_newBlockFilter, eth_newPendingTransactionFilter):
// go-ethereum keeps each one, with what it collects, until it is uninstalled
// or not polled for filterTimeout, and sets no bound on how many. A filter
// the table lets expire is uninstalled from go-ethereum too. It is safe for
// concurrent use.
type filterTable struct {
	api       *filters.FilterAPI
	perClient int
	max       int

	mu sync.Mutex // guards now, byID, counts and total
	// now is the clock of filters' last uses.
	now func() time.Time
	// byID holds each installed filter's client and last use.
	byID map[rpc.ID]*installed
	// counts holds each client's filters, reserved ones included.
	counts map[string]int
	total  int
}

type installed struct {
	client string
	used   time.Time
}

func newFilterTable(api *filters.FilterAPI, perClient, max int) *filterTable {
	return &filterTable{api: api, perClient: perClient, max: max, now: time.Now,
		byID: map[rpc.ID]*installed{}, counts: map[string]int{}}
}

// install reserves a place for client's new filter, runs create and records
// the filter it made.
func (t *filterTable) install(ctx context.Context, create func() (rpc.ID, error)) (rpc.ID, error) {
	client := ""
	if r := requestOf(ctx); r != nil {
		client = r.client
	}
	t.expire()
	t.mu.Lock()
	switch {
	case t.counts[client] >= t.perClient:
		t.mu.Unlock()
		return "", errClientFilters
	case t.total >= t.max:
		t.mu.Unlock()
		return "", errFilters
	}
	t.counts[client]++
	t.total++
	t.mu.Unlock()
	id, err := create()
	t.mu.Lock()
	defer t.mu.Unlock()
	if err != nil {
		t.release(client)
		return "", err
	}
	t.byID[id] = &installed{client: client, used: t.now()}
	return id, nil
}

// release gives back one of client's places. The caller holds t.mu.
func (t *filterTable) release(client string) {
	t.total--
	if t.counts[client]--; t.counts[client] <= 0 {
		delete(t.counts, client)
	}
}

// remove forgets id, reporting whether the table had it.
func (t *filterTable) remove(id rpc.ID) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	f := t.byID[id]
	if f == nil {
		return false
	}
	delete(t.byID, id)
	t.release(f.client)
	return true
}

// touch records a poll of id, which go-ethereum counts as a use.
func (t *filterTable) touch(id rpc.ID) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if f := t.byID[id]; f != nil {
		f.used = t.now()
	}
}

// expire uninstalls the filters not used for filterTimeout.
func (t *filterTable) expire() {
	var stale []rpc.ID
	t.mu.Lock()
	now := t.now()
	for id, f := range t.byID {
		if now.Sub(f.used) >= filterTimeout {
			stale = append(stale, id)
		}
	}
	t.mu.Unlock()
	for _, id := range stale {
		if t.remove(id) {
			t.api.UninstallFilter(id)
		}
	}
}

// filterGuard serves, in place of go-ethereum's own, the eth methods that
// install, poll and uninstall filters, keeping filterTable's count.
type filterGuard struct{ t *filterTable }

// NewFilter runs eth_newFilter.
func (a *filterGuard) NewFilter(ctx context.Context, crit filters.FilterCriteria) (rpc.ID, error) {
	return a.t.install(ctx, func() (rpc.ID, error) { return a.t.api.NewFilter(crit) })
}

// NewBlockFilter runs eth_newBlockFilter.
func (a *filterGuard) NewBlockFilter(ctx context.Context) (rpc.ID, error) {
	return a.t.install(ctx, func() (rpc.ID, error) { return a.t.api.NewBlockFilter(), nil })
}

// NewPendingTransactionFilter runs eth_newPendingTransactionFilter.
func (a *filterGuard) NewPendingTransactionFilter(ctx context.Context, fullTx *bool) (rpc.ID, error) {
	return a.t.install(ctx, func() (rpc.ID, error) { return a.t.api.NewPendingTransactionFilter(fullTx), nil })
}

// UninstallFilter runs eth_uninstallFilter.
func (a *filterGuard) UninstallFilter(id rpc.ID) bool {
	a.t.remove(id)
	return a.t.api.UninstallFilter(id)
}

// GetFilterChanges runs eth_getFilterChanges.
func (a *filterGuard) GetFilterChanges(id rpc.ID) (any, error) {
	a.t.touch(id)
	return a.t.api.GetFilterChanges(id)
}
