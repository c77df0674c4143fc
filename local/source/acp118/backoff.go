package acp118

import (
	"errors"
	"fmt"
	"time"

	"github.com/avaedge/avaedge/local/vocab/avax"
)

// ErrBackoff means the validator timed out recently and is not asked again
// until its backoff period ends.
var ErrBackoff = errors.New("acp118: validator backed off after a timeout")

// Default backoff of ClientOptions.
const (
	// DefaultBackoff is how long a validator that timed out is first left
	// alone.
	DefaultBackoff = 30 * time.Second
	// DefaultMaxBackoff caps the doubling of the backoff.
	DefaultMaxBackoff = 10 * time.Minute
)

// backoffs tracks the validators that timed out. It is not safe for
// concurrent use: the Client's mutex guards it.
type backoffs struct {
	first, max time.Duration
	byNode     map[avax.NodeID]backoff
}

// backoff is one validator's: it is not asked before until; its next
// timeout doubles period.
type backoff struct {
	until  time.Time
	period time.Duration
}

// wait returns an error wrapping ErrBackoff while nodeID is backed off at
// now, else nil.
func (b *backoffs) wait(nodeID avax.NodeID, now time.Time) error {
	s, ok := b.byNode[nodeID]
	if !ok || !now.Before(s.until) {
		return nil
	}
	return fmt.Errorf("%w: %s timed out; asked again in %v", ErrBackoff, nodeID, s.until.Sub(now).Round(time.Second))
}

// timedOut backs nodeID off from now: for the first period after its first
// timeout, then twice as long after each timeout up to the cap. A timeout
// while it is backed off already (requests that were in flight together)
// counts once. A validator whose backoff ended a whole cap ago starts again
// from the first period, and is forgotten, so the table holds only the
// validators that timed out within the last two caps.
func (b *backoffs) timedOut(nodeID avax.NodeID, now time.Time) {
	s, ok := b.byNode[nodeID]
	if ok && now.Before(s.until) {
		return
	}
	if !ok || now.Sub(s.until) >= b.max {
		s.period = b.first
	} else {
		s.period = min(2*s.period, b.max)
	}
	s.until = now.Add(s.period)
	b.byNode[nodeID] = s
	for id, o := range b.byNode {
		if now.Sub(o.until) >= b.max {
			delete(b.byNode, id)
		}
	}
}

// answered resets nodeID's backoff: it answered.
func (b *backoffs) answered(nodeID avax.NodeID) { delete(b.byNode, nodeID) }
