package config

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/avaedge/avaedge/cache"
	"github.com/avaedge/avaedge/catalog"
)

func TestLoadDefaults(t *testing.T) {
	c, err := Load("", func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	if c.Listen != ":8080" || c.AdminListen != "127.0.0.1:9090" {
		t.Fatalf("listen = %q, admin = %q", c.Listen, c.AdminListen)
	}
	if c.Upstreams.Data.Mode != "local" || c.Upstreams.Node.Breaker.OpenFor.D() != 10*time.Second {
		t.Fatalf("defaults not filled: %+v", c.Upstreams.Data)
	}
	if s := c.Server; s.WriteTimeout.D() != 60*time.Second || s.BodyReadTimeout.D() != 10*time.Second || s.MinBodyRate != 1024 {
		t.Fatalf("server defaults: write_timeout %v, body_read_timeout %v, min_body_rate %d; want 60s, 10s, 1024",
			s.WriteTimeout.D(), s.BodyReadTimeout.D(), s.MinBodyRate)
	}
}

func TestEnvOverrides(t *testing.T) {
	env := map[string]string{
		"AVAEDGE_LISTEN":            "127.0.0.1:1",
		"AVAEDGE_ADMIN_LISTEN":      "127.0.0.1:2",
		"AVAEDGE_DATA_UPSTREAM":     "http://127.0.0.1:3",
		"AVAEDGE_METRICS_UPSTREAM":  "http://127.0.0.1:4",
		"AVAEDGE_NODE_UPSTREAM":     "http://127.0.0.1:5",
		"AVAEDGE_UPSTREAM_API_KEY":  "op-key",
		"AVAEDGE_REDIS":             "127.0.0.1:7000,127.0.0.1:7001",
		"AVAEDGE_KEYS_FILE":         "/keys.yaml",
		"AVAEDGE_DATA_DIR":          "/data",
		"AVAEDGE_LOCAL_NETWORKS":    "fuji, testnet",
		"AVAEDGE_PAGE_TOKEN_SECRET": "env-page-token-secret",
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "c.yaml")
	os.WriteFile(file, []byte("listen: ':9999'\nupstreams:\n  data:\n    url: http://other\n"), 0o600)
	c, err := Load(file, func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	if c.Listen != "127.0.0.1:1" || c.AdminListen != "127.0.0.1:2" || c.Upstreams.Data.URL != "http://127.0.0.1:3" ||
		c.Upstreams.Metrics.URL != "http://127.0.0.1:4" || c.Upstreams.Node.URL != "http://127.0.0.1:5" ||
		c.UpstreamAPIKey != "op-key" || c.KeysFile != "/keys.yaml" || c.DataDir != "/data" || c.PageTokenSecret != "env-page-token-secret" ||
		strings.Join(c.Local.Networks, ",") != "fuji,testnet" || c.Upstreams.Data.Mode != "proxy" {
		t.Fatalf("env not applied: %+v", c)
	}
	addrs, _ := RedisAddrs(c.Redis)
	if len(addrs) != 2 {
		t.Fatalf("redis addrs = %v", addrs)
	}
}

func TestLocalNode(t *testing.T) {
	tests := []struct {
		name, yaml, env, wantNode, wantUpstream, wantMode string
	}{
		{"env makes it the node upstream", "", "http://127.0.0.1:9650/", "http://127.0.0.1:9650", "http://127.0.0.1:9650", "proxy"},
		{"yaml", "local:\n  node: http://n:9650\n", "", "http://n:9650", "http://n:9650", "proxy"},
		{"explicit node upstream wins", "upstreams:\n  node:\n    url: http://other:9650\n", "http://n:9650", "http://n:9650", "http://other:9650", "proxy"},
		{"node kept local when asked", "upstreams:\n  node:\n    mode: local\n", "http://n:9650", "http://n:9650", "", "local"},
		{"unset: devnet", "", "", "", "", "local"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "c.yaml")
			os.WriteFile(file, []byte(tt.yaml), 0o600)
			c, err := Load(file, func(k string) string {
				if k == "AVAEDGE_LOCAL_NODE" {
					return tt.env
				}
				return ""
			})
			if err != nil {
				t.Fatal(err)
			}
			if c.Local.Node != tt.wantNode || c.Upstreams.Node.URL != tt.wantUpstream || c.Upstreams.Node.Mode != tt.wantMode {
				t.Fatalf("local.node = %q, node upstream = %q (%s); want %q, %q (%s)", c.Local.Node, c.Upstreams.Node.URL,
					c.Upstreams.Node.Mode, tt.wantNode, tt.wantUpstream, tt.wantMode)
			}
		})
	}
}

func TestValidateRejects(t *testing.T) {
	tests := []struct{ name, yaml, want string }{
		{"unknown field", "listn: x", "field listn not found"},
		{"bad duration", "server:\n  idle_timeout: soon", "not a duration"},
		{"bad mode", "upstreams:\n  data:\n    mode: sometimes", "upstreams.data.mode"},
		{"proxy without url", "upstreams:\n  node:\n    mode: proxy", "upstreams.node.mode"},
		{"bad url", "upstreams:\n  metrics:\n    url: ftp://x", "upstreams.metrics.url"},
		{"bad cidr", "trusted_proxies: [banana]", "trusted_proxies"},
		{"unknown route", "routes:\n  nope:\n    cost: 3", "routes.nope"},
		{"negative cost", "routes:\n  listSubnets:\n    cost: -3", "routes.listSubnets.cost"},
		{"bad network", "local:\n  networks: [devnet]", "local.networks"},
		{"bad log level", "log_level: loud", "log_level"},
		{"half tls", "tls:\n  cert_file: a.pem", "tls"},
		{"negative body rate", "server:\n  min_body_rate: -1", "server.min_body_rate"},
		{"negative write timeout", "server:\n  write_timeout: -1s", "server.write_timeout"},
		{"negative body timeout", "server:\n  body_read_timeout: -1s", "server.body_read_timeout"},
		{"bad local node", "local:\n  node: 127.0.0.1:9650", "local.node"},
		{"rpc methods on a REST path", "publish:\n  - {method: POST, path: /v1/webhooks, keys: [k], rpc_methods: [eth_x]}", "publish[0].rpc_methods"},
		{"rpc methods with GET", "publish:\n  - {method: GET, path: /ext/bc/C/rpc, keys: [k], rpc_methods: [debug_*]}", "publish[0].method"},
		{"node endpoint without methods", "publish:\n  - {method: POST, path: /ext/bc/X, keys: [k]}", "publish[0].rpc_methods"},
		{"bad rpc method", "publish:\n  - {method: POST, path: /ext/bc/C/rpc, keys: [k], rpc_methods: ['*']}", "publish[0].rpc_methods[0]"},
		{"bad unissued bound", "unissued_keys: {per_address: -2}", "unissued_keys.per_address"},
		{"negative unissued window", "unissued_keys: {window: -1h}", "unissued_keys.window"},
		{"inner wildcard", "publish:\n  - {method: POST, path: /ext/info, keys: [k], rpc_methods: ['info.*x']}", "publish[0].rpc_methods[0]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var c Config
			err := Parse([]byte(tt.yaml), &c)
			if err == nil {
				err = c.Validate()
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v; want one mentioning %q", err, tt.want)
			}
		})
	}
}

func TestOverrides(t *testing.T) {
	var c Config
	if err := Parse([]byte("routes:\n  listSubnets:\n    cost: 3\n    cache: short\n"), &c); err != nil {
		t.Fatal(err)
	}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, r := range catalog.WithOverrides(c.Overrides()) {
		if r.Name == "listSubnets" && (r.Cost != 3 || r.Cache != cache.Short) {
			t.Fatalf("override not applied: %+v", r)
		}
	}
}

// TestComponentDefaultsLeftZero checks that Defaults does not write a
// default that a component's Options already documents, so each default
// lives in one place.
func TestComponentDefaultsLeftZero(t *testing.T) {
	c, err := Load("", func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	if c.RedisPrefix != "" || c.Replicas != 0 || c.Upstreams.Data.Timeout != 0 || c.Server.MaxBodyBytes != 0 ||
		c.Cache.MaxBytes != 0 || c.Cache.CompressAbove != 0 || c.Local.Seed != 0 {
		t.Fatalf("component defaults written by config: %+v", c)
	}
}

// TestDefaultsApart: Validate changes nothing (it accepts the zero values
// that stand for defaults); Defaults fills them and derives the node
// upstream from local.node, and what it makes validates.
func TestDefaultsApart(t *testing.T) {
	var c Config
	if err := Parse([]byte("local:\n  node: http://127.0.0.1:9650/\nupstreams:\n  data:\n    url: https://glacier-api.avax.network\n"), &c); err != nil {
		t.Fatal(err)
	}
	before := fmt.Sprintf("%+v", c)
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	if after := fmt.Sprintf("%+v", c); after != before {
		t.Fatalf("Validate changed the config:\n%s\nto\n%s", before, after)
	}
	c.Defaults()
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ name, got, want string }{
		{"listen", c.Listen, ":8080"},
		{"local.node", c.Local.Node, "http://127.0.0.1:9650"},
		{"upstreams.node.url", c.Upstreams.Node.URL, "http://127.0.0.1:9650"},
		{"upstreams.node.mode", c.Upstreams.Node.Mode, "proxy"},
		{"upstreams.data.mode", c.Upstreams.Data.Mode, "proxy"},
		{"upstreams.metrics.mode", c.Upstreams.Metrics.Mode, "local"},
		{"upstreams.data.breaker.open_for", c.Upstreams.Data.Breaker.OpenFor.D().String(), "10s"},
	} {
		if tt.got != tt.want {
			t.Errorf("%s = %q; want %q", tt.name, tt.got, tt.want)
		}
	}
}

// TestIndexReadURL: local.index_read_url (or AVAEDGE_INDEX_READ_URL) is
// checked as local.index_url is, and needs it; the password is never
// repeated.
func TestIndexReadURL(t *testing.T) {
	const node = "local:\n  node: http://127.0.0.1:9650\n"
	tests := []urlCase{
		{"bad scheme", node + "  index_url: postgres://u:hunter2@db:5432/x\n  index_read_url: mysql://u:hunter2@ro:3306/x\n", "",
			`local.index_read_url: "mysql://u:xxxxx@ro:3306/x" is not a postgres:// URL (scheme "mysql")`},
		{"env, no host", node + "  index_url: postgres://u:hunter2@db:5432/x\n", "postgres:///avaedge", `local.index_read_url: "postgres:///avaedge" names no host`},
		{"not a URL", node + "  index_url: postgres://u:hunter2@db:5432/x\n", "postgres://u:hunter2@ro:port/x", "local.index_read_url: is not a URL"},
		{"valid, but no index_url", node, "postgres://u:hunter2@ro:5432/avaedge", "local.index_read_url: needs local.index_url"},
		{"valid, with index_url", node + "  index_url: postgres://u:hunter2@db:5432/x\n", "postgres://u:hunter2@ro:5432/x", ""},
	}
	checkURLSetting(t, "AVAEDGE_INDEX_READ_URL", tests, func(c *Config) string { return c.Local.IndexReadURL })
}

// urlCase is a config file and an environment variable's value: Load's
// error holds want ("" means none).
type urlCase struct {
	name, yaml, env string
	want            string
}

// checkURLSetting loads each case with env set to its env and checks the
// error, that no error repeats the password (hunter2), and that a
// setting loaded is got's.
func checkURLSetting(t *testing.T, env string, tests []urlCase, got func(*Config) string) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "c.yaml")
			os.WriteFile(file, []byte(tt.yaml), 0o600)
			cfg, err := Load(file, func(k string) string {
				if k == env {
					return tt.env
				}
				return ""
			})
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("Load: %v; want no error", err)
			case tt.want == "" && tt.env != "" && got(cfg) != tt.env:
				t.Fatalf("%s = %q; want %q", env, got(cfg), tt.env)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Fatalf("Load: %v; want an error with %q", err, tt.want)
			case err != nil && strings.Contains(err.Error(), "hunter2"):
				t.Fatalf("the error %q repeats the password", err)
			}
		})
	}
}

// TestIndexURL: local.index_url (or AVAEDGE_INDEX_URL) must be a
// postgres:// URL with a host, beside a followed node (local.node); a bad
// one is refused with an error naming the field and never the password.
// Unset keeps SQLite.
func TestIndexURL(t *testing.T) {
	tests := []urlCase{
		{"unset: SQLite", "", "", ""},
		{"bad scheme", "local:\n  index_url: mysql://u:hunter2@db:3306/x\n", "", `local.index_url: "mysql://u:xxxxx@db:3306/x" is not a postgres:// URL (scheme "mysql")`},
		{"env, no host", "", "postgres:///avaedge", `local.index_url: "postgres:///avaedge" names no host`},
		{"not a URL", "", "postgres://u:hunter2@db:port/x", "local.index_url: is not a URL"},
		{"valid, but no followed node", "", "postgresql://u:hunter2@db:5432/avaedge?sslmode=require", "local.index_url: needs local.node"},
		{"valid, with a followed node", "local:\n  node: http://127.0.0.1:9650\n", "postgres://u:hunter2@db:5432/avaedge", ""},
	}
	checkURLSetting(t, "AVAEDGE_INDEX_URL", tests, func(c *Config) string { return c.Local.IndexURL })
}
