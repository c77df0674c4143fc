package proxy

import (
	"net/http"
	"strings"
)

// spliceWriter adds the edge's answers to refused elements of an EVM batch
// to the answer of the calls that were forwarded, as it streams by: the
// answer is a JSON array, so its closing ']' (and the whitespace after it)
// is held back until the end, and the edge's elements go in before it.
// JSON-RPC 2.0 lets a batch's answers come in any order (clients match
// them by id), so the edge's come last. An answer that is not a 200 JSON
// array (the upstream refused the whole batch, or failed) is passed through
// unchanged. It is not safe for concurrent use.
type spliceWriter struct {
	http.ResponseWriter
	extra   []byte // comma-separated JSON objects
	status  int
	off     bool   // not splicing: pass everything through
	first   byte   // the answer's first non-space byte
	second  byte   // the first non-space byte after it
	pending []byte // the last ']' written to us and the whitespace after it
}

// maxPending bounds the whitespace held after a ']'.
const maxPending = 4 << 10

func (w *spliceWriter) WriteHeader(code int) {
	if w.status != 0 {
		return
	}
	w.status = code
	h := w.Header()
	if code != http.StatusOK || h.Get("Content-Encoding") != "" {
		w.off = true
	} else {
		// The body grows: its length is no longer the upstream's.
		delete(h, "Content-Length")
		if h.Get("Content-Type") == "" {
			h["Content-Type"] = hdrEthJSON
		}
		if v := h["X-Avaedge-Source"]; len(v) == 1 {
			setSource(h, sourceOf(v[0])|FromEdge)
		}
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *spliceWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.WriteHeader(http.StatusOK)
	}
	if w.off {
		return w.ResponseWriter.Write(b)
	}
	for i := 0; i < len(b) && w.second == 0; i++ {
		switch c := b[i]; {
		case isSpace(c):
		case w.first == 0:
			w.first = c
		default:
			w.second = c
		}
	}
	// Find the last non-space byte of b: if it is ']', hold it (and what
	// follows) back; otherwise what was held was not the end.
	end := len(b)
	for end > 0 && isSpace(b[end-1]) {
		end--
	}
	switch {
	case end == 0 && len(w.pending) > 0 && len(w.pending)+len(b) <= maxPending:
		w.pending = append(w.pending, b...)
		return len(b), nil
	case end > 0 && b[end-1] == ']':
		if err := w.flush(b[:end-1]); err != nil {
			return 0, err
		}
		w.pending = append(w.pending[:0], b[end-1:]...)
		return len(b), nil
	}
	if err := w.flush(b); err != nil {
		return 0, err
	}
	return len(b), nil
}

// flush writes what was held back, then b.
func (w *spliceWriter) flush(b []byte) error {
	if len(w.pending) > 0 {
		if _, err := w.ResponseWriter.Write(w.pending); err != nil {
			return err
		}
		w.pending = w.pending[:0]
	}
	if len(b) == 0 {
		return nil
	}
	_, err := w.ResponseWriter.Write(b)
	return err
}

// finish writes the edge's answers and the held-back end, and reports
// whether the answers were added. An empty answer (the forwarded calls were
// all notifications) becomes an array of the edge's answers.
func (w *spliceWriter) finish() bool {
	if w.status == 0 {
		w.WriteHeader(http.StatusOK)
	}
	if w.off {
		return false
	}
	switch {
	case w.first == 0:
		w.ResponseWriter.Write(append(append(append([]byte{'['}, w.extra...), ']'), '\n'))
		return true
	case w.first == '[' && len(w.pending) > 0:
		if w.second != ']' {
			w.ResponseWriter.Write([]byte{','})
		}
		w.ResponseWriter.Write(w.extra)
		w.ResponseWriter.Write(w.pending)
		return true
	}
	w.flush(nil)
	return false
}

// Unwrap lets http.ResponseController reach the connection.
func (w *spliceWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

// sourceOf reads an X-Avaedge-Source value back into its Source.
func sourceOf(v string) Source {
	for set := range sourceNames {
		if set > 0 && strings.EqualFold(sourceNames[set][0], v) {
			return Source(set)
		}
	}
	return 0
}
