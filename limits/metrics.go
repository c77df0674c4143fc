package limits

import "github.com/prometheus/client_golang/prometheus"

type metrics struct {
	decisions    *prometheus.CounterVec
	unauthorized prometheus.Counter
	fallbacks    prometheus.Counter
	leaseCalls   prometheus.Counter
	redisLatency prometheus.Histogram
}

func newMetrics(reg prometheus.Registerer) (*metrics, error) {
	m := &metrics{
		decisions: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: "avaedge", Subsystem: "limits", Name: "decisions_total",
			Help: "Limit decisions by plan and outcome (allowed, limited, forbidden, unauthorized)."}, []string{"plan", "outcome"}),
		fallbacks: prometheus.NewCounter(prometheus.CounterOpts{Namespace: "avaedge", Subsystem: "limits", Name: "redis_fallbacks_total",
			Help: "Decisions made in process because Redis was failing."}),
		leaseCalls: prometheus.NewCounter(prometheus.CounterOpts{Namespace: "avaedge", Subsystem: "limits", Name: "redis_calls_total",
			Help: "Lease calls to Redis (leases taken, topped up or given back)."}),
		redisLatency: prometheus.NewHistogram(prometheus.HistogramOpts{Namespace: "avaedge", Subsystem: "limits", Name: "redis_duration_seconds",
			Help: "Latency of one lease call to Redis.", Buckets: []float64{.0002, .0005, .001, .002, .005, .01, .025, .05}}),
	}
	m.unauthorized = m.decisions.WithLabelValues("", "unauthorized")
	if reg != nil {
		for _, c := range []prometheus.Collector{m.decisions, m.fallbacks, m.leaseCalls, m.redisLatency} {
			if err := reg.Register(c); err != nil {
				return nil, err
			}
		}
	}
	return m, nil
}
