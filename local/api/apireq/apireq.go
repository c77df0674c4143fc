// Package apireq is the one way the local REST handlers (the Data API's
// dataapi, evmdata and warp, the Metrics API's metricsapi) answer: a
// handler reads the values the catalogue validated from a Req and returns
// its answer or an error; an *Error says the status and messages of an
// answer other than 200, and a Service writes every answer and every error
// in the service's format (apierror). It also gives the handlers stateless
// page tokens (local/vocab/pagetoken) and ordering.
package apireq

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/avaedge/avaedge/apierror"
	"github.com/avaedge/avaedge/avanet"
	"github.com/avaedge/avaedge/catalog"
	"github.com/avaedge/avaedge/local/vocab/avax"
	"github.com/avaedge/avaedge/local/vocab/pagetoken"
)

// Error is an answer other than 200.
type Error struct {
	Status int
	Msgs   []string
	List   bool  // message as an array (validation errors)
	Err    error // what failed, for the log (Internal); never sent
}

func (e *Error) Error() string { return strings.Join(e.Msgs, "; ") }

// BadRequest is a 400 with validation messages.
func BadRequest(msgs ...string) *Error {
	return &Error{Status: http.StatusBadRequest, Msgs: msgs, List: true}
}

// NotFound is a 404.
func NotFound(msg string) *Error {
	return &Error{Status: http.StatusNotFound, Msgs: []string{msg}}
}

// Unavailable is a 503: the local world cannot answer yet (or at all) what
// msg says.
func Unavailable(msg string) *Error {
	return &Error{Status: http.StatusServiceUnavailable, Msgs: []string{msg}}
}

// Internal is a 500 for a failed read of the local store. The answer says
// only that; err is for the log.
func Internal(err error) *Error {
	return Failed("the local index could not be read", err)
}

// Failed is a 500 whose answer says msg; err, what failed, is for the log.
func Failed(msg string, err error) *Error {
	return &Error{Status: http.StatusInternalServerError, Msgs: []string{msg}, Err: err}
}

// Req is one request being answered.
type Req struct {
	Op      string
	R       *http.Request
	Q       catalog.Values // the validated parameters, path values included
	Network string         // the network name as requested
	Errs    []string
	Now     time.Time // the clock of page tokens
}

// Context returns the request's context.
func (q *Req) Context() context.Context { return q.R.Context() }

// Get returns the validated value name (a path value or a query value), ""
// when absent.
func (q *Req) Get(name string) string { return q.Q[name] }

// Func is a handler: it answers q with a body, or fails with an error. A
// body is JSON-encoded, but a json.RawMessage is sent as it is and an
// *Answer says its status and headers; an *Error (wrapped or not) is the
// answer's status and messages, any other error the service's Classify's.
// Failures collected with Fail answer 400.
type Func func(q *Req) (any, error)

// Answer is a body with a status other than 200, or headers of its own.
type Answer struct {
	Status int // zero means 200
	Header http.Header
	Body   any
}

// Service is how one local API answers: its clock, its log, how the errors
// of its sources become answers, and its error format. Its zero value
// answers like the Data API: internal errors 500 ("the local index could
// not be read"), unlogged.
type Service struct {
	// Now is the clock of page tokens. Nil means time.Now.
	Now func() time.Time
	// Log logs the errors answered with an Error whose Err is set (what
	// failed). Nil means none.
	Log *slog.Logger
	// Classify turns an error that is not an *Error (a source's) into an
	// answer: the one place a service maps its sources' errors to
	// statuses. Nil means Internal.
	Classify func(error) *Error
	// Lists writes every error message as an array (the Metrics API's
	// format); false writes an array only for an Error's List.
	Lists bool
	// NetworkNames checks a route's {network} against the Data API's names
	// (mainnet, fuji, testnet) before the handler runs.
	NetworkNames bool
}

// Handle makes fn the catalogue handler of operation op: it checks the
// network name (NetworkNames), runs fn and writes its answer, or the error
// fn returned or the messages it collected with Fail.
func (s Service) Handle(op string, fn Func) catalog.Handler {
	now := s.Now
	if now == nil {
		now = time.Now
	}
	return func(rw http.ResponseWriter, r *http.Request, v catalog.Values) {
		q := &Req{Op: op, R: r, Q: v, Network: v.Get("network"), Now: now()}
		var (
			body any
			herr *Error
		)
		if _, named := v["network"]; s.NetworkNames && named && !slices.Contains(avanet.DataAPINames, q.Network) {
			herr = BadRequest("network must be one of the following values: mainnet, fuji, testnet")
		} else {
			var err error
			body, err = fn(q)
			herr = s.failure(err)
		}
		if herr == nil && len(q.Errs) > 0 {
			herr = BadRequest(q.Errs...)
		}
		if herr != nil {
			s.writeError(rw, op, herr)
			return
		}
		writeAnswer(rw, body)
	}
}

// failure is the answer of err (nil: none).
func (s Service) failure(err error) *Error {
	if err == nil {
		return nil
	}
	var herr *Error
	if errors.As(err, &herr) {
		// A nil *Error passed on as an error is no failure: a handler may
		// return its helpers' *Error results as they are.
		return herr
	}
	if s.Classify != nil {
		return s.Classify(err)
	}
	return Internal(err)
}

// writeError writes herr in the service's format, and logs what failed.
func (s Service) writeError(rw http.ResponseWriter, op string, herr *Error) {
	if herr.Err != nil && s.Log != nil {
		s.Log.Error("answering failed", "op", op, "status", herr.Status, "err", herr.Err)
	}
	if herr.List || s.Lists {
		apierror.WriteList(rw, herr.Status, herr.Msgs...)
		return
	}
	apierror.Write(rw, herr.Status, herr.Msgs[0])
}

// writeAnswer writes a handler's body (see Func).
func writeAnswer(rw http.ResponseWriter, body any) {
	status := http.StatusOK
	if a, ok := body.(*Answer); ok {
		for k, v := range a.Header {
			rw.Header()[k] = v
		}
		status, body = cmp.Or(a.Status, http.StatusOK), a.Body
	}
	raw, ok := body.(json.RawMessage)
	if !ok {
		if status == http.StatusOK {
			apierror.WriteOK(rw, body)
			return
		}
		var err error
		if raw, err = json.Marshal(body); err != nil {
			apierror.Write(rw, http.StatusInternalServerError, "failed to encode the response")
			return
		}
	}
	h := rw.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(len(raw)))
	rw.WriteHeader(status)
	rw.Write(raw)
}

// Fail records a validation message; the request answers 400 with every
// message recorded.
func (q *Req) Fail(format string, args ...any) { q.Errs = append(q.Errs, fmt.Sprintf(format, args...)) }

// The readers below parse values the catalogue has validated (types,
// bounds, enumerations, list items), so they report nothing.

// PageSize reads pageSize; def when absent (the catalogue fills the
// default, so only a route used without it sees def).
func (q *Req) PageSize(def int) int {
	if n, err := strconv.Atoi(q.Q.Get("pageSize")); err == nil {
		return n
	}
	return def
}

// Desc reads sortOrder; absent means descending (newest first).
func (q *Req) Desc() bool { return q.Q.Get("sortOrder") != "asc" }

// Number reads an optional number.
func (q *Req) Number(name string) (float64, bool) {
	f, err := strconv.ParseFloat(q.Q.Get(name), 64)
	return f, err == nil
}

// Integer reads an optional integer.
func (q *Req) Integer(name string) (int64, bool) {
	n, err := strconv.ParseInt(q.Q.Get(name), 10, 64)
	return n, err == nil
}

// List splits a comma-separated parameter.
func (q *Req) List(name string) []string {
	s := q.Q.Get(name)
	if s == "" {
		return nil
	}
	parts := strings.Split(s, ",")
	for i, p := range parts {
		parts[i] = strings.TrimSpace(p)
	}
	return parts
}

// Addresses parses a list of P/X addresses of any HRP ("avax1...",
// "P-fuji1..."), without repeats.
func (q *Req) Addresses(name string) []avax.ShortID {
	var out []avax.ShortID
	for _, s := range q.List(name) {
		_, _, a, err := avax.ParseAddress(s)
		if err != nil {
			q.Fail("%s contains an invalid address: %s", name, Shorten(s))
			continue
		}
		if !slices.Contains(out, a) {
			out = append(out, a)
		}
	}
	return out
}

// NodeIDs parses a list of node ids.
func (q *Req) NodeIDs(name string) []avax.NodeID {
	var out []avax.NodeID
	for _, s := range q.List(name) {
		id, err := avax.ParseNodeID(s)
		if err != nil {
			q.Fail("%s contains an invalid node id: %s", name, Shorten(s))
			continue
		}
		out = append(out, id)
	}
	return out
}

// Shorten cuts a rejected value to its first 64 bytes (and "...") for an
// error message, so that an answer never echoes a huge input.
func Shorten(s string) string {
	if len(s) <= 64 {
		return s
	}
	return s[:64] + "..."
}

// Scope binds page tokens to the operation, its path values and its
// filters: every parameter but pageToken and pageSize, canonically ordered.
func (q *Req) Scope(pathValues ...string) string {
	v := url.Values{}
	for k, s := range q.Q {
		if k != "pageToken" && k != "pageSize" {
			v.Set(k, s)
		}
	}
	return q.Op + "|" + q.Network + "|" + strings.Join(pathValues, "|") + "|" + v.Encode()
}

// Page returns the slice bounds of the requested page of n items and the
// next page's token ("" on the last page).
func (q *Req) Page(n, size int, scope string) (lo, hi int, next string, herr *Error) {
	if tok := q.Q.Get("pageToken"); tok != "" {
		c, err := pagetoken.Decode(scope, tok, q.Now)
		if err != nil || c > uint64(n) {
			return 0, 0, "", BadRequest("Invalid page token")
		}
		lo = int(c)
	}
	hi = min(lo+size, n)
	if hi < n {
		next = pagetoken.Encode(scope, uint64(hi), q.Now)
	}
	return lo, hi, next, nil
}

// Cursor returns the cursor of the request's page token, the sort key of
// the previous page's last row, for lists read a page at a time by key; ok
// is false on the first page.
func (q *Req) Cursor(scope string) (c uint64, ok bool, herr *Error) {
	tok := q.Q.Get("pageToken")
	if tok == "" {
		return 0, false, nil
	}
	c, err := pagetoken.Decode(scope, tok, q.Now)
	if err != nil {
		return 0, false, BadRequest("Invalid page token")
	}
	return c, true, nil
}

// Next returns the token of the page after the one whose last row has the
// sort key last, when more follow.
func (q *Req) Next(scope string, last uint64, more bool) string {
	if !more {
		return ""
	}
	return pagetoken.Encode(scope, last, q.Now)
}

// Paginate cuts items to the requested page.
func Paginate[T any](q *Req, items []T, size int, scope string) ([]T, string, *Error) {
	lo, hi, next, herr := q.Page(len(items), size, scope)
	if herr != nil {
		return nil, "", herr
	}
	return items[lo:hi:hi], next, nil
}

// Order sorts items stably by less, ascending or descending.
func Order[T any](items []T, desc bool, less func(a, b T) bool) {
	sort.SliceStable(items, func(i, j int) bool {
		if desc {
			return less(items[j], items[i])
		}
		return less(items[i], items[j])
	})
}
