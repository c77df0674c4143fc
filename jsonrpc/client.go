package jsonrpc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"time"
)

// ErrUnreachable wraps a call that got no JSON-RPC answer: a transport
// error, a timeout, or an HTTP status other than 200.
var ErrUnreachable = errors.New("unreachable")

// ClientOptions configures a Client. Zero values mean the documented
// defaults.
type ClientOptions struct {
	// HTTPClient carries the calls. Nil means a client of the Client's own
	// that keeps MaxIdleConns connections open between calls
	// (http.DefaultTransport keeps two per host, so concurrent callers would
	// open a connection for most calls).
	HTTPClient *http.Client
	// MaxIdleConns is how many idle connections the Client's own HTTP
	// client keeps to the server. Zero means 4.
	MaxIdleConns int
	// Timeout bounds each call, reading the answer included, whatever
	// HTTPClient's own timeout. Zero means 30s.
	Timeout time.Duration
	// MaxAnswerBytes bounds an answer's size; a longer answer is an error.
	// Zero means 64 MiB.
	MaxAnswerBytes int64
}

// Client calls one JSON-RPC 2.0 server over HTTP, as avalanchego serves its
// APIs (and the C-Chain its Ethereum API): one call per POST to a path under
// the server's base URL. Every call is bounded in time and size. It is safe
// for concurrent use.
type Client struct {
	base    string
	http    *http.Client
	own     bool // http is the Client's own: Close closes its connections
	timeout time.Duration
	max     int64
	id      atomic.Uint64
}

// NewClient returns a Client of the server at base, e.g.
// "http://127.0.0.1:9650".
func NewClient(base string, opts ClientOptions) *Client {
	c := &Client{base: strings.TrimRight(base, "/"), http: opts.HTTPClient, timeout: opts.Timeout, max: opts.MaxAnswerBytes}
	if c.http == nil {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.MaxIdleConnsPerHost = opts.MaxIdleConns
		if tr.MaxIdleConnsPerHost <= 0 {
			tr.MaxIdleConnsPerHost = 4
		}
		c.http, c.own = &http.Client{Transport: tr}, true
	}
	if c.timeout <= 0 {
		c.timeout = 30 * time.Second
	}
	if c.max <= 0 {
		c.max = 64 << 20
	}
	return c
}

// Base returns the server's base URL.
func (c *Client) Base() string { return c.base }

// clientRequest is a call as the Client sends it.
type clientRequest struct {
	Version string `json:"jsonrpc"`
	ID      uint64 `json:"id"`
	Method  string `json:"method"`
	Params  any    `json:"params"`
}

// clientAnswer is decoded in one pass: Result holds the caller's pointer.
type clientAnswer struct {
	Result any    `json:"result"`
	Error  *Error `json:"error"`
}

// Call posts method with params to path and decodes the result into out, a
// pointer (nil: the result is dropped). Nil params are sent as {}, which
// avalanchego's methods without arguments take. An error answer is returned
// as a *Error (errors.As finds it); no answer at all wraps ErrUnreachable.
func (c *Client) Call(ctx context.Context, path, method string, params, out any) error {
	if params == nil {
		params = struct{}{}
	}
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	body, err := json.Marshal(clientRequest{Version: Version, ID: c.id.Add(1), Method: method, Params: params})
	if err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base+path, bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("%s: %w: %w", method, ErrUnreachable, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, c.max+1))
	if err != nil {
		return fmt.Errorf("%s: %w: %w", method, ErrUnreachable, err)
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: %w: HTTP %d", method, ErrUnreachable, resp.StatusCode)
	}
	if int64(len(raw)) > c.max {
		return fmt.Errorf("%s: the answer is over %d bytes", method, c.max)
	}
	return decodeAnswer(method, raw, out)
}

// decodeAnswer decodes the answer to method: its result into out, a pointer
// (nil: the result is dropped), or its error as a *Error.
func decodeAnswer(method string, raw []byte, out any) error {
	if out == nil {
		out = new(json.RawMessage)
	}
	a := clientAnswer{Result: out}
	err := json.Unmarshal(raw, &a)
	if a.Error != nil {
		return fmt.Errorf("%s: %w", method, a.Error)
	}
	if err != nil {
		return fmt.Errorf("%s: not a JSON-RPC answer: %w", method, err)
	}
	return nil
}

// Close closes the idle connections of the Client's own HTTP client; a
// caller's HTTPClient is left alone. The Client may still be used.
func (c *Client) Close() {
	if c.own {
		c.http.CloseIdleConnections()
	}
}
