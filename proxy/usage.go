package proxy

import (
	"net/http"

	"github.com/avaedge/avaedge/cache"
	"github.com/avaedge/avaedge/catalog"
	"github.com/avaedge/avaedge/limits"
	"github.com/avaedge/avaedge/usage"
)

// mountUsage registers the usage routes (Options.Usage.Routes) as routes
// the edge answers itself: they match before the passthrough, so they are
// never forwarded, whatever the catalogue publishes. The catalogue must not
// name them (the mux refuses a second pattern for a path).
func (s *Server) mountUsage() {
	if s.opts.Usage == nil {
		return
	}
	for _, r := range usage.Routes() {
		rt := &r
		s.routes[rt.Name] = rt
		s.charged[rt.Name] = []string{rt.Name}
		rm := &routeMetrics{m: s.metrics, svc: rt.Service, name: rt.Name}
		s.rmetrics[rt.Name] = rm
		s.mux.HandleFunc(rt.Pattern(), func(w http.ResponseWriter, r *http.Request) { s.serveUsage(rt, rm, w, r) })
	}
}

// serveUsage answers a usage route for the calling key: the key is
// identified first (as the service's guards run before its validation, an
// anonymous client gets 401 whatever it asks), charged like any other call (before
// the query is parsed), then the query is parsed as strictly as every
// route's and validated by the route's rules.
func (s *Server) serveUsage(rt *catalog.Route, rm *routeMetrics, w http.ResponseWriter, r *http.Request) {
	ex := s.begin(w, r, rt.Service, rt.Name)
	ex.rm = rm
	defer s.finish(ex)
	id, ok := s.opts.Limiter.(Identifier)
	if !ok {
		s.refuse(ex, http.StatusUnauthorized, "An API key is required")
		return
	}
	c, d := id.Identify(r)
	ex.keyID = d.KeyID
	if d.Status != 0 {
		s.refuse(ex, d.Status, d.Message)
		return
	}
	ex.keyID, ex.identity = c.KeyID(), c.Identity()
	if !c.Keyed() {
		s.refuse(ex, http.StatusUnauthorized, "An API key is required to read its usage")
		return
	}
	ex.client, ex.identified = c, true
	charge := limits.Charge{Routes: s.charged[rt.Name], Cost: rt.Cost}
	if !s.admit(ex, charge) { // before the query is parsed (admit.go)
		return
	}
	// The query is read as strictly as every route's (a malformed pair, a
	// repeated parameter or a ';' is a 400), never by r.URL.Query(), which
	// drops what it cannot read and keeps the first of repeats.
	q, msgs := rt.ParseQuery(r.URL.RawQuery)
	var vals catalog.Values
	if msgs == nil {
		vals, msgs = rt.Validate(r, q, nil)
	}
	p := &preparedCall{rt: rt, rm: rm, service: rt.Service, vals: vals, charge: charge}
	ex.prepared = p
	if len(msgs) > 0 {
		s.restError(ex, http.StatusBadRequest, msgs, true)
		return
	}
	ex.source = FromEdge
	h := ex.w.Header()
	setOrigin(h, FromEdge)
	h["X-Cache-Status"] = cacheHdr[cache.Bypass]
	s.opts.Usage.Answer(ex.w, r, rt, vals, usage.Caller{Identity: c.Identity(), KeyID: c.KeyID()})
}

// looker names a request's client without counting a refusal;
// *limits.Limiter is one.
type looker interface {
	Lookup(r *http.Request) (limits.Client, bool)
}

// recordUsage hands the request's record to the meter, which counts it in
// one of its shards: strings and a prepared call the exchange already holds, so the
// hit path pays no I/O, no allocation and no second clock reading. A request answered before it was identified (a parameter
// error) is named by its key here.
func (s *Server) recordUsage(ex *exchange, status int) {
	if s.opts.Usage == nil {
		return
	}
	if p := ex.prepared; p != nil && p.shared && ex.atOnce && ex.admitted && s.opts.Usage.Count(usage.Count{Shape: p, Identity: ex.identity,
		Start: ex.start, Status: status, Source: ex.source.String(), CU: ex.cu, RequestID: ex.id}) {
		return // a repeated request answered from memory: counted by its prepared call
	}
	rec := usage.Record{Start: ex.start, Identity: ex.identity, KeyID: ex.keyID,
		Route: ex.route, RequestID: ex.id, RemoteAddr: ex.r.RemoteAddr, Host: ex.r.Host, Header: ex.r.Header,
		Status: status, Source: ex.source.String(), RPC: ex.service == catalog.Node, CU: ex.cu}
	var rt *catalog.Route
	if p := ex.prepared; p != nil {
		rt, rec.Values, rec.Method = p.rt, p.vals, p.method
		if p.shared {
			rec.Shape = p
		}
	} else {
		rt = s.routes[ex.route] // refused before its call was prepared
	}
	if rt != nil {
		rec.Path = rt.Path
	} else {
		rec.Path = ex.r.URL.Path
	}
	if !ex.atOnce {
		// An in-process hit is answered at ex.start, as its Date and Age
		// say: the clock is read once for it.
		rec.Duration = s.now().Sub(ex.start)
	}
	if rec.RPC && rec.Method == "" {
		rec.Method = ex.route
	}
	if ex.keyID == "" {
		if l, ok := s.opts.Limiter.(looker); ok {
			if c, ok := l.Lookup(ex.r); ok {
				rec.Identity, rec.KeyID = c.Identity(), c.KeyID()
			}
		}
	}
	s.opts.Usage.Record(rec)
}
