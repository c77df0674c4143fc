package evm

import (
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/rpc"
)

// TestFilterTable: filters are capped per client and in all with
// go-ethereum's kind of error, an uninstalled filter frees its place, and
// one not polled for five minutes is uninstalled (from go-ethereum too) and
// frees its place.
func TestFilterTable(t *testing.T) {
	c := newTestChain(t, Options{NoSeed: true, Client: byClient, FiltersPerClient: 2, MaxFilters: 3})
	srv := httptest.NewServer(c.Handler())
	defer srv.Close()
	call := func(client, method, params string) answer {
		t.Helper()
		_, raw := post(t, srv.URL, client, fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":%q,"params":%s}`, method, params))
		var a answer
		if err := json.Unmarshal(raw, &a); err != nil {
			t.Fatalf("%s: %s: %v", method, raw, err)
		}
		return a
	}
	installed := func(client, method, params string) string {
		t.Helper()
		a := call(client, method, params)
		var id string
		if a.Error != nil || json.Unmarshal(a.Result, &id) != nil {
			t.Fatalf("%s of %s: %s; want a filter id", method, client, a)
		}
		return id
	}
	refused := func(client, method, params, want string) {
		t.Helper()
		if a := call(client, method, params); a.Error == nil || a.Error.Message != want {
			t.Fatalf("%s of %s: %s; want %q", method, client, a, want)
		}
	}
	a1 := installed("a", "eth_newBlockFilter", "[]")
	a2 := installed("a", "eth_newFilter", `[{"fromBlock":"latest"}]`)
	refused("a", "eth_newPendingTransactionFilter", "[]", "exceed max filters per client")
	b1 := installed("b", "eth_newPendingTransactionFilter", "[]")
	refused("c", "eth_newBlockFilter", "[]", "exceed max filters")
	if a := call("a", "eth_uninstallFilter", fmt.Sprintf("[%q]", a1)); string(a.Result) != "true" {
		t.Fatalf("eth_uninstallFilter: %s", a)
	}
	c1 := installed("c", "eth_newBlockFilter", "[]")

	// Five minutes later only b1, polled meanwhile, is left.
	table := c.filters
	start := time.Now()
	setNow := func(d time.Duration) {
		table.mu.Lock()
		table.now = func() time.Time { return start.Add(d) }
		table.mu.Unlock()
	}
	setNow(4 * time.Minute)
	if a := call("b", "eth_getFilterChanges", fmt.Sprintf("[%q]", b1)); a.Error != nil {
		t.Fatalf("eth_getFilterChanges: %s", a)
	}
	setNow(5*time.Minute + time.Second)
	installed("a", "eth_newBlockFilter", "[]")
	installed("a", "eth_newBlockFilter", "[]")
	table.mu.Lock()
	defer table.mu.Unlock()
	if n := len(table.byID); n != 3 {
		t.Fatalf("%d filters in the table; want 3 (b's polled one and a's two new ones)", n)
	}
	for id := range table.byID {
		if _, err := table.api.GetFilterChanges(id); err != nil {
			t.Fatalf("filter %s of the table: %v", id, err)
		}
	}
	for _, id := range []string{a1, a2, c1} {
		if _, err := table.api.GetFilterChanges(rpc.ID(id)); err == nil || !strings.Contains(err.Error(), "not found") {
			t.Fatalf("filter %s, uninstalled or expired, still polls in go-ethereum: %v", id, err)
		}
	}
}
