package warp

import (
	"errors"

	"github.com/prometheus/client_golang/prometheus"
)

// metrics are the aggregator's Prometheus collectors, namespace avaedge_warp_.
type metrics struct {
	// latency of Aggregate by result: ok, or the HTTP status class of the error.
	latency *prometheus.HistogramVec
	// requested counts Source.Sign calls.
	requested prometheus.Counter
	// cacheHits counts signatures served from the cache.
	cacheHits prometheus.Counter
	// failures counts signers that gave no usable signature, by reason:
	// error (Sign failed or timed out) or invalid (bad bytes or a signature
	// that does not verify).
	failures *prometheus.CounterVec
}

func newMetrics(reg prometheus.Registerer) *metrics {
	m := &metrics{
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: "avaedge", Subsystem: "warp", Name: "aggregate_duration_seconds",
			Help:    "Time to aggregate one Warp signature, by result.",
			Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
		}, []string{"result"}),
		requested: prometheus.NewCounter(prometheus.CounterOpts{
			Namespace: "avaedge", Subsystem: "warp", Name: "signatures_requested_total",
			Help: "Signature requests sent to validators.",
		}),
		cacheHits: prometheus.NewCounter(prometheus.CounterOpts{
			Namespace: "avaedge", Subsystem: "warp", Name: "signature_cache_hits_total",
			Help: "Validator signatures served from the cache.",
		}),
		failures: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "avaedge", Subsystem: "warp", Name: "signature_failures_total",
			Help: "Validators that returned no usable signature, by reason.",
		}, []string{"reason"}),
	}
	if reg != nil {
		m.latency = register(reg, m.latency)
		m.requested = register(reg, m.requested)
		m.cacheHits = register(reg, m.cacheHits)
		m.failures = register(reg, m.failures)
	}
	return m
}

// register registers c, or returns the collector already registered under the
// same name so that several aggregators can share one registry.
func register[C prometheus.Collector](reg prometheus.Registerer, c C) C {
	if err := reg.Register(c); err != nil {
		var are prometheus.AlreadyRegisteredError
		if errors.As(err, &are) {
			if existing, ok := are.ExistingCollector.(C); ok {
				return existing
			}
		}
		panic(err) // a conflicting collector under our name is a programming error
	}
	return c
}
