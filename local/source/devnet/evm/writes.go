package evm

import (
	"bytes"
	"encoding/json"
	"net"
	"net/http"
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

// countWrites returns how many calls of a JSON-RPC body (one call or a
// batch) send a transaction. A body that does not decode counts as none:
// go-ethereum answers it with a parse error.
func countWrites(body []byte) int {
	type call struct {
		Method string `json:"method"`
	}
	isWrite := func(m string) bool { return m == "eth_sendRawTransaction" || m == "eth_sendTransaction" }
	if t := bytes.TrimLeft(body, " \t\r\n"); len(t) > 0 && t[0] == '[' {
		var calls []call
		if json.Unmarshal(t, &calls) != nil {
			return 0
		}
		n := 0
		for _, c := range calls {
			if isWrite(c.Method) {
				n++
			}
		}
		return n
	}
	var c call
	if json.Unmarshal(body, &c) != nil || !isWrite(c.Method) {
		return 0
	}
	return 1
}

// remoteHost is the default client identity: the connection's address.
func remoteHost(r *http.Request) []string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	return []string{host}
}

// writeRateLimited answers a request refused by the write limit: HTTP 429
// with Retry-After and a JSON-RPC error (EIP-1474's -32005, limit
// exceeded), its id echoed for a single call and null for a batch.
func writeRateLimited(w http.ResponseWriter, body []byte, perMinute int, wait time.Duration) {
	id := json.RawMessage("null")
	var single struct {
		ID json.RawMessage `json:"id"`
	}
	if t := bytes.TrimLeft(body, " \t\r\n"); len(t) > 0 && t[0] == '{' && json.Unmarshal(t, &single) == nil && len(single.ID) > 0 {
		id = single.ID
	}
	msg := "transaction rate limit exceeded: at most " + strconv.Itoa(perMinute) + " transactions a minute per client on the dev chain"
	out, _ := json.Marshal(rpcErrorResponse{Version: "2.0", ID: id, Error: rpcError{Code: -32005, Message: msg}})
	secs := int((wait + time.Second - 1) / time.Second)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Retry-After", strconv.Itoa(max(secs, 1)))
	w.Header().Set("Content-Length", strconv.Itoa(len(out)))
	w.WriteHeader(http.StatusTooManyRequests)
	w.Write(out)
}

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
	return remoteHost(r)
}
