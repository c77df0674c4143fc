package evm

import (
	"strconv"
	"strings"
	"testing"

	"github.com/avaedge/avaedge/internal/markdown"
)

// TestLimitsDocumented: docs/local-world.md's table of the dev chain's
// limits gives each setting this package's default.
func TestLimitsDocumented(t *testing.T) {
	tb, err := markdown.ReadTable("docs/local-world.md", "limit", "setting", "default")
	if err != nil {
		t.Fatal(err)
	}
	thousands := func(n int) string {
		s := strconv.Itoa(n)
		for i := len(s) - 3; i > 0; i -= 3 {
			s = s[:i] + "," + s[i:]
		}
		return s
	}
	want := map[string]string{
		"`call_gas_cap`":                      thousands(DefaultCallGasCap),
		"`call_timeout`":                      DefaultCallTimeout.String(),
		"`call_budget`":                       "`call_timeout`",
		"`calls_per_client`":                  thousands(DefaultCallsPerClient),
		"`writes_per_minute`":                 thousands(DefaultWritesPerMinute),
		"`filters_per_client`, `max_filters`": thousands(DefaultFiltersPerClient) + ", " + thousands(DefaultMaxFilters),
	}
	for _, row := range tb.Rows {
		w, ok := want[row[1]]
		if !ok {
			t.Errorf("docs/local-world.md: setting %s is not one of the dev chain's limits", row[1])
			continue
		}
		delete(want, row[1])
		if strings.TrimSpace(row[2]) != w {
			t.Errorf("docs/local-world.md: %s defaults to %s; the dev chain's default is %s", row[1], row[2], w)
		}
	}
	for setting := range want {
		t.Errorf("docs/local-world.md: no row for %s", setting)
	}
}
