package proxy

import (
	"net/http"
	"strings"

	"github.com/avaedge/avaedge/catalog"
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

// servePassthrough forwards a path the catalogue does not know, untouched and
// never cached, at the real service's published cost (else the default).
// Without an upstream it answers the service's 404.
func (s *Server) servePassthrough(w http.ResponseWriter, r *http.Request) {
	svc, ok := serviceOf(r.URL.Path)
	ex := s.begin(w, r, svc, "passthrough")
	defer s.finish(ex)
	if !ok {
		ex.service = catalog.Data
		s.notFound(ex)
		return
	}
	refuse := func(st int, msg string) { s.restError(ex, st, []string{msg}, false) }
	if svc == catalog.Node {
		refuse = func(st int, msg string) { writeRPCError(ex.w, st, nil, msg) }
	}
	cost := catalog.PassthroughCost(r.Method, r.URL.Path, s.opts.PassthroughCost)
	if !s.admit(ex, Charge{Routes: []string{"passthrough"}, Cost: cost}, refuse) {
		return
	}
	up := s.opts.Upstreams[svc]
	if up == nil {
		s.notFound(ex)
		return
	}
	body, err := s.readBody(r)
	if err != nil {
		refuse(bodyStatus(err), bodyMessage(err))
		return
	}
	s.forward(ex, up, "", body)
}

// notFound answers a path no service knows: NestJS's "Cannot GET /path" for
// the REST services, net/http's 404 for the node.
func (s *Server) notFound(ex *exchange) {
	setSource(ex.w.Header(), ex, "edge")
	if ex.service == catalog.Node {
		http.NotFound(ex.w, ex.r)
		return
	}
	s.restError(ex, http.StatusNotFound, []string{"Cannot " + ex.r.Method + " " + ex.r.URL.Path}, false)
}
