package proxy

import (
	"github.com/avaedge/avaedge/catalog"
	"github.com/avaedge/avaedge/config"
)

// NewUpstreams builds the upstream of every service that has one in c (a
// URL, and a mode other than "local") and reports the services that have
// none: the local world answers all of theirs. The operator's Data API key
// goes to the Data and Metrics APIs, never to a node provider. onState is
// told of every breaker's change.
func NewUpstreams(c config.Upstreams, apiKey string, onState func(svc catalog.Service, from, to string)) (map[catalog.Service]*Upstream, map[catalog.Service]bool, error) {
	ups, localMode := map[catalog.Service]*Upstream{}, map[catalog.Service]bool{}
	for svc, u := range map[catalog.Service]config.Upstream{catalog.Data: c.Data, catalog.Metrics: c.Metrics, catalog.Node: c.Node} {
		if u.URL == "" || u.Mode == "local" {
			localMode[svc] = true
			continue
		}
		key := apiKey
		if svc == catalog.Node {
			key = ""
		}
		up, err := NewUpstream(svc, u, key, onState)
		if err != nil {
			return nil, nil, err
		}
		ups[svc] = up
	}
	return ups, localMode, nil
}
