// Package proxy is the HTTP edge: route matching by the catalogue, parameter
// validation, the JSON-RPC envelope, limits, the response cache, forwarding
// to the real services behind circuit breakers, and the fallback chain
// (upstream, stale copy, local handler, 503).
//
// The proxy depends only on the small interfaces it defines here (Cache,
// Limiter, Local); cmd/avaedge wires the concrete cache, limits and local
// packages into them.
package proxy

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/avaedge/avaedge/catalog"
)

// Stored is a response as the cache keeps it. Body is always identity-encoded
// here; the cache may compress it at rest.
type Stored struct {
	Status      int
	ContentType string
	Encoding    string
	Body        []byte
	StoredAt    time.Time
	// FreshFor, StaleFor and ErrorFor are the freshness, stale-while-
	// revalidate and stale-if-error windows, counted from StoredAt (the
	// latter two after FreshFor ends).
	FreshFor, StaleFor, ErrorFor time.Duration
}

// CacheStatus is the X-Cache-Status of an answer.
type CacheStatus string

// Cache statuses.
const (
	Hit    CacheStatus = "HIT"
	Miss   CacheStatus = "MISS"
	Stale  CacheStatus = "STALE"
	Bypass CacheStatus = "BYPASS"
)

// Cache is the response cache. Do answers key from the cache when fresh (or
// stale within its stale-while-revalidate window, refreshing in the
// background), else calls fetch once for all concurrent callers of key and
// stores what it returns when its FreshFor is positive; when fetch fails it
// answers a stale copy within the error window, else returns fetch's error.
// bypass skips the read but not the store.
//
// Fresh returns key's entry when it is fresh in the process at now (no
// I/O, no allocation), else nil; the proxy asks it first so that a hit
// builds no fetch. A nil answer says nothing about other tiers.
type Cache interface {
	Do(ctx context.Context, key string, bypass bool, fetch func(ctx context.Context) (*Stored, error)) (*Stored, CacheStatus, error)
	Fresh(key string, now time.Time) *Stored
}

// Charge is what one request costs.
type Charge struct {
	Routes []string  // the route names charged
	Cost   int64     // total compute units
	At     time.Time // when the request arrived, by the Server's clock
}

// Decision is a limiter's verdict.
type Decision struct {
	// Status is 0 when the request may proceed, else 401, 403 or 429.
	Status  int
	Message string
	// KeyID names the client's key for logs ("anonymous" without one).
	KeyID string
	// SetHeaders writes the rate-limit headers; nil writes none (an
	// anonymous request's success carries none, and builds no closure).
	SetHeaders func(http.Header)
}

// Limiter decides whether a request may proceed.
type Limiter interface {
	Admit(ctx context.Context, r *http.Request, c Charge) Decision
}

// Local is the offline implementation of every route.
type Local interface {
	// Serve answers one call of rt from the local world. For REST routes v
	// holds the validated parameters (path, query, body; defaults filled) and
	// r is the client's request (its body may already be consumed; never read
	// it). For JSON-RPC routes (info.*, avm.*, evm.rpc) v is nil and r is a
	// request built by the edge whose body is that one call (or the EVM body).
	Serve(w http.ResponseWriter, r *http.Request, rt *catalog.Route, v catalog.Values)
	// Serves reports whether the local world has a real source for a call of
	// rt with values v (always in local mode; in proxy mode only for mapped
	// networks and indexed EVM chains).
	Serves(rt *catalog.Route, v catalog.Values) bool
}

// Freshness returns the cache windows of an answer of route, and whether to
// store it at all.
type Freshness func(route *catalog.Route, status int, h http.Header, hasPageToken bool) (fresh, stale, errorFor time.Duration, store bool)

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
	// Freshness gives cache windows; required with Cache.
	Freshness Freshness
	// Limiter admits requests. Nil admits everything.
	Limiter Limiter
	// ClientIP names the client of a request for X-Forwarded-For and logs.
	// Nil uses the connection's remote address.
	ClientIP func(r *http.Request) string
	// MaxBodyBytes bounds request bodies; larger ones get 413. Zero means 1 MiB.
	MaxBodyBytes int64
	// PassthroughCost is the CU cost of a path the catalogue does not know
	// and the real services publish no cost for. Zero means 20.
	PassthroughCost int64
	// AccessLog enables the per-request log line.
	AccessLog bool
	// Logger receives the access log and errors. Nil means slog.Default().
	Logger *slog.Logger
	// Registerer receives the proxy's metrics. Nil registers none.
	Registerer prometheus.Registerer
	// Now is the clock. Nil means time.Now.
	Now func() time.Time
}
