package proxy

import (
	"net/http"
	"net/url"
	"sync"
	"sync/atomic"

	"github.com/avaedge/avaedge/cache"
	"github.com/avaedge/avaedge/catalog"
)

// memo remembers, per request URI of a cacheable GET, what routing and
// validation concluded: the route, its path values and the cache key. A
// repeated request (the cache's hit path) skips the mux, query parsing,
// validation and key building; the outcome is the same because all of them
// depend on the URI alone. Only valid requests are remembered, and at most
// memoMax of them. It is safe for concurrent use.
type memo struct {
	entries sync.Map // request URI -> *memoEntry
	n       atomic.Int64
}

const memoMax = 16384

type memoEntry struct {
	rt       *catalog.Route
	rm       *routeMetrics
	key      string
	hasToken bool
	charged  []string
	values   [][2]string // path values, set again on the request
}

func (m *memo) get(uri string) *memoEntry {
	if v, ok := m.entries.Load(uri); ok {
		return v.(*memoEntry)
	}
	return nil
}

func (m *memo) put(uri string, e *memoEntry) {
	if m.n.Load() >= memoMax {
		return
	}
	if _, loaded := m.entries.LoadOrStore(uri, e); !loaded {
		m.n.Add(1)
	}
}

// memoizable reports whether a request's routing and validation depend on
// its URI alone: a body-less GET of a cached route.
func (s *Server) memoizable(rt *catalog.Route, r *http.Request) bool {
	return s.opts.Cache != nil && r.Method == http.MethodGet && rt.Cache != cache.Never &&
		s.opts.Upstreams[rt.Service] != nil
}

// remember stores a validated request's conclusions.
func (s *Server) remember(rt *catalog.Route, rm *routeMetrics, r *http.Request, q url.Values) {
	e := &memoEntry{rt: rt, rm: rm, key: s.restKey(rt, r, q), hasToken: q.Has("pageToken"), charged: s.charged[rt.Name]}
	for _, p := range rt.Params {
		if p.In == catalog.Path {
			e.values = append(e.values, [2]string{p.Name, r.PathValue(p.Name)})
		}
	}
	s.memo.put(r.RequestURI, e)
}

// serveMemo answers a request whose routing and validation are remembered.
func (s *Server) serveMemo(e *memoEntry, w http.ResponseWriter, r *http.Request) {
	ex := s.begin(w, r, e.rt.Service, e.rt.Name)
	ex.rm = e.rm
	defer s.finish(ex)
	if !s.admit(ex, Charge{Routes: e.charged, Cost: e.rt.Cost}, func(st int, msg string) { s.restError(ex, st, []string{msg}, false) }) {
		return
	}
	s.answerCached(ex, e.rt, e.key, e.hasToken, e.values)
}
