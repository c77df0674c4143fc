// Package apireq is what the local Data API handlers (local/api/dataapi)
// use to answer: the request being answered with the values the catalogue
// validated, error answers in the Data API's format, stateless page tokens
// (local/pagetoken) and ordering.
package apireq

import (
	"fmt"
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
	return &Error{Status: http.StatusInternalServerError, Msgs: []string{"the local index could not be read"}, Err: err}
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

// Handle makes fn a catalogue handler for operation op: it checks the
// network name (of a route that has one), runs fn and writes its answer,
// or the error fn returned or the messages it collected with Fail.
func Handle(op string, now func() time.Time, fn func(*Req) (any, *Error)) catalog.Handler {
	if now == nil {
		now = time.Now
	}
	return func(rw http.ResponseWriter, r *http.Request, v catalog.Values) {
		q := &Req{Op: op, R: r, Q: v, Network: v.Get("network"), Now: now()}
		var (
			body any
			herr *Error
		)
		if _, named := v["network"]; named && !slices.Contains(avanet.DataAPINames, q.Network) {
			herr = BadRequest("network must be one of the following values: mainnet, fuji, testnet")
		} else {
			body, herr = fn(q)
		}
		if herr == nil && len(q.Errs) > 0 {
			herr = BadRequest(q.Errs...)
		}
		if herr != nil {
			if herr.List {
				apierror.WriteList(rw, herr.Status, herr.Msgs...)
			} else {
				apierror.Write(rw, herr.Status, herr.Msgs[0])
			}
			return
		}
		apierror.WriteOK(rw, body)
	}
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

// U64 prints a 64-bit quantity, which the Data API sends as a string.
func U64(v uint64) string { return strconv.FormatUint(v, 10) }
