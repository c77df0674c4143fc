package proxy

import (
	"net/http"
	"strings"

	"github.com/avaedge/avaedge/config"
	"github.com/avaedge/avaedge/limits"
)

// serviceOf names the service whose prefix path falls under, for paths the
// catalogue does not know. ok is false outside every service's prefix.
func serviceOf(path string) (svc config.Service, ok bool) {
	switch {
	case strings.HasPrefix(path, "/ext/"):
		return config.Node, true
	case strings.HasPrefix(path, "/v1/avg_tps/"):
		return config.Metrics, true
	case strings.HasPrefix(path, "/v2/chains/") && strings.Contains(path, "/addresses/"):
		// The Data API's one v2 route: /v2/chains/{chainId}/addresses/{address}/transactions.
		return config.Data, true
	case strings.HasPrefix(path, "/v2/"):
		return config.Metrics, true
	case strings.HasPrefix(path, "/v1/"):
		return config.Data, true
	}
	return "", false
}

// servePassthrough plans a path the catalogue does not know: forwarded
// untouched and never cached, at the real service's published cost (else the
// default). Without an upstream it answers the service's 404.
func (s *Server) servePassthrough(w http.ResponseWriter, r *http.Request) {
	svc, ok := serviceOf(r.URL.Path)
	ex := s.begin(w, r, svc, "passthrough")
	defer s.finish(ex)
	if !ok {
		ex.service = config.Data
		s.notFound(ex)
		return
	}
	p := &plan{service: svc,
		charge: limits.Charge{Routes: []string{"passthrough"}, Cost: config.PassthroughCost(r.Method, r.URL.Path, s.opts.PassthroughCost)},
		retry:  r.Method == http.MethodGet || r.Method == http.MethodHead}
	if s.opts.Upstreams[svc] == nil {
		if s.admit(ex, p.charge) {
			s.notFound(ex)
		}
		return
	}
	body, err := s.readBody(r)
	if err != nil {
		s.refuseBody(ex, err)
		return
	}
	p.body = body
	s.serve(ex, p.charge, []*plan{p}, false)
}

// notFound answers a path no service knows: NestJS's "Cannot GET /path" for
// the REST services, net/http's 404 for the node.
func (s *Server) notFound(ex *exchange) {
	ex.source = FromEdge
	setSource(ex.w.Header(), FromEdge)
	if ex.service == config.Node {
		http.NotFound(ex.w, ex.r)
		return
	}
	s.restError(ex, http.StatusNotFound, []string{"Cannot " + ex.r.Method + " " + ex.r.URL.Path}, false)
}
