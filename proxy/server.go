package proxy

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/avaedge/avaedge/cache"
	"github.com/avaedge/avaedge/catalog"
	"github.com/avaedge/avaedge/jsonrpc"
	"github.com/avaedge/avaedge/limits"
)

// Server is the edge's public http.Handler. It is safe for concurrent use.
type Server struct {
	opts     Options
	mux      *http.ServeMux
	routes   map[string]*catalog.Route // by name
	charged  map[string][]string       // route name -> []string{name}, shared by every Charge
	rmetrics map[string]*routeMetrics  // route name -> its counters
	rpc      map[string]map[string]*catalog.Route
	// endpoints are the JSON-RPC endpoints as admission sees them
	// (admitEndpoint), by name.
	endpoints map[string]endpoint
	metrics   *metrics
	log       *slog.Logger
	now       func() time.Time
	idPrefix  string
	memo      memo // prepared calls of repeated GETs, by request URI
	idCounter atomic.Uint64
	// sockets are the open WebSockets (ws.go).
	sockets socketSet
	// maxUpstreamBody is the largest answer a cache fill keeps
	// (maxUpstreamBody; tests lower it).
	maxUpstreamBody int64
}

// New builds a Server.
func New(opts Options) (*Server, error) {
	opts.fillDefaults()
	var b [4]byte
	rand.Read(b[:])
	s := &Server{
		opts:            opts,
		mux:             http.NewServeMux(),
		routes:          map[string]*catalog.Route{},
		charged:         map[string][]string{},
		rmetrics:        map[string]*routeMetrics{},
		rpc:             map[string]map[string]*catalog.Route{},
		endpoints:       map[string]endpoint{},
		log:             opts.Logger,
		now:             opts.Now,
		idPrefix:        hex.EncodeToString(b[:]) + "-",
		memo:            memo{maxBytes: memoMaxBytes},
		maxUpstreamBody: maxUpstreamBody,
	}
	m, err := newMetrics(opts.Registerer)
	if err != nil {
		return nil, err
	}
	s.metrics = m
	for svc, up := range opts.Upstreams {
		if up != nil && up.Breaker != nil {
			// Closed until a transition says otherwise, so a dashboard
			// shows every breaker from the start.
			m.breaker.WithLabelValues(string(svc)).Set(0)
		}
	}
	s.indexRoutes()
	s.mountNode()
	s.mountSockets()
	// Liveness on the public listener too, for load balancers that only see it.
	s.mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		w.Header()["Content-Type"] = hdrJSON
		w.Write([]byte(`{"status":"ok"}` + "\n"))
	})
	s.mountUsage()
	catalog.Mount(s.mux, opts.Routes, func(rt *catalog.Route) http.Handler {
		rm := s.rmetrics[rt.Name]
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { s.serveREST(rt, rm, w, r) })
	}, http.HandlerFunc(s.servePassthrough))
	return s, nil
}

// fillDefaults gives the options left zero their defaults: the whole
// catalogue, 1 MiB bodies, passthrough at 20 compute units, slog's default
// logger and the wall clock.
func (opts *Options) fillDefaults() {
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
}

// indexRoutes indexes the catalogue's routes by name, with their charge
// names and counters, and its JSON-RPC methods by endpoint and lookup name.
func (s *Server) indexRoutes() {
	for i := range s.opts.Routes {
		rt := &s.opts.Routes[i]
		s.routes[rt.Name] = rt
		s.charged[rt.Name] = []string{rt.Name}
		s.rmetrics[rt.Name] = &routeMetrics{m: s.metrics, svc: rt.Service, name: rt.Name}
		if rt.IsRPC() {
			if s.rpc[rt.Endpoint] == nil {
				s.rpc[rt.Endpoint] = map[string]*catalog.Route{}
			}
			s.rpc[rt.Endpoint][jsonrpc.LookupName(rt.Name)] = rt
		}
	}
}

// mountNode mounts the node endpoints the catalogue has methods of (an
// X-Chain path only for the X-Chain's ids, any other chain's a
// passthrough), and the local world's other EVM chains, each at its own
// path.
func (s *Server) mountNode() {
	for endpoint, paths := range catalog.NodeEndpoints {
		if s.rpc[endpoint] == nil {
			continue
		}
		s.endpoints[endpoint] = s.endpointOf(endpoint)
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
	// Any other chain's path is a passthrough, as before.
	if s.rpc["evm"] != nil {
		s.mux.HandleFunc("/ext/bc/{chain}/rpc", func(w http.ResponseWriter, r *http.Request) {
			if l, ok := s.opts.Local.(LocalEVM); ok && l.ServesEVM(r.URL.Path) {
				s.serveRPC("evm", w, r)
				return
			}
			s.servePassthrough(w, r)
		})
	}
}

// endpointOf describes a node endpoint for admission: the routes its calls
// are charged by (the EVM endpoint's: catalog.EVMRoute; another's: its
// catalogued methods', and passthrough when the operator publishes methods
// of it) and the price of its cheapest catalogued route.
func (s *Server) endpointOf(name string) endpoint {
	var e endpoint
	for _, rt := range s.rpc[name] {
		if e.minimum == 0 || rt.Cost < e.minimum {
			e.minimum = rt.Cost
		}
		if name != "evm" {
			e.routes = append(e.routes, rt.Name)
		}
	}
	e.minimum = max(e.minimum, 1)
	if name == "evm" {
		e.routes = evmRoute
		return e
	}
	for i := range s.opts.Publish {
		if len(s.opts.Publish[i].RPCMethods) > 0 && catalog.EndpointOf(s.opts.Publish[i].Path) == name {
			e.routes = append(e.routes, passthroughRoute[0])
			break
		}
	}
	slices.Sort(e.routes)
	return e
}

func isXChainID(id string) bool {
	for _, x := range catalog.XChainIDs {
		if x == id {
			return true
		}
	}
	return false
}

// ServeHTTP routes r: a GET (or HEAD) whose prepared call is remembered goes
// straight to the pipeline; everything else through the mux, which parses
// and validates.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodGet || r.Method == http.MethodHead {
		if p := s.memo.get(r.RequestURI); p != nil {
			ex := s.begin(w, r, p.rt.Service, p.rt.Name)
			ex.rm = p.rm
			defer s.finish(ex)
			s.serve(ex, p)
			return
		}
	}
	s.mux.ServeHTTP(w, r)
}

// Route returns the catalogue entry named name, or nil.
func (s *Server) Route(name string) *catalog.Route { return s.routes[name] }

// errFormat is how the edge writes its own errors on a request.
type errFormat uint8

const (
	restErrors errFormat = iota // the Data and Metrics APIs' JSON error body
	rpcErrors                   // a JSON-RPC error object, with the call's id
)

// exchange is the state of one request, for headers, metrics and the log.
type exchange struct {
	w        *statusWriter
	sw       statusWriter  // w points here: one allocation per request
	rm       *routeMetrics // the route's counters, when known at begin
	vals     [4]string     // backing store of header values set by the edge
	idBuf    [32]byte      // backing store of id
	r        *http.Request
	service  catalog.Service
	route    string
	id       string
	start    time.Time
	keyID    string
	source   Origin
	cache    cache.Status
	format   errFormat
	rpcID    []byte        // a single JSON-RPC call's raw id, for edge errors
	admitted bool          // the limiter admitted the request
	cu       int64         // the compute units it was charged (admit, admitRest)
	bypassOK bool          // its plan lets its Cache-Control: no-cache skip the cache's read
	atOnce   bool          // answered from the in-process cache tier, at ex.start
	prepared *preparedCall // the call served, for its usage record
	identity string        // who the request is counted for (limits.Decision.Identity)
	// client is who the limiter identified before the body was read
	// (identified says whether it did).
	client     limits.Client
	identified bool
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
	if svc == catalog.Node {
		ex.format = rpcErrors
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
	s.recordUsage(ex, status)
	if s.opts.AccessLog != nil {
		s.logAccess(ex, status)
	}
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

// refuseBody answers a body that could not be read.
func (s *Server) refuseBody(ex *exchange, err error) {
	if errors.Is(err, errBodyTooLarge) {
		s.refuse(ex, http.StatusRequestEntityTooLarge, "request entity too large")
		return
	}
	s.refuse(ex, http.StatusBadRequest, "request body could not be read")
}
