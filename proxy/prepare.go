package proxy

import (
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/avaedge/avaedge/cache"
	"github.com/avaedge/avaedge/catalog"
	"github.com/avaedge/avaedge/jsonrpc"
	"github.com/avaedge/avaedge/limits"
)

// preparedCall is what routing and validation concluded about one call: a REST
// request, one call of a JSON-RPC request, a whole EVM body, or a path the
// catalogue does not name. The pipeline runs it; a preparedCall is never
// changed once built, so a remembered one is shared by concurrent requests.
type preparedCall struct {
	rt       *catalog.Route // nil for a path or method the catalogue does not name
	unknown  *catalog.Route // for a JSON-RPC method the catalogue does not name: its endpoint, for the local world's own error
	rm       *routeMetrics  // rt's counters (REST calls)
	service  catalog.Service
	vals     catalog.Values // validated parameters of a REST call
	key      string         // cache key; "" when the answer is not cached
	hasToken bool           // the query carries a pageToken (bounds the cache windows)
	charge   limits.Charge  // what the call costs (At is set per request)
	url      *url.URL       // the path and query sent upstream; nil sends the client's own
	body     []byte         // the body sent upstream: a POST's, one JSON-RPC call's
	call     *jsonrpc.Call  // the JSON-RPC call, whose id answers carry
	retry    bool           // an idempotent read: the upstream call may be retried
}

// serveREST handles one catalogued Data or Metrics API route: it parses and
// validates the request into a preparedCall and runs it.
func (s *Server) serveREST(rt *catalog.Route, rm *routeMetrics, w http.ResponseWriter, r *http.Request) {
	ex := s.begin(w, r, rt.Service, rt.Name)
	ex.rm = rm
	defer s.finish(ex)
	charge := limits.Charge{Routes: s.charged[rt.Name], Cost: rt.Cost}
	var body []byte
	if r.Method == http.MethodPost {
		// Admitted before the body is read: a client without a valid key
		// cannot make the edge buffer its body.
		if !s.admit(ex, charge) {
			return
		}
		var err error
		if body, err = s.readBody(r); err != nil {
			s.refuseBody(ex, err)
			return
		}
	}
	q := r.URL.Query()
	vals, msgs := rt.Validate(r, q, body)
	if len(msgs) > 0 {
		s.restError(ex, http.StatusBadRequest, msgs, true)
		return
	}
	// The upstream gets the path in its canonical encoding and only the
	// parameters the route knows, as the client sent them: what validation
	// checked is what is sent, and encodings or unknown parameters cannot
	// make new cache entries.
	target := &url.URL{Path: r.URL.Path, RawQuery: knownQuery(rt, r.URL.RawQuery)}
	p := &preparedCall{rt: rt, rm: rm, service: rt.Service, vals: vals, body: body, url: target, charge: charge,
		retry: r.Method == http.MethodGet || r.Method == http.MethodHead}
	cached := s.opts.Cache != nil && r.Method == http.MethodGet && rt.Cache != cache.Never && s.opts.Upstreams[rt.Service] != nil
	if cached {
		p.key, p.hasToken = s.restKey(rt, target.EscapedPath(), q), q.Has("pageToken")
	}
	s.serve(ex, p)
	if cached && ex.admitted {
		// Only admitted, answered requests are remembered: refused clients
		// cannot fill the table.
		s.memo.put(r.RequestURI, p)
	}
}

// knownQuery is the client's raw query without the parameters rt does not
// know: the pairs it keeps are the client's own, in its order and encoding.
func knownQuery(rt *catalog.Route, raw string) string {
	if raw == "" {
		return ""
	}
	var b strings.Builder
	kept := 0
	for pair := range strings.SplitSeq(raw, "&") {
		k, _, _ := strings.Cut(pair, "=")
		name, err := url.QueryUnescape(k)
		if err != nil || !knownParam(rt, name) {
			continue
		}
		if kept > 0 {
			b.WriteByte('&')
		}
		b.WriteString(pair)
		kept++
	}
	if b.Len() == len(raw) {
		return raw
	}
	return b.String()
}

func knownParam(rt *catalog.Route, name string) bool {
	for i := range rt.Params {
		if rt.Params[i].In == catalog.Query && rt.Params[i].Name == name {
			return true
		}
	}
	return false
}

// RoutePrefix is the start of every cache key of a route: service|route|.
// The admin API purges a route by it.
func RoutePrefix(rt *catalog.Route) string { return string(rt.Service) + "|" + rt.Name + "|" }

// restKey is service|route|path|canonical query, path in its canonical
// encoding. The client's key is never part of it. A JSON-RPC key is
// service|method|path|hash of the params.
func (s *Server) restKey(rt *catalog.Route, path string, query url.Values) string {
	var b strings.Builder
	b.Grow(len(rt.Service) + len(rt.Name) + len(path) + 64)
	b.WriteString(string(rt.Service))
	b.WriteByte('|')
	b.WriteString(rt.Name)
	b.WriteByte('|')
	b.WriteString(path)
	b.WriteByte('|')
	rt.AppendCanonicalQuery(&b, query)
	return b.String()
}

// memo remembers the prepared calls of cacheable GETs by request URI, so that a
// repeated request (the cache's hit path) skips the mux, query parsing,
// validation and key building; the preparedCall is the same because all of them
// depend on the URI alone. It holds at most maxBytes of URIs, keys and
// values (counted with a fixed overhead per entry), and only the calls of
// requests that were admitted and answered. It is safe for concurrent use.
type memo struct {
	entries  sync.Map     // request URI -> *preparedCall
	n        atomic.Int64 // entries
	bytes    atomic.Int64 // their size, as counted by put
	maxBytes int64
}

// memoMaxBytes bounds the memo: 16 MiB holds about 50,000 typical URIs.
const memoMaxBytes = 16 << 20

// memoOverhead approximates a remembered call's fixed cost in bytes.
const memoOverhead = 256

func (m *memo) get(uri string) *preparedCall {
	if v, ok := m.entries.Load(uri); ok {
		return v.(*preparedCall)
	}
	return nil
}

func (m *memo) put(uri string, p *preparedCall) {
	size := int64(len(uri) + len(p.key) + memoOverhead)
	for k, v := range p.vals {
		size += int64(len(k) + len(v))
	}
	if m.bytes.Load()+size > m.maxBytes {
		return
	}
	if _, loaded := m.entries.LoadOrStore(uri, p); !loaded {
		m.n.Add(1)
		m.bytes.Add(size)
	}
}
