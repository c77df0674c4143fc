package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/avaedge/avaedge/cache"
	"github.com/avaedge/avaedge/catalog"
	"github.com/avaedge/avaedge/config"
	"github.com/avaedge/avaedge/internal/pgtest"
	"github.com/avaedge/avaedge/internal/redistest"
	"github.com/jackc/pgx/v5"
)

// TestConfigFieldsReachComponents sets every field of the config file to a
// value other than its default, builds the app, and finds each value in the
// component it configures. A field without a row fails the test, so a new
// field cannot be added without wiring it (server.max_body_bytes once was
// validated and never reached the proxy).
func TestConfigFieldsReachComponents(t *testing.T) {
	rds := redistest.Start(t)
	pg := pgtest.Start(t)
	indexURL := pg.Database(t)
	readReplica := pg.Standby(t)
	indexReadURL := readReplica.SameDatabase(indexURL)
	dir := t.TempDir()
	keys := filepath.Join(dir, "keys.yaml")
	if err := os.WriteFile(keys, []byte("plans:\n  p: {cu_per_minute: 5}\nkeys:\n  - {id: k, key: secret-k, plan: p}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if strings.HasPrefix(r.URL.Path, "/node/") {
			// The followed node names its network and answers nothing
			// else, which the follower survives (it retries).
			var call struct {
				Method string            `json:"method"`
				Params map[string]string `json:"params"`
			}
			json.NewDecoder(r.Body).Decode(&call)
			ids := map[string]string{"X": "2eNy1mUFdmaxXNj1eQHUe7Np4gju9sJsEtWQ4MX3ToiNKuADed", "C": "2owdGqyG6FFzTHy5qhenDXQcEghvr571KZE3gSfRJERSJinuwC", "P": "11111111111111111111111111111111LpoYY"}
			switch call.Method {
			case "info.getNetworkID":
				io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{"networkID":"12345"}}`)
			case "avm.getAssetDescription":
				io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{"assetID":"2fombhL7aGPwj3KH4bfrmJwW6PVnMobf9Y2fn9GwxiAAJyFDbe"}}`)
			case "info.getBlockchainID":
				fmt.Fprintf(w, `{"jsonrpc":"2.0","id":1,"result":{"blockchainID":%q}}`, ids[call.Params["alias"]])
			default:
				io.WriteString(w, `{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"down"}}`)
			}
			return
		}
		io.WriteString(w, `{}`)
	}))
	t.Cleanup(upstream.Close)
	// An EVM node the indexer follows: it names its chain and answers
	// nothing else, which the indexer survives (it retries).
	evmNode := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var call struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		json.NewDecoder(r.Body).Decode(&call)
		w.Header().Set("Content-Type", "application/json")
		if call.Method == "eth_chainId" {
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":"0x1869f"}`, call.ID)
			return
		}
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32000,"message":"down"}}`, call.ID)
	}))
	t.Cleanup(evmNode.Close)

	file := `
listen: 127.0.0.1:18080
admin_listen: 127.0.0.1:19091
admin_token: admin-tok
data_dir: ` + dir + `
upstream_api_key: operator-key
redis: ` + rds.URL() + `
redis_prefix: edgetest
keys_file: ` + keys + `
page_token_secret: edge-test-page-token-secret
replicas: 3
unissued_keys: {per_address: 7, window: 2h}
trusted_proxies: [10.0.0.0/8]
upstreams:
  data:
    url: ` + upstream.URL + `/data
    headers: {X-Provider-Key: provider-secret}
    mode: upstream-only
    connect_timeout: 1s
    first_byte_timeout: 2s
    timeout: 4s
    breaker: {min_requests: 7, failure_ratio: 0.25, consecutive_failures: 9, interval: 11s, open_for: 13s, half_open_probes: 2}
    retry: {budget: 0.3}
  metrics:
    url: ` + upstream.URL + `/metrics
    mode: local
  node:
    url: ` + upstream.URL + `/
    network_id: 5
server:
  read_header_timeout: 3s
  idle_timeout: 5s
  max_header_bytes: 4096
  max_body_bytes: 2048
  shutdown_timeout: 6s
  write_timeout: 8s
  body_read_timeout: 9s
  min_body_rate: 333
cache:
  max_bytes: 1048576
  compress_above: 512
routes:
  listSubnets: {cost: 3, cache: short, ttl: 7s}
publish:
  - {method: DELETE, path: "/v1/webhooks/{id}", keys: [k], cost: 9}
  - {method: POST, path: "/ext/bc/C/rpc", rpc_methods: ["debug_traceTransaction", "trace_*"], keys: [k], cost: 90}
local:
  networks: [fuji]
  seed: 42
  evm_chains:
    - {chain_id: 99999, name: Test L1, rpc: "` + evmNode.URL + `", start_block: 7}
  disable_dev_chain: true
  evm: {debug: true, writes_per_minute: 7, call_gas_cap: 1000000, call_timeout: 300ms, call_budget: 700ms, calls_per_client: 3, filters_per_client: 5, max_filters: 50, reset_dev_chains: true}
  node: ` + upstream.URL + `/node
  index_url: ` + indexURL + `
  index_read_url: ` + indexReadURL + `
tls:
  domains: [edge.example]
  email: ops@edge.example
  ca: https://ca.example/dir
  cert_file: ` + filepath.Join(dir, "cert.pem") + `
  key_file: ` + filepath.Join(dir, "key.pem") + `
  http_listen: 127.0.0.1:18081
usage: {flush_interval: 3s, logs_per_key: 50, log_bytes_per_key: 40000, log_max_age: 2h, retry_for: 4m, disable: false}
websocket: {disable: true, max_connections: 11, connections_per_key: 12, connections_per_address: 13, subscriptions_per_connection: 14,
  max_message_bytes: 15000, messages_per_second: 16, bytes_per_second: 17000, send_queue: 18, ping_interval: 19s, idle_timeout: 20s, notification_cost: 21}
disable_access_log: true
log_level: debug
`
	path := filepath.Join(dir, "avaedge.yaml")
	if err := os.WriteFile(path, []byte(file), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(path, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	log := slog.New(slog.DiscardHandler)
	a, err := build(ctx, cfg, log, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	srvs := newServers(cfg, a)
	tlsOpts := tlsOptions(cfg, log, a.Redis)
	w := a.wired
	data := w.upstreams[catalog.Data]
	if data == nil || w.upstreams[catalog.Node] == nil {
		t.Fatalf("upstreams wired: %v", w.upstreams)
	}
	tr := data.Transport.(*http.Transport)
	var subnets *catalog.Route
	for i := range w.proxy.Routes {
		if w.proxy.Routes[i].Name == "listSubnets" {
			subnets = &w.proxy.Routes[i]
		}
	}
	// clientIP is the proxy's name for a client behind a trusted proxy.
	r := httptest.NewRequest(http.MethodGet, "/v1/chains", nil)
	r.RemoteAddr = "10.1.2.3:5000"
	r.Header.Set("X-Forwarded-For", "203.0.113.9")

	rows := []struct {
		field     string // the YAML path
		got, want any
	}{
		{"listen", srvs.public.Addr, "127.0.0.1:18080"},
		{"admin_listen", srvs.admin.Addr, "127.0.0.1:19091"},
		{"admin_token", w.admin.Token, "admin-tok"},
		{"data_dir", []string{w.local.DataDir, tlsOpts.StoragePath}, []string{dir, filepath.Join(dir, "certs")}},
		{"upstreams.url", data.Base.String(), upstream.URL + "/data"},
		{"upstreams.mode", []bool{data.LocalFallback, w.upstreams[catalog.Metrics] == nil, w.local.LocalMode[catalog.Metrics]}, []bool{false, true, true}},
		{"upstreams.connect_timeout", tr.TLSHandshakeTimeout, time.Second},
		{"upstreams.first_byte_timeout", tr.ResponseHeaderTimeout, 2 * time.Second},
		{"upstreams.timeout", data.Timeout, 4 * time.Second},
		{"upstreams.headers", data.Headers.Get("X-Provider-Key"), "provider-secret"},
		{"publish.method", w.proxy.Publish[0].Method, "DELETE"},
		{"publish.path", w.proxy.Publish[0].Path, "/v1/webhooks/{id}"},
		{"publish.keys", w.proxy.Publish[0].Keys, []string{"k"}},
		{"publish.cost", w.proxy.Publish[0].Cost, int64(9)},
		{"publish.rpc_methods", w.proxy.Publish[1].RPCMethods, []string{"debug_traceTransaction", "trace_*"}},
		{"local.evm.debug", w.local.DevChain.Debug, true},
		{"local.node", w.local.Node, upstream.URL + "/node"},
		{"local.evm.writes_per_minute", w.local.DevChain.WritesPerMinute, 7},
		{"local.evm.call_gas_cap", w.local.DevChain.CallGasCap, uint64(1_000_000)},
		{"local.evm.call_timeout", w.local.DevChain.CallTimeout, 300 * time.Millisecond},
		{"local.evm.call_budget", w.local.DevChain.CallBudget, 700 * time.Millisecond},
		{"local.evm.calls_per_client", w.local.DevChain.CallsPerClient, 3},
		{"local.evm.filters_per_client", w.local.DevChain.FiltersPerClient, 5},
		{"local.evm.max_filters", w.local.DevChain.MaxFilters, 50},
		{"local.evm.reset_dev_chains", w.local.ResetDevChains, true},
		{"upstreams.breaker.min_requests", data.Breaker.Config().MinRequests, uint32(7)},
		{"upstreams.breaker.failure_ratio", data.Breaker.Config().FailureRatio, 0.25},
		{"upstreams.breaker.consecutive_failures", data.Breaker.Config().ConsecutiveFailures, uint32(9)},
		{"upstreams.breaker.interval", data.Breaker.Config().Interval, 11 * time.Second},
		{"upstreams.breaker.open_for", data.Breaker.Config().OpenFor, 13 * time.Second},
		{"upstreams.breaker.half_open_probes", data.Breaker.Config().HalfOpenProbes, uint32(2)},
		{"upstreams.retry.budget", data.RetryBudget, 0.3},
		{"upstreams.network_id", w.local.NodeNetwork, "fuji"},
		{"upstream_api_key", data.APIKey, "operator-key"},
		{"redis", []bool{a.Redis != nil, w.cache.Redis != nil, w.limits.Redis != nil}, []bool{true, true, true}},
		{"redis_prefix", []string{w.cache.Prefix, w.limits.Prefix, tlsOpts.RedisPrefix}, []string{"edgetest", "edgetest", "edgetest"}},
		{"keys_file", w.limits.KeysPath, keys},
		{"page_token_secret", []string{string(w.pageTokens.secret), w.pageTokens.source}, []string{"edge-test-page-token-secret", "config"}},
		{"replicas", w.limits.Replicas, 3},
		{"unissued_keys.per_address", w.limits.UnissuedKeys.PerAddress, 7},
		{"unissued_keys.window", w.limits.UnissuedKeys.Window, 2 * time.Hour},
		{"trusted_proxies", []any{w.limits.TrustedProxies, w.proxy.ClientIP(r), w.usage.ClientIP(r)}, []any{[]netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}, netip.MustParseAddr("203.0.113.9"), "203.0.113.9"}},
		{"server.read_header_timeout", srvs.public.ReadHeaderTimeout, 3 * time.Second},
		{"server.idle_timeout", srvs.public.IdleTimeout, 5 * time.Second},
		{"server.max_header_bytes", srvs.public.MaxHeaderBytes, 4096},
		{"server.max_body_bytes", w.proxy.MaxBodyBytes, int64(2048)},
		{"server.shutdown_timeout", srvs.shutdown, 6 * time.Second},
		{"server.write_timeout", srvs.public.WriteTimeout, 8 * time.Second},
		{"server.body_read_timeout", srvs.bodyRate.Grace, 9 * time.Second},
		{"server.min_body_rate", srvs.bodyRate.MinRate, int64(333)},
		{"cache.max_bytes", w.cache.MaxBytes, int64(1 << 20)},
		{"cache.compress_above", w.cache.CompressAbove, 512},
		{"routes.cost", subnets.Cost, int64(3)},
		{"routes.cache", subnets.Cache, cache.Short},
		{"routes.ttl", subnets.TTL, 7 * time.Second},
		{"local.networks", w.local.Networks, []string{"fuji"}},
		{"local.seed", w.local.Seed, int64(42)},
		{"local.evm_chains.chain_id", w.local.EVMChains[0].ChainID, uint64(99999)},
		{"local.evm_chains.name", w.local.EVMChains[0].Name, "Test L1"},
		{"local.evm_chains.rpc", w.local.EVMChains[0].RPC, evmNode.URL},
		{"local.evm_chains.start_block", w.local.EVMChains[0].StartBlock, uint64(7)},
		{"local.disable_dev_chain", w.local.DisableDevChain, true},
		{"local.index_url", []any{w.local.IndexURL, schemaVersion(t, indexURL), indexRole(t, a.Admin)}, []any{indexURL, 1, true}},
		{"local.index_read_url", []any{w.local.IndexReadURL, indexReads(t, a.Admin)}, []any{indexReadURL, readReplica.Addr}},
		{"tls.domains", tlsOpts.Domains, []string{"edge.example"}},
		{"tls.email", tlsOpts.Email, "ops@edge.example"},
		{"tls.ca", tlsOpts.CA, "https://ca.example/dir"},
		{"tls.cert_file", tlsOpts.CertFile, filepath.Join(dir, "cert.pem")},
		{"tls.key_file", tlsOpts.KeyFile, filepath.Join(dir, "key.pem")},
		{"tls.http_listen", srvs.acme, "127.0.0.1:18081"},
		{"usage.flush_interval", w.usage.FlushInterval, 3 * time.Second},
		{"usage.logs_per_key", w.usage.LogsPerKey, 50},
		{"usage.log_bytes_per_key", w.usage.LogBytesPerKey, int64(40000)},
		{"usage.log_max_age", w.usage.LogMaxAge, 2 * time.Hour},
		{"usage.retry_for", w.usage.RetryFor, 4 * time.Minute},
		{"usage.disable", []bool{w.proxy.Usage != nil, w.usage.Redis != nil, w.usage.DataDir == dir, w.usage.Prefix == "edgetest"}, []bool{true, true, true, true}},
		{"websocket.disable", w.proxy.Sockets.Disable, true},
		{"websocket.max_connections", w.proxy.Sockets.MaxConnections, 11},
		{"websocket.connections_per_key", w.proxy.Sockets.ConnectionsPerKey, 12},
		{"websocket.connections_per_address", w.proxy.Sockets.ConnectionsPerAddress, 13},
		{"websocket.subscriptions_per_connection", w.proxy.Sockets.SubscriptionsPerConnection, 14},
		{"websocket.max_message_bytes", w.proxy.Sockets.MaxMessageBytes, int64(15000)},
		{"websocket.messages_per_second", w.proxy.Sockets.MessagesPerSecond, 16.0},
		{"websocket.bytes_per_second", w.proxy.Sockets.BytesPerSecond, int64(17000)},
		{"websocket.send_queue", w.proxy.Sockets.SendQueue, 18},
		{"websocket.ping_interval", w.proxy.Sockets.PingInterval, 19 * time.Second},
		{"websocket.idle_timeout", w.proxy.Sockets.IdleTimeout, 20 * time.Second},
		{"websocket.notification_cost", w.proxy.Sockets.NotificationCost, int64(21)},
		{"disable_access_log", w.proxy.AccessLog == nil, true},
		{"log_level", newLogger(cfg.LogLevel, io.Discard).Enabled(ctx, slog.LevelDebug), true},
	}
	covered := map[string]bool{}
	for _, row := range rows {
		covered[row.field] = true
		t.Run(row.field, func(t *testing.T) {
			if !reflect.DeepEqual(row.got, row.want) {
				t.Fatalf("got %#v; want %#v", row.got, row.want)
			}
		})
	}
	for _, f := range yamlFields(reflect.TypeFor[config.Config](), "") {
		if !covered[f] {
			t.Errorf("config field %s has no row: wire it and add one", f)
		}
	}
}

// yamlFields lists the YAML paths of t's leaf fields; the upstreams' and
// the routes' entries are named once ("upstreams.timeout", "routes.cost").
func yamlFields(t reflect.Type, prefix string) []string {
	var out []string
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if name == "" || name == "-" {
			continue
		}
		path := prefix + name
		ft := f.Type
		for ft.Kind() == reflect.Slice || ft.Kind() == reflect.Map || ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		switch {
		case ft == reflect.TypeFor[config.Upstreams]():
			out = append(out, yamlFields(reflect.TypeFor[config.Upstream](), path+".")...)
		case ft.Kind() == reflect.Struct && ft != reflect.TypeFor[time.Time]():
			out = append(out, yamlFields(ft, path+".")...)
		default:
			out = append(out, path)
		}
	}
	return out
}

// schemaVersion returns the EVM index's schema version in the database at
// url: 1 once the index was opened there.
func schemaVersion(t *testing.T, url string) int {
	ctx := context.Background()
	c, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	var v int
	if err := c.QueryRow(ctx, `SELECT version FROM avaedge_schema WHERE component='evmindex'`).Scan(&v); err != nil {
		t.Logf("schema version: %v", err)
	}
	return v
}

// indexRole reports whether /readyz names this replica's role in the fleet
// sharing the index (writer or reader).
func indexRole(t *testing.T, admin http.Handler) bool {
	st := readyIndex(t, admin)
	return st.Role == "writer" || st.Role == "reader"
}

// indexReads is the host /readyz says the route reads go to.
func indexReads(t *testing.T, admin http.Handler) string { return readyIndex(t, admin).Reads }

// readyIndex reads /readyz's detail.index.
func readyIndex(t *testing.T, admin http.Handler) (st struct {
	Role  string `json:"role"`
	Reads string `json:"reads"`
}) {
	rec := httptest.NewRecorder()
	admin.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/readyz", nil))
	var v struct {
		Detail struct {
			Index json.RawMessage `json:"index"`
		} `json:"detail"`
	}
	json.Unmarshal(rec.Body.Bytes(), &v)
	json.Unmarshal(v.Detail.Index, &st)
	t.Logf("/readyz: %s", rec.Body)
	return st
}
