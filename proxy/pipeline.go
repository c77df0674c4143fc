package proxy

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/avaedge/avaedge/cache"
	"github.com/avaedge/avaedge/catalog"
	"github.com/avaedge/avaedge/limits"
)

// serve is the pipeline every request runs once routing and validation have
// prepared its call: admission for the call's charge (unless the request, having
// a body, was admitted before it was read), then the call's chain (answer),
// written straight to the client.
func (s *Server) serve(ex *exchange, p *preparedCall) {
	ex.prepared = p
	if !ex.admitted && !s.admit(ex, p.charge) {
		return
	}
	if p.edgeAnswers != nil {
		sw := &spliceWriter{ResponseWriter: ex.w, extra: p.edgeAnswers}
		ex.source, ex.cache = s.answer(ex, p, sw)
		if sw.finish() {
			ex.source |= FromEdge
		}
		return
	}
	ex.source, ex.cache = s.answer(ex, p, ex.w)
}

// answer runs one prepared call's chain and writes its answer to w: an edge error of
// the call; the local world when the service has no upstream; else the cache
// (fresh in the process, then the whole cache path) for cached calls, or the
// upstream directly; and the fallback when the upstream fails. It returns the
// answer's source and cache status.
func (s *Server) answer(ex *exchange, p *preparedCall, w http.ResponseWriter) (Origin, cache.Status) {
	if p.call != nil && p.call.Err != nil {
		return writeCallError(w, p.call), ""
	}
	up := s.opts.Upstreams[p.service]
	if up == nil {
		return s.answerLocally(ex, p, w)
	}
	if p.key == "" || s.opts.Cache == nil {
		return s.forward(ex, up, p, w)
	}
	// A client's Cache-Control: no-cache skips the read only where its plan
	// lets it (cache_bypass); the fill still goes through single flight.
	bypass := ex.bypassOK && noCache(ex.r.Header)
	if !bypass {
		if e := s.opts.Cache.Fresh(p.key, ex.start); e != nil {
			ex.atOnce = true
			return s.writeEntry(ex, p, w, e, cache.Hit)
		}
	}
	e, cs, err := s.opts.Cache.Do(ex.r.Context(), p.key, bypass, func(ctx context.Context) (*cache.Entry, error) {
		return s.fetch(ctx, up, ex.r, p)
	})
	if errors.Is(err, errTooLargeToStore) {
		return s.forward(ex, up, p, w) // streamed to this client, never stored
	}
	if err != nil {
		return s.fallback(ex, up, p, w, err)
	}
	return s.writeEntry(ex, p, w, e, cs)
}

// maxUpstreamBody bounds an upstream answer read into memory for caching.
// A larger answer is streamed to the client uncached, never truncated.
const maxUpstreamBody = 32 << 20

// errTooLargeToStore says a cache fill met an answer over maxUpstreamBody.
var errTooLargeToStore = errors.New("upstream answer too large to cache")

// call is the one upstream call: p sent to up on in's path, through the
// breaker (and one retry of an idempotent read). A catalogued call is sent
// as the edge builds it (outgoingShared), whether it fills the cache
// (shared) or is forwarded to one client, which then adds only what the
// edge names of that client: its address (X-Forwarded-For) and, for a REST
// answer, whether it takes gzip. A call the catalogue does not name (an
// operator's publish entry) carries the client's headers (outgoing). The
// caller closes the answer's body.
func (s *Server) call(ctx context.Context, up *Upstream, in *http.Request, p *preparedCall, shared bool) (*http.Response, error) {
	rpc := p.call != nil || p.edgeAnswers != nil
	var out *http.Request
	switch {
	case p.rt == nil:
		out = up.outgoing(ctx, in, p.url, p.body, s.clientIP(in))
		if rpc {
			// JSON-RPC answers (ids are rewritten, batches joined) are kept
			// identity-encoded.
			out.Header.Del("Accept-Encoding")
		}
	default:
		out = up.outgoingShared(ctx, in, p.url, p.body)
		if shared {
			break
		}
		if ip := s.clientIP(in); ip != "" {
			out.Header["X-Forwarded-For"] = []string{ip}
		}
		if !rpc && acceptsGzip(in.Header) {
			out.Header["Accept-Encoding"] = gzipOnly
		}
	}
	start := time.Now()
	resp, err := up.roundTrip(out, p.retry, p.rt != nil)
	s.metrics.upstreamLatency(up.Service, time.Since(start), err)
	return resp, err
}

// gzipOnly is the Accept-Encoding of a forwarded REST call whose client
// takes gzip: its answer is streamed as the upstream encoded it.
var gzipOnly = []string{"gzip"}

// acceptsGzip reports whether h's Accept-Encoding names gzip with a
// non-zero weight (RFC 9110 section 12.5.3).
func acceptsGzip(h http.Header) bool {
	for _, v := range h["Accept-Encoding"] {
		for part := range strings.SplitSeq(v, ",") {
			name, params, _ := strings.Cut(part, ";")
			if !strings.EqualFold(strings.TrimSpace(name), "gzip") {
				continue
			}
			k, q, ok := strings.Cut(strings.TrimSpace(params), "=")
			if !ok || !strings.EqualFold(strings.TrimSpace(k), "q") {
				return true
			}
			w, err := strconv.ParseFloat(strings.TrimSpace(q), 64)
			return err == nil && w > 0
		}
	}
	return false
}

// fetch fills the cache for a cached call: the upstream's whole answer, with
// the windows the route's class and the answer allow. It runs once for all
// concurrent callers of a key, so it is bounded by the upstream's timeout
// rather than by one client's context.
func (s *Server) fetch(ctx context.Context, up *Upstream, in *http.Request, p *preparedCall) (*cache.Entry, error) {
	ctx, cancel := detached(ctx, up.timeout())
	defer cancel()
	resp, err := s.call(ctx, up, in, p, true)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, s.maxUpstreamBody+1))
	if err != nil {
		return nil, &FailureError{Err: err}
	}
	if int64(len(b)) > s.maxUpstreamBody {
		return nil, errTooLargeToStore
	}
	if Failed(resp.StatusCode) {
		return nil, &FailureError{Status: resp.StatusCode, Header: resp.Header, Body: b, Err: errUpstreamStatus}
	}
	e := &cache.Entry{
		Status:      resp.StatusCode,
		ContentType: resp.Header.Get("Content-Type"),
		Encoding:    resp.Header.Get("Content-Encoding"),
		Body:        b,
		StoredAt:    s.now(),
	}
	if e.Encoding != "" || (p.call != nil && !isRPCResult(b)) {
		return e, nil // not stored: compressed bodies, JSON-RPC errors
	}
	if fresh, stale, errFor, store := cache.Windows(policy(p.rt), resp.StatusCode, resp.Header, p.hasToken); store {
		e.FreshFor, e.StaleFor, e.ErrorFor = fresh, stale, errFor
	}
	return e, nil
}

// policy is the cache policy of rt: its class's, with the operator's ttl
// replacing the freshness (and stale-while-revalidate) window.
func policy(rt *catalog.Route) cache.Policy {
	p := cache.DefaultPolicy(rt.Cache)
	if rt.TTL > 0 {
		p.Fresh, p.Stale = rt.TTL, rt.TTL
		p.Error = max(p.Error, rt.TTL)
	}
	return p
}

func (u *Upstream) timeout() time.Duration {
	if u.Timeout <= 0 {
		return 30 * time.Second
	}
	return u.Timeout
}

// detached returns a context for an upstream call shared by several clients:
// it keeps the values of ctx but not its cancellation, and is bounded by d.
func detached(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), d)
}

// forward answers an uncached call (writes, never-cached routes, paths the
// catalogue does not name) by streaming the upstream's answer, and falls
// back when the upstream fails before answering.
func (s *Server) forward(ex *exchange, up *Upstream, p *preparedCall, w http.ResponseWriter) (Origin, cache.Status) {
	ctx, cancel := context.WithTimeout(ex.r.Context(), up.timeout())
	defer cancel()
	resp, err := s.call(ctx, up, ex.r, p, false)
	if err == nil && Failed(resp.StatusCode) && s.localCovers(up, p) {
		resp.Body.Close()
		err = &FailureError{Status: resp.StatusCode, Err: errUpstreamStatus}
	}
	if err != nil {
		return s.fallback(ex, up, p, w, err)
	}
	defer resp.Body.Close()
	h := w.Header()
	copyAnswerHeaders(h, resp.Header)
	setOrigin(h, FromUpstream)
	h["X-Cache-Status"] = cacheHdr[cache.Bypass]
	w.WriteHeader(resp.StatusCode)
	if ex.r.Method != http.MethodHead { // a HEAD was sent as a GET: its body is not the client's
		streamBody(w, resp.Body)
	}
	return FromUpstream, cache.Bypass
}

// localCovers reports whether a failed call of p may be answered locally.
func (s *Server) localCovers(up *Upstream, p *preparedCall) bool {
	return up.LocalFallback && s.opts.Local != nil && p.rt != nil && s.opts.Local.Covers(p.rt, p.vals)
}

// fallback answers after the upstream (and the stale copy) failed: the local
// world when it has a real source, else the upstream's own failure answer
// when there was one, else 503.
func (s *Server) fallback(ex *exchange, up *Upstream, p *preparedCall, w http.ResponseWriter, err error) (Origin, cache.Status) {
	if s.localCovers(up, p) {
		return s.answerLocally(ex, p, w)
	}
	var fe *FailureError
	if errors.As(err, &fe) && fe.Status != 0 {
		h := w.Header()
		copyAnswerHeaders(h, fe.Header)
		setOrigin(h, FromUpstream)
		w.WriteHeader(fe.Status)
		w.Write(fe.Body)
		return FromUpstream, ""
	}
	s.unavailable(ex, p, w, "upstream "+string(p.service)+" unavailable: "+reason(err))
	return FromEdge, ""
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

// answerLocally answers p from the local world: REST calls with their validated
// values, JSON-RPC calls with a request that carries just that call.
func (s *Server) answerLocally(ex *exchange, p *preparedCall, w http.ResponseWriter) (Origin, cache.Status) {
	rt := p.rt
	if s.opts.Local == nil || rt == nil {
		route := "passthrough"
		if rt != nil {
			route = rt.Name
		}
		s.unavailable(ex, p, w, "no upstream is configured for the "+string(p.service)+" service and "+route+" has no local handler")
		return FromEdge, ""
	}
	h := w.Header()
	setOrigin(h, FromLocal)
	h["X-Cache-Status"] = cacheHdr[cache.Bypass]
	r := ex.r
	if rt.IsRPC() {
		ctx := ex.r.Context()
		if ex.identified { // the dev chains keep their bounds per client
			ctx = limits.NewContext(ctx, ex.client)
		}
		r, _ = http.NewRequestWithContext(ctx, http.MethodPost, ex.r.URL.String(), bytes.NewReader(p.body))
		r.Header = ex.r.Header.Clone()
		r.Header.Set("Content-Type", "application/json")
		r.RemoteAddr = ex.r.RemoteAddr
	}
	s.opts.Local.Answer(w, r, rt, p.vals)
	return FromLocal, cache.Bypass
}
