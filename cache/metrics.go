package cache

import "github.com/prometheus/client_golang/prometheus"

type metrics struct {
	hitsL1, hitsL2, misses, stale, stores, evictions, refreshes prometheus.Counter
	redisErrors                                                 *prometheus.CounterVec
	redisLatency                                                *prometheus.HistogramVec
}

func newMetrics(reg prometheus.Registerer) (*metrics, error) {
	counter := func(name, help string, labels prometheus.Labels) prometheus.Counter {
		return prometheus.NewCounter(prometheus.CounterOpts{Namespace: "avaedge", Subsystem: "cache", Name: name, Help: help, ConstLabels: labels})
	}
	hits := "Lookups answered by a tier."
	m := &metrics{
		hitsL1:    counter("hits_total", hits, prometheus.Labels{"tier": "memory"}),
		hitsL2:    counter("hits_total", hits, prometheus.Labels{"tier": "redis"}),
		misses:    counter("misses_total", "Lookups that went to the upstream.", nil),
		stale:     counter("stale_total", "Stale entries served (while revalidating or on upstream error).", nil),
		stores:    counter("stores_total", "Entries stored.", nil),
		evictions: counter("evictions_total", "Entries evicted from the in-process tier.", nil),
		refreshes: counter("refreshes_total", "Background refreshes that stored a new entry.", nil),
		redisErrors: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: "avaedge", Subsystem: "cache", Name: "redis_errors_total",
			Help: "Redis calls that failed, by operation."}, []string{"op"}),
		redisLatency: prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: "avaedge", Subsystem: "cache", Name: "redis_duration_seconds",
			Help: "Redis call latency by operation.", Buckets: []float64{.0002, .0005, .001, .002, .005, .01, .025, .05, .1}}, []string{"op"}),
	}
	if reg != nil {
		for _, c := range []prometheus.Collector{m.hitsL1, m.hitsL2, m.misses, m.stale, m.stores, m.evictions, m.refreshes, m.redisErrors, m.redisLatency} {
			if err := reg.Register(c); err != nil {
				return nil, err
			}
		}
	}
	return m, nil
}
