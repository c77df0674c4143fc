package cache

import (
	"fmt"

	"github.com/prometheus/client_golang/prometheus"
)

// metrics are the cache's Prometheus collectors, all named avaedge_cache_*.
// Children with fixed labels are resolved once, so counting on the hit path
// neither allocates nor hashes labels.
type metrics struct {
	hitMemory, hitRedis       prometheus.Counter // hits_total{tier}
	misses                    prometheus.Counter
	staleRevalidate, staleErr prometheus.Counter // stale_total{reason}
	stores, evictions         prometheus.Counter
	refreshOK, refreshFailed  prometheus.Counter // refreshes_total{result}
	redisErrors               *prometheus.CounterVec
	memoryGet                 prometheus.Observer // duration_seconds{tier,op}
	redisGet, redisSet        prometheus.Observer
}

const namespace, subsystem = "avaedge", "cache"

func newMetrics(reg prometheus.Registerer, mem *memory) (*metrics, error) {
	counterVec := func(name, help string, labels ...string) *prometheus.CounterVec {
		return prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: namespace, Subsystem: subsystem, Name: name, Help: help}, labels)
	}
	counter := func(name, help string) prometheus.Counter {
		return prometheus.NewCounter(prometheus.CounterOpts{Namespace: namespace, Subsystem: subsystem, Name: name, Help: help})
	}
	hits := counterVec("hits_total", "Fresh answers served from the cache, by the tier that held them.", "tier")
	stale := counterVec("stale_total", "Stale answers served: while revalidating, or because the fetch failed.", "reason")
	refreshes := counterVec("refreshes_total", "Background refreshes of stale entries, by result.", "result")
	latency := prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: namespace, Subsystem: subsystem, Name: "duration_seconds",
		Help:    "Latency of cache operations, by tier and operation (in-process lookups are sampled, one in 64).",
		Buckets: []float64{1e-7, 1e-6, 1e-5, 1e-4, .0005, .001, .0025, .005, .01, .025, .05, .1}}, []string{"tier", "op"})
	m := &metrics{
		hitMemory:       hits.WithLabelValues("memory"),
		hitRedis:        hits.WithLabelValues("redis"),
		misses:          counter("misses_total", "Lookups that called the fetch function (including bypasses)."),
		staleRevalidate: stale.WithLabelValues("revalidate"),
		staleErr:        stale.WithLabelValues("error"),
		stores:          counter("stores_total", "Entries stored."),
		evictions:       counter("evictions_total", "Entries evicted from the in-process tier to make room."),
		refreshOK:       refreshes.WithLabelValues("ok"),
		refreshFailed:   refreshes.WithLabelValues("failed"),
		redisErrors:     counterVec("redis_errors_total", "Redis calls that failed (or values that did not decode), by operation.", "op"),
		memoryGet:       latency.WithLabelValues("memory", "get"),
		redisGet:        latency.WithLabelValues("redis", "get"),
		redisSet:        latency.WithLabelValues("redis", "set"),
	}
	if reg == nil {
		return m, nil
	}
	cs := []prometheus.Collector{hits, stale, refreshes, latency, m.misses, m.stores, m.evictions, m.redisErrors}
	if mem != nil {
		cs = append(cs,
			prometheus.NewGaugeFunc(prometheus.GaugeOpts{Namespace: namespace, Subsystem: subsystem, Name: "memory_bytes",
				Help: "Bytes held by the in-process tier."}, func() float64 { b, _ := mem.stats(); return float64(b) }),
			prometheus.NewGaugeFunc(prometheus.GaugeOpts{Namespace: namespace, Subsystem: subsystem, Name: "memory_entries",
				Help: "Entries held by the in-process tier."}, func() float64 { _, n := mem.stats(); return float64(n) }))
	}
	for _, c := range cs {
		if err := reg.Register(c); err != nil {
			return nil, fmt.Errorf("cache: register metrics: %w", err)
		}
	}
	return m, nil
}
