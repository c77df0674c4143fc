package cache

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Class names a freshness policy; the route catalogue gives each route one.
type Class string

// The classes.
const (
	Immutable Class = "immutable" // never changes once it exists
	Medium    Class = "medium"    // slowly changing lists: validators, subnets, UTXOs
	Short     Class = "short"     // heads, balances, peers
	Metrics   Class = "metrics"   // time series updated several times an hour
	Never     Class = "never"     // writes, signatures
)

// Policy is the freshness of a class: fresh for Fresh, then served stale
// while one refresh runs for Stale, and served stale when the upstream fails
// for Error (both counted after Fresh).
type Policy struct{ Fresh, Stale, Error time.Duration }

// DefaultPolicy returns the policy of a class:
//
//	immutable  fresh 24h,  stale 24h,  on error 7d (capped by page tokens)
//	medium     fresh 30s,  stale 30s,  on error 1h
//	short      fresh 2s,   stale 2s,   on error 10m
//	metrics    fresh 5m,   stale 5m,   on error 6h
//	never      not stored
func DefaultPolicy(c Class) Policy {
	switch c {
	case Immutable:
		return Policy{24 * time.Hour, 24 * time.Hour, 7 * 24 * time.Hour}
	case Medium:
		return Policy{30 * time.Second, 30 * time.Second, time.Hour}
	case Short:
		return Policy{2 * time.Second, 2 * time.Second, 10 * time.Minute}
	case Metrics:
		return Policy{5 * time.Minute, 5 * time.Minute, 6 * time.Hour}
	}
	return Policy{}
}

// NegativeTTL is how long a 404 answer is kept.
const NegativeTTL = 5 * time.Second

// PageTokenLifetime is how long the real services' page tokens live; a page
// fetched with a token is never kept longer.
const PageTokenLifetime = 24 * time.Hour

// Windows returns the windows of an answer under policy p: only 200 is
// stored (404 briefly, without stale windows); upstream Cache-Control
// no-store and private prevent storing, s-maxage and max-age cap freshness;
// a page fetched with a pageToken is never kept past the token's lifetime.
func Windows(p Policy, status int, h http.Header, hasPageToken bool) (fresh, stale, errorFor time.Duration, store bool) {
	switch status {
	case http.StatusOK:
	case http.StatusNotFound:
		if p.Fresh <= 0 {
			return 0, 0, 0, false
		}
		return min(NegativeTTL, p.Fresh), 0, 0, true
	default:
		return 0, 0, 0, false
	}
	fresh, stale, errorFor = p.Fresh, p.Stale, p.Error
	if h != nil {
		var maxAge, sMaxAge time.Duration = -1, -1
		for _, v := range h.Values("Cache-Control") {
			for _, d := range strings.Split(v, ",") {
				name, val, _ := strings.Cut(strings.TrimSpace(strings.ToLower(d)), "=")
				switch name {
				case "no-store", "private", "no-cache":
					return 0, 0, 0, false
				case "max-age", "s-maxage":
					n, err := strconv.ParseInt(strings.Trim(val, `"`), 10, 64)
					if err != nil || n < 0 {
						continue
					}
					if name == "max-age" {
						maxAge = time.Duration(n) * time.Second
					} else {
						sMaxAge = time.Duration(n) * time.Second
					}
				}
			}
		}
		if sMaxAge >= 0 {
			maxAge = sMaxAge
		}
		if maxAge >= 0 && maxAge < fresh {
			fresh = maxAge
		}
	}
	if hasPageToken {
		fresh = min(fresh, PageTokenLifetime)
		stale = min(stale, PageTokenLifetime-fresh)
		errorFor = min(errorFor, PageTokenLifetime-fresh)
	}
	if fresh <= 0 && stale <= 0 && errorFor <= 0 {
		return 0, 0, 0, false
	}
	return fresh, stale, errorFor, true
}
