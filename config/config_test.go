package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
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
}

func TestEnvOverrides(t *testing.T) {
	env := map[string]string{
		"AVAEDGE_LISTEN":           "127.0.0.1:1",
		"AVAEDGE_ADMIN_LISTEN":     "127.0.0.1:2",
		"AVAEDGE_DATA_UPSTREAM":    "http://127.0.0.1:3",
		"AVAEDGE_METRICS_UPSTREAM": "http://127.0.0.1:4",
		"AVAEDGE_NODE_UPSTREAM":    "http://127.0.0.1:5",
		"AVAEDGE_UPSTREAM_API_KEY": "op-key",
		"AVAEDGE_REDIS":            "127.0.0.1:7000,127.0.0.1:7001",
		"AVAEDGE_KEYS_FILE":        "/keys.yaml",
		"AVAEDGE_DATA_DIR":         "/data",
		"AVAEDGE_LOCAL_NETWORKS":   "fuji, testnet",
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
		c.UpstreamAPIKey != "op-key" || c.KeysFile != "/keys.yaml" || c.DataDir != "/data" ||
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
		{"bad local node", "local:\n  node: 127.0.0.1:9650", "local.node"},
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
	for _, r := range c.RoutesWithOverrides() {
		if r.Name == "listSubnets" && (r.Cost != 3 || r.Cache != Short) {
			t.Fatalf("override not applied: %+v", r)
		}
	}
}

func TestCatalogueComplete(t *testing.T) {
	names := map[string]bool{}
	patterns := map[string]bool{}
	for _, r := range Catalogue() {
		if names[r.Name] {
			t.Errorf("duplicate route name %s", r.Name)
		}
		names[r.Name] = true
		if r.Cost <= 0 || r.Cache == "" {
			t.Errorf("%s: cost %d, cache %q", r.Name, r.Cost, r.Cache)
		}
		if !r.IsRPC() {
			if patterns[r.Pattern()] {
				t.Errorf("duplicate pattern %s", r.Pattern())
			}
			patterns[r.Pattern()] = true
		}
	}
	var data, metrics, node int
	for _, r := range Catalogue() {
		switch r.Service {
		case Data:
			data++
		case Metrics:
			metrics++
		case Node:
			node++
		}
	}
	// 18 seed routes + /v1/chains, /v1/chains/{chainId}, listValidators and
	// getBlock, getTransaction, listErc20Balances; 4 metrics routes; 13 info
	// + 10 avm methods + the EVM endpoint.
	if data != 24 || metrics != 4 || node != 24 {
		t.Fatalf("catalogue has %d data, %d metrics, %d node routes; want 24, 4, 24", data, metrics, node)
	}
}

func route(t *testing.T, name string) *Route {
	for _, r := range Catalogue() {
		if r.Name == name {
			return &r
		}
	}
	t.Fatalf("no route %s", name)
	return nil
}

func TestValidate(t *testing.T) {
	path := func(m map[string]string) PathFunc { return func(k string) string { return m[k] } }
	tests := []struct {
		name, route string
		path        map[string]string
		query       map[string][]string
		body        string
		want        string // "" = valid
	}{
		{"ok", "listSubnets", map[string]string{"network": "fuji"}, nil, "", ""},
		{"bad network", "listSubnets", map[string]string{"network": "devnet"}, nil, "", "network must be one of the following values: mainnet, fuji, testnet"},
		{"subnets max", "listSubnets", map[string]string{"network": "fuji"}, map[string][]string{"pageSize": {"10001"}}, "", "pageSize must not be greater than 10000"},
		{"subnets min", "listSubnets", map[string]string{"network": "fuji"}, map[string][]string{"pageSize": {"0"}}, "", "pageSize must not be less than 1"},
		{"not integer", "listSubnets", map[string]string{"network": "fuji"}, map[string][]string{"pageSize": {"1.5"}}, "", "pageSize must be an integer number"},
		{"sortOrder", "listSubnets", map[string]string{"network": "fuji"}, map[string][]string{"sortOrder": {"up"}}, "", "sortOrder must be one of the following values: asc, desc"},
		{"balances 500", "listErc721Balances", map[string]string{"chainId": "43114", "address": "0x1"}, map[string][]string{"pageSize": {"501"}}, "", "pageSize must not be greater than 500"},
		{"metrics 2160", "getEvmChainMetrics", map[string]string{"chainId": "43114", "metric": "txCount"}, map[string][]string{"pageSize": {"2161"}}, "", "pageSize must not be greater than 2160"},
		{"metric enum", "getEvmChainMetrics", map[string]string{"chainId": "43114", "metric": "tps"}, nil, "", "metric must be one of the following values"},
		{"day only", "getEvmChainMetrics", map[string]string{"chainId": "43114", "metric": "avgTps"}, map[string][]string{"timeInterval": {"hour"}}, "", "timeInterval must be day for metric avgTps"},
		{"day ok", "getEvmChainMetrics", map[string]string{"chainId": "43114", "metric": "cumulativeTxCount"}, map[string][]string{"timeInterval": {"day"}}, "", ""},
		{"vertexHeight missing", "getVertexByHeight", map[string]string{"network": "fuji", "blockchainId": "x-chain"}, nil, "", "vertexHeight should not be empty"},
		{"vertex chain", "getVertexByHeight", map[string]string{"network": "fuji", "blockchainId": "p-chain"}, map[string][]string{"vertexHeight": {"1"}}, "", "blockchainId must be one of the following values"},
		{"listChainIds addresses", "getChainIdsForAddresses", map[string]string{"network": "fuji"}, nil, "", "addresses should not be empty"},
		{"rewards one of", "listPendingPrimaryNetworkRewards", map[string]string{"network": "fuji"}, nil, "", "at least one of addresses, nodeIds must be provided"},
		{"validationStatus", "listValidators", map[string]string{"network": "fuji"}, map[string][]string{"validationStatus": {"done"}}, "", "validationStatus must be one of"},
		{"delegationStatus", "listDelegators", map[string]string{"network": "fuji"}, map[string][]string{"delegationStatus": {"removed"}}, "", "delegationStatus must be one of"},
		{"currency", "getNativeBalance", map[string]string{"chainId": "1", "address": "0x1"}, map[string][]string{"currency": {"btc"}}, "", "currency must be one of"},
		{"minUtxoAmount", "getUtxosByAddresses", map[string]string{"network": "fuji", "blockchainId": "p-chain"}, map[string][]string{"minUtxoAmount": {"-1"}}, "", "minUtxoAmount must not be less than 0"},
		{"includeSpent", "getUtxosByAddresses", map[string]string{"network": "fuji", "blockchainId": "p-chain"}, map[string][]string{"includeSpent": {"yes"}}, "", "includeSpent must be a boolean value"},
		{"quorum sum", "aggregateSignatures", map[string]string{"network": "fuji"}, nil, `{"message":"00","quorumPercentage":67,"quorumPercentageBuffer":34}`, "quorumPercentage + quorumPercentageBuffer must be less than or equal to 100"},
		{"neither", "aggregateSignatures", map[string]string{"network": "fuji"}, nil, `{}`, "either message or justification must be provided"},
		{"non hex", "aggregateSignatures", map[string]string{"network": "fuji"}, nil, `{"message":"0xzz"}`, "message must be a hexadecimal number"},
		{"malformed", "aggregateSignatures", map[string]string{"network": "fuji"}, nil, `{"message":`, "request body must be a JSON object"},
		{"quorum type", "aggregateSignatures", map[string]string{"network": "fuji"}, nil, `{"message":"00","quorumPercentage":"x"}`, "quorumPercentage must be an integer number"},
		{"quorum ok", "aggregateSignatures", map[string]string{"network": "fuji"}, nil, `{"message":"0x00ff","quorumPercentage":50,"quorumPercentageBuffer":50}`, ""},
		{"empty list item", "listValidators", map[string]string{"network": "fuji"}, map[string][]string{"nodeIds": {"a,,b"}}, "", "nodeIds must be a comma-separated list"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msgs := route(t, tt.route).Validate(path(tt.path), tt.query, []byte(tt.body))
			got := strings.Join(msgs, "; ")
			if tt.want == "" && got != "" || tt.want != "" && !strings.Contains(got, tt.want) {
				t.Fatalf("messages = %q; want %q", got, tt.want)
			}
		})
	}
}

func TestCanonicalQuery(t *testing.T) {
	r := route(t, "listSubnets")
	a := r.CanonicalQuery(map[string][]string{})
	b := r.CanonicalQuery(map[string][]string{"pageSize": {"100"}})
	if a != b || a != "pageSize=100" {
		t.Fatalf("canonical %q vs %q", a, b)
	}
	c := r.CanonicalQuery(map[string][]string{"sortOrder": {"asc"}, "pageToken": {"t 1"}})
	if c != "pageSize=100&pageToken=t+1&sortOrder=asc" {
		t.Fatalf("canonical = %q", c)
	}
}

func FuzzValidate(f *testing.F) {
	f.Add("listSubnets", "fuji", "pageSize", "10", "")
	f.Add("aggregateSignatures", "fuji", "", "", `{"message":"00","quorumPercentage":1e400}`)
	f.Add("getEvmChainMetrics", "43114", "timeInterval", "hour", "")
	routes := Catalogue()
	f.Fuzz(func(t *testing.T, name, pv, qk, qv, body string) {
		for i := range routes {
			if routes[i].Name == name {
				routes[i].Validate(PathFunc(func(string) string { return pv }), map[string][]string{qk: {qv}}, []byte(body))
			}
		}
	})
}

func TestPassthroughCost(t *testing.T) {
	tests := []struct {
		method, path string
		want         int64
	}{
		{"GET", "/v1/networks/fuji/blockchains/p-chain/transactions", 100},
		{"GET", "/v1/networks/fuji/blockchains/p-chain/blocks/abc", 100},
		{"GET", "/v1/chains/allBlocks", 1},
		{"GET", "/v1/chains/43114/blocks/12", 10},
		{"POST", "/v1/chains/43114/nfts/collections/0xa/tokens/1:reindex", 10},
		{"GET", "/v2/lookingGlass/compositeQuery", 7},
		{"POST", "/v2/lookingGlass/compositeQuery", 3000},
		{"GET", "/v1/unknown/route", 7},
	}
	for _, tt := range tests {
		if got := PassthroughCost(tt.method, tt.path, 7); got != tt.want {
			t.Errorf("PassthroughCost(%s %s) = %d; want %d", tt.method, tt.path, got, tt.want)
		}
	}
}
