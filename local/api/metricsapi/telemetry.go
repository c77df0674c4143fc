package metricsapi

import (
	"fmt"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// telemetry is the engine's Prometheus metrics. Collectors are safe for
// concurrent use.
type telemetry struct {
	blocks    *prometheus.CounterVec
	rollbacks *prometheus.CounterVec
	undone    *prometheus.CounterVec
	addresses prometheus.Gauge
	duration  *prometheus.HistogramVec
}

func newTelemetry(reg prometheus.Registerer) (*telemetry, error) {
	const ns, sub = "avaedge", "metricsapi"
	l := []string{"chain_id"}
	t := &telemetry{
		blocks: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: ns, Subsystem: sub, Name: "blocks_total",
			Help: "Blocks applied to the metrics aggregates."}, l),
		rollbacks: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: ns, Subsystem: sub, Name: "rollbacks_total",
			Help: "Re-org rollbacks that removed blocks."}, l),
		undone: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: ns, Subsystem: sub, Name: "rolled_back_blocks_total",
			Help: "Blocks removed by rollbacks."}, l),
		addresses: prometheus.NewGauge(prometheus.GaugeOpts{Namespace: ns, Subsystem: sub, Name: "addresses",
			Help: "Distinct addresses (and deployers) numbered over all chains."}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: ns, Subsystem: sub, Name: "request_duration_seconds",
			Help: "Time to answer a Metrics API request locally.", Buckets: prometheus.ExponentialBuckets(0.0001, 4, 8)},
			[]string{"operation"}),
	}
	if reg != nil {
		for _, c := range []prometheus.Collector{t.blocks, t.rollbacks, t.undone, t.addresses, t.duration} {
			if err := reg.Register(c); err != nil {
				return nil, fmt.Errorf("metricsapi: registering metrics: %w", err)
			}
		}
	}
	return t, nil
}

func (t *telemetry) applied(chain string, addresses int) {
	t.blocks.WithLabelValues(chain).Inc()
	t.addresses.Set(float64(addresses))
}

func (t *telemetry) rolledBack(chain string, blocks int) {
	t.rollbacks.WithLabelValues(chain).Inc()
	t.undone.WithLabelValues(chain).Add(float64(blocks))
}

func (t *telemetry) served(op string, d time.Duration) {
	t.duration.WithLabelValues(op).Observe(d.Seconds())
}
