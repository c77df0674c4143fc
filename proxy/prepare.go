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
	rm       *routeMetrics  // rt's counters (REST calls)
	service  catalog.Service
	vals     catalog.Values // validated parameters of a REST call
	key      string         // cache key; "" when the answer is not cached
	hasToken bool           // the query carries a pageToken (bounds the cache windows)
	charge   limits.Charge  // what the call costs (At is set per request)
	url      *url.URL       // the path and query sent upstream; nil sends the client's own
	body     []byte         // the body sent upstream: a POST's, one JSON-RPC call's
	call     *jsonrpc.Call  // the JSON-RPC call, whose id answers carry
	// edgeAnswers are the edge's own answers to refused elements of an EVM
	// batch, put among the upstream's answers (spliceWriter).
	edgeAnswers []edgeAnswer
	retry       bool // an idempotent read: the upstream call may be retried
	// method is a node call's method when no route names it (an EVM call,
	// a method the catalogue does not know), for its usage.
	method string
	// shared says the memo holds the call: requests share it, so it names
	// their usage (usage.Record.Shape). Set before the call is published.
	shared bool
}

// serveREST handles one catalogued Data or Metrics API route: the request
// is admitted for the route's price first (admit.go), then parsed and
// validated into a preparedCall and run. A HEAD is the route's GET without
// a body: the same call, key and fill (upstreamMethod).
func (s *Server) serveREST(rt *catalog.Route, rm *routeMetrics, w http.ResponseWriter, r *http.Request) {
	ex := s.begin(w, r, rt.Service, rt.Name)
	ex.rm = rm
	defer s.finish(ex)
	charge := limits.Charge{Routes: s.charged[rt.Name], Cost: rt.Cost}
	// Admitted before the query is parsed or the body read: a client over
	// its limit, or without a valid key, costs the edge nothing more, and a
	// request refused for its parameters has been charged.
	if !s.admit(ex, charge) {
		return
	}
	var body []byte
	if r.Method == http.MethodPost {
		var err error
		if body, err = s.readBody(r); err != nil {
			s.refuseBody(ex, err)
			return
		}
	}
	q, msgs := rt.ParseQuery(r.URL.RawQuery)
	var vals catalog.Values
	if msgs == nil {
		vals, msgs = rt.Validate(r, q, body)
	}
	if len(msgs) > 0 {
		s.restError(ex, http.StatusBadRequest, msgs, true)
		return
	}
	read := r.Method == http.MethodGet || r.Method == http.MethodHead
	p := &preparedCall{rt: rt, rm: rm, service: rt.Service, vals: vals, body: body, charge: charge,
		hasToken: q.Has("pageToken"), retry: read}
	// The upstream gets the path built from the route's pattern and the
	// validated values, and the canonical query of the validated values:
	// what was validated and charged is what is sent, whatever the client's
	// encoding, and the cache key is made of the same bytes.
	p.url, p.key = upstreamTarget(rt, vals, q)
	cached := s.opts.Cache != nil && read && rt.Cache != cache.Never && s.opts.Upstreams[rt.Service] != nil
	if !cached {
		p.key = ""
	}
	s.serve(ex, p)
	if cached && ex.admitted {
		// Only admitted, answered requests are remembered: refused clients
		// cannot fill the table.
		s.memo.put(r.RequestURI, p)
	}
}

// upstreamTarget returns what a validated call of rt sends upstream (the
// route's path with the values, each escaped as one segment, and the
// canonical query) and its cache key, service|route|path|query, which
// holds the same bytes: the key's tail is the URL's query. The client's key
// is never part of either. A JSON-RPC key is service|method|path|hash of
// the params.
func upstreamTarget(rt *catalog.Route, vals catalog.Values, q url.Values) (*url.URL, string) {
	var b strings.Builder
	b.Grow(len(rt.Service) + len(rt.Name) + len(rt.Path) + 96)
	b.WriteString(RoutePrefix(rt))
	pathStart := b.Len()
	rt.AppendPath(&b, vals)
	pathEnd := b.Len()
	b.WriteByte('|')
	rt.AppendCanonicalQuery(&b, q)
	key := b.String()
	escaped := key[pathStart:pathEnd]
	u := &url.URL{RawPath: escaped, RawQuery: key[pathEnd+1:]}
	// The values are one segment each, and PathEscape's output decodes.
	u.Path, _ = url.PathUnescape(escaped)
	return u, key
}

// RoutePrefix is the start of every cache key of a route: service|route|.
// The admin API purges a route by it.
func RoutePrefix(rt *catalog.Route) string { return string(rt.Service) + "|" + rt.Name + "|" }

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
	p.shared = true // before it is published: read by its own request's finish, then only by readers of the memo
	if _, loaded := m.entries.LoadOrStore(uri, p); !loaded {
		m.n.Add(1)
		m.bytes.Add(size)
	}
}
