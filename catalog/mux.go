package catalog

import (
	"net/http"
	"strings"
)

// Mount registers each REST route of routes on mux, serving it with the
// handler handle returns for it, and answers every other request with
// fallback. A route whose pattern conflicts with one already registered
// (some path matches both and neither is more specific, which ServeMux
// refuses) is registered on a further ServeMux, asked only when the ones
// before it match nothing: so /v1/chains/address/{address} (a legacy route)
// answers every address but "blocks" and "transactions", which stay
// /v1/chains/{chainId}'s. JSON-RPC routes are left out; mux may hold other
// patterns of the caller's already. A nil fallback registers no "/" on mux
// unless a further layer needs it (paths no route matches then get
// ServeMux's 404), so the caller may register its own.
func Mount(mux *http.ServeMux, routes []Route, handle func(rt *Route) http.Handler, fallback http.Handler) {
	type entry struct {
		rt   *Route
		segs []string
	}
	var layers [][]entry
	for i := range routes {
		rt := &routes[i]
		if rt.IsRPC() {
			continue
		}
		e := entry{rt, segments(rt.Path)}
		n := 0
		for ; n < len(layers); n++ {
			clash := false
			for _, o := range layers[n] {
				if clash = rt.Method == o.rt.Method && conflicts(e.segs, o.segs); clash {
					break
				}
			}
			if !clash {
				break
			}
		}
		if n == len(layers) {
			layers = append(layers, nil)
		}
		layers[n] = append(layers[n], e)
	}
	// The last layer falls back to fallback, each other one to the next.
	next := fallback
	for n := len(layers) - 1; n >= 0; n-- {
		m := mux
		if n > 0 {
			m = http.NewServeMux()
		}
		for _, e := range layers[n] {
			m.Handle(e.rt.Pattern(), handle(e.rt))
		}
		if next != nil {
			m.Handle("/", next)
		}
		next = m
	}
	if len(layers) == 0 && fallback != nil {
		mux.Handle("/", fallback)
	}
}

// Conflicts reports whether ServeMux refuses to hold both r's and o's
// patterns: the same method, and some path matches both while neither is
// more specific than the other (every literal segment of one is a literal of
// the other, and the other has more). It knows the patterns the catalogue
// uses: literal segments and whole-segment wildcards.
func (r *Route) Conflicts(o *Route) bool {
	return r.Method == o.Method && conflicts(segments(r.Path), segments(o.Path))
}

func segments(path string) []string { return strings.Split(strings.TrimPrefix(path, "/"), "/") }

// conflicts is Conflicts for two patterns' segments.
func conflicts(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	aMore, bMore := false, false // a (b) has a literal where the other has a wildcard
	for i := range a {
		wa, wb := isWildcard(a[i]), isWildcard(b[i])
		switch {
		case !wa && !wb && a[i] != b[i]:
			return false // no path matches both
		case !wa && wb:
			aMore = true
		case wa && !wb:
			bMore = true
		}
	}
	return aMore == bMore
}

func isWildcard(seg string) bool {
	return strings.HasPrefix(seg, "{") && strings.HasSuffix(seg, "}")
}
