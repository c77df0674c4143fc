package proxy

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"net/http"
	"net/http/pprof"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// AdminOptions configures the admin listener's handler.
type AdminOptions struct {
	// Gatherer serves /metrics. Nil means prometheus.DefaultGatherer.
	Gatherer prometheus.Gatherer
	// Ready reports readiness and its details for /readyz. Nil is always ready.
	Ready func() (ok bool, detail map[string]any)
	// Purge removes cached entries whose key starts with prefix. Nil answers
	// 501 on the purge endpoint.
	Purge func(ctx context.Context, prefix string) (int, error)
	// RoutePrefix returns the cache key prefix of a route name, or "" when
	// there is no such route.
	RoutePrefix func(route string) string
	// Usage serves a key's usage (GET /admin/usage?key=<id>). Nil answers 501.
	Usage http.Handler
	// Token guards /admin/: requests must send "Authorization: Bearer
	// <Token>". Empty disables /admin/ entirely.
	Token string
}

// AdminHandler returns the admin listener's handler: /healthz and /readyz
// (open, for probes), /metrics (behind the token when one is set),
// /debug/pprof/ and the /admin/ API (only with the token)
// (POST /admin/cache/purge?route=NAME or ?prefix=P, GET /admin/usage?key=ID).
func AdminHandler(o AdminOptions) http.Handler {
	mux := http.NewServeMux()
	g := o.Gatherer
	if g == nil {
		g = prometheus.DefaultGatherer
	}
	// With a token, /metrics needs it too (a scraper sends it as a bearer
	// token); without one it stays open for the loopback listener's scraper.
	metricsH := promhttp.HandlerFor(g, promhttp.HandlerOpts{})
	if o.Token != "" {
		metricsH = bearer(o.Token, metricsH)
	}
	mux.Handle("GET /metrics", metricsH)
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{"status": "ok"})
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		ok, detail := true, map[string]any{}
		if o.Ready != nil {
			ok, detail = o.Ready()
		}
		status := http.StatusOK
		state := "ready"
		if !ok {
			status, state = http.StatusServiceUnavailable, "not ready"
		}
		writeJSON(w, status, map[string]any{"status": state, "detail": detail})
	})
	// Profiles reveal memory contents and cost CPU: only with the token.
	pp := http.NewServeMux()
	pp.HandleFunc("/debug/pprof/", pprof.Index)
	pp.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	pp.HandleFunc("/debug/pprof/profile", pprof.Profile)
	pp.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	pp.HandleFunc("/debug/pprof/trace", pprof.Trace)
	mux.Handle("/debug/pprof/", bearer(o.Token, pp))
	admin := http.NewServeMux()
	admin.HandleFunc("POST /admin/cache/purge", func(w http.ResponseWriter, r *http.Request) {
		if o.Purge == nil {
			writeJSON(w, http.StatusNotImplemented, map[string]any{"error": "no cache configured"})
			return
		}
		prefix := r.URL.Query().Get("prefix")
		if route := r.URL.Query().Get("route"); route != "" {
			if o.RoutePrefix != nil {
				prefix = o.RoutePrefix(route)
			}
			if prefix == "" {
				writeJSON(w, http.StatusNotFound, map[string]any{"error": "no route " + route})
				return
			}
		}
		if prefix == "" {
			writeJSON(w, http.StatusBadRequest, map[string]any{"error": "give route=NAME or prefix=P"})
			return
		}
		ctx, cancel := context.WithTimeout(r.Context(), 30*time.Second)
		defer cancel()
		n, err := o.Purge(ctx, prefix)
		if err != nil {
			writeJSON(w, http.StatusBadGateway, map[string]any{"error": err.Error(), "purged": n})
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{"purged": n})
	})
	admin.HandleFunc("GET /admin/usage", func(w http.ResponseWriter, r *http.Request) {
		if o.Usage == nil {
			writeJSON(w, http.StatusNotImplemented, map[string]any{"error": "no limiter configured"})
			return
		}
		o.Usage.ServeHTTP(w, r)
	})
	mux.Handle("/admin/", bearer(o.Token, admin))
	return mux
}

// bearer lets through only requests that carry "Authorization: Bearer
// <token>"; with an empty token it refuses everything.
func bearer(token string, h http.Handler) http.Handler {
	want := []byte("Bearer " + token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if token == "" {
			writeJSON(w, http.StatusForbidden, map[string]any{"error": "disabled: set AVAEDGE_ADMIN_TOKEN"})
			return
		}
		if subtle.ConstantTimeCompare([]byte(r.Header.Get("Authorization")), want) != 1 {
			writeJSON(w, http.StatusUnauthorized, map[string]any{"error": "bad or missing admin token"})
			return
		}
		h.ServeHTTP(w, r)
	})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// Breakers returns each upstream's breaker state, for /readyz.
func (s *Server) Breakers() map[string]string {
	out := map[string]string{}
	for svc, up := range s.opts.Upstreams {
		if up != nil && up.Breaker != nil {
			out[string(svc)] = up.Breaker.State()
		}
	}
	return out
}

// HTTPServer returns an http.Server for h with the edge's limits.
func HTTPServer(addr string, h http.Handler, readHeader, idle time.Duration, maxHeader int) *http.Server {
	return &http.Server{
		Addr:              addr,
		Handler:           h,
		ReadHeaderTimeout: readHeader,
		IdleTimeout:       idle,
		MaxHeaderBytes:    maxHeader,
	}
}
