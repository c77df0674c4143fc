package proxy

import (
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestSpliceWriter: the edge's answers join the forwarded calls' answer
// however it is cut into writes; answers that are not a 200 JSON array
// pass unchanged.
func TestSpliceWriter(t *testing.T) {
	const extra = `{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"m"}}`
	tests := []struct {
		name   string
		status int
		writes []string
		want   string
		added  bool
	}{
		{"one write", 200, []string{`[{"id":1,"result":"0x1"}]` + "\n"}, `[{"id":1,"result":"0x1"},` + extra + "]\n", true},
		{"no newline", 200, []string{`[{"id":1}]`}, `[{"id":1},` + extra + "]", true},
		{"split at the end", 200, []string{`[{"id":1,"result":"a]`, `"}`, `]`, "  \n"}, `[{"id":1,"result":"a]"},` + extra + "]  \n", true},
		{"bracket in a string", 200, []string{`[{"id":1,"result":"]`, ` x"}]`}, `[{"id":1,"result":"] x"},` + extra + "]", true},
		{"empty array", 200, []string{" [ ", "]\n"}, " [ " + extra + "]\n", true},
		{"empty body", 200, nil, "[" + extra + "]\n", true},
		{"not an array", 200, []string{`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"batch too large"}}`}, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"batch too large"}}`, false},
		{"failure", 503, []string{`[{"message":"down"}]`}, `[{"message":"down"}]`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			rec.Header().Set("Content-Length", "99")
			setSource(rec.Header(), FromUpstream)
			w := &spliceWriter{ResponseWriter: rec, extra: []byte(extra)}
			w.WriteHeader(tt.status)
			for _, s := range tt.writes {
				w.Write([]byte(s))
			}
			added := w.finish()
			if got := rec.Body.String(); got != tt.want || added != tt.added {
				t.Fatalf("got %q, added %v; want %q, %v", got, added, tt.want, tt.added)
			}
			if tt.added {
				if rec.Header().Get("Content-Length") != "" || rec.Header().Get("X-Avaedge-Source") != "upstream, edge" {
					t.Fatalf("headers %v", rec.Header())
				}
				var v []json.RawMessage
				if err := json.Unmarshal([]byte(strings.TrimSpace(tt.want)), &v); err != nil {
					t.Fatalf("answer is not an array: %v", err)
				}
			}
		})
	}
}
