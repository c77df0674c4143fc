package proxy

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/avaedge/avaedge/catalog"
	"github.com/avaedge/avaedge/internal/decimal"
)

// Server is the edge's public http.Handler. It is safe for concurrent use.
type Server struct {
	opts      Options
	mux       *http.ServeMux
	routes    map[string]*catalog.Route // by name
	charged   map[string][]string       // route name -> []string{name}, shared by every Charge
	rmetrics  map[string]*routeMetrics  // REST route name -> its counters
	rpc       map[string]map[string]*catalog.Route
	metrics   *metrics
	log       *slog.Logger
	now       func() time.Time
	idPrefix  string
	memo      memo // routing and validation of repeated GETs
	idCounter atomic.Uint64
}

// New builds a Server.
func New(opts Options) (*Server, error) {
	if opts.Routes == nil {
		opts.Routes = catalog.Catalogue()
	}
	if opts.MaxBodyBytes <= 0 {
		opts.MaxBodyBytes = 1 << 20
	}
	if opts.PassthroughCost <= 0 {
		opts.PassthroughCost = 20
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Cache != nil && opts.Freshness == nil {
		return nil, errors.New("proxy: a Cache needs a Freshness")
	}
	var b [4]byte
	rand.Read(b[:])
	s := &Server{
		opts:     opts,
		mux:      http.NewServeMux(),
		routes:   map[string]*catalog.Route{},
		charged:  map[string][]string{},
		rmetrics: map[string]*routeMetrics{},
		rpc:      map[string]map[string]*catalog.Route{},
		log:      opts.Logger,
		now:      opts.Now,
		idPrefix: hex.EncodeToString(b[:]) + "-",
	}
	m, err := newMetrics(opts.Registerer)
	if err != nil {
		return nil, err
	}
	s.metrics = m
	for i := range opts.Routes {
		rt := &opts.Routes[i]
		s.routes[rt.Name] = rt
		s.charged[rt.Name] = []string{rt.Name}
		s.rmetrics[rt.Name] = &routeMetrics{m: m, svc: rt.Service, name: rt.Name}
		if rt.IsRPC() {
			if s.rpc[rt.Endpoint] == nil {
				s.rpc[rt.Endpoint] = map[string]*catalog.Route{}
			}
			s.rpc[rt.Endpoint][jsonrpcLookup(rt.Name)] = rt
			continue
		}
		rm := s.rmetrics[rt.Name]
		s.mux.HandleFunc(rt.Pattern(), func(w http.ResponseWriter, r *http.Request) { s.serveREST(rt, rm, w, r) })
	}
	for endpoint, paths := range catalog.NodeEndpoints {
		if s.rpc[endpoint] == nil {
			continue
		}
		for _, p := range paths {
			s.mux.HandleFunc(p, func(w http.ResponseWriter, r *http.Request) {
				if strings.Contains(p, "{chain}") && !isXChainID(r.PathValue("chain")) {
					s.servePassthrough(w, r)
					return
				}
				s.serveRPC(endpoint, w, r)
			})
		}
	}
	// Liveness on the public listener too, for load balancers that only see it.
	s.mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		w.Header()["Content-Type"] = hdrJSON
		w.Write([]byte(`{"status":"ok"}` + "\n"))
	})
	s.mux.HandleFunc("/", s.servePassthrough)
	return s, nil
}

func isXChainID(id string) bool {
	for _, x := range catalog.XChainIDs {
		if x == id {
			return true
		}
	}
	return false
}

// ServeHTTP routes r by the catalogue.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodGet {
		if e := s.memo.get(r.RequestURI); e != nil {
			s.serveMemo(e, w, r)
			return
		}
	}
	s.mux.ServeHTTP(w, r)
}

// Route returns the catalogue entry named name, or nil.
func (s *Server) Route(name string) *catalog.Route { return s.routes[name] }

// exchange is the state of one request, for headers, metrics and the log.
type exchange struct {
	w       *statusWriter
	sw      statusWriter  // w points here: one allocation per request
	rm      *routeMetrics // the route's counters, when known at begin
	vals    [4]string     // backing store of header values set by the edge
	idBuf   [32]byte      // backing store of id
	r       *http.Request
	service catalog.Service
	route   string
	id      string
	start   time.Time
	keyID   string
	source  string
	cache   CacheStatus
}

// statusWriter records the status and size written.
type statusWriter struct {
	http.ResponseWriter
	status int
	bytes  int64
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(b)
	w.bytes += int64(n)
	return n, err
}

// Unwrap lets http.ResponseController reach the connection.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (s *Server) begin(w http.ResponseWriter, r *http.Request, svc catalog.Service, route string) *exchange {
	ex := &exchange{
		sw:      statusWriter{ResponseWriter: w},
		r:       r,
		service: svc,
		route:   route,
	}
	ex.w = &ex.sw
	ex.start = s.now() // the request's one clock reading on the hit path
	id := append(ex.idBuf[:0], s.idPrefix...)
	id = strconv.AppendUint(id, s.idCounter.Add(1), 36)
	// ex is never reused and idBuf never written again, so the string may
	// share its bytes: one allocation fewer per request.
	ex.id = unsafe.String(&id[0], len(id))
	ex.vals[0] = ex.id
	w.Header()["X-Request-Id"] = ex.vals[0:1:1]
	return ex
}

func (s *Server) finish(ex *exchange) {
	status := ex.w.status
	if status == 0 {
		status = http.StatusOK
	}
	if ex.rm != nil && ex.rm.name == ex.route {
		ex.rm.observe(status, ex.source)
	} else {
		s.metrics.observe(ex.service, ex.route, status, ex.source)
	}
	if !s.opts.AccessLog {
		return
	}
	s.log.LogAttrs(ex.r.Context(), slog.LevelInfo, "request",
		slog.String("request_id", ex.id),
		slog.String("method", ex.r.Method),
		slog.String("path", ex.r.URL.Path),
		slog.String("service", string(ex.service)),
		slog.String("route", ex.route),
		slog.Int("status", status),
		slog.String("source", ex.source),
		slog.String("cache", string(ex.cache)),
		slog.Int64("bytes", ex.w.bytes),
		slog.Duration("duration", s.now().Sub(ex.start)),
		slog.String("key_id", ex.keyID),
		slog.String("client", s.clientIP(ex.r)),
	)
}

func (s *Server) clientIP(r *http.Request) string {
	if s.opts.ClientIP != nil {
		return s.opts.ClientIP(r)
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

var errBodyTooLarge = errors.New("request body too large")

// readBody reads r's body up to the limit.
func (s *Server) readBody(r *http.Request) ([]byte, error) {
	if r.Body == nil || r.Body == http.NoBody {
		return nil, nil
	}
	if r.ContentLength > s.opts.MaxBodyBytes {
		return nil, errBodyTooLarge
	}
	b, err := io.ReadAll(io.LimitReader(r.Body, s.opts.MaxBodyBytes+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > s.opts.MaxBodyBytes {
		return nil, errBodyTooLarge
	}
	return b, nil
}

// admit asks the limiter; on refusal it answers and returns false.
func (s *Server) admit(ex *exchange, c Charge, refuse func(status int, msg string)) bool {
	if s.opts.Limiter == nil {
		return true
	}
	c.At = ex.start
	d := s.opts.Limiter.Admit(ex.r.Context(), ex.r, c)
	ex.keyID = d.KeyID
	if d.SetHeaders != nil {
		d.SetHeaders(ex.w.Header())
	}
	if d.Status != 0 {
		ex.source = "edge"
		refuse(d.Status, d.Message)
		return false
	}
	return true
}

// Pre-built header values: no allocation per answer.
var (
	hdrJSON     = []string{"application/json; charset=utf-8"}
	srcUpstream = []string{"upstream"}
	srcCache    = []string{"cache"}
	srcLocal    = []string{"local"}
	srcEdge     = []string{"edge"}
	cacheHdr    = map[CacheStatus][]string{Hit: {"HIT"}, Miss: {"MISS"}, Stale: {"STALE"}, Bypass: {"BYPASS"}}
)

func setSource(h http.Header, ex *exchange, src string) {
	ex.source = src
	switch src {
	case "upstream":
		h["X-Avaedge-Source"] = srcUpstream
	case "cache":
		h["X-Avaedge-Source"] = srcCache
	case "local":
		h["X-Avaedge-Source"] = srcLocal
	default:
		h["X-Avaedge-Source"] = srcEdge
	}
}

// writeStored sends a cached or fetched answer.
func (s *Server) writeStored(ex *exchange, st *Stored, cs CacheStatus) {
	h := ex.w.Header()
	ex.cache = cs
	h["X-Cache-Status"] = cacheHdr[cs]
	if cs == Hit || cs == Stale {
		setSource(h, ex, "cache")
		now := ex.start // a hit is answered at once
		if cs != Hit {
			now = s.now()
		} else {
			// net/http would read the clock again for Date.
			h["Date"] = dates.at(now)
		}
		age := now.Sub(st.StoredAt)
		if age < 0 {
			age = 0
		}
		ex.vals[1] = decimal.Itoa(int64(age / time.Second))
		h["Age"] = ex.vals[1:2:2]
	} else {
		setSource(h, ex, "upstream")
	}
	if st.ContentType != "" {
		ex.vals[2] = st.ContentType
		h["Content-Type"] = ex.vals[2:3:3]
	}
	if st.Encoding != "" {
		h["Content-Encoding"] = []string{st.Encoding}
	}
	ex.vals[3] = decimal.Itoa(int64(len(st.Body)))
	h["Content-Length"] = ex.vals[3:4:4]
	ex.w.WriteHeader(st.Status)
	if ex.r.Method != http.MethodHead {
		ex.w.Write(st.Body)
	}
}

// detached returns a context for an upstream call shared by several clients:
// it keeps the values of ctx but not its cancellation, and is bounded by d.
func detached(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), d)
}

// dates formats the Date header once a second, as nginx does with its
// cached time, so a hit neither reads the clock again nor formats a date.
var dates dateCache

type dateCache struct{ cur atomic.Pointer[dateValue] }

type dateValue struct {
	sec int64
	v   []string
}

// at returns the Date header value of t (IMF-fixdate, RFC 9110 §5.6.7).
// The slice is shared: callers must not change it.
func (c *dateCache) at(t time.Time) []string {
	sec := t.Unix()
	if d := c.cur.Load(); d != nil && d.sec == sec {
		return d.v
	}
	d := &dateValue{sec: sec, v: []string{t.UTC().Format(http.TimeFormat)}}
	c.cur.Store(d)
	return d.v
}
