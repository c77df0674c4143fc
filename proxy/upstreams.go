package proxy

import (
	"github.com/avaedge/avaedge/catalog"
)

// NewUpstreams builds the upstream of every service c has one for (with a
// URL) and reports the services that have none: the local world answers
// all of theirs. The operator's Data API key goes to the Data and Metrics
// APIs, never to a node provider. onState is told of every breaker's
// change.
func NewUpstreams(c map[catalog.Service]UpstreamOptions, apiKey string, onState func(svc catalog.Service, from, to string)) (map[catalog.Service]*Upstream, map[catalog.Service]bool, error) {
	ups, localMode := map[catalog.Service]*Upstream{}, map[catalog.Service]bool{}
	for _, svc := range []catalog.Service{catalog.Data, catalog.Metrics, catalog.Node} {
		u := c[svc]
		if u.URL == "" {
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
