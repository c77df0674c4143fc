package catalog

import (
	"time"

	"github.com/avaedge/avaedge/cache"
)

// Override changes one catalogue entry (the operator's routes: section).
type Override struct {
	// Cost replaces the route's CU cost when non-nil.
	Cost *int64
	// Cache replaces the route's cache class when set.
	Cache cache.Class
	// TTL replaces the freshness of the route's class when positive.
	TTL time.Duration
}

// WithOverrides returns the catalogue with overrides applied, by route name.
// It is the one place a route override takes effect; names the catalogue
// does not know are ignored (config validation rejects them).
func WithOverrides(overrides map[string]Override) []Route {
	routes := Catalogue()
	for i := range routes {
		o, ok := overrides[routes[i].Name]
		if !ok {
			continue
		}
		if o.Cost != nil {
			routes[i].Cost = *o.Cost
		}
		if o.Cache != "" {
			routes[i].Cache = o.Cache
		}
		if o.TTL > 0 {
			routes[i].TTL = o.TTL
		}
	}
	return routes
}

// ValidClass reports whether c is one of the cache classes a route may have.
func ValidClass(c cache.Class) bool {
	switch c {
	case cache.Immutable, cache.Medium, cache.Short, cache.Metrics, cache.Never:
		return true
	}
	return false
}
