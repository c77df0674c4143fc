package proxy

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/sony/gobreaker/v2"
)

// ErrBreakerOpen is returned for calls refused by an open (or saturated
// half-open) breaker.
var ErrBreakerOpen = errors.New("circuit breaker open")

// BreakerOptions are a breaker's thresholds (config's upstreams.*.breaker).
type BreakerOptions struct {
	// MinRequests is the number of requests in a window before the failure
	// ratio can trip the breaker.
	MinRequests uint32
	// FailureRatio trips the breaker once reached.
	FailureRatio float64
	// ConsecutiveFailures trips the breaker regardless of the ratio.
	ConsecutiveFailures uint32
	// Interval is the closed state's counting window; OpenFor how long the
	// breaker stays open before probing.
	Interval, OpenFor time.Duration
	// HalfOpenProbes is how many requests a half-open breaker lets through.
	HalfOpenProbes uint32
}

// Breaker is one upstream service's circuit breaker (sony/gobreaker v2). It
// is safe for concurrent use.
type Breaker struct {
	cb  *gobreaker.CircuitBreaker[*http.Response]
	cfg BreakerOptions
}

// Config returns the thresholds the breaker was built with.
func (b *Breaker) Config() BreakerOptions { return b.cfg }

// NewBreaker builds a breaker with the thresholds of c: it trips when the
// failure ratio reaches c.FailureRatio over at least c.MinRequests requests
// in the window, or after c.ConsecutiveFailures failures in a row; it stays
// open c.OpenFor, then lets c.HalfOpenProbes probes through. onState is called
// once per transition.
func NewBreaker(name string, c BreakerOptions, onState func(from, to string)) *Breaker {
	st := gobreaker.Settings{
		Name:        name,
		MaxRequests: c.HalfOpenProbes,
		Interval:    c.Interval,
		Timeout:     c.OpenFor,
		ReadyToTrip: func(n gobreaker.Counts) bool {
			if n.ConsecutiveFailures >= c.ConsecutiveFailures {
				return true
			}
			return n.Requests >= c.MinRequests && float64(n.TotalFailures) >= c.FailureRatio*float64(n.Requests)
		},
		// A 429 is backpressure and a cancelled client is nobody's fault:
		// neither counts for or against the upstream.
		IsExcluded: func(err error) bool {
			return errors.Is(err, errBackpressure) || errors.Is(err, context.Canceled)
		},
	}
	if onState != nil {
		st.OnStateChange = func(_ string, from, to gobreaker.State) { onState(from.String(), to.String()) }
	}
	return &Breaker{cb: gobreaker.NewCircuitBreaker[*http.Response](st), cfg: c}
}

// Execute runs call unless the breaker is open.
func (b *Breaker) Execute(call func() (*http.Response, error)) (*http.Response, error) {
	resp, err := b.cb.Execute(call)
	if errors.Is(err, gobreaker.ErrOpenState) || errors.Is(err, gobreaker.ErrTooManyRequests) {
		return nil, ErrBreakerOpen
	}
	return resp, err
}

// State returns "closed", "half-open" or "open".
func (b *Breaker) State() string { return b.cb.State().String() }
