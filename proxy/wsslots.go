package proxy

import (
	"context"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// socketSet is the server's open sockets and what they hold: connections
// per key and per address, subscriptions in all. It is safe for concurrent
// use.
type socketSet struct {
	o *SocketOptions
	m *socketMetrics

	mu sync.Mutex // guards everything below
	// open are the sockets being served, for shutdown.
	open map[*socket]struct{}
	// byKey and byAddr count the connections of each issued key's identity
	// and of each address group (the others').
	byKey, byAddr map[string]int
	conns, subs   int
	// draining says the server shuts down: no socket is added.
	draining bool
	// gone is closed when the last socket is removed while draining.
	gone chan struct{}
}

func (t *socketSet) init(o *SocketOptions, m *socketMetrics) {
	t.o, t.m = o, m
	t.open, t.byKey, t.byAddr = map[*socket]struct{}{}, map[string]int{}, map[string]int{}
}

// take reserves a connection for a client: identity counts against the
// per-key bound when issued, else addr against the per-address bound. It
// returns the function that gives the reservation back, or the status and
// message of a refusal (429 past the client's bound, 503 past the
// server's).
func (t *socketSet) take(identity, addr string, issued bool) (release func(), status int, msg string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	switch {
	case t.open == nil:
		return nil, http.StatusServiceUnavailable, "WebSockets are not served"
	case t.draining:
		return nil, http.StatusServiceUnavailable, "avaedge is shutting down"
	case t.conns >= t.o.MaxConnections:
		t.m.refused.WithLabelValues("server").Inc()
		return nil, http.StatusServiceUnavailable, "too many WebSocket connections on this server; try again later"
	case issued && t.byKey[identity] >= t.o.ConnectionsPerKey:
		t.m.refused.WithLabelValues("key").Inc()
		return nil, http.StatusTooManyRequests, "too many WebSocket connections for this key (at most " + strconv.Itoa(t.o.ConnectionsPerKey) + ")"
	case !issued && t.byAddr[addr] >= t.o.ConnectionsPerAddress:
		t.m.refused.WithLabelValues("address").Inc()
		return nil, http.StatusTooManyRequests, "too many WebSocket connections from this address (at most " + strconv.Itoa(t.o.ConnectionsPerAddress) + ")"
	}
	counts, name := t.byAddr, addr
	if issued {
		counts, name = t.byKey, identity
	}
	counts[name]++
	t.conns++
	t.m.conns.Inc()
	var once sync.Once
	return func() {
		once.Do(func() {
			t.mu.Lock()
			defer t.mu.Unlock()
			if counts[name]--; counts[name] <= 0 {
				delete(counts, name)
			}
			t.conns--
			t.m.conns.Dec()
		})
	}, 0, ""
}

// takeSubscription reserves one of the server's subscriptions.
func (t *socketSet) takeSubscription() (release func(), ok bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.subs >= t.o.MaxSubscriptions {
		return nil, false
	}
	t.subs++
	var once sync.Once
	return func() {
		once.Do(func() {
			t.mu.Lock()
			t.subs--
			t.mu.Unlock()
		})
	}, true
}

// add registers k for shutdown; false when the server is shutting down.
func (t *socketSet) add(k *socket) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.draining {
		return false
	}
	t.open[k] = struct{}{}
	return true
}

func (t *socketSet) remove(k *socket) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.open, k)
	if t.draining && len(t.open) == 0 && t.gone != nil {
		close(t.gone)
		t.gone = nil
	}
}

// CloseSockets closes every WebSocket with a going-away frame (1001,
// "avaedge is shutting down") and refuses new ones, then waits until they
// are all closed or ctx ends. Call it when the server shuts down: net/http's
// Shutdown does not know hijacked connections.
func (s *Server) CloseSockets(ctx context.Context) {
	t := &s.sockets
	t.mu.Lock()
	if t.open == nil {
		t.mu.Unlock()
		return
	}
	t.draining = true
	open := make([]*socket, 0, len(t.open))
	for k := range t.open {
		open = append(open, k)
	}
	var gone chan struct{}
	if len(open) > 0 {
		gone = make(chan struct{})
		t.gone = gone
	}
	t.mu.Unlock()
	for _, k := range open {
		k.closeWith(closeGoingAway, "avaedge is shutting down")
	}
	if gone == nil {
		return
	}
	select {
	case <-gone:
	case <-ctx.Done():
	}
}

// byteRate rates the bytes one connection reads.
type byteRate struct{ lim *rate.Limiter }

func newByteRate(perSecond, burst int64) *byteRate {
	return &byteRate{lim: rate.NewLimiter(rate.Limit(perSecond), int(max(burst, 64<<10)))}
}

// ratedConn is a connection whose reads wait, after they return, until
// the bytes they read are within the rate: a client sending faster finds
// its connection read more slowly, and TCP pushes back.
type ratedConn struct {
	net.Conn
	rate *byteRate
	done <-chan struct{}
}

func (c *ratedConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 {
		now := time.Now()
		if d := c.rate.lim.ReserveN(now, n).DelayFrom(now); d > 0 {
			t := time.NewTimer(d)
			select {
			case <-t.C:
			case <-c.done:
				t.Stop()
			}
		}
	}
	return n, err
}
