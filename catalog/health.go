package catalog

import "net/http"

// healthRoutes returns the services' own health and liveness checks
// (glacier.json's and popsicle.json's "Health Check" tags). They are public
// reads like any other, never cached: a check answered from a cache would
// say nothing of the service.
func healthRoutes() []Route {
	get := http.MethodGet
	return []Route{
		rest(Data, "data-health-check", get, "/v1/health-check", 20, never),
		rest(Data, "live-check", get, "/v1/live-check", 20, never),
		rest(Metrics, "metrics-health-check", get, "/v2/health-check", 1, never),
		rest(Metrics, "metrics-live-check", get, "/v2/live-check", 1, never),
	}
}
