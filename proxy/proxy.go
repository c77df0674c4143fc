// Package proxy is the HTTP edge: route matching by the catalogue, parameter
// validation, the JSON-RPC envelope, limits, the response cache, forwarding
// to the real services behind circuit breakers, and the fallback chain
// (upstream, stale copy, local handler, 503).
//
// Every request takes the same way (pipeline.go): routing and validation
// prepare each call (a preparedCall: prepare.go, rpc.go), then one function
// admits the request and runs each call's chain. The proxy uses the cache's
// entries and the limiter's charges and decisions as they are; it depends
// only on the small interfaces it defines here (Cache, Limiter, Local), which
// cmd/avaedge fills with the concrete packages.
package proxy

import (
	"context"
	"log/slog"
	"net/http"
	"net/netip"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/avaedge/avaedge/cache"
	"github.com/avaedge/avaedge/catalog"
	"github.com/avaedge/avaedge/internal/accesslog"
	"github.com/avaedge/avaedge/limits"
	"github.com/avaedge/avaedge/usage"
)

// Cache is the response cache; *cache.Cache is one. Do answers key from the
// cache (see cache.Cache.Do for the whole contract: single flight, stale-
// while-revalidate, stale-if-error); Fresh returns key's entry only when it is
// fresh in the process, without I/O, so a hit builds no fetch.
type Cache interface {
	Do(ctx context.Context, key string, bypass bool, fetch func(ctx context.Context) (*cache.Entry, error)) (*cache.Entry, cache.Status, error)
	Fresh(key string, now time.Time) *cache.Entry
}

var _ Cache = (*cache.Cache)(nil)

// Limiter decides whether a request may proceed; *limits.Limiter is one.
type Limiter interface {
	Admit(ctx context.Context, r *http.Request, c limits.Charge) limits.Decision
}

var _ Limiter = (*limits.Limiter)(nil)

// Identifier is a Limiter that admits in two steps: Identify refuses a
// request by its credentials alone, without I/O, so the edge can do it before
// reading a body whose cost it does not know yet; AdmitClient then charges
// the identified client. *limits.Limiter is one.
type Identifier interface {
	Identify(r *http.Request) (limits.Client, limits.Decision)
	AdmitClient(ctx context.Context, c limits.Client, ch limits.Charge) limits.Decision
}

var _ Identifier = (*limits.Limiter)(nil)

// Local is the offline implementation of every route.
type Local interface {
	// Answer answers one call of rt from the local world. For REST routes v
	// holds the validated parameters (path, query, body; defaults filled) and
	// r is the client's request, unchanged. For JSON-RPC routes (info.*,
	// avm.*, evm.rpc) v is nil and r is a request built by the edge whose
	// body is that one call (or the whole EVM body).
	Answer(w http.ResponseWriter, r *http.Request, rt *catalog.Route, v catalog.Values)
	// Covers reports whether the local world has a real source for a call
	// of rt with values v: always in local mode; in proxy mode only for
	// networks mapped to the devnet and EVM chains the indexer follows.
	Covers(rt *catalog.Route, v catalog.Values) bool
}

// LocalEVM is the optional ability of a Local to serve EVM chains of its
// own beyond /ext/bc/C/rpc (the devnet's subnet chains): their JSON-RPC
// calls are admitted, charged and answered as the C-Chain's are.
type LocalEVM interface {
	// ServesEVM reports whether path (/ext/bc/<chain>/rpc) is one of those
	// chains' endpoints.
	ServesEVM(path string) bool
}

// Usage meters every answered request and answers the usage routes
// (usage.Routes) from what it metered; *usage.Meter is one. Neither Count
// nor Record blocks or does I/O: they run on every request, after the
// answer is written.
type Usage interface {
	// Count counts a request by its shared prepared call alone, when that is all the
	// meter needs of it (it keeps no log line of it), and reports whether
	// it did; if not, the edge hands it the whole record.
	Count(c usage.Count) bool
	// Record takes one request's whole record.
	Record(rec usage.Record)
	// Answer answers a validated, admitted call of one of the usage routes
	// for the calling key.
	Answer(w http.ResponseWriter, r *http.Request, rt *catalog.Route, v catalog.Values, caller usage.Caller)
}

var _ Usage = (*usage.Meter)(nil)

// Origin names where an answer came from, as X-Avaedge-Source says. A
// JSON-RPC batch may combine several: Origin is a set of bits.
type Origin uint8

// Origins.
const (
	FromUpstream Origin = 1 << iota // the real service answered
	FromCache                       // a stored answer (fresh or stale)
	FromLocal                       // the local world answered
	FromEdge                        // the edge answered or refused by itself
)

// originNames are the header values of every set of origins, built once.
var originNames = func() (out [16][]string) {
	names := []string{"upstream", "cache", "local", "edge"}
	for set := 1; set < 16; set++ {
		v := ""
		for i, n := range names {
			if set&(1<<i) != 0 {
				if v != "" {
					v += ", "
				}
				v += n
			}
		}
		out[set] = []string{v}
	}
	return out
}()

// String returns the header value: "upstream", "cache", "local", "edge", or a
// comma-separated set for a batch.
func (s Origin) String() string {
	if s == 0 || s >= 16 {
		return ""
	}
	return originNames[s][0]
}

// Options configures a Server. Zero values mean the documented defaults.
type Options struct {
	// Routes is the catalogue, overrides applied. Nil means catalog.Catalogue().
	Routes []catalog.Route
	// Upstreams maps a service to its upstream; a missing service is answered
	// by Local only.
	Upstreams map[catalog.Service]*Upstream
	// Local answers what no upstream does. Nil answers 503 instead.
	Local Local
	// Cache stores upstream answers. Nil disables caching.
	Cache Cache
	// Limiter admits requests. Nil admits everything.
	Limiter Limiter
	// ClientIP names the client of a request for X-Forwarded-For and the
	// access log. Nil uses the connection's remote address.
	ClientIP func(r *http.Request) netip.Addr
	// MaxBodyBytes bounds request bodies; larger ones get 413. Zero means 1 MiB.
	MaxBodyBytes int64
	// PassthroughCost is the CU cost of a Publish entry that names none.
	// Zero means 20.
	PassthroughCost int64
	// Publish are further routes, and JSON-RPC methods, forwarded to named
	// keys only (config's publish).
	Publish []Publish
	// Usage meters every request by key and answers the usage routes
	// (/v1/apiUsageMetrics, /v1/apiLogs, the RPC usage routes) for the
	// calling key. Nil meters nothing, and those routes answer 404 like any
	// account-scoped route.
	Usage Usage
	// EVMDebug serves the debug_ namespace on the EVM endpoint to every
	// client, at catalog.EVMDebugCost per call: the local dev chain with
	// local.evm.debug. False leaves it to Publish.
	EVMDebug bool
	// Sockets bounds the EVM endpoints' WebSocket twins (/ext/bc/C/ws).
	Sockets SocketOptions
	// AccessLog receives one line per request. Nil logs none. (A concrete
	// type: the line's fields are passed without escaping to the heap.)
	AccessLog *accesslog.Logger
	// Logger receives errors and warnings. Nil means slog.Default().
	Logger *slog.Logger
	// Registerer receives the proxy's metrics. Nil registers none.
	Registerer prometheus.Registerer
	// Now is the clock. Nil means time.Now.
	Now func() time.Time
}
