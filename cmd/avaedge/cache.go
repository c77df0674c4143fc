package main

import (
	"net/http"

	"github.com/avaedge/avaedge/config"
	"github.com/avaedge/avaedge/local"
)

// localAdapter presents the local world as the proxy's Local.
// TODO(merge): replaced by local.Handler's own Serve and Serves.
type localAdapter struct{ h *local.Handler }

func (a localAdapter) Serve(w http.ResponseWriter, r *http.Request, rt *config.Route, v config.Values) {
	if !rt.IsRPC() {
		r = r.Clone(r.Context())
		for k, val := range v {
			r.SetPathValue(k, val)
		}
	}
	a.h.ServeHTTP(w, r)
}

func (a localAdapter) Serves(rt *config.Route, v config.Values) bool {
	r, _ := http.NewRequest(http.MethodGet, "/", nil)
	for k, val := range v {
		r.SetPathValue(k, val)
	}
	return a.h.Serves(r, rt.Name)
}
