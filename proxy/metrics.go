package proxy

import (
	"errors"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/avaedge/avaedge/catalog"
)

// metrics are the proxy's Prometheus series. Counters are looked up once per
// label set and kept, so the hot path does not hash labels.
type metrics struct {
	requests *prometheus.CounterVec
	upstream *prometheus.HistogramVec
	breaker  *prometheus.GaugeVec
	trans    *prometheus.CounterVec
	sockets  *socketMetrics

	// counters caches requests' children by label set; sync.Map because the
	// set is small and read-mostly.
	counters sync.Map // counterKey -> prometheus.Counter
}

type counterKey struct {
	service catalog.Service
	route   string
	status  int
	source  Origin
}

func newMetrics(reg prometheus.Registerer) (*metrics, error) {
	m := &metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "avaedge", Name: "requests_total",
			Help: "Requests answered, by service, route, status and source (upstream, cache, local, edge).",
		}, []string{"service", "route", "status", "source"}),
		upstream: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: "avaedge", Name: "upstream_duration_seconds",
			Help:    "Upstream call latency to response headers, by service and outcome.",
			Buckets: []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30},
		}, []string{"service", "outcome"}),
		breaker: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Namespace: "avaedge", Name: "breaker_state",
			Help: "Circuit breaker state per upstream service: 0 closed, 1 half-open, 2 open.",
		}, []string{"service"}),
		trans: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "avaedge", Name: "breaker_transitions_total",
			Help: "Circuit breaker state transitions per upstream service.",
		}, []string{"service", "from", "to"}),
		sockets: newSocketMetrics(),
	}
	if reg != nil {
		for _, c := range append([]prometheus.Collector{m.requests, m.upstream, m.breaker, m.trans}, m.sockets.collectors()...) {
			if err := reg.Register(c); err != nil {
				return nil, err
			}
		}
	}
	return m, nil
}

func (m *metrics) observe(svc catalog.Service, route string, status int, source Origin) {
	k := counterKey{svc, route, status, source}
	c, ok := m.counters.Load(k)
	if !ok {
		c, _ = m.counters.LoadOrStore(k, m.requests.WithLabelValues(string(svc), route, strconv.Itoa(status), source.String()))
	}
	c.(prometheus.Counter).Inc()
}

func (m *metrics) upstreamLatency(svc catalog.Service, d time.Duration, err error) {
	outcome := "answer"
	switch {
	case errors.Is(err, ErrBreakerOpen):
		return // no call was made
	case err != nil:
		outcome = "error"
	}
	m.upstream.WithLabelValues(string(svc), outcome).Observe(d.Seconds())
}

// BreakerChanged records a breaker transition; wire it as the onState hook
// of NewUpstream.
func (s *Server) BreakerChanged(svc catalog.Service, from, to string) {
	s.metrics.trans.WithLabelValues(string(svc), from, to).Inc()
	v := 0.0
	switch to {
	case "half-open":
		v = 1
	case "open":
		v = 2
	}
	s.metrics.breaker.WithLabelValues(string(svc)).Set(v)
	s.log.Warn("circuit breaker", "service", string(svc), "from", from, "to", to)
}

// routeMetrics caches one route's request counters by status and source, so
// the hot path looks up a small integer instead of hashing label strings,
// and remembers the last one used: a route's answers mostly share theirs.
type routeMetrics struct {
	m        *metrics
	svc      catalog.Service
	name     string
	last     atomic.Pointer[routeCounter]
	counters sync.Map // uint32(status<<4 | source) -> *routeCounter
}

type routeCounter struct {
	key uint32
	c   prometheus.Counter
}

func (rm *routeMetrics) observe(status int, source Origin) {
	k := uint32(status)<<4 | uint32(source&15)
	rc := rm.last.Load()
	if rc == nil || rc.key != k {
		v, ok := rm.counters.Load(k)
		if !ok {
			v, _ = rm.counters.LoadOrStore(k, &routeCounter{key: k,
				c: rm.m.requests.WithLabelValues(string(rm.svc), rm.name, strconv.Itoa(status), source.String())})
		}
		rc = v.(*routeCounter)
		rm.last.Store(rc)
	}
	rc.c.Inc()
}
