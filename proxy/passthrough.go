package proxy

import (
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/avaedge/avaedge/catalog"
	"github.com/avaedge/avaedge/limits"
)

// serviceOf names the service whose prefix path falls under, for paths the
// catalogue does not know. ok is false outside every service's prefix.
func serviceOf(path string) (svc catalog.Service, ok bool) {
	switch {
	case strings.HasPrefix(path, "/ext/"):
		return catalog.Node, true
	case strings.HasPrefix(path, "/v1/avg_tps/"):
		return catalog.Metrics, true
	case strings.HasPrefix(path, "/v2/chains/") && strings.Contains(path, "/addresses/"):
		// The Data API's one v2 route: /v2/chains/{chainId}/addresses/{address}/transactions.
		return catalog.Data, true
	case strings.HasPrefix(path, "/v2/"):
		return catalog.Metrics, true
	case strings.HasPrefix(path, "/v1/"):
		return catalog.Data, true
	}
	return "", false
}

// Publish is a route, or JSON-RPC methods of a node endpoint, the operator
// publishes to named keys only (config's publish entries).
type Publish struct {
	// Method and Path are the route's (Path a pattern whose "{name}"
	// segments match any one segment), or the node endpoint's (POST).
	Method, Path string
	// Keys are the key ids that may call it.
	Keys []string
	// Cost is its price in CU (with RPCMethods, of one call). Zero means
	// Options.PassthroughCost.
	Cost int64
	// RPCMethods are the endpoint's published methods: names, or prefixes
	// ending in "*".
	RPCMethods []string
}

// servePassthrough prepares a path the catalogue does not list. Only the
// operator's own Publish entries are forwarded, to their keys only: the
// catalogue already holds every public read of the real services, so
// everything else (account-scoped routes, writes, other node APIs, path
// variants of catalogued routes) is answered 404 at the edge and never
// reaches the upstream. Without an upstream a published path is 404 too.
// As for catalogued routes, a "{name}" of the entry's pattern holds one
// segment (400 otherwise), the upstream path is built from the pattern, and
// the query is read strictly and sent re-encoded. Every request is admitted
// first (admit.go): a published path at its entry's price, by plans that
// allow passthrough; any other at 1 CU, by any plan, before its 404. A
// HEAD matches a published GET, and is sent as one (upstreamMethod).
func (s *Server) servePassthrough(w http.ResponseWriter, r *http.Request) {
	svc, ok := serviceOf(r.URL.Path)
	ex := s.begin(w, r, svc, "passthrough")
	defer s.finish(ex)
	if !ok {
		ex.service = catalog.Data
	}
	escaped := r.URL.EscapedPath()
	var pub *Publish
	var m catalog.PathMatch
	best := -1
	for i := range s.opts.Publish {
		if !ok || s.opts.Publish[i].Method != upstreamMethod(r.Method) && s.opts.Publish[i].Method != r.Method || len(s.opts.Publish[i].RPCMethods) > 0 {
			continue
		}
		if pm, match := catalog.MatchPath(s.opts.Publish[i].Path, escaped); match && pm.Literals > best {
			best, pub, m = pm.Literals, &s.opts.Publish[i], pm
		}
	}
	if pub == nil || s.opts.Upstreams[svc] == nil {
		if s.admit(ex, limits.Charge{Cost: unknownPathCost}) {
			s.notFound(ex)
		}
		return
	}
	cost := pub.Cost
	if cost == 0 {
		cost = s.opts.PassthroughCost
	}
	p := &preparedCall{service: svc,
		charge: limits.Charge{Routes: passthroughRoute, Cost: cost},
		retry:  r.Method == http.MethodGet || r.Method == http.MethodHead}
	// Admitted before its body is read, and only for its keys.
	if !s.admit(ex, p.charge) {
		return
	}
	if !slices.Contains(pub.Keys, ex.keyID) {
		s.notFound(ex)
		return
	}
	msgs := m.Problems(pub.Path)
	query, qmsgs := catalog.ReencodeQuery(r.URL.RawQuery)
	if msgs = append(msgs, qmsgs...); len(msgs) > 0 {
		if svc == catalog.Node {
			s.refuse(ex, http.StatusBadRequest, strings.Join(msgs, "; "))
			return
		}
		s.restError(ex, http.StatusBadRequest, msgs, true)
		return
	}
	path := m.Path(pub.Path)
	p.url = &url.URL{RawPath: path, RawQuery: query}
	p.url.Path, _ = url.PathUnescape(path)
	body, err := s.readBody(r)
	if err != nil {
		s.refuseBody(ex, err)
		return
	}
	p.body = body
	s.serve(ex, p)
}

// unknownPathCost is the price of a request for a path no route or publish
// entry names: it is answered 404, and admitted first like any other.
const unknownPathCost = 1

// notFound answers a path no service knows: NestJS's "Cannot GET /path" for
// the REST services, net/http's 404 for the node.
func (s *Server) notFound(ex *exchange) {
	ex.source = FromEdge
	setOrigin(ex.w.Header(), FromEdge)
	if ex.service == catalog.Node {
		http.NotFound(ex.w, ex.r)
		return
	}
	s.restError(ex, http.StatusNotFound, []string{"Cannot " + ex.r.Method + " " + ex.r.URL.Path}, false)
}
