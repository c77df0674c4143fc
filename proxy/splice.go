package proxy

import (
	"net/http"
	"strings"
)

// edgeAnswer is the edge's own answer to a refused element of an EVM batch,
// and its place among the answers: how many of the upstream's answers come
// before it (go-ethereum answers a batch's calls in order, notifications
// left out).
type edgeAnswer struct {
	after int
	body  []byte
}

// spliceWriter puts the edge's answers to the refused elements of an EVM
// batch among the upstream's answers to the forwarded ones, in the batch's
// order, as the answer streams by: it follows the JSON array's elements
// (strings and nesting), writes each as it comes, and writes the edge's
// answers between them. An empty answer (the forwarded calls were all
// notifications) becomes an array of the edge's answers; an answer that is
// not a JSON array (the upstream refused the whole body, or failed) passes
// unchanged. Headers are written once the body's first byte tells which.
// It is not safe for concurrent use.
type spliceWriter struct {
	http.ResponseWriter
	extra []edgeAnswer // in the batch's order
	next  int          // extra[next:] are not written yet

	status    int
	committed bool   // the headers went out
	splicing  bool   // the answer is a JSON array
	through   bool   // the answer is something else: pass it
	held      []byte // whitespace before the first byte, until it decides

	depth          int  // nesting inside the array (1: between elements)
	inStr, esc     bool // inside a string, after a backslash in one
	inElem, scalar bool // inside an element, and it is a number or literal
	elems          int  // the upstream's elements begun
	items          int  // elements written, the upstream's and the edge's
	done           bool // the array's closing bracket was read
	out            []byte
}

// maxHeld bounds the whitespace held before an answer's first byte.
const maxHeld = 4 << 10

// maxInt, as writeExtra's bound, writes every answer left.
const maxInt = int(^uint(0) >> 1)

func (w *spliceWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
}

// commit writes the headers: for a spliced answer without the upstream's
// length, and naming the edge as a source too.
func (w *spliceWriter) commit(splicing bool) {
	if w.committed {
		return
	}
	w.committed, w.splicing, w.through = true, splicing, !splicing
	if w.status == 0 {
		w.status = http.StatusOK
	}
	if splicing {
		h := w.Header()
		delete(h, "Content-Length")
		if h.Get("Content-Type") == "" {
			h["Content-Type"] = hdrEthJSON
		}
		if v := h["X-Avaedge-Source"]; len(v) == 1 {
			setOrigin(h, originOf(v[0])|FromEdge)
		}
	}
	w.ResponseWriter.WriteHeader(w.status)
}

func (w *spliceWriter) Write(b []byte) (int, error) {
	n := len(b)
	if w.through {
		return w.ResponseWriter.Write(b)
	}
	if !w.committed {
		i := 0
		for i < len(b) && isSpace(b[i]) {
			i++
		}
		switch {
		case i == len(b) && len(w.held)+len(b) <= maxHeld:
			w.held = append(w.held, b...)
			return n, nil
		case i == len(b) || b[i] != '[' || w.Header().Get("Content-Encoding") != "":
			w.commit(false)
			if _, err := w.ResponseWriter.Write(append(w.held, b...)); err != nil {
				return 0, err
			}
			return n, nil
		}
		w.commit(true)
		w.out = append(append(w.out[:0], w.held...), b[:i]...)
		w.out = append(w.out, '[')
		w.depth, b = 1, b[i+1:]
	} else {
		w.out = w.out[:0]
	}
	for _, c := range b {
		w.scan(c)
	}
	if _, err := w.ResponseWriter.Write(w.out); err != nil {
		return 0, err
	}
	return n, nil
}

// scan follows one byte of the array into w.out.
func (w *spliceWriter) scan(c byte) {
	switch {
	case w.done:
		w.out = append(w.out, c)
		return
	case w.inElem && w.scalar:
		if c != ',' && c != ']' && !isSpace(c) {
			w.out = append(w.out, c)
			return
		}
		w.inElem = false // the delimiter is read below
	case w.inElem:
		w.out = append(w.out, c)
		switch {
		case w.inStr && w.esc:
			w.esc = false
		case w.inStr && c == '\\':
			w.esc = true
		case w.inStr && c == '"':
			w.inStr = false
		case w.inStr:
		case c == '"':
			w.inStr = true
		case c == '{' || c == '[':
			w.depth++
		case c == '}' || c == ']':
			w.depth--
		}
		if w.depth == 1 && !w.inStr {
			w.inElem = false
		}
		return
	}
	switch {
	case isSpace(c) || c == ',':
	case c == ']':
		w.writeExtra(maxInt)
		w.out = append(w.out, ']')
		w.done = true
	default:
		// An element of the upstream's begins: the edge's answers that come
		// before it first.
		w.writeExtra(w.elems)
		if w.items > 0 {
			w.out = append(w.out, ',')
		}
		w.out = append(w.out, c)
		w.items++
		w.elems++
		w.inElem, w.scalar = true, false
		switch c {
		case '{', '[':
			w.depth = 2
		case '"':
			w.inStr = true
		default:
			w.scalar = true
		}
	}
}

// writeExtra writes the edge's answers that come after at most k of the
// upstream's.
func (w *spliceWriter) writeExtra(k int) {
	for ; w.next < len(w.extra) && w.extra[w.next].after <= k; w.next++ {
		if w.items > 0 {
			w.out = append(w.out, ',')
		}
		w.out = append(w.out, w.extra[w.next].body...)
		w.items++
	}
}

// finish ends the answer: an empty one becomes the array of the edge's
// answers. It reports whether the edge's answers were written.
func (w *spliceWriter) finish() bool {
	if !w.committed {
		w.commit(true)
		w.out = append(w.out[:0], '[')
		w.writeExtra(maxInt)
		w.ResponseWriter.Write(append(w.out, ']', '\n'))
		return true
	}
	if w.splicing && !w.done && !w.inElem {
		// A truncated answer: what is missing cannot be made up, but the
		// edge's answers and the bracket can close it.
		w.out = w.out[:0]
		w.writeExtra(maxInt)
		w.ResponseWriter.Write(append(w.out, ']'))
	}
	return w.splicing
}

// Flush sends what was written, once the headers are decided.
func (w *spliceWriter) Flush() {
	if w.committed {
		http.NewResponseController(w.ResponseWriter).Flush()
	}
}

// Unwrap lets http.ResponseController reach the connection.
func (w *spliceWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

// originOf reads an X-Avaedge-Source value back into its Origin.
func originOf(v string) Origin {
	for set := range originNames {
		if set > 0 && strings.EqualFold(originNames[set][0], v) {
			return Origin(set)
		}
	}
	return 0
}
