package config

import (
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"time"

	"golang.org/x/net/http/httpguts"

	"github.com/avaedge/avaedge/catalog"
)

// Defaults fills the defaults that belong to the configuration (listeners,
// modes, timeouts and breakers of upstreams, server limits, log level) and
// derives what other fields imply (the node upstream of local.node, the
// TLS challenge listener). A field whose component has its own documented
// zero-value default (the Redis prefix, replicas, the upstream call
// timeout, the body limit, the cache's sizes, the devnet seed) is left
// zero, so each default is written in one place: the component's Options.
// Load calls Defaults, then Validate.
func (c *Config) Defaults() {
	def(&c.Listen, ":8080")
	def(&c.AdminListen, "127.0.0.1:9090")
	def(&c.LogLevel, "info")
	if c.Local.Node != "" && httpURL(c.Local.Node) {
		c.Local.Node = strings.TrimRight(c.Local.Node, "/")
		if c.Upstreams.Node.URL == "" && c.Upstreams.Node.Mode == "" {
			c.Upstreams.Node.URL = c.Local.Node
		}
	}
	for _, u := range []*Upstream{&c.Upstreams.Data, &c.Upstreams.Metrics, &c.Upstreams.Node} {
		u.defaults()
	}
	c.Local.EVM.defaults()
	s := &c.Server
	defDur(&s.ReadHeaderTimeout, 10*time.Second)
	defDur(&s.IdleTimeout, 120*time.Second)
	defDur(&s.ShutdownTimeout, 30*time.Second)
	defDur(&s.WriteTimeout, 60*time.Second)
	defDur(&s.BodyReadTimeout, 10*time.Second)
	if s.MinBodyRate == 0 {
		s.MinBodyRate = 1024
	}
	if s.MaxHeaderBytes == 0 {
		s.MaxHeaderBytes = 64 << 10
	}
	if c.TLS.Enabled() && c.TLS.HTTPListen == "" {
		c.TLS.HTTPListen = ":80"
	}
}

// defaults fills an upstream's mode (proxy with a URL, else local), its
// timeouts, breaker and retry budget.
func (u *Upstream) defaults() {
	if u.Mode == "" {
		u.Mode = "local"
		if u.URL != "" {
			u.Mode = "proxy"
		}
	}
	defDur(&u.ConnectTimeout, 3*time.Second)
	defDur(&u.FirstByteTimeout, 10*time.Second)
	b := &u.Breaker
	if b.MinRequests == 0 {
		b.MinRequests = 20
	}
	if b.FailureRatio == 0 {
		b.FailureRatio = 0.5
	}
	if b.ConsecutiveFailures == 0 {
		b.ConsecutiveFailures = 5
	}
	defDur(&b.Interval, 30*time.Second)
	defDur(&b.OpenFor, 10*time.Second)
	if b.HalfOpenProbes == 0 {
		b.HalfOpenProbes = 3
	}
	if u.Retry.Budget == 0 {
		u.Retry.Budget = 0.1
	}
}

func def(s *string, v string) {
	if *s == "" {
		*s = v
	}
}

func defDur(d *Duration, v time.Duration) {
	if *d == 0 {
		*d = Duration(v)
	}
}

// httpURL reports whether s is an http(s) URL with a host.
func httpURL(s string) bool {
	pu, err := url.Parse(s)
	return err == nil && (pu.Scheme == "http" || pu.Scheme == "https") && pu.Host != ""
}

// Validate rejects bad values with a message naming the field; a zero value
// (a default not filled yet) is not one. It changes nothing.
func (c *Config) Validate() error {
	var v validator
	v.general(c)
	for name, u := range map[string]*Upstream{"data": &c.Upstreams.Data, "metrics": &c.Upstreams.Metrics, "node": &c.Upstreams.Node} {
		v.upstream("upstreams."+name, u)
	}
	v.server(&c.Server)
	v.publish(c.Publish)
	v.routes(c.Routes)
	v.local(&c.Local)
	c.WebSocket.validate(v.bad)
	if (c.TLS.CertFile == "") != (c.TLS.KeyFile == "") {
		v.bad("tls", "cert_file and key_file go together")
	}
	return errors.Join(v.errs...)
}

// validator collects Validate's errors.
type validator struct{ errs []error }

// bad records that field is bad, as format and args say.
func (v *validator) bad(field, format string, args ...any) {
	v.errs = append(v.errs, fmt.Errorf("config: %s: %s", field, fmt.Sprintf(format, args...)))
}

// general checks the top-level settings: log level, usage, page tokens,
// replicas, trusted proxies, Redis, unissued keys.
func (v *validator) general(c *Config) {
	switch c.LogLevel {
	case "", "debug", "info", "warn", "error":
	default:
		v.bad("log_level", "%q is not one of debug, info, warn, error", c.LogLevel)
	}
	if c.Usage.FlushInterval < 0 || c.Usage.LogMaxAge < 0 || c.Usage.RetryFor < 0 {
		v.bad("usage", "flush_interval, log_max_age and retry_for must be positive durations (AVAEDGE_USAGE_FLUSH_INTERVAL like 10s)")
	}
	if c.Usage.LogsPerKey < 0 {
		v.bad("usage.logs_per_key", "must be at least 1, got %d", c.Usage.LogsPerKey)
	}
	if c.Usage.LogBytesPerKey < 0 {
		v.bad("usage.log_bytes_per_key", "must be at least 1, got %d", c.Usage.LogBytesPerKey)
	}
	if n := len(c.PageTokenSecret); n > 0 && n < 16 {
		v.bad("page_token_secret", "must be at least 16 characters, got %d", n)
	}
	if c.Replicas < 0 {
		v.bad("replicas", "must be at least 1, got %d", c.Replicas)
	}
	for _, p := range c.TrustedProxies {
		if _, err := netip.ParsePrefix(p); err != nil {
			v.bad("trusted_proxies", "%q is not a CIDR", p)
		}
	}
	if c.Redis != "" {
		if _, err := RedisAddrs(c.Redis); err != nil {
			v.bad("redis", "%v", err)
		}
	}
	if c.UnissuedKeys.PerAddress < -1 {
		v.bad("unissued_keys.per_address", "must be positive, or -1 for no bound")
	}
	if c.UnissuedKeys.Window < 0 {
		v.bad("unissued_keys.window", "must be positive")
	}
}

// upstream checks an upstream (field names it): its URL, headers, mode,
// breaker's failure ratio and retry budget.
func (v *validator) upstream(field string, u *Upstream) {
	if u.URL != "" && !httpURL(u.URL) {
		v.bad(field+".url", "%q is not an http(s) URL", u.URL)
	}
	for k, val := range u.Headers {
		if !httpguts.ValidHeaderFieldName(k) || !httpguts.ValidHeaderFieldValue(val) || val == "" {
			v.bad(field+".headers", "%q is not a header name with a value", k)
		}
	}
	switch u.Mode {
	case "", "local":
	case "proxy", "upstream-only":
		if u.URL == "" {
			v.bad(field+".mode", "%q needs a url", u.Mode)
		}
	default:
		v.bad(field+".mode", "%q is not one of proxy, upstream-only, local", u.Mode)
	}
	if r := u.Breaker.FailureRatio; r < 0 || r > 1 {
		v.bad(field+".breaker.failure_ratio", "must be within (0, 1], got %v", r)
	}
	if u.Retry.Budget > 1 {
		v.bad(field+".retry.budget", "must be at most 1, got %v", u.Retry.Budget)
	}
}

// server checks the listener's limits.
func (v *validator) server(s *Server) {
	if s.WriteTimeout < 0 {
		v.bad("server.write_timeout", "must be positive")
	}
	if s.BodyReadTimeout < 0 {
		v.bad("server.body_read_timeout", "must be positive")
	}
	if s.MinBodyRate < 0 {
		v.bad("server.min_body_rate", "must be positive")
	}
	if s.MaxHeaderBytes < 0 {
		v.bad("server.max_header_bytes", "must be positive")
	}
	if s.MaxBodyBytes < 0 {
		v.bad("server.max_body_bytes", "must be positive")
	}
}

// publish checks the published account-scoped routes and node methods.
func (v *validator) publish(ps []Publish) {
	for i := range ps {
		pub := &ps[i]
		field := fmt.Sprintf("publish[%d]", i)
		switch pub.Method {
		case "GET", "POST", "PUT", "PATCH", "DELETE":
		default:
			v.bad(field+".method", "%q is not GET, POST, PUT, PATCH or DELETE", pub.Method)
		}
		if !strings.HasPrefix(pub.Path, "/v1/") && !strings.HasPrefix(pub.Path, "/v2/") && !strings.HasPrefix(pub.Path, "/ext/") {
			v.bad(field+".path", "%q is not a path of the Data, Metrics or node API", pub.Path)
		}
		if len(pub.Keys) == 0 {
			v.bad(field+".keys", "name the key ids that may call it")
		}
		if pub.Cost < 0 {
			v.bad(field+".cost", "must not be negative")
		}
		endpoint := catalog.EndpointOf(pub.Path)
		switch {
		case len(pub.RPCMethods) > 0 && endpoint == "":
			v.bad(field+".rpc_methods", "%q is not a JSON-RPC endpoint of the node (e.g. /ext/bc/C/rpc, /ext/bc/X, /ext/info)", pub.Path)
		case len(pub.RPCMethods) > 0 && pub.Method != "POST":
			v.bad(field+".method", "JSON-RPC methods are published with method POST")
		case len(pub.RPCMethods) == 0 && endpoint != "":
			v.bad(field+".rpc_methods", "%q is a JSON-RPC endpoint: name the methods it publishes", pub.Path)
		}
		for j, m := range pub.RPCMethods {
			if name, _ := strings.CutSuffix(m, "*"); name == "" || strings.ContainsAny(name, "* \t") {
				v.bad(fmt.Sprintf("%s.rpc_methods[%d]", field, j), "%q is not a method name or a prefix ending in *", m)
			}
		}
	}
}

// routes checks the routes' overrides against the catalogue.
func (v *validator) routes(routes map[string]RouteOverride) {
	known := map[string]bool{}
	for _, r := range catalog.Catalogue() {
		known[r.Name] = true
	}
	for name, o := range routes {
		if !known[name] {
			v.bad("routes."+name, "no such route in the catalogue")
		}
		if o.Cost != nil && *o.Cost < 0 {
			v.bad("routes."+name+".cost", "must not be negative")
		}
		if o.Cache != "" && !catalog.ValidClass(o.Cache) {
			v.bad("routes."+name+".cache", "%q is not one of immutable, medium, short, metrics, never", o.Cache)
		}
		if o.TTL < 0 {
			v.bad("routes."+name+".ttl", "must not be negative")
		}
	}
}

// local checks the local world's settings: the followed node, the networks
// mapped to the devnet, the dev chains, the followed EVM chains.
func (v *validator) local(l *Local) {
	if l.Node != "" && !httpURL(l.Node) {
		v.bad("local.node", "%q is not an http(s) URL", l.Node)
	}
	if l.IndexURL != "" {
		if err := indexURL(l.IndexURL); err != nil {
			v.bad("local.index_url", "%v", err)
		} else if l.Node == "" {
			// The devnet's chains are each replica's own: there is no one
			// network for a fleet to share.
			v.bad("local.index_url", "needs local.node: only a followed network's index is shared")
		}
	}
	if l.IndexReadURL != "" {
		if err := indexURL(l.IndexReadURL); err != nil {
			v.bad("local.index_read_url", "%v", err)
		} else if l.IndexURL == "" {
			// The writer, the lease and the migrations need the primary.
			v.bad("local.index_read_url", "needs local.index_url: the read replica serves reads only; the primary takes the writes")
		}
	}
	for _, n := range l.Networks {
		if !slices.Contains(catalog.Networks, n) {
			v.bad("local.networks", "%q is not one of mainnet, fuji, testnet", n)
		}
	}
	l.EVM.validate(v.bad)
	for i, ch := range l.EVMChains {
		field := fmt.Sprintf("local.evm_chains[%d]", i)
		if ch.ChainID == 0 {
			v.bad(field+".chain_id", "is required")
		}
		if pu, err := url.Parse(ch.RPC); err != nil || pu.Host == "" {
			v.bad(field+".rpc", "%q is not a URL", ch.RPC)
		}
	}
}

// indexURL checks a local.index_url (or index_read_url): a postgres:// or
// postgresql:// URL with a host. Its error never repeats the URL's password.
func indexURL(s string) error {
	pu, err := url.Parse(s)
	if err != nil {
		return errors.New("is not a URL; give postgres://user:password@host:port/database")
	}
	if pu.Scheme != "postgres" && pu.Scheme != "postgresql" {
		return fmt.Errorf("%q is not a postgres:// URL (scheme %q); give postgres://user:password@host:port/database", pu.Redacted(), pu.Scheme)
	}
	if pu.Host == "" {
		return fmt.Errorf("%q names no host; give postgres://user:password@host:port/database", pu.Redacted())
	}
	return nil
}

// RedisAddrs parses the Redis setting: one redis:// (or rediss://) URL, or a
// comma-separated list of host:port cluster nodes.
func RedisAddrs(s string) ([]string, error) {
	if strings.HasPrefix(s, "redis://") || strings.HasPrefix(s, "rediss://") {
		if strings.Contains(s, ",") {
			return nil, fmt.Errorf("%q: give one redis:// URL or a list of host:port cluster nodes", s)
		}
		if _, err := url.Parse(s); err != nil {
			return nil, fmt.Errorf("%q is not a redis URL", s)
		}
		return []string{s}, nil
	}
	var out []string
	for _, a := range strings.Split(s, ",") {
		a = strings.TrimSpace(a)
		if _, _, err := splitHostPort(a); err != nil {
			return nil, fmt.Errorf("%q is not host:port", a)
		}
		out = append(out, a)
	}
	return out, nil
}

func splitHostPort(a string) (string, string, error) {
	i := strings.LastIndexByte(a, ':')
	if i <= 0 || i == len(a)-1 {
		return "", "", errors.New("missing port")
	}
	return a[:i], a[i+1:], nil
}
