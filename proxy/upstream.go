package proxy

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/avaedge/avaedge/catalog"
)

// Upstream is one real service behind the edge: its base URL, a pooled
// keep-alive transport, timeouts, a circuit breaker and a retry budget. It is
// safe for concurrent use.
type Upstream struct {
	// Service names the service ("data", "metrics", "node").
	Service catalog.Service
	// Base is the service's base URL; request paths are appended to its path.
	Base *url.URL
	// APIKey is the operator's key, sent as x-glacier-api-key. Empty sends none.
	APIKey string
	// Headers are sent with every call (an upstream's own credentials).
	Headers http.Header
	// Transport carries the calls. Nil means a pooled transport built from the
	// timeouts of NewUpstream.
	Transport http.RoundTripper
	// Timeout bounds one whole call, body included. Zero means 30s.
	Timeout time.Duration
	// Breaker trips on failures; nil means no breaker.
	Breaker *Breaker
	// RetryBudget is the largest share of calls that may be retries; at most
	// one retry per call, of idempotent reads only. Zero or negative disables
	// retries.
	RetryBudget float64
	// LocalFallback says whether a failed call may fall back to the local
	// handler ("proxy" mode) or not ("upstream-only").
	LocalFallback bool

	calls, retries atomic.Int64
}

// UpstreamOptions configure one service's upstream (config's
// upstreams.*).
type UpstreamOptions struct {
	// URL is the service's base URL.
	URL string
	// Headers are sent with every call to the upstream (never logged).
	Headers map[string]string
	// ConnectTimeout bounds dialing and the TLS handshake;
	// FirstByteTimeout the wait for response headers. Zero means none.
	ConnectTimeout, FirstByteTimeout time.Duration
	// Timeout bounds one whole call. Zero means 30s.
	Timeout time.Duration
	// Breaker are the thresholds of the breaker in front of the service.
	Breaker BreakerOptions
	// RetryBudget is Upstream.RetryBudget.
	RetryBudget float64
	// LocalFallback is Upstream.LocalFallback: false for "upstream-only".
	LocalFallback bool
}

// NewUpstream builds the Upstream of svc.
func NewUpstream(svc catalog.Service, c UpstreamOptions, apiKey string, onState func(svc catalog.Service, from, to string)) (*Upstream, error) {
	base, err := url.Parse(c.URL)
	if err != nil {
		return nil, fmt.Errorf("upstream %s: %w", svc, err)
	}
	dialer := &net.Dialer{Timeout: c.ConnectTimeout, KeepAlive: 30 * time.Second}
	tr := &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           dialer.DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          512,
		MaxIdleConnsPerHost:   256,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   c.ConnectTimeout,
		ResponseHeaderTimeout: c.FirstByteTimeout,
		ExpectContinueTimeout: time.Second,
		// Bodies are passed through as the upstream encoded them.
		DisableCompression: true,
	}
	u := &Upstream{
		Service:       svc,
		Base:          base,
		APIKey:        apiKey,
		Headers:       http.Header{},
		Transport:     tr,
		Timeout:       c.Timeout,
		RetryBudget:   c.RetryBudget,
		LocalFallback: c.LocalFallback,
	}
	for k, v := range c.Headers {
		u.Headers.Set(k, v)
	}
	u.Breaker = NewBreaker(string(svc), c.Breaker, func(from, to string) {
		if onState != nil {
			onState(svc, from, to)
		}
	})
	return u, nil
}

// hopHeaders are removed from both directions (RFC 9110 section 7.6.1).
var hopHeaders = []string{
	"Connection", "Proxy-Connection", "Keep-Alive", "Proxy-Authenticate",
	"Proxy-Authorization", "Te", "Trailer", "Transfer-Encoding", "Upgrade",
}

// clientKeyHeaders carry a client's own key; they never go upstream.
var clientKeyHeaders = []string{"X-Glacier-Api-Key", "X-Data-Api-Key"}

// Every upstream request is built by the edge (newRequest): its method,
// the upstream's URL with the validated path and query, the validated body
// with its length, and headers the edge chose. Nothing of the client's
// request is cloned into it: not its body (a GET's body never goes
// upstream), its framing (Transfer-Encoding: chunked, Trailer) or its
// Connection: close, whatever the client sent.

// newRequest builds a request to u for method, to's path and query under
// u's base URL, with body (nil or empty: none) and no header.
func (u *Upstream) newRequest(ctx context.Context, method string, to *url.URL, body []byte) *http.Request {
	target := *u.Base
	target.Path = singleJoin(u.Base.Path, to.Path)
	target.RawPath = ""
	if to.RawPath != "" {
		target.RawPath = singleJoin(u.Base.EscapedPath(), to.EscapedPath())
	}
	target.RawQuery = to.RawQuery
	out := (&http.Request{Method: method, URL: &target, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: make(http.Header, 6), Host: target.Host, Body: http.NoBody}).WithContext(ctx)
	if len(body) > 0 {
		out.Body = io.NopCloser(bytes.NewReader(body))
		out.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
		out.ContentLength = int64(len(body))
	}
	return out
}

// upstreamMethod is the method sent upstream for a client's: HEAD is a GET
// without a body (RFC 9110 section 9.3.2), so a HEAD is answered from the
// GET's cache entry and fill, and sent as a GET when it is not cached; the
// upstream never sees a HEAD, whose answers could differ from the GET's.
func upstreamMethod(m string) string {
	if m == http.MethodHead {
		return http.MethodGet
	}
	return m
}

// outgoing builds the upstream request of a call the catalogue does not
// name (an operator's publish entry) for in: in's method (HEAD as GET), to
// (nil: in's own path and query) and body, in's headers minus hop-by-hop
// headers and the client's keys, X-Forwarded-For extended with clientIP,
// and the operator's key added.
func (u *Upstream) outgoing(ctx context.Context, in *http.Request, to *url.URL, body []byte, clientIP string) *http.Request {
	if to == nil {
		to = in.URL
	}
	out := u.newRequest(ctx, upstreamMethod(in.Method), to, body)
	for k, vs := range in.Header {
		out.Header[k] = append([]string(nil), vs...)
	}
	removeHop(out.Header)
	delete(out.Header, "Content-Length")
	for _, h := range clientKeyHeaders {
		out.Header.Del(h)
	}
	u.authorize(out.Header)
	forwardedFor(out.Header, in.Header, clientIP)
	if _, ok := out.Header["User-Agent"]; !ok {
		// Explicitly empty, so net/http does not add its own (as httputil does).
		out.Header.Set("User-Agent", "")
	}
	return out
}

// forwardedFor sets X-Forwarded-For on h: in's values extended with
// clientIP, as httputil.ReverseProxy does; nothing when clientIP is "".
func forwardedFor(h, in http.Header, clientIP string) {
	if clientIP == "" {
		return
	}
	if prior := in.Values("X-Forwarded-For"); len(prior) > 0 {
		clientIP = strings.Join(prior, ", ") + ", " + clientIP
	}
	h.Set("X-Forwarded-For", clientIP)
}

// outgoingShared builds the upstream request of a catalogued call for in.
// Its answer may be stored and served to every client of the key (a cache
// fill), and its failures count for the service's breaker, so it carries
// none of in's headers: Authorization, Cookie, Accept-Language, Forwarded,
// X-Forwarded-*, X-HTTP-Method-Override, the client's keys, its
// conditional, range and cache headers and its User-Agent would make the
// answer one client's, lend that client's credentials to everyone, or let
// one client's headers make the upstream fail for all. The request says only
// what every client of a catalogued route asks: JSON (Accept, and
// Content-Type for a body), uncompressed, from avaedge (sharedUserAgent),
// with the operator's key and headers. in's method is sent (HEAD as GET), to
// to (nil: in's own path and query).
func (u *Upstream) outgoingShared(ctx context.Context, in *http.Request, to *url.URL, body []byte) *http.Request {
	if to == nil {
		to = in.URL
	}
	out := u.newRequest(ctx, upstreamMethod(in.Method), to, body)
	out.Header["Accept"] = jsonType
	out.Header["User-Agent"] = sharedUserAgent
	if len(body) > 0 {
		out.Header["Content-Type"] = jsonType
	}
	u.authorize(out.Header)
	return out
}

// jsonType is what a shared fill accepts and sends; sharedUserAgent names
// avaedge to the upstream on requests made for many clients.
var (
	jsonType        = []string{"application/json"}
	sharedUserAgent = []string{"avaedge"}
)

// authorize adds the operator's key and headers.
func (u *Upstream) authorize(h http.Header) {
	if u.APIKey != "" {
		h.Set("X-Glacier-Api-Key", u.APIKey)
	}
	for k, v := range u.Headers {
		h[k] = v
	}
}

func removeHop(h http.Header) {
	// Headers named in Connection are hop-by-hop too (RFC 9110 section 7.6.1).
	for _, f := range h.Values("Connection") {
		for _, name := range strings.Split(f, ",") {
			if name = strings.TrimSpace(name); name != "" {
				h.Del(name)
			}
		}
	}
	for _, name := range hopHeaders {
		h.Del(name)
	}
}

func singleJoin(a, b string) string {
	switch {
	case a == "" || a == "/":
		return b
	case strings.HasSuffix(a, "/") && strings.HasPrefix(b, "/"):
		return a + b[1:]
	case !strings.HasSuffix(a, "/") && !strings.HasPrefix(b, "/"):
		return a + "/" + b
	}
	return a + b
}

// FailureError is an upstream call that failed: a transport error, a timeout,
// an open breaker, or an answer that is not one (5xx, 429). Status is that
// answer's status, 0 when there was none; Header and Body hold the answer
// when the caller read it (a cache fill does); Err is what went wrong.
type FailureError struct {
	Status int // 0 when there was no answer
	Header http.Header
	Body   []byte
	Err    error
}

func (e *FailureError) Error() string {
	if e.Status != 0 {
		return fmt.Sprintf("upstream answered %d", e.Status)
	}
	return "upstream: " + e.Err.Error()
}

func (e *FailureError) Unwrap() error { return e.Err }

// errUpstreamStatus marks 5xx answers for the breaker; errBackpressure marks
// 429 answers, which fall back but never trip it.
var (
	errUpstreamStatus = errors.New("upstream server error")
	errBackpressure   = errors.New("upstream rate limited")
)

// RoundTrip sends req through the breaker and returns the upstream's answer
// with its headers; the caller closes the body. Failures (transport errors,
// timeouts, an open breaker) are *FailureError; 5xx and 429 answers are
// returned as answers with a nil error but counted by the breaker. retryable
// says whether the call is an idempotent read that may be retried once within
// the retry budget.
func (u *Upstream) RoundTrip(req *http.Request, retryable bool) (*http.Response, error) {
	return u.roundTrip(req, retryable, true)
}

// roundTrip is RoundTrip; counted says whether the breaker sees the call. Calls
// of paths the catalogue does not name are not counted: one client's failing
// requests of its own choosing must not open the breaker for everyone.
func (u *Upstream) roundTrip(req *http.Request, retryable, counted bool) (*http.Response, error) {
	u.calls.Add(1)
	resp, err := u.try(req, counted)
	if retryable && u.shouldRetry(resp, err) && req.Context().Err() == nil {
		if resp != nil {
			resp.Body.Close()
		}
		u.retries.Add(1)
		if req.GetBody != nil {
			if b, gerr := req.GetBody(); gerr == nil {
				req.Body = b
			}
		}
		resp, err = u.try(req, counted)
	}
	return resp, err
}

func (u *Upstream) try(req *http.Request, counted bool) (*http.Response, error) {
	call := func() (*http.Response, error) {
		resp, err := u.Transport.RoundTrip(req)
		if err != nil {
			return nil, err
		}
		switch {
		case resp.StatusCode >= 500:
			return resp, errUpstreamStatus
		case resp.StatusCode == http.StatusTooManyRequests:
			return resp, errBackpressure
		}
		return resp, nil
	}
	var resp *http.Response
	var err error
	if u.Breaker != nil && counted {
		resp, err = u.Breaker.Execute(call)
	} else {
		resp, err = call()
	}
	if errors.Is(err, errUpstreamStatus) || errors.Is(err, errBackpressure) {
		return resp, nil
	}
	if err != nil {
		return nil, &FailureError{Err: err}
	}
	return resp, nil
}

// shouldRetry allows one retry of a failed call while retries stay within
// RetryBudget of all calls (plus a floor of 3, so a quiet edge can still
// retry; Envoy's retry budgets work the same way).
func (u *Upstream) shouldRetry(resp *http.Response, err error) bool {
	if u.RetryBudget <= 0 {
		return false
	}
	var fe *FailureError
	if errors.As(err, &fe) && errors.Is(fe.Err, ErrBreakerOpen) {
		return false
	}
	failed := err != nil || (resp != nil && resp.StatusCode >= 500 && resp.StatusCode != http.StatusNotImplemented)
	if !failed {
		return false
	}
	return float64(u.retries.Load()) < u.RetryBudget*float64(u.calls.Load())+3
}

// Failed reports whether an answer counts as a failure for the fallback
// chain: 5xx or 429.
func Failed(status int) bool { return status >= 500 || status == http.StatusTooManyRequests }
