package usage

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/avaedge/avaedge/catalog"
)

// logQuery selects a key's log lines: those of [from, to) (unix
// milliseconds) older than after (nil: from the newest), limit at most.
type logQuery struct {
	from, to int64
	after    *logLine
	limit    int
}

// allows reports whether l is older than q's after line.
func (q *logQuery) allows(l *logLine) bool { return q.after == nil || newer(q.after, l) }

// logScan bounds the log lines one apiLogs call examines: a page of a
// filter that matches few lines ends there, with a token to go on from, so
// no call reads more than this however long the log and however rare the
// matches.
const logScan = 2048

// logChunk is how many lines a filtered call reads from the store at once.
const logChunk = 256

// encodedPage is an apiLogs page as its answer's JSON, shared read-only by
// the calls that asked for it at once. Its buffer goes back to pageBufs
// once written when no other call shared it.
type encodedPage struct {
	b      *[]byte
	shared bool
}

// release returns an unshared page's buffer for the next page to reuse: a
// page is up to about 100 KB, which the collector would otherwise sweep
// after every call.
func (p encodedPage) release() {
	if !p.shared {
		pageBufs.Put(p.b)
	}
}

// pageBufs hold encoded apiLogs pages between calls: a Write does not keep
// the bytes it is given.
var pageBufs = sync.Pool{New: func() any { return new([]byte) }}

// logsPage answers an apiLogs call. Calls asking for the same page of the
// same key at once share one read of the store and one encoding, as a
// cache's request collapsing does (nginx's proxy_cache_lock, Varnish's
// waiting list): a key's callers at once cost Redis and the edge one page
// each distinct page, however many they are, and each is still admitted
// and charged on its own. A joining call gets what was read after it was
// asked, as a call of its own would have. The read runs on its own
// deadline, so the first caller leaving does not fail the others.
func (u *Meter) logsPage(ctx context.Context, v catalog.Values, c Caller) (encodedPage, error) {
	ch := u.pages.DoChan(pageKey(v, c), func() (any, error) {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
		a, err := u.apiLogs(rctx, v, c)
		if err != nil {
			return nil, err
		}
		b := pageBufs.Get().(*[]byte)
		*b = a.appendJSON((*b)[:0])
		return b, nil
	})
	select {
	case r := <-ch:
		if r.Err != nil {
			return encodedPage{}, r.Err
		}
		return encodedPage{b: r.Val.(*[]byte), shared: r.Shared}, nil
	case <-ctx.Done():
		// The page, when it comes, is left to the collector: another call
		// may share it.
		return encodedPage{}, ctx.Err()
	}
}

// pageKey names a page: the caller and its validated parameters, in
// order, each quoted (no two pages share a name).
func pageKey(v catalog.Values, c Caller) string {
	b := strconv.AppendQuote(nil, c.Identity)
	b = strconv.AppendQuote(b, c.KeyID)
	for _, k := range slices.Sorted(maps.Keys(v)) {
		b = strconv.AppendQuote(b, k)
		b = strconv.AppendQuote(b, v[k])
	}
	return string(b)
}

// apiLogs pages through the caller's log lines in the range, newest first.
// A page token names the last line of the page before (its time and id):
// the store reads from there on, so a page costs what it holds, not the
// log's length, and a token from any replica reads the same page. Without
// a filter a page is one read of pageSize+1 lines; with one, the lines are
// read logChunk at a time until the page is full, the log ends or logScan
// lines were examined (then the token names the last line examined).
func (u *Meter) apiLogs(ctx context.Context, v catalog.Values, c Caller) (*logsAnswer, error) {
	out := &logsAnswer{orgID: c.KeyID}
	var after *logLine
	if v.Has("pageToken") {
		l, ok := parseToken(v.Get("pageToken"))
		if !ok {
			return nil, badRequest("Invalid page token")
		}
		after = &l
	}
	if foreign(v, c) {
		return out, nil
	}
	from, to := window(v, "daily", u.opts.Now())
	if !v.Has("startTimestamp") {
		from = 0 // every kept line, as far back as they are kept
	}
	size, _ := strconv.Atoi(v.Get("pageSize"))
	size = max(size, 1)
	keep := logFilter(v)
	q := logQuery{from: from * 1000, to: to * 1000, after: after, limit: size + 1}
	if keep != nil {
		q.limit = logChunk
	}
	var returned, examined logLine
	for scanned := 0; scanned < logScan; {
		q.limit = min(q.limit, logScan-scanned)
		lines, err := u.store.logs(ctx, c.Identity, q)
		if err != nil {
			return nil, err
		}
		for i := range lines {
			l := &lines[i]
			scanned++
			examined = *l
			if keep != nil && !keep(l) {
				continue
			}
			if len(out.logs) == size { // a line beyond the page: there is a next one
				out.next = token(&returned)
				return out, nil
			}
			out.logs = append(out.logs, *l)
			returned = *l
		}
		if len(lines) < q.limit {
			return out, nil // the log ends here
		}
		q.after = &examined
	}
	if len(out.logs) == size {
		out.next = token(&returned)
	} else {
		out.next = token(&examined)
	}
	return out, nil
}

// logsAnswer is glacier.json's LogsResponseDTO, encoded by hand: its lines
// were encoded when they were written, and a page of them (up to 100 KB) is
// copied as it is rather than checked again byte by byte, which cost
// json.Marshal most of a page's time.
type logsAnswer struct {
	next  string    // nextPageToken: base64url, nothing to escape
	orgID string    // orgId, the caller's key id
	logs  []logLine // the caller's lines
}

// MarshalJSON encodes a as json.Marshal would, for tests; Answer writes
// appendJSON's bytes without json.Marshal's second pass over them.
func (a *logsAnswer) MarshalJSON() ([]byte, error) { return a.appendJSON(nil), nil }

func (a *logsAnswer) appendJSON(b []byte) []byte {
	key, _ := json.Marshal(a.orgID)
	n := 64 + len(a.next) + len(key)
	for i := range a.logs {
		n += len(a.logs[i].JSON) + len(a.logs[i].ID) + 3*len(key) + 100
	}
	b = slices.Grow(b, n)
	b = append(b, '{')
	if a.next != "" {
		b = append(b, `"nextPageToken":"`...)
		b = append(b, a.next...)
		b = append(b, `",`...)
	}
	b = append(b, `"orgId":`...)
	b = append(b, key...)
	b = append(b, `,"logs":[`...)
	for i := range a.logs {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendLog(b, key, &a.logs[i])
	}
	return append(b, "]}"...)
}

// appendLog appends l's whole LogsFormat object: orgId, logId,
// eventTimestamp, apiKeyId and apiKeyAlias (key, JSON-encoded), then the
// rest as stored. A line stored whole, as before they were split, is
// appended as it is.
func appendLog(b, key []byte, l *logLine) []byte {
	if strings.HasPrefix(l.JSON, `{"orgId"`) || !strings.HasPrefix(l.JSON, "{") {
		return append(b, l.JSON...)
	}
	b = append(b, `{"orgId":`...)
	b = append(b, key...)
	b = append(b, `,"logId":`...)
	b = appendJSONString(b, l.ID)
	b = append(b, `,"eventTimestamp":`...)
	b = strconv.AppendInt(b, l.At, 10)
	b = append(b, `,"apiKeyId":`...)
	b = append(b, key...)
	b = append(b, `,"apiKeyAlias":`...)
	b = append(b, key...)
	if len(l.JSON) > 2 {
		b = append(b, ',')
	}
	return append(b, l.JSON[1:]...)
}

// appendJSONString appends s as a JSON string: as it is when it needs no
// escape (request ids never do), else as encoding/json writes it.
func appendJSONString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c >= 0x7f || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(s)
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// logFilter is the test of apiLogs' filters (chainId, requestType,
// requestPath, responseCode) on a line; nil without any.
func logFilter(v catalog.Values) func(l *logLine) bool {
	if !v.Has("chainId") && !v.Has("requestType") && !v.Has("requestPath") && !v.Has("responseCode") {
		return nil
	}
	return func(l *logLine) bool {
		var f logFormat
		return json.Unmarshal([]byte(l.JSON), &f) == nil && match(v, "chainId", f.ChainID) && match(v, "requestType", f.RequestType) &&
			match(v, "requestPath", f.RequestPath) && match(v, "responseCode", strconv.Itoa(f.ResponseCode))
	}
}

// newer orders log lines newest first (by time, then id).
func newer(a, b *logLine) bool {
	if a.At != b.At {
		return a.At > b.At
	}
	return a.ID > b.ID
}

// token names a line for the next page: its time and id, which every
// replica and store orders the same way.
func token(l *logLine) string {
	return base64.RawURLEncoding.EncodeToString([]byte(strconv.FormatInt(l.At, 10) + ":" + l.ID))
}

// maxLogTime is the latest time a line can have, in unix milliseconds (the
// year 2286): the stores order lines by their time written in 16 digits.
const maxLogTime = 1e16 - 1

// parseToken reads a page token back into the line it names.
func parseToken(s string) (logLine, bool) {
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return logLine{}, false
	}
	at, id, ok := strings.Cut(string(b), ":")
	n, err := strconv.ParseInt(at, 10, 64)
	if !ok || err != nil || id == "" || n < 0 || n > maxLogTime {
		return logLine{}, false
	}
	return logLine{At: n, ID: id}, true
}
