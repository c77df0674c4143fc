package usage

import "github.com/prometheus/client_golang/prometheus"

type metrics struct {
	cu           *prometheus.CounterVec
	logsDropped  prometheus.Counter
	lost         prometheus.Counter
	flushed      prometheus.Counter
	flushErrors  prometheus.Counter
	queued       prometheus.Gauge
	flushSeconds prometheus.Histogram
}

func newMetrics(reg prometheus.Registerer) (*metrics, error) {
	counter := func(name, help string) prometheus.Counter {
		return prometheus.NewCounter(prometheus.CounterOpts{Namespace: "avaedge", Subsystem: "usage", Name: name, Help: help})
	}
	m := &metrics{
		cu: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: "avaedge", Subsystem: "usage", Name: "compute_units_total",
			Help: "Compute units charged, by request type, route and source (counted by the flusher, off the request path)."},
			[]string{"type", "route", "source"}),
		logsDropped: counter("logs_dropped_total", "Request log lines dropped before they were written (a shard's or the flusher's bound; their counts are kept)."),
		lost:        counter("lost_requests_total", "Metered requests whose batch could not be written within the retry bound, or at shutdown."),
		flushed:     counter("flushed_requests_total", "Metered requests written to the usage store."),
		flushErrors: counter("flush_errors_total", "Batch writes that failed (the batch is kept and retried)."),
		queued: prometheus.NewGauge(prometheus.GaugeOpts{Namespace: "avaedge", Subsystem: "usage", Name: "queued_requests",
			Help: "Metered requests held in batches not yet written (a store outage)."}),
		flushSeconds: prometheus.NewHistogram(prometheus.HistogramOpts{Namespace: "avaedge", Subsystem: "usage", Name: "flush_duration_seconds",
			Help: "Time to write one batch.", Buckets: []float64{.001, .005, .01, .05, .1, .5, 1, 5}}),
	}
	if reg != nil {
		for _, c := range []prometheus.Collector{m.cu, m.logsDropped, m.lost, m.flushed, m.flushErrors, m.queued, m.flushSeconds} {
			if err := reg.Register(c); err != nil {
				return nil, err
			}
		}
	}
	return m, nil
}
