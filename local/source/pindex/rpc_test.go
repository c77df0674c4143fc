package pindex

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestAnswerLimit: an answer over the client's limit is refused with an
// error that says so, not read further nor decoded truncated.
func TestAnswerLimit(t *testing.T) {
	var body string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, body) }))
	defer srv.Close()
	c := &client{base: srv.URL, http: srv.Client(), timeout: 5 * time.Second, limit: 1024}
	answer := func(n int) string { // an answer of n bytes
		const head, tail = `{"jsonrpc":"2.0","id":1,"result":"`, `"}`
		return head + strings.Repeat("x", n-len(head)-len(tail)) + tail
	}
	for _, tt := range []struct {
		size int
		err  string
	}{{1024, ""}, {1025, "the answer is over 1024 bytes"}, {10 << 20, "the answer is over 1024 bytes"}} {
		body = answer(tt.size)
		var out json.RawMessage
		err := c.call(context.Background(), "/", "m", nil, &out)
		if tt.err == "" && (err != nil || len(out) != tt.size-len(`{"jsonrpc":"2.0","id":1,"result":}`)) {
			t.Fatalf("answer of %d bytes: %d bytes of result, %v", tt.size, len(out), err)
		}
		if tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)) {
			t.Fatalf("answer of %d bytes: %v; want %q", tt.size, err, tt.err)
		}
	}
}
