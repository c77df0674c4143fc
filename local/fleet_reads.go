package local

import (
	"errors"
	"net/url"
	"sync"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/avaedge/avaedge/local/source/lease"
)

// IndexStatus is this replica's part in the fleet sharing the followed
// network's index (BuildOptions.IndexURL), as /readyz shows it.
type IndexStatus struct {
	lease.Status
	// Reads is the host (host:port) the route reads go to: the read
	// replica's (BuildOptions.IndexReadURL), else the primary's.
	Reads string `json:"reads"`
	// Replica is true when Reads is a read replica.
	Replica bool `json:"replica"`
	// ReadError is the last standby refresh's failure to read Reads, ""
	// when it succeeded (or none ran: the writer does not refresh).
	ReadError string `json:"read_error,omitempty"`
}

// readsState is where a replica's route reads go and how its last
// refresh from there went. It is safe for concurrent use.
type readsState struct {
	host    string
	replica bool
	errors  prometheus.Counter // nil: none registered

	// mu guards lastErr, the last refresh's failure ("" when it
	// succeeded).
	mu      sync.Mutex
	lastErr string
}

// newReadsState names the host the route reads go to (readURL's, else
// primaryURL's: hosts only, never a password) and registers with reg (nil:
// none):
//
//   - avaedge_index_reads{host,replica}: 1, the host the route reads go
//     to and whether it is a read replica;
//   - avaedge_index_read_errors_total: the standby refreshes that failed
//     to read it.
func newReadsState(reg prometheus.Registerer, primaryURL, readURL string) (*readsState, error) {
	r := &readsState{host: hostOf(primaryURL)}
	if readURL != "" {
		r.host, r.replica = hostOf(readURL), true
	}
	if reg == nil {
		return r, nil
	}
	where := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "avaedge_index_reads",
		Help: "1 for the host this replica's route reads go to; replica is true for a read replica (local.index_read_url)."}, []string{"host", "replica"})
	replica := "false"
	if r.replica {
		replica = "true"
	}
	where.WithLabelValues(r.host, replica).Set(1)
	errs := prometheus.NewCounter(prometheus.CounterOpts{Name: "avaedge_index_read_errors_total",
		Help: "Standby refreshes of the stored heads and metrics that failed to read the host of avaedge_index_reads."})
	for _, c := range []prometheus.Collector{where, errs} {
		if err := reg.Register(c); err != nil {
			var are prometheus.AlreadyRegisteredError
			if errors.As(err, &are) {
				return nil, errors.New("index reads: metrics registered twice")
			}
			return nil, err
		}
	}
	r.errors = errs
	return r, nil
}

// hostOf returns u's host:port ("" when u is not a URL).
func hostOf(u string) string {
	pu, err := url.Parse(u)
	if err != nil {
		return ""
	}
	return pu.Host
}

// refreshed records a standby refresh's outcome (err nil: it succeeded).
func (r *readsState) refreshed(err error) {
	msg := ""
	if err != nil {
		msg = err.Error()
		if r.errors != nil {
			r.errors.Inc()
		}
	}
	r.mu.Lock()
	r.lastErr = msg
	r.mu.Unlock()
}

// status fills st's read fields.
func (r *readsState) status(st lease.Status) IndexStatus {
	r.mu.Lock()
	defer r.mu.Unlock()
	return IndexStatus{Status: st, Reads: r.host, Replica: r.replica, ReadError: r.lastErr}
}
