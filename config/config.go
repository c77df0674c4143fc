// Package config holds avaedge's configuration: the typed YAML file, the
// environment overrides of the operator contract, and per-section
// validation. Validate fills every documented default, so the components
// receive complete values; the routes themselves live in package catalog.
package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/avaedge/avaedge/cache"
	"github.com/avaedge/avaedge/catalog"
)

// Config is the whole configuration. Every field may be left out; Validate
// fills the documented defaults. A Config is not safe for concurrent
// mutation; it is read-only once validated.
type Config struct {
	// Listen is the public listener's address. Env AVAEDGE_LISTEN. Default ":8080".
	Listen string `yaml:"listen"`
	// AdminListen serves /metrics, /healthz, /readyz, pprof and the admin API.
	// Env AVAEDGE_ADMIN_LISTEN. Default "127.0.0.1:9090".
	AdminListen string `yaml:"admin_listen"`
	// AdminToken, when set, is required as "Authorization: Bearer <token>" by
	// the admin API (/admin/: cache purge, usage), pprof and /metrics. Env
	// AVAEDGE_ADMIN_TOKEN. Empty turns the admin API and pprof off and leaves
	// /metrics open for the loopback listener's scraper.
	AdminToken string `yaml:"admin_token"`
	// DataDir holds persistent local state (indexes, certificates). Env
	// AVAEDGE_DATA_DIR. Default "" keeps local state in memory.
	DataDir string `yaml:"data_dir"`
	// Upstreams are the real services. A service without a URL is answered
	// locally.
	Upstreams Upstreams `yaml:"upstreams"`
	// UpstreamAPIKey is the operator's own key, sent upstream as
	// x-glacier-api-key. Env AVAEDGE_UPSTREAM_API_KEY. Never logged.
	UpstreamAPIKey string `yaml:"upstream_api_key"`
	// Redis is the shared cache and limit store. Env AVAEDGE_REDIS: a
	// redis:// URL or a comma-separated list of cluster nodes. Empty means
	// in-process cache and limits.
	Redis string `yaml:"redis"`
	// RedisPrefix starts every Redis key, so one Redis can serve several
	// environments. Empty means the components' default, "avaedge".
	RedisPrefix string `yaml:"redis_prefix"`
	// KeysFile is the API keys and plans file. Env AVAEDGE_KEYS_FILE. Empty
	// means the real service's published plans, anonymous access only.
	KeysFile string `yaml:"keys_file"`
	// PageTokenSecret keys the MAC of the local routes' page tokens, at
	// least 16 characters: replicas that share it continue each other's
	// listings, and nobody without it can forge a token. Env
	// AVAEDGE_PAGE_TOKEN_SECRET. Never logged. Empty means the keys file's
	// page_token_secret, else one shared through Redis (the first replica to
	// start stores one), else one made at first start in the data directory
	// (pagetoken.secret), else one for this process only.
	PageTokenSecret string `yaml:"page_token_secret"`
	// UnissuedKeys bounds the keys nobody issued: without a keys file any
	// client key is accepted and metered on its own under the "free" plan,
	// and this keeps one address from buying more by rotating keys.
	UnissuedKeys UnissuedKeys `yaml:"unissued_keys"`
	// Replicas is how many avaedge replicas share the limits; when Redis is
	// unreachable each replica enforces 1/Replicas of every limit in process.
	// Zero means the limiter's default, 1.
	Replicas int `yaml:"replicas"`
	// TrustedProxies are CIDRs whose X-Forwarded-For is believed when naming
	// an anonymous client. Default none.
	TrustedProxies []string `yaml:"trusted_proxies"`
	// Server bounds the public listener.
	Server Server `yaml:"server"`
	// Cache sizes the in-process tier.
	Cache Cache `yaml:"cache"`
	// Routes overrides catalogue entries by route name.
	Routes map[string]RouteOverride `yaml:"routes"`
	// Publish forwards further routes of the real services, each to the
	// named keys only (account-scoped routes such as webhooks or usage, or
	// writes, that the operator chooses to share). Beyond the catalogue, the
	// built-in list of the services' other read routes and these entries,
	// every path is refused with 404: the operator's upstream key never
	// serves what the operator did not publish.
	Publish []Publish `yaml:"publish"`
	// Usage configures the metering of every request by key, which the
	// usage routes (/v1/apiUsageMetrics, /v1/apiLogs, the RPC usage routes)
	// and the admin API's /admin/usage read.
	Usage Usage `yaml:"usage"`
	// Local configures the offline world.
	Local Local `yaml:"local"`
	// WebSocket bounds the EVM endpoints' WebSocket twins (/ext/bc/C/ws).
	WebSocket WebSocket `yaml:"websocket"`
	// TLS terminates HTTPS on the public listener when set.
	TLS TLS `yaml:"tls"`
	// DisableAccessLog turns off the per-request JSON log line.
	DisableAccessLog bool `yaml:"disable_access_log"`
	// LogLevel is debug, info, warn or error. Default info.
	LogLevel string `yaml:"log_level"`
}

// Usage configures the metering of requests by key. With Redis the usage
// is shared by every replica; without, it lives in usage.db in the data
// directory; without either, in memory.
type Usage struct {
	// FlushInterval is how often each replica writes the usage it
	// aggregated (and at shutdown). Env AVAEDGE_USAGE_FLUSH_INTERVAL. Zero
	// means the meter's default, 10s.
	FlushInterval Duration `yaml:"flush_interval"`
	// LogsPerKey bounds the request logs kept per key (the newest are
	// kept). Zero means the meter's default, 10,000.
	LogsPerKey int `yaml:"logs_per_key"`
	// LogBytesPerKey bounds the bytes of the request logs kept per key in
	// Redis (the newest are kept). Zero means the meter's default, 1 KiB per
	// line of LogsPerKey.
	LogBytesPerKey int64 `yaml:"log_bytes_per_key"`
	// LogMaxAge bounds how long a request log is kept. Zero means the
	// meter's default, 168h (7 days).
	LogMaxAge Duration `yaml:"log_max_age"`
	// RetryFor is how long a batch that could not be written (Redis down)
	// is kept and retried before it is dropped, counted and logged. Zero
	// means the meter's default, 15m.
	RetryFor Duration `yaml:"retry_for"`
	// Disable turns metering off: nothing is recorded and the usage routes
	// answer 404 like any account-scoped route.
	Disable bool `yaml:"disable"`
}

// Upstreams names the real services and how to reach them.
type Upstreams struct {
	// Data is the Data API. Env AVAEDGE_DATA_UPSTREAM (e.g. https://glacier-api.avax.network).
	Data Upstream `yaml:"data"`
	// Metrics is the Metrics API. Env AVAEDGE_METRICS_UPSTREAM (e.g. https://metrics.avax.network).
	Metrics Upstream `yaml:"metrics"`
	// Node is an avalanchego node's HTTP API. Env AVAEDGE_NODE_UPSTREAM (e.g. https://api.avax.network).
	Node Upstream `yaml:"node"`
}

// UnissuedKeys bounds what keys nobody issued buy from one client address
// (IPv6: its /64): at most PerAddress distinct such keys are in use from it
// at a time (a key counts until it has been idle from that address for
// Window; a key in use keeps working, a new one beyond the bound gets 429),
// and together they spend at most PerAddress times the plan's day and
// month budgets. Shared by the replicas through Redis when it is set.
type UnissuedKeys struct {
	// PerAddress is the bound. Zero means 5; -1 means no bound.
	PerAddress int `yaml:"per_address"`
	// Window is how long a key counts after its last request. Zero means 1h.
	Window Duration `yaml:"window"`
}

// Publish is one route the operator publishes to named keys.
type Publish struct {
	// Method is the HTTP method (GET, POST, PUT, PATCH or DELETE).
	Method string `yaml:"method"`
	// Path is the path pattern; a "{name}" segment matches any one segment,
	// e.g. /v1/webhooks/{id}.
	Path string `yaml:"path"`
	// Keys are the key ids (of the keys file) that may call it. Required.
	Keys []string `yaml:"keys"`
	// Cost is the route's price in CU (with RPCMethods, of one call). Zero
	// means the passthrough cost (20).
	Cost int64 `yaml:"cost"`
	// RPCMethods publishes JSON-RPC methods of a node endpoint (Path is then
	// one of its paths, e.g. /ext/bc/C/rpc or /ext/bc/X, and Method POST) to
	// Keys, beside the catalogue's: exact method names
	// ("debug_traceTransaction", "avm.getAddressTxs") or a namespace prefix
	// ending in "*" ("debug_*", "trace_*"). A call of another method the
	// catalogue does not list gets the node's "method not found" at the edge.
	RPCMethods []string `yaml:"rpc_methods"`
}

// Upstream is one real service.
type Upstream struct {
	// URL is the service's base URL. Empty means local mode for the service.
	URL string `yaml:"url"`
	// Headers are sent with every call to this upstream, e.g. a third-party
	// node provider's own key. Env AVAEDGE_DATA_UPSTREAM_HEADERS,
	// AVAEDGE_METRICS_UPSTREAM_HEADERS, AVAEDGE_NODE_UPSTREAM_HEADERS:
	// "Name: value" pairs separated by ";". Never logged. The operator's
	// upstream_api_key goes to the Data and Metrics APIs only, never to the
	// node upstream.
	Headers map[string]string `yaml:"headers"`
	// Mode is "proxy" (upstream, then stale copy, then local), "upstream-only"
	// (no local fallback) or "local". Default "proxy" when URL is set, else "local".
	Mode string `yaml:"mode"`
	// ConnectTimeout bounds dialing. Default 3s.
	ConnectTimeout Duration `yaml:"connect_timeout"`
	// FirstByteTimeout bounds the wait for response headers. Default 10s.
	FirstByteTimeout Duration `yaml:"first_byte_timeout"`
	// Timeout bounds one whole upstream call. Zero means the proxy's default,
	// 30s.
	Timeout Duration `yaml:"timeout"`
	// Breaker configures the circuit breaker in front of the service.
	Breaker Breaker `yaml:"breaker"`
	// Retry bounds retries of idempotent reads.
	Retry Retry `yaml:"retry"`
	// NetworkID is the node upstream's network id. Zero means learn it from
	// info.getNetworkID at start. Node only.
	NetworkID uint32 `yaml:"network_id"`
}

// Breaker configures one circuit breaker (sony/gobreaker).
type Breaker struct {
	// MinRequests is the number of requests in a window before the failure
	// ratio can trip the breaker. Default 20.
	MinRequests uint32 `yaml:"min_requests"`
	// FailureRatio trips the breaker once reached. Default 0.5.
	FailureRatio float64 `yaml:"failure_ratio"`
	// ConsecutiveFailures trips the breaker regardless of the ratio. Default 5.
	ConsecutiveFailures uint32 `yaml:"consecutive_failures"`
	// Interval is the closed state's counting window. Default 30s.
	Interval Duration `yaml:"interval"`
	// OpenFor is how long the breaker stays open before probing. Default 10s.
	OpenFor Duration `yaml:"open_for"`
	// HalfOpenProbes is how many requests a half-open breaker lets through.
	// Default 3.
	HalfOpenProbes uint32 `yaml:"half_open_probes"`
}

// Retry is the retry budget of a service.
type Retry struct {
	// Budget is the largest share of requests that may be retries. Default
	// 0.1; negative disables retries. At most one retry per request, and only
	// of idempotent reads.
	Budget float64 `yaml:"budget"`
}

// Server bounds the public listener.
type Server struct {
	// ReadHeaderTimeout bounds reading request headers. Default 10s.
	ReadHeaderTimeout Duration `yaml:"read_header_timeout"`
	// IdleTimeout closes idle keep-alive connections. Default 120s.
	IdleTimeout Duration `yaml:"idle_timeout"`
	// MaxHeaderBytes bounds request headers. Default 64 KiB.
	MaxHeaderBytes int `yaml:"max_header_bytes"`
	// MaxBodyBytes bounds request bodies; larger ones get 413. Zero means the
	// proxy's default, 1 MiB.
	MaxBodyBytes int64 `yaml:"max_body_bytes"`
	// WriteTimeout bounds one exchange from the end of its request's headers
	// to the last byte of the answer (net/http's WriteTimeout): a client that
	// stops reading loses its connection (HTTP/1.1) or stream (HTTP/2) then.
	// Keep it above the upstreams' timeout. Default 60s.
	WriteTimeout Duration `yaml:"write_timeout"`
	// BodyReadTimeout is how long a request body may take beyond its length
	// at MinBodyRate; a slower body is cut off and its connection closed.
	// Default 10s.
	BodyReadTimeout Duration `yaml:"body_read_timeout"`
	// MinBodyRate is the least average rate, in bytes per second, at which a
	// request body must arrive once BodyReadTimeout is spent. Default 1024.
	MinBodyRate int64 `yaml:"min_body_rate"`
	// ShutdownTimeout bounds draining in-flight requests on SIGTERM. Default 30s.
	ShutdownTimeout Duration `yaml:"shutdown_timeout"`
}

// Cache sizes the response cache.
type Cache struct {
	// MaxBytes bounds the in-process tier. Zero means the cache's default,
	// 64 MiB; negative disables it.
	MaxBytes int64 `yaml:"max_bytes"`
	// CompressAbove gzips stored bodies larger than this many bytes. Zero
	// means the cache's default, 1024.
	CompressAbove int `yaml:"compress_above"`
}

// RouteOverride changes a catalogue entry.
type RouteOverride struct {
	// Cost replaces the route's CU cost when set.
	Cost *int64 `yaml:"cost"`
	// Cache replaces the route's cache class when set: immutable, medium,
	// short, metrics or never.
	Cache cache.Class `yaml:"cache"`
	// TTL replaces the freshness of the route's class when non-zero.
	TTL Duration `yaml:"ttl"`
}

// Local configures the offline world.
type Local struct {
	// Networks are the network names (mainnet, fuji, testnet) the devnet may
	// answer for when an upstream fails. Env AVAEDGE_LOCAL_NETWORKS
	// (comma-separated). In local mode every name resolves to the devnet.
	Networks []string `yaml:"networks"`
	// Seed makes the devnet world; the same seed gives the same world.
	// Zero means the devnet's default, 1.
	Seed int64 `yaml:"seed"`
	// EVMChains are EVM nodes the indexer follows, beside the embedded dev
	// chain.
	EVMChains []EVMChain `yaml:"evm_chains"`
	// DisableDevChain turns off the embedded EVM dev chain.
	DisableDevChain bool `yaml:"disable_dev_chain"`
	// EVM bounds what clients may do on the embedded dev chain.
	EVM LocalEVM `yaml:"evm"`
	// Node is an avalanchego base URL (e.g. "http://127.0.0.1:9650"). When
	// set, the local world is that node's network instead of the devnet:
	// avaedge indexes its P- and X-Chain (into pindex.db in the data
	// directory) and answers the primary-network Data API routes from the
	// index, also while the node is down; node JSON-RPC goes to it (it is the
	// node upstream unless upstreams.node.url names another). Env
	// AVAEDGE_LOCAL_NODE. Default "": the devnet.
	Node string `yaml:"node"`
	// IndexURL is a postgres:// (or postgresql://) URL: the followed
	// network's P/X index, EVM index and Metrics history kept in
	// PostgreSQL, shared by a fleet of replicas (one follows the chains,
	// elected by a lease in the database; the others read and stand by),
	// instead of pindex.db, evmindex.db and metrics.db in the data
	// directory. Needs Node. Env AVAEDGE_INDEX_URL. Default "":
	// SQLite. The URL's password is never logged.
	IndexURL string `yaml:"index_url"`
	// IndexReadURL is a postgres:// (or postgresql://) URL of a read
	// replica of IndexURL's database (a streaming hot standby): the
	// replica's route reads (the Data API, the Metrics API, the node API
	// answered from the index) and a standing-by replica's refresh of the
	// stored heads go there, the holder's reads included; the lease, the
	// writer's writes and its own reads for writing, the migrations and
	// the page-token secret stay on IndexURL. Answers lag by the read
	// replica's replay lag. Needs IndexURL. Env AVAEDGE_INDEX_READ_URL.
	// Default "": every read on IndexURL. The URL's password is never
	// logged.
	IndexReadURL string `yaml:"index_read_url"`
}

// EVMChain is an EVM node the indexer follows.
type EVMChain struct {
	// ChainID is the EVM chain id (e.g. 43114).
	ChainID uint64 `yaml:"chain_id"`
	// Name is the chain's display name.
	Name string `yaml:"name"`
	// RPC is the node's JSON-RPC URL.
	RPC string `yaml:"rpc"`
	// StartBlock is the first block indexed.
	StartBlock uint64 `yaml:"start_block"`
}

// TLS configures HTTPS on the public listener.
type TLS struct {
	// Domains, when set, get certificates by ACME.
	Domains []string `yaml:"domains"`
	// Email is the ACME account's contact.
	Email string `yaml:"email"`
	// CA is the ACME directory URL. Default Let's Encrypt.
	CA string `yaml:"ca"`
	// CertFile and KeyFile serve a static certificate instead of ACME.
	CertFile string `yaml:"cert_file"`
	KeyFile  string `yaml:"key_file"`
	// HTTPListen serves ACME HTTP-01 challenges and redirects to HTTPS.
	// Default ":80" when TLS is on.
	HTTPListen string `yaml:"http_listen"`
}

// Enabled reports whether TLS is configured.
func (t TLS) Enabled() bool { return len(t.Domains) > 0 || t.CertFile != "" }

// Duration is a time.Duration written as "10s" in YAML.
type Duration time.Duration

// UnmarshalYAML parses a Go duration string.
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	v, err := time.ParseDuration(n.Value)
	if err != nil {
		return fmt.Errorf("line %d: %q is not a duration like 10s", n.Line, n.Value)
	}
	*d = Duration(v)
	return nil
}

// MarshalYAML writes the duration string.
func (d Duration) MarshalYAML() (any, error) { return time.Duration(d).String(), nil }

// D returns d as a time.Duration.
func (d Duration) D() time.Duration { return time.Duration(d) }

// Load reads the YAML file at path (none when empty), applies environment
// overrides from getenv (os.Getenv when nil), fills the defaults
// (Defaults) and validates (Validate).
func Load(path string, getenv func(string) string) (*Config, error) {
	var c Config
	if path != "" {
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("config: %w", err)
		}
		if err := Parse(b, &c); err != nil {
			return nil, fmt.Errorf("config %s: %w", path, err)
		}
	}
	if getenv == nil {
		getenv = os.Getenv
	}
	c.ApplyEnv(getenv)
	c.Defaults()
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return &c, nil
}

// Parse decodes YAML strictly into c: unknown fields are errors.
func Parse(b []byte, c *Config) error {
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	// An empty file is an empty config: yaml.v3 reports io.EOF for it.
	if err := dec.Decode(c); err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	return nil
}

// ApplyEnv overrides fields with the operator contract's environment
// variables that are set.
func (c *Config) ApplyEnv(getenv func(string) string) {
	set := func(name string, dst *string) {
		if v := getenv(name); v != "" {
			*dst = v
		}
	}
	set("AVAEDGE_LISTEN", &c.Listen)
	set("AVAEDGE_ADMIN_LISTEN", &c.AdminListen)
	set("AVAEDGE_ADMIN_TOKEN", &c.AdminToken)
	set("AVAEDGE_DATA_UPSTREAM", &c.Upstreams.Data.URL)
	set("AVAEDGE_METRICS_UPSTREAM", &c.Upstreams.Metrics.URL)
	set("AVAEDGE_NODE_UPSTREAM", &c.Upstreams.Node.URL)
	set("AVAEDGE_UPSTREAM_API_KEY", &c.UpstreamAPIKey)
	set("AVAEDGE_REDIS", &c.Redis)
	set("AVAEDGE_KEYS_FILE", &c.KeysFile)
	set("AVAEDGE_PAGE_TOKEN_SECRET", &c.PageTokenSecret)
	set("AVAEDGE_DATA_DIR", &c.DataDir)
	for name, u := range map[string]*Upstream{"DATA": &c.Upstreams.Data, "METRICS": &c.Upstreams.Metrics, "NODE": &c.Upstreams.Node} {
		v := getenv("AVAEDGE_" + name + "_UPSTREAM_HEADERS")
		if v == "" {
			continue
		}
		u.Headers = map[string]string{}
		for _, pair := range strings.Split(v, ";") {
			if k, val, ok := strings.Cut(pair, ":"); ok {
				u.Headers[strings.TrimSpace(k)] = strings.TrimSpace(val)
			} else if strings.TrimSpace(pair) != "" {
				u.Headers[strings.TrimSpace(pair)] = "" // rejected by Validate
			}
		}
	}
	set("AVAEDGE_LOCAL_NODE", &c.Local.Node)
	set("AVAEDGE_INDEX_URL", &c.Local.IndexURL)
	set("AVAEDGE_INDEX_READ_URL", &c.Local.IndexReadURL)
	if v := getenv("AVAEDGE_RESET_DEV_CHAINS"); v != "" {
		if b, err := strconv.ParseBool(v); err == nil {
			c.Local.EVM.ResetDevChains = b
		} else {
			c.Local.EVM.badReset = v
		}
	}
	if v := getenv("AVAEDGE_USAGE_FLUSH_INTERVAL"); v != "" {
		if d, err := time.ParseDuration(v); err == nil {
			c.Usage.FlushInterval = Duration(d)
		} else {
			c.Usage.FlushInterval = -1 // rejected by Validate
		}
	}
	if v := getenv("AVAEDGE_LOCAL_NETWORKS"); v != "" {
		c.Local.Networks = nil
		for _, n := range strings.Split(v, ",") {
			if n = strings.TrimSpace(n); n != "" {
				c.Local.Networks = append(c.Local.Networks, n)
			}
		}
	}
}

// TrustedPrefixes returns TrustedProxies parsed; Validate has refused the
// ones that do not parse.
func (c *Config) TrustedPrefixes() []netip.Prefix {
	out := make([]netip.Prefix, 0, len(c.TrustedProxies))
	for _, s := range c.TrustedProxies {
		if p, err := netip.ParsePrefix(s); err == nil {
			out = append(out, p)
		}
	}
	return out
}

// Overrides returns the routes section as catalogue overrides, for
// catalog.WithOverrides.
func (c *Config) Overrides() map[string]catalog.Override {
	out := make(map[string]catalog.Override, len(c.Routes))
	for name, o := range c.Routes {
		out[name] = catalog.Override{Cost: o.Cost, Cache: o.Cache, TTL: o.TTL.D()}
	}
	return out
}

// PublicURL is the base URL clients reach the listener at, for answers that
// name it (the dev chain's rpcUrl).
func (c *Config) PublicURL() string {
	host, port, err := net.SplitHostPort(c.Listen)
	if err != nil {
		return "http://" + c.Listen
	}
	if host == "" || host == "0.0.0.0" || host == "::" {
		host = "127.0.0.1"
	}
	return "http://" + net.JoinHostPort(host, port)
}
