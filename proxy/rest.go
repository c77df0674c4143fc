package proxy

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/avaedge/avaedge/apierror"
	"github.com/avaedge/avaedge/cache"
	"github.com/avaedge/avaedge/catalog"
	"github.com/avaedge/avaedge/jsonrpc"
)

func jsonrpcLookup(name string) string { return jsonrpc.LookupName(name) }

// maxUpstreamBody bounds an upstream answer read into memory for caching.
const maxUpstreamBody = 32 << 20

// serveREST handles one catalogued Data or Metrics API route.
func (s *Server) serveREST(rt *catalog.Route, rm *routeMetrics, w http.ResponseWriter, r *http.Request) {
	ex := s.begin(w, r, rt.Service, rt.Name)
	ex.rm = rm
	defer s.finish(ex)
	var body []byte
	if r.Method == http.MethodPost {
		var err error
		if body, err = s.readBody(r); err != nil {
			s.restError(ex, bodyStatus(err), []string{bodyMessage(err)}, false)
			return
		}
	}
	q := r.URL.Query()
	if _, msgs := rt.Validate(r, q, body); len(msgs) > 0 {
		s.restError(ex, http.StatusBadRequest, msgs, true)
		return
	}
	if s.memoizable(rt, r) {
		s.remember(rt, rm, r, q)
	}
	charge := Charge{Routes: s.charged[rt.Name], Cost: rt.Cost}
	if !s.admit(ex, charge, func(st int, msg string) { s.restError(ex, st, []string{msg}, false) }) {
		return
	}
	s.answerREST(ex, rt, q, body)
}

func bodyStatus(err error) int {
	if errors.Is(err, errBodyTooLarge) {
		return http.StatusRequestEntityTooLarge
	}
	return http.StatusBadRequest
}

func bodyMessage(err error) string {
	if errors.Is(err, errBodyTooLarge) {
		return "request entity too large"
	}
	return "request body could not be read"
}

// restError answers in the service's error format: the Metrics API always
// sends an array of messages, the Data API an array for validation errors and
// a string otherwise (FACTS.md).
func (s *Server) restError(ex *exchange, status int, msgs []string, validation bool) {
	if ex.source == "" {
		setSource(ex.w.Header(), ex, "edge")
	}
	if ex.service == catalog.Metrics || validation {
		apierror.WriteList(ex.w, status, msgs...)
		return
	}
	apierror.Write(ex.w, status, strings.Join(msgs, "; "))
}

// answerREST runs the fallback chain for a validated, admitted request.
func (s *Server) answerREST(ex *exchange, rt *catalog.Route, q url.Values, body []byte) {
	r := ex.r
	up := s.opts.Upstreams[rt.Service]
	if up == nil {
		s.serveLocal(ex, rt.Name, r, body)
		return
	}
	if s.opts.Cache == nil || rt.Cache == cache.Never || r.Method != http.MethodGet {
		s.forward(ex, up, rt.Name, body)
		return
	}
	s.answerCached(ex, rt, s.restKey(rt, r, q), q.Has("pageToken"), nil)
}

// answerCached runs the cached part of the chain for a GET of a cached route
// with an upstream: first the in-process tier's fresh copy (unless the
// client bypasses the cache), then the whole cache path. values are path
// values to set on the request before anything past a fresh hit reads them
// (a remembered request skips the mux that would have set them); nil when
// the mux did.
func (s *Server) answerCached(ex *exchange, rt *catalog.Route, key string, hasToken bool, values [][2]string) {
	r := ex.r
	bypass := noCache(r.Header)
	if !bypass {
		if st := s.opts.Cache.Fresh(key, ex.start); st != nil {
			s.writeStored(ex, st, Hit)
			return
		}
	}
	for _, kv := range values {
		// The local fallback reads the network and chain from path values.
		r.SetPathValue(kv[0], kv[1])
	}
	up := s.opts.Upstreams[rt.Service]
	st, cs, err := s.opts.Cache.Do(r.Context(), key, bypass, func(ctx context.Context) (*Stored, error) {
		return s.fetch(ctx, up, rt, r, hasToken)
	})
	if err == nil {
		s.writeStored(ex, st, cs)
		return
	}
	s.fallback(ex, up, rt.Name, err, r, nil)
}

// RoutePrefix is the start of every cache key of a route: service|route|.
// The admin API purges a route by it.
func RoutePrefix(rt *catalog.Route) string { return string(rt.Service) + "|" + rt.Name + "|" }

// restKey is service|route|path|canonical query. The client's key is never
// part of it. A JSON-RPC key is service|method|path|hash of the params.
func (s *Server) restKey(rt *catalog.Route, r *http.Request, query url.Values) string {
	var b strings.Builder
	path := r.URL.EscapedPath()
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

func noCache(h http.Header) bool {
	// Received names are canonical: index the map without canonicalising.
	for _, v := range h["Cache-Control"] {
		if strings.Contains(v, "no-cache") || strings.Contains(v, "no-store") {
			return true
		}
	}
	p := h["Pragma"]
	return len(p) > 0 && p[0] == "no-cache"
}

// fetch calls the upstream for a cacheable route and reads the whole answer.
// It runs once for all concurrent callers of a key, so it is bounded by the
// upstream's timeout rather than by one client's context.
func (s *Server) fetch(ctx context.Context, up *Upstream, rt *catalog.Route, in *http.Request, hasToken bool) (*Stored, error) {
	ctx, cancel := detached(ctx, up.timeout())
	defer cancel()
	out := up.outgoing(ctx, in, nil, s.clientIP(in))
	// The cache keeps identity bodies, so any client can be served from it.
	out.Header.Del("Accept-Encoding")
	out.Header.Del("Cache-Control")
	out.Header.Del("Pragma")
	start := time.Now()
	resp, err := up.RoundTrip(out, true)
	s.metrics.upstreamLatency(up.Service, time.Since(start), err)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxUpstreamBody))
	if err != nil {
		return nil, &FailureError{Err: err}
	}
	if Failed(resp.StatusCode) {
		return nil, &FailureError{Status: resp.StatusCode, Header: resp.Header, Body: b, Err: errUpstreamStatus}
	}
	st := &Stored{
		Status:      resp.StatusCode,
		ContentType: resp.Header.Get("Content-Type"),
		Encoding:    resp.Header.Get("Content-Encoding"),
		Body:        b,
		StoredAt:    s.now(),
	}
	if fresh, stale, errFor, store := s.opts.Freshness(rt, resp.StatusCode, resp.Header, hasToken); store && st.Encoding == "" {
		st.FreshFor, st.StaleFor, st.ErrorFor = fresh, stale, errFor
	}
	return st, nil
}

func (u *Upstream) timeout() time.Duration {
	if u.Timeout <= 0 {
		return 30 * time.Second
	}
	return u.Timeout
}

// fallback answers after the upstream (and the stale copy) failed: the local
// handler when it has a real source, else the upstream's own failure answer
// when there was one, else 503.
func (s *Server) fallback(ex *exchange, up *Upstream, route string, err error, r *http.Request, body []byte) {
	if s.localServes(up, route, r, body) {
		s.serveLocalDirect(ex, r, route, body)
		return
	}
	var fe *FailureError
	if errors.As(err, &fe) && fe.Status != 0 {
		h := ex.w.Header()
		copyAnswerHeaders(h, fe.Header)
		setSource(h, ex, "upstream")
		ex.w.WriteHeader(fe.Status)
		ex.w.Write(fe.Body)
		return
	}
	s.unavailable(ex, "upstream "+string(ex.service)+" unavailable: "+reason(err))
}

func reason(err error) string {
	if errors.Is(err, ErrBreakerOpen) {
		return "circuit breaker open"
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return "timeout"
	}
	return "connection failed"
}

// unavailable answers 503 in the service's format.
func (s *Server) unavailable(ex *exchange, msg string) {
	setSource(ex.w.Header(), ex, "edge")
	if ex.service == catalog.Node {
		writeRPCError(ex.w, http.StatusServiceUnavailable, nil, msg)
		return
	}
	s.restError(ex, http.StatusServiceUnavailable, []string{msg}, false)
}

// serveLocal answers from the local world in local mode.
func (s *Server) serveLocal(ex *exchange, route string, r *http.Request, body []byte) {
	if s.opts.Local == nil {
		s.unavailable(ex, "no upstream is configured for the "+string(ex.service)+" service and "+route+" has no local handler")
		return
	}
	s.serveLocalDirect(ex, r, route, body)
}

// localValues returns the validated values of a REST call of route for the
// local world (nil for JSON-RPC routes), validating r again.
func (s *Server) localValues(rt *catalog.Route, r *http.Request, body []byte) catalog.Values {
	if rt == nil || rt.IsRPC() {
		return nil
	}
	v, _ := rt.Validate(r, r.URL.Query(), body)
	return v
}

// localServes reports whether a failed call of route may fall back to the
// local world.
func (s *Server) localServes(up *Upstream, route string, r *http.Request, body []byte) bool {
	if !up.LocalFallback || s.opts.Local == nil {
		return false
	}
	rt := s.routes[route]
	if rt == nil {
		return false
	}
	return s.opts.Local.Serves(rt, s.localValues(rt, r, body))
}

func (s *Server) serveLocalDirect(ex *exchange, r *http.Request, route string, body []byte) {
	h := ex.w.Header()
	setSource(h, ex, "local")
	if _, ok := h["X-Cache-Status"]; !ok {
		h["X-Cache-Status"] = cacheHdr[Bypass]
		ex.cache = Bypass
	}
	rt := s.routes[route]
	s.opts.Local.Serve(ex.w, r, rt, s.localValues(rt, r, body))
}

// forward streams an uncached call (writes, never-cached routes) and falls
// back when the upstream fails before answering.
func (s *Server) forward(ex *exchange, up *Upstream, route string, body []byte) {
	r := ex.r
	ctx, cancel := context.WithTimeout(r.Context(), up.timeout())
	defer cancel()
	out := up.outgoing(ctx, r, body, s.clientIP(r))
	start := time.Now()
	resp, err := up.RoundTrip(out, r.Method == http.MethodGet || r.Method == http.MethodHead)
	s.metrics.upstreamLatency(up.Service, time.Since(start), err)
	if err == nil && Failed(resp.StatusCode) && route != "" && s.localServes(up, route, r, body) {
		resp.Body.Close()
		err = &FailureError{Status: resp.StatusCode, Err: errUpstreamStatus}
	}
	if err != nil {
		if route == "" {
			s.unavailable(ex, "upstream "+string(ex.service)+" unavailable: "+reason(err))
			return
		}
		// The body was consumed: hand local a clone that carries it again.
		lr := r.Clone(r.Context())
		lr.Body = readCloser(body)
		s.fallback(ex, up, route, err, lr, body)
		return
	}
	defer resp.Body.Close()
	h := ex.w.Header()
	copyAnswerHeaders(h, resp.Header)
	setSource(h, ex, "upstream")
	h["X-Cache-Status"] = cacheHdr[Bypass]
	ex.cache = Bypass
	ex.w.WriteHeader(resp.StatusCode)
	streamBody(ex.w, resp.Body)
}

// copyAnswerHeaders copies an upstream answer's end-to-end headers, leaving
// out hop-by-hop headers and the upstream's rate-limit headers (they describe
// the operator's key, not the client's).
func copyAnswerHeaders(dst, src http.Header) {
	for k, vs := range src {
		lk := strings.ToLower(k)
		if strings.HasPrefix(lk, "ratelimit") || strings.HasPrefix(lk, "x-ratelimit") || lk == "retry-after" || lk == "set-cookie" {
			continue
		}
		dst[k] = append([]string(nil), vs...)
	}
	removeHop(dst)
}

// streamBody copies an upstream body to the client, flushing as it goes so
// long answers stream.
func streamBody(w http.ResponseWriter, body io.Reader) {
	rc := http.NewResponseController(w)
	buf := make([]byte, 32<<10)
	for {
		n, err := body.Read(buf)
		if n > 0 {
			if _, werr := w.Write(buf[:n]); werr != nil {
				return
			}
			rc.Flush()
		}
		if err != nil {
			return
		}
	}
}
