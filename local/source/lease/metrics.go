package lease

import (
	"errors"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
)

// Metrics are the leases' Prometheus series, shared by a replica's
// Electors. A nil *Metrics records nothing. It is safe for concurrent use.
type Metrics struct {
	writer  *prometheus.GaugeVec
	holder  *prometheus.GaugeVec
	takeups *prometheus.CounterVec

	// mu guards holders, the holder label each lease's series has now.
	mu      sync.Mutex
	holders map[string]string
}

// NewMetrics registers the leases' series with reg (nil: none is
// registered, the series are kept):
//
//   - avaedge_index_lease_writer{lease}: 1 while this replica holds the
//     lease (it is the writer), 0 while it reads and stands by;
//   - avaedge_index_lease_holder{lease,holder}: 1 for the holder this
//     replica sees, no series while none is seen;
//   - avaedge_index_lease_taken_total{lease}: the times this replica took
//     the lease.
func NewMetrics(reg prometheus.Registerer) (*Metrics, error) {
	m := &Metrics{
		writer: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "avaedge_index_lease_writer",
			Help: "1 while this replica holds the index lease (it is the writer), 0 while it reads and stands by."}, []string{"lease"}),
		holder: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "avaedge_index_lease_holder",
			Help: "1 for the index lease's holder as this replica sees it."}, []string{"lease", "holder"}),
		takeups: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "avaedge_index_lease_taken_total",
			Help: "Times this replica took the index lease."}, []string{"lease"}),
		holders: map[string]string{},
	}
	if reg == nil {
		return m, nil
	}
	for _, c := range []prometheus.Collector{m.writer, m.holder, m.takeups} {
		if err := reg.Register(c); err != nil {
			var are prometheus.AlreadyRegisteredError
			if errors.As(err, &are) {
				return nil, errors.New("lease: metrics registered twice: make one Metrics per registry")
			}
			return nil, err
		}
	}
	return m, nil
}

// observe records this replica's role and the holder it sees.
func (m *Metrics) observe(lease string, writer bool, holder string) {
	if m == nil {
		return
	}
	v := 0.0
	if writer {
		v = 1
	}
	m.writer.WithLabelValues(lease).Set(v)
	m.mu.Lock()
	defer m.mu.Unlock()
	if prev, ok := m.holders[lease]; ok && prev != holder {
		m.holder.DeleteLabelValues(lease, prev)
		delete(m.holders, lease)
	}
	if holder != "" {
		m.holder.WithLabelValues(lease, holder).Set(1)
		m.holders[lease] = holder
	}
}

// took counts a lease taken.
func (m *Metrics) took(lease string) {
	if m != nil {
		m.takeups.WithLabelValues(lease).Inc()
	}
}
