package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestLocalEVM(t *testing.T) {
	for _, tc := range []struct {
		name, yaml string
		want       LocalEVM
		wantErr    string
		reset      string // AVAEDGE_RESET_DEV_CHAINS
	}{
		{"defaults", "", LocalEVM{Debug: false, WritesPerMinute: DefaultWritesPerMinute}, "", ""},
		{"set", "local:\n  evm:\n    debug: true\n    writes_per_minute: 5\n    call_gas_cap: 1000000\n    call_timeout: 250ms\n    call_budget: 400ms\n    calls_per_client: 1\n    filters_per_client: 4\n    max_filters: 64\n",
			LocalEVM{Debug: true, WritesPerMinute: 5, CallGasCap: 1_000_000, CallTimeout: Duration(250 * time.Millisecond), CallBudget: Duration(400 * time.Millisecond), CallsPerClient: 1, FiltersPerClient: 4, MaxFilters: 64}, "", ""},
		{"negative", "local:\n  evm:\n    writes_per_minute: -1\n", LocalEVM{}, "local.evm.writes_per_minute: must not be negative", ""},
		{"negative timeout", "local:\n  evm:\n    call_timeout: -1s\n", LocalEVM{}, "local.evm.call_timeout: must not be negative", ""},
		{"negative budget", "local:\n  evm:\n    call_budget: -1s\n", LocalEVM{}, "local.evm.call_budget: must not be negative", ""},
		{"negative filters", "local:\n  evm:\n    max_filters: -1\n", LocalEVM{}, "local.evm.max_filters: must not be negative", ""},
		{"unknown field", "local:\n  evm:\n    trace: true\n", LocalEVM{}, "field trace not found", ""},
		{"reset", "local:\n  evm:\n    reset_dev_chains: true\n", LocalEVM{WritesPerMinute: DefaultWritesPerMinute, ResetDevChains: true}, "", ""},
		{"reset env", "", LocalEVM{WritesPerMinute: DefaultWritesPerMinute, ResetDevChains: true}, "", "true"},
		{"reset env false", "local:\n  evm:\n    reset_dev_chains: true\n", LocalEVM{WritesPerMinute: DefaultWritesPerMinute}, "", "0"},
		{"reset env bad", "", LocalEVM{}, `local.evm.reset_dev_chains: AVAEDGE_RESET_DEV_CHAINS="yes please" is not true or false`, "yes please"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := loadCase(t, tc.yaml, tc.wantErr, func(name string) string {
				if name == "AVAEDGE_RESET_DEV_CHAINS" {
					return tc.reset
				}
				return ""
			})
			if c == nil {
				return
			}
			if c.Local.EVM != tc.want {
				t.Fatalf("local.evm = %+v; want %+v", c.Local.EVM, tc.want)
			}
		})
	}
}

// loadCase loads yaml as a config file with the environment getenv: the
// config, or nil when wantErr is set and Load failed with an error
// containing it.
func loadCase(t *testing.T, yaml, wantErr string, getenv func(string) string) *Config {
	t.Helper()
	file := filepath.Join(t.TempDir(), "c.yaml")
	if err := os.WriteFile(file, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := Load(file, getenv)
	if wantErr != "" {
		if err == nil || !strings.Contains(err.Error(), wantErr) {
			t.Fatalf("got %v; want an error containing %q", err, wantErr)
		}
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return c
}
