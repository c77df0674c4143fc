// Package apierror writes the REST error body shared by the Data API and the
// Metrics API: {"message": string | string[], "statusCode": N, "error": "Bad Request"}.
//
// All three fields are always present and statusCode equals the HTTP status
// (both services' OpenAPI documents; docs/facts.md, section 1). Validation
// errors carry an array of messages in the NestJS style; the Metrics API
// always uses an array.
package apierror

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"sync"
)

// Body is the error body of both REST services. Message holds either a string
// or a []string.
type Body struct {
	Message    any    `json:"message"`
	StatusCode int    `json:"statusCode"`
	Error      string `json:"error"`
}

// Text returns the service's "error" text for status, e.g. "Bad Request".
// Statuses the services do not list fall back to net/http's text.
func Text(status int) string {
	switch status {
	case http.StatusRequestEntityTooLarge:
		return "Payload Too Large"
	}
	if t := http.StatusText(status); t != "" {
		return t
	}
	return "Error " + strconv.Itoa(status)
}

// New returns the body for status with a single string message.
func New(status int, msg string) Body {
	return Body{Message: msg, StatusCode: status, Error: Text(status)}
}

// NewList returns the body for status with an array of messages. A nil list
// is written as [].
func NewList(status int, msgs []string) Body {
	if msgs == nil {
		msgs = []string{}
	}
	return Body{Message: msgs, StatusCode: status, Error: Text(status)}
}

// Marshal returns the JSON bytes of b.
func (b Body) Marshal() []byte {
	out, _ := json.Marshal(b) // cannot fail: string, []string, int
	return out
}

// Write sends status with a single string message.
func Write(w http.ResponseWriter, status int, msg string) {
	New(status, msg).WriteTo(w)
}

// WriteList sends status with an array of messages (validation errors, and
// every Metrics API error).
func WriteList(w http.ResponseWriter, status int, msgs ...string) {
	NewList(status, msgs).WriteTo(w)
}

// WriteTo sends b with its status and a JSON content type.
func (b Body) WriteTo(w http.ResponseWriter) {
	body := b.Marshal()
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(b.StatusCode)
	w.Write(body)
}

// WriteOK sends v as a 200 JSON answer, the counterpart of an error body
// (same content type and length header); when v cannot be encoded it sends a
// 500 error body instead.
//
// The answer is encoded into a pooled buffer (json.Marshal would grow a
// fresh one and copy it out: for a page of a hundred transactions, a
// megabyte cleared and copied twice a request); the bytes are
// json.Marshal's, without the newline json.Encoder ends them with.
func WriteOK(w http.ResponseWriter, v any) {
	buf := okBuffers.Get().(*bytes.Buffer)
	defer putOKBuffer(buf)
	buf.Reset()
	if err := json.NewEncoder(buf).Encode(v); err != nil {
		Write(w, http.StatusInternalServerError, "failed to encode the response")
		return
	}
	WriteOKJSON(w, bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
}

// okBuffers are WriteOK's encoding buffers.
var okBuffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// maxPooledOK is the largest buffer WriteOK keeps for reuse: a rare huge
// answer's buffer is left to the collector rather than held by the pool.
const maxPooledOK = 4 << 20

func putOKBuffer(b *bytes.Buffer) {
	if b.Cap() <= maxPooledOK {
		okBuffers.Put(b)
	}
}

// WriteOKJSON answers 200 with out, a JSON document the caller encoded.
func WriteOKJSON(w http.ResponseWriter, out []byte) {
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(len(out)))
	w.WriteHeader(http.StatusOK)
	w.Write(out)
}
