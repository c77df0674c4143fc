package evm

import (
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/eth/filters"
	"github.com/ethereum/go-ethereum/rpc"
)

// filterClient calls the filter methods of the chains behind urls.
type filterClient struct {
	t    *testing.T
	urls []string
}

func (f filterClient) call(chain int, client, method, params string) answer {
	f.t.Helper()
	_, raw := post(f.t, f.urls[chain], client, fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":%q,"params":%s}`, method, params))
	var a answer
	if err := json.Unmarshal(raw, &a); err != nil {
		f.t.Fatalf("%s: %s: %v", method, raw, err)
	}
	return a
}

func (f filterClient) installed(chain int, client, method, params string) rpc.ID {
	f.t.Helper()
	a := f.call(chain, client, method, params)
	var id string
	if a.Error != nil || json.Unmarshal(a.Result, &id) != nil {
		f.t.Fatalf("%s of %s on chain %d: %s; want a filter id", method, client, chain, a)
	}
	return rpc.ID(id)
}

func (f filterClient) refused(chain int, client, method, params, want string) {
	f.t.Helper()
	if a := f.call(chain, client, method, params); a.Error == nil || a.Error.Message != want {
		f.t.Fatalf("%s of %s on chain %d: %s; want %q", method, client, chain, a, want)
	}
}

// setNow sets the table's clock.
func (t *filterTable) setNow(now time.Time) {
	t.mu.Lock()
	t.now = func() time.Time { return now }
	t.mu.Unlock()
}

// polls reports whether go-ethereum still has api's filter id.
func polls(api *filters.FilterAPI, id rpc.ID) bool {
	_, err := api.GetFilterChanges(id)
	return err == nil || !strings.Contains(err.Error(), "not found")
}

// TestFilterTable: filters are capped per client with go-ethereum's kind of
// error; past the cap in all a new filter evicts the one idle the longest
// (uninstalled from go-ethereum too) instead of being refused; an
// uninstalled filter frees its place; one not polled for five minutes is
// uninstalled and frees its place.
func TestFilterTable(t *testing.T) {
	c := newTestChain(t, Options{NoSeed: true, Client: byClient, FiltersPerClient: 2, MaxFilters: 3})
	srv := httptest.NewServer(c.Handler())
	defer srv.Close()
	f := filterClient{t, []string{srv.URL}}
	table, api := c.filters.t, c.filters.api
	start := time.Now()
	table.setNow(start)

	a1 := f.installed(0, "a", "eth_newBlockFilter", "[]")
	a2 := f.installed(0, "a", "eth_newFilter", `[{"fromBlock":"latest"}]`)
	f.refused(0, "a", "eth_newPendingTransactionFilter", "[]", "exceed max filters per client")
	table.setNow(start.Add(time.Second))
	b1 := f.installed(0, "b", "eth_newPendingTransactionFilter", "[]")
	// a1 is polled: a2 is now the one idle the longest, and c's filter,
	// past the three in all, evicts it.
	table.setNow(start.Add(2 * time.Second))
	if a := f.call(0, "a", "eth_getFilterChanges", fmt.Sprintf("[%q]", a1)); a.Error != nil {
		t.Fatalf("eth_getFilterChanges: %s", a)
	}
	c1 := f.installed(0, "c", "eth_newBlockFilter", "[]")
	if polls(api, a2) {
		t.Fatalf("a2, idle the longest, still polls after c's filter filled the table")
	}
	if !polls(api, a1) || !polls(api, b1) {
		t.Fatalf("a1 or b1 evicted; want only a2")
	}
	// a lost a2, so it may install again (evicting b1, idle the longest).
	f.installed(0, "a", "eth_newBlockFilter", "[]")
	if polls(api, b1) {
		t.Fatalf("b1 still polls; want evicted")
	}
	if a := f.call(0, "c", "eth_uninstallFilter", fmt.Sprintf("[%q]", c1)); string(a.Result) != "true" {
		t.Fatalf("eth_uninstallFilter: %s", a)
	}
	table.mu.Lock()
	n := len(table.byKey)
	table.mu.Unlock()
	if n != 2 {
		t.Fatalf("%d filters in the table after an uninstall; want 2", n)
	}

	// Five minutes after their last use the filters expire.
	table.setNow(start.Add(5*time.Minute + 3*time.Second))
	d1 := f.installed(0, "d", "eth_newBlockFilter", "[]")
	if polls(api, a1) {
		t.Fatalf("a1, unpolled for five minutes, still polls")
	}
	table.mu.Lock()
	defer table.mu.Unlock()
	if n := len(table.byKey); n != 1 || table.total != 1 || len(table.counts) != 1 {
		t.Fatalf("%d filters, total %d, %d clients in the table; want d's one", n, table.total, len(table.counts))
	}
	if !polls(api, d1) {
		t.Fatalf("d1 does not poll")
	}
}

// TestFilterTableShared: chains with one Shares count a client's filters
// across them, and a full table evicts the filter idle the longest on any
// of them.
func TestFilterTableShared(t *testing.T) {
	shares := NewShares(Options{FiltersPerClient: 2, MaxFilters: 3})
	var urls []string
	var chains []*Chain
	for _, id := range []uint64{1001, 1002} {
		c := newTestChain(t, Options{ChainID: id, NoSeed: true, Client: byClient, Shares: shares})
		srv := httptest.NewServer(c.Handler())
		t.Cleanup(srv.Close)
		urls, chains = append(urls, srv.URL), append(chains, c)
	}
	f := filterClient{t, urls}
	table := shares.filters
	start := time.Now()
	table.setNow(start)
	a1 := f.installed(0, "a", "eth_newBlockFilter", "[]")
	f.installed(1, "a", "eth_newBlockFilter", "[]")
	f.refused(1, "a", "eth_newBlockFilter", "[]", "exceed max filters per client")
	f.refused(0, "a", "eth_newBlockFilter", "[]", "exceed max filters per client")
	table.setNow(start.Add(time.Second))
	f.installed(1, "b", "eth_newBlockFilter", "[]")
	f.installed(1, "c", "eth_newBlockFilter", "[]")
	if polls(chains[0].filters.api, a1) {
		t.Fatalf("a's filter on chain 0, idle the longest, still polls after c's on chain 1 filled the table")
	}
}
