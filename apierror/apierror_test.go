package apierror

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestWrite(t *testing.T) {
	tests := []struct {
		name string
		do   func(w http.ResponseWriter)
		code int
		want string
	}{
		{"string", func(w http.ResponseWriter) { Write(w, 404, "Chain not found") }, 404,
			`{"message":"Chain not found","statusCode":404,"error":"Not Found"}`},
		{"list", func(w http.ResponseWriter) { WriteList(w, 400, "pageSize must not be greater than 100") }, 400,
			`{"message":["pageSize must not be greater than 100"],"statusCode":400,"error":"Bad Request"}`},
		{"empty list", func(w http.ResponseWriter) { WriteList(w, 503) }, 503,
			`{"message":[],"statusCode":503,"error":"Service Unavailable"}`},
		{"too large", func(w http.ResponseWriter) { Write(w, 413, "body too large") }, 413,
			`{"message":"body too large","statusCode":413,"error":"Payload Too Large"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			tt.do(rec)
			if rec.Code != tt.code {
				t.Fatalf("status = %d; want %d", rec.Code, tt.code)
			}
			if got := rec.Body.String(); got != tt.want {
				t.Fatalf("body = %s; want %s", got, tt.want)
			}
			if ct := rec.Header().Get("Content-Type"); ct != "application/json; charset=utf-8" {
				t.Fatalf("content type = %q", ct)
			}
		})
	}
}

// TestWriteOK: a success is 200 JSON with its length; a value that cannot be
// encoded is a 500 error body.
func TestWriteOK(t *testing.T) {
	w := httptest.NewRecorder()
	WriteOK(w, map[string]int{"a": 1})
	if w.Code != 200 || w.Body.String() != `{"a":1}` || w.Header().Get("Content-Length") != "7" || w.Header().Get("Content-Type") != "application/json; charset=utf-8" {
		t.Fatalf("got %d %v %s", w.Code, w.Header(), w.Body)
	}
	w = httptest.NewRecorder()
	WriteOK(w, func() {})
	if w.Code != 500 || !strings.Contains(w.Body.String(), `"statusCode":500`) {
		t.Fatalf("unencodable value: %d %s", w.Code, w.Body)
	}
}

// TestWriteOKBytes: WriteOK's pooled encoding writes json.Marshal's bytes
// (HTML escaped, no newline), and a buffer reused by a later answer leaves
// an earlier answer's bytes as they were written.
func TestWriteOKBytes(t *testing.T) {
	values := []any{
		map[string]any{"html": "<a&b>", "n": 1.5, "list": []int{1, 2, 3}},
		strings.Repeat("x", 5<<20), // larger than a pooled buffer may stay
		[]string{"short"},
		map[string]string{"line": "a\nb"},
	}
	var recs []*httptest.ResponseRecorder
	for _, v := range values {
		rec := httptest.NewRecorder()
		WriteOK(rec, v)
		recs = append(recs, rec)
	}
	for i, v := range values {
		want, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if got := recs[i].Body.Bytes(); !bytes.Equal(got, want) {
			t.Fatalf("value %d: wrote %.80q; json.Marshal %.80q", i, got, want)
		}
	}
}
