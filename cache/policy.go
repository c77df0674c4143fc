package cache

import (
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Class names a freshness policy; the route catalogue gives each route one.
type Class string

// The classes.
const (
	Immutable Class = "immutable" // never changes once it exists: txs and blocks by id, network ids
	Short     Class = "short"     // heads, balances, heights, peers
	Medium    Class = "medium"    // slowly changing lists: validators, delegators, subnets, UTXOs
	Metrics   Class = "metrics"   // time series updated a few times an hour
	Never     Class = "never"     // writes, signatures: never stored
)

// Policy is the freshness of a class: an answer is fresh for Fresh; after
// that it is served stale while one refresh runs for Stale, and served
// stale when the upstream fails for Error (both windows counted from the
// end of Fresh, Error >= Stale).
type Policy struct{ Fresh, Stale, Error time.Duration }

// DefaultPolicy returns the policy of a class. Stale is Fresh (an answer
// served while revalidating is at most twice its freshness old); Error
// covers an upstream outage for at least ten minutes, longer the slower the
// data changes; an immutable answer cannot go wrong, so it covers a week:
//
//	class      fresh  stale  error  kept in Redis (fresh+error)
//	immutable  24h    24h    7d     8d
//	short      2s     2s     10m    10m2s
//	medium     30s    30s    1h     1h0m30s
//	metrics    5m     5m     6h     6h5m
//	never      -      -      -      not stored
//
// An unknown class is never stored. It is safe for concurrent use.
func DefaultPolicy(c Class) Policy {
	switch c {
	case Immutable:
		return Policy{Fresh: 24 * time.Hour, Stale: 24 * time.Hour, Error: 7 * 24 * time.Hour}
	case Short:
		return Policy{Fresh: 2 * time.Second, Stale: 2 * time.Second, Error: 10 * time.Minute}
	case Medium:
		return Policy{Fresh: 30 * time.Second, Stale: 30 * time.Second, Error: time.Hour}
	case Metrics:
		return Policy{Fresh: 5 * time.Minute, Stale: 5 * time.Minute, Error: 6 * time.Hour}
	}
	return Policy{}
}

// NegativeTTL is how long a 404 answer is kept (fresh, with no stale
// windows), when its class is stored at all.
const NegativeTTL = 5 * time.Second

// PageTokenLifetime is how long the real services' page tokens live. A page
// fetched with a pageToken is never kept longer: Fresh+Error (and so the
// Redis TTL) stays within it.
const PageTokenLifetime = 24 * time.Hour

// Windows returns the windows of an answer under policy p, and whether to
// store it at all:
//
//   - a success is stored whatever 2xx status the service uses (the
//     signature aggregator answers 201), except 206, a part of an answer;
//     a 404 is kept NegativeTTL (at most p.Fresh) with
//     no stale windows, so a negative answer is never served past it;
//   - upstream Cache-Control (RFC 9111 §5.2.2): no-store, private and
//     no-cache prevent storing; s-maxage, else max-age, caps Fresh (minus
//     the upstream's Age header); max-age=0 means not stored;
//     must-revalidate and proxy-revalidate forbid stale serving (both
//     windows become zero);
//   - an answer that sets a cookie (Set-Cookie), or that says it varies
//     with request headers (Vary, RFC 9110 §12.5.5; "*" included), is not
//     stored: the cache key holds neither, so it would serve one client's
//     answer to all. Vary names that cannot make a stored answer one
//     client's are ignored (sharedVary): Accept-Encoding, and the CORS
//     request headers that avalanchego's and NestJS's CORS handlers name
//     on every answer;
//   - a page fetched with a pageToken is never kept past
//     PageTokenLifetime: Fresh+Error <= PageTokenLifetime.
//
// Error is raised to at least Stale. It is safe for concurrent use.
func Windows(p Policy, status int, h http.Header, hasPageToken bool) (fresh, stale, errorFor time.Duration, store bool) {
	fresh, stale, errorFor = p.Fresh, p.Stale, max(p.Error, p.Stale)
	switch {
	case status >= 200 && status < 300 && status != http.StatusPartialContent:
	case status == http.StatusNotFound:
		fresh, stale, errorFor = min(NegativeTTL, p.Fresh), 0, 0
	default:
		return 0, 0, 0, false
	}
	if len(h.Values("Set-Cookie")) > 0 || variesByClient(h) {
		return 0, 0, 0, false
	}
	if cc := h.Values("Cache-Control"); len(cc) > 0 {
		maxAge, sMaxAge := time.Duration(-1), time.Duration(-1)
		for _, v := range cc {
			for d := range strings.SplitSeq(v, ",") {
				name, val, _ := strings.Cut(strings.TrimSpace(d), "=")
				switch strings.ToLower(strings.TrimSpace(name)) {
				case "no-store", "private", "no-cache":
					return 0, 0, 0, false
				case "must-revalidate", "proxy-revalidate":
					stale, errorFor = 0, 0
				case "max-age":
					maxAge = seconds(val)
				case "s-maxage":
					sMaxAge = seconds(val)
				}
			}
		}
		if sMaxAge >= 0 {
			maxAge = sMaxAge
		}
		if maxAge >= 0 {
			if age := seconds(h.Get("Age")); age > 0 {
				maxAge = max(maxAge-age, 0)
			}
			fresh = min(fresh, maxAge)
		}
	}
	if hasPageToken {
		fresh = min(fresh, PageTokenLifetime)
		errorFor = min(errorFor, PageTokenLifetime-fresh)
		stale = min(stale, errorFor)
	}
	if fresh <= 0 {
		return 0, 0, 0, false
	}
	return fresh, stale, errorFor, true
}

// seconds parses a delta-seconds value (RFC 9111 §1.2.2), quoted or not;
// -1 when it is not one.
func seconds(v string) time.Duration {
	n, err := strconv.ParseInt(strings.Trim(strings.TrimSpace(v), `"`), 10, 64)
	if err != nil || n < 0 {
		return -1
	}
	if n > int64(1<<63-1)/int64(time.Second) {
		n = int64(1<<63-1) / int64(time.Second)
	}
	return time.Duration(n) * time.Second
}

// sharedVary are the Vary names an answer may carry and still be stored:
// a cache fill asks for no encoding (Accept-Encoding), and sends no Origin
// nor preflight headers, while what varies with those (the
// Access-Control-* answer headers) is not part of a stored entry.
var sharedVary = []string{"Accept-Encoding", "Origin", "Access-Control-Request-Method", "Access-Control-Request-Headers"}

// variesByClient reports whether an answer's Vary names a request header
// other than sharedVary.
func variesByClient(h http.Header) bool {
	for _, v := range h.Values("Vary") {
		for name := range strings.SplitSeq(v, ",") {
			name = strings.TrimSpace(name)
			if name != "" && !slices.ContainsFunc(sharedVary, func(s string) bool { return strings.EqualFold(s, name) }) {
				return true
			}
		}
	}
	return false
}
