package proxy

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/avaedge/avaedge/apierror"
	"github.com/avaedge/avaedge/cache"
	"github.com/avaedge/avaedge/catalog"
	"github.com/avaedge/avaedge/internal/coalesce"
	"github.com/avaedge/avaedge/internal/decimal"
	"github.com/avaedge/avaedge/jsonrpc"
)

// refuse answers a request the edge refuses, in the service's format.
func (s *Server) refuse(ex *exchange, status int, msg string) {
	ex.source = FromEdge
	setOrigin(ex.w.Header(), FromEdge)
	if ex.format == rpcErrors {
		var id *json.RawMessage
		if ex.rpcID != nil {
			raw := json.RawMessage(ex.rpcID)
			id = &raw
		}
		writeRPCError(ex.w, status, id, msg)
		return
	}
	s.restError(ex, status, []string{msg}, false)
}

// restError answers in the REST services' error format: the Metrics API
// always sends an array of messages, the Data API an array for validation
// errors and a string otherwise.
func (s *Server) restError(ex *exchange, status int, msgs []string, validation bool) {
	if ex.source == 0 {
		ex.source = FromEdge
		setOrigin(ex.w.Header(), FromEdge)
	}
	writeRESTError(ex.w, ex.service, status, msgs, validation)
}

func writeRESTError(w http.ResponseWriter, svc catalog.Service, status int, msgs []string, validation bool) {
	if svc == catalog.Metrics || validation {
		apierror.WriteList(w, status, msgs...)
		return
	}
	apierror.Write(w, status, strings.Join(msgs, "; "))
}

// unavailable answers 503 for p in its service's format.
func (s *Server) unavailable(ex *exchange, p *preparedCall, w http.ResponseWriter, msg string) {
	setOrigin(w.Header(), FromEdge)
	if p.service == catalog.Node {
		var id *json.RawMessage
		if p.call != nil {
			id = p.call.ID
		}
		writeRPCError(w, http.StatusServiceUnavailable, id, msg)
		return
	}
	writeRESTError(w, p.service, http.StatusServiceUnavailable, []string{msg}, false)
}

// Pre-built header values: no allocation per answer.
var (
	hdrJSON  = []string{"application/json; charset=utf-8"}
	cacheHdr = map[cache.Status][]string{cache.Hit: {"HIT"}, cache.Miss: {"MISS"}, cache.Stale: {"STALE"}, cache.Bypass: {"BYPASS"}}
)

func setOrigin(h http.Header, src Origin) { h["X-Avaedge-Source"] = originNames[src&15] }

// writeEntry sends a cached or fetched answer; a JSON-RPC answer gets the
// call's id. Header values live in ex.vals: no allocation on a hit.
func (s *Server) writeEntry(ex *exchange, p *preparedCall, w http.ResponseWriter, e *cache.Entry, cs cache.Status) (Origin, cache.Status) {
	h := w.Header()
	h["X-Cache-Status"] = cacheHdr[cs]
	src := FromUpstream
	if cs == cache.Hit || cs == cache.Stale {
		src = FromCache
		now := ex.start // a hit is answered at once
		if cs != cache.Hit {
			now = s.now()
		} else {
			// net/http would read the clock again for Date.
			h["Date"] = dates.at(now)
		}
		ex.vals[1] = decimal.Itoa(int64(max(now.Sub(e.StoredAt), 0) / time.Second))
		h["Age"] = ex.vals[1:2:2]
	}
	setOrigin(h, src)
	body := e.Body
	if p.call != nil {
		body = withID(body, p.call.ID)
	}
	if e.ContentType != "" {
		ex.vals[2] = e.ContentType
		h["Content-Type"] = ex.vals[2:3:3]
	}
	ex.vals[3] = decimal.Itoa(int64(len(body)))
	h["Content-Length"] = ex.vals[3:4:4]
	if e.Encoding != "" {
		h["Content-Encoding"] = []string{e.Encoding}
	}
	coalesce.Answer(ex.r) // the whole answer is written now: in one write
	w.WriteHeader(e.Status)
	if ex.r.Method != http.MethodHead {
		w.Write(body)
	}
	return src, cs
}

// noCache reports whether the client asks to skip the cache's read.
func noCache(h http.Header) bool {
	// Received names are canonical: index the map without canonicalising.
	for _, v := range h["Cache-Control"] {
		if strings.Contains(v, "no-cache") || strings.Contains(v, "no-store") {
			return true
		}
	}
	p := h["Pragma"]
	return len(p) > 0 && p[0] == "no-cache"
}

// copyAnswerHeaders copies an upstream answer's end-to-end headers, leaving
// out hop-by-hop headers and the upstream's rate-limit headers (they describe
// the operator's key, not the client's).
func copyAnswerHeaders(dst, src http.Header) {
	for k, vs := range src {
		lk := strings.ToLower(k)
		if strings.HasPrefix(lk, "ratelimit") || strings.HasPrefix(lk, "x-ratelimit") || lk == "retry-after" || lk == "set-cookie" {
			continue
		}
		dst[k] = append([]string(nil), vs...)
	}
	removeHop(dst)
}

// streamBody copies an upstream body to the client, flushing as it goes so
// long answers stream.
func streamBody(w http.ResponseWriter, body io.Reader) {
	rc := http.NewResponseController(w)
	buf := make([]byte, 32<<10)
	for {
		n, err := body.Read(buf)
		if n > 0 {
			if _, werr := w.Write(buf[:n]); werr != nil {
				return
			}
			rc.Flush()
		}
		if err != nil {
			return
		}
	}
}

// writeCallError answers a JSON-RPC call the edge rejects (bad envelope); a
// notification gets no body, except for a parse error.
func writeCallError(w http.ResponseWriter, c *jsonrpc.Call) Origin {
	setOrigin(w.Header(), FromEdge)
	if c.IsNotification() && c.Err.Code != jsonrpc.CodeParse {
		w.WriteHeader(http.StatusOK)
		return FromEdge
	}
	body := jsonrpc.Marshal(c.ErrorResponse())
	w.Header()["Content-Type"] = hdrJSON
	w.WriteHeader(http.StatusOK)
	w.Write(body)
	return FromEdge
}

// dates formats the Date header once a second, as nginx does with its
// cached time, so a hit neither reads the clock again nor formats a date.
var dates dateCache

type dateCache struct{ cur atomic.Pointer[dateValue] }

type dateValue struct {
	sec int64
	v   []string
}

// at returns the Date header value of t (IMF-fixdate, RFC 9110 §5.6.7).
// The slice is shared: callers must not change it.
func (c *dateCache) at(t time.Time) []string {
	sec := t.Unix()
	if d := c.cur.Load(); d != nil && d.sec == sec {
		return d.v
	}
	d := &dateValue{sec: sec, v: []string{t.UTC().Format(http.TimeFormat)}}
	c.cur.Store(d)
	return d.v
}
