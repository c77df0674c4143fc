package evm

import (
	"encoding/json"
	"net/http"
	"net/netip"
	"strconv"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// DefaultWritesPerMinute is Options.WritesPerMinute's default.
const DefaultWritesPerMinute = 60

// maxWriteClients bounds the clients writeLimiter tracks. Past it, idle
// clients (full buckets) are dropped; if all are active, new clients share
// one overflow bucket.
const maxWriteClients = 4096

// writeLimiter is a token bucket per client for the transactions sent
// through Handler. It is safe for concurrent use.
type writeLimiter struct {
	limit rate.Limit
	burst int

	mu sync.Mutex // guards buckets and overflow
	// buckets holds each client's bucket, by identity.
	buckets  map[string]*rate.Limiter
	overflow *rate.Limiter
}

func newWriteLimiter(perMinute int) *writeLimiter {
	l := &writeLimiter{limit: rate.Limit(float64(perMinute) / 60), burst: perMinute, buckets: map[string]*rate.Limiter{}}
	l.overflow = rate.NewLimiter(l.limit, l.burst)
	return l
}

// bucket returns keys' bucket, making room for it when the table is full.
// The caller holds l.mu.
func (l *writeLimiter) bucket(key string, now time.Time) *rate.Limiter {
	if b := l.buckets[key]; b != nil {
		return b
	}
	if len(l.buckets) >= maxWriteClients {
		for k, b := range l.buckets {
			if b.TokensAt(now) >= float64(l.burst) {
				delete(l.buckets, k)
			}
		}
		if len(l.buckets) >= maxWriteClients {
			return l.overflow
		}
	}
	b := rate.NewLimiter(l.limit, l.burst)
	l.buckets[key] = b
	return b
}

// allow takes n tokens at now from the bucket of every key, or from none:
// a write counts against the client's address and its key alike. When it
// refuses, wait is how long until n tokens could be there.
func (l *writeLimiter) allow(keys []string, n int, now time.Time) (ok bool, wait time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	var taken []*rate.Reservation
	cancel := func() {
		for _, r := range taken {
			r.CancelAt(now)
		}
	}
	for _, k := range keys {
		r := l.bucket(k, now).ReserveN(now, n)
		if !r.OK() {
			cancel()
			return false, time.Minute
		}
		taken = append(taken, r)
		if d := r.DelayFrom(now); d > 0 {
			cancel()
			return false, d
		}
	}
	return true, 0
}

// remoteClient is the default client identity: the connection's address,
// IPv6 addresses by their /64 (one host usually holds a whole /64).
func remoteClient(r *http.Request) string {
	ap, err := netip.ParseAddrPort(r.RemoteAddr)
	if err != nil {
		return "ip:" + r.RemoteAddr
	}
	a := ap.Addr().Unmap()
	if a.Is6() {
		p, _ := a.Prefix(64)
		return "ip:" + p.String()
	}
	return "ip:" + a.String()
}

// refuse answers a request without serving any of its calls: HTTP status
// with a JSON-RPC error for each call, its id echoed (null when it has
// none), in an array for a batch. retryAfter, when positive, is sent as
// Retry-After.
func refuse(w http.ResponseWriter, calls []element, batch bool, status int, e rpcError, retryAfter time.Duration) {
	answer := func(c element) rpcErrorResponse {
		id := c.ID
		if len(id) == 0 {
			id = json.RawMessage("null")
		}
		return rpcErrorResponse{Version: "2.0", ID: id, Error: e}
	}
	var out []byte
	if batch {
		answers := make([]rpcErrorResponse, len(calls))
		for i, c := range calls {
			answers[i] = answer(c)
		}
		out, _ = json.Marshal(answers)
	} else {
		out, _ = json.Marshal(answer(calls[0]))
	}
	w.Header().Set("Content-Type", "application/json")
	if retryAfter > 0 {
		secs := int((retryAfter + time.Second - 1) / time.Second)
		w.Header().Set("Retry-After", strconv.Itoa(max(secs, 1)))
	}
	w.Header().Set("Content-Length", strconv.Itoa(len(out)))
	w.WriteHeader(status)
	w.Write(out)
}

// writeLimitError is the refusal of a request over its client's write
// allowance (EIP-1474's -32005, limit exceeded).
func writeLimitError(perMinute int) rpcError {
	return rpcError{Code: -32005, Message: "transaction rate limit exceeded: at most " + strconv.Itoa(perMinute) + " transactions a minute per client on the dev chain"}
}

// ambiguousError is the refusal of a request with an element whose method
// parsers disagree on (JSON-RPC's -32600, invalid request).
var ambiguousError = rpcError{Code: -32600, Message: `invalid request: a call names its method ambiguously (a second "method" member, one in another case, or one that is not a string); nothing in this request was run`}

// rpcErrorResponse is a JSON-RPC 2.0 error response.
type rpcErrorResponse struct {
	Version string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Error   rpcError        `json:"error"`
}

type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// writeKeys returns the identities r's writes count against.
func (c *Chain) writeKeys(r *http.Request) []string {
	if c.opts.WriteKeys != nil {
		return c.opts.WriteKeys(r)
	}
	return []string{c.client(r)}
}

// client returns r's client identity.
func (c *Chain) client(r *http.Request) string {
	if c.opts.Client != nil {
		return c.opts.Client(r)
	}
	return remoteClient(r)
}
