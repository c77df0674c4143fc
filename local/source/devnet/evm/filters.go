package evm

import (
	"container/list"
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

// The refusals of the table, in go-ethereum's words for its other limits
// ("exceed max topics", "exceed max addresses or topics per search
// position").
var (
	errClientFilters = errors.New("exceed max filters per client")
	errFilters       = errors.New("exceed max filters")
)

// filterTable bounds the filters clients install through the Handlers of
// the chains that share it (eth_newFilter, eth_newBlockFilter,
// eth_newPendingTransactionFilter): go-ethereum keeps each one, with what
// it collects, until it is uninstalled or not polled for filterTimeout, and
// sets no bound on how many. A client holds at most perClient filters
// across those chains, so it is refused its next one; all clients together
// hold at most max, and a newcomer past it evicts the filter idle the
// longest, so filling the table locks nobody out. A filter the table lets
// expire or evicts is uninstalled from its chain's go-ethereum too. It is
// safe for concurrent use.
type filterTable struct {
	perClient int
	max       int

	mu sync.Mutex // guards now, byKey, idle, counts and total
	// now is the clock of filters' last uses.
	now func() time.Time
	// byKey holds each installed filter, by chain and id; its element's
	// value is the *installed.
	byKey map[filterKey]*list.Element
	// idle orders the installed filters by last use, the longest idle
	// first.
	idle *list.List
	// counts holds each client's filters, reserved ones included.
	counts map[string]int
	total  int
}

// filterKey names one filter: go-ethereum's id within its chain's filter
// API.
type filterKey struct {
	api *filters.FilterAPI
	id  rpc.ID
}

type installed struct {
	key    filterKey
	client string
	used   time.Time
}

func newFilterTable(perClient, max int) *filterTable {
	return &filterTable{perClient: perClient, max: max, now: time.Now,
		byKey: map[filterKey]*list.Element{}, idle: list.New(), counts: map[string]int{}}
}

// install reserves a place for client's new filter on api's chain, runs
// create and records the filter it made.
func (t *filterTable) install(ctx context.Context, api *filters.FilterAPI, create func() (rpc.ID, error)) (rpc.ID, error) {
	client := ""
	if r := requestOf(ctx); r != nil {
		client = r.client
	}
	var dropped []filterKey
	defer func() { uninstall(dropped) }()
	t.mu.Lock()
	dropped = t.expire(t.now())
	if t.counts[client] >= t.perClient {
		t.mu.Unlock()
		return "", errClientFilters
	}
	if t.total >= t.max {
		e := t.idle.Front()
		if e == nil { // every place is reserved by an install under way
			t.mu.Unlock()
			return "", errFilters
		}
		dropped = append(dropped, t.drop(e))
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
	key := filterKey{api, id}
	t.byKey[key] = t.idle.PushBack(&installed{key: key, client: client, used: t.now()})
	return id, nil
}

// uninstall removes the filters the table dropped from go-ethereum, outside
// the table's lock.
func uninstall(keys []filterKey) {
	for _, k := range keys {
		k.api.UninstallFilter(k.id)
	}
}

// release gives back one of client's places. The caller holds t.mu.
func (t *filterTable) release(client string) {
	t.total--
	if t.counts[client]--; t.counts[client] <= 0 {
		delete(t.counts, client)
	}
}

// drop forgets the filter of e and returns its key. The caller holds t.mu.
func (t *filterTable) drop(e *list.Element) filterKey {
	f := t.idle.Remove(e).(*installed)
	delete(t.byKey, f.key)
	t.release(f.client)
	return f.key
}

// remove forgets api's filter id.
func (t *filterTable) remove(api *filters.FilterAPI, id rpc.ID) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if e := t.byKey[filterKey{api, id}]; e != nil {
		t.drop(e)
	}
}

// touch records a poll of api's filter id, which go-ethereum counts as a
// use.
func (t *filterTable) touch(api *filters.FilterAPI, id rpc.ID) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if e := t.byKey[filterKey{api, id}]; e != nil {
		e.Value.(*installed).used = t.now()
		t.idle.MoveToBack(e)
	}
}

// expire forgets the filters not used for filterTimeout before now and
// returns their keys, for the caller to uninstall. The caller holds t.mu.
func (t *filterTable) expire(now time.Time) []filterKey {
	var stale []filterKey
	for e := t.idle.Front(); e != nil && now.Sub(e.Value.(*installed).used) >= filterTimeout; e = t.idle.Front() {
		stale = append(stale, t.drop(e))
	}
	return stale
}

// filterGuard serves, in place of go-ethereum's own, the eth methods that
// install, poll and uninstall filters of one chain, keeping filterTable's
// count.
type filterGuard struct {
	t   *filterTable
	api *filters.FilterAPI
}

// NewFilter runs eth_newFilter.
func (a *filterGuard) NewFilter(ctx context.Context, crit filters.FilterCriteria) (rpc.ID, error) {
	return a.t.install(ctx, a.api, func() (rpc.ID, error) { return a.api.NewFilter(crit) })
}

// NewBlockFilter runs eth_newBlockFilter.
func (a *filterGuard) NewBlockFilter(ctx context.Context) (rpc.ID, error) {
	return a.t.install(ctx, a.api, func() (rpc.ID, error) { return a.api.NewBlockFilter(), nil })
}

// NewPendingTransactionFilter runs eth_newPendingTransactionFilter.
func (a *filterGuard) NewPendingTransactionFilter(ctx context.Context, fullTx *bool) (rpc.ID, error) {
	return a.t.install(ctx, a.api, func() (rpc.ID, error) { return a.api.NewPendingTransactionFilter(fullTx), nil })
}

// UninstallFilter runs eth_uninstallFilter.
func (a *filterGuard) UninstallFilter(id rpc.ID) bool {
	a.t.remove(a.api, id)
	return a.api.UninstallFilter(id)
}

// GetFilterChanges runs eth_getFilterChanges.
func (a *filterGuard) GetFilterChanges(id rpc.ID) (any, error) {
	a.t.touch(a.api, id)
	return a.api.GetFilterChanges(id)
}
