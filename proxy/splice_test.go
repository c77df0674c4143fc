package proxy

import (
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestSpliceWriter: the edge's answers take their places among the
// upstream's however its answer is cut into writes (strings holding
// brackets, scalars, whitespace); answers that are not a JSON array pass
// unchanged, and an empty answer becomes the edge's array.
func TestSpliceWriter(t *testing.T) {
	e := func(after int, id string) edgeAnswer {
		return edgeAnswer{after, []byte(`{"id":` + id + `,"error":{}}`)}
	}
	tests := []struct {
		name   string
		status int
		extra  []edgeAnswer
		writes []string
		want   string
		added  bool
	}{
		{"first", 200, []edgeAnswer{e(0, "0")}, []string{`[{"id":1}]` + "\n"}, `[{"id":0,"error":{}},{"id":1}]` + "\n", true},
		{"middle and last", 200, []edgeAnswer{e(1, "2"), e(2, "4")}, []string{`[{"id":1},{"id":3}]`}, `[{"id":1},{"id":2,"error":{}},{"id":3},{"id":4,"error":{}}]`, true},
		{"cut anywhere", 200, []edgeAnswer{e(1, "9")}, []string{` [ {"id":1,"r":"a]`, `\"}"}`, ` ,`, `{"id":2,"r":[1,[2]]}`, "]", "  \n"},
			` [{"id":1,"r":"a]\"}"},{"id":9,"error":{}},{"id":2,"r":[1,[2]]}]  ` + "\n", true},
		{"scalars", 200, []edgeAnswer{e(1, "7"), e(2, "8")}, []string{`[1,"s",`, `true]`}, `[1,{"id":7,"error":{}},"s",{"id":8,"error":{}},true]`, true},
		{"empty array", 200, []edgeAnswer{e(0, "1")}, []string{"[ ", "]\n"}, `[{"id":1,"error":{}}]` + "\n", true},
		{"empty body", 200, []edgeAnswer{e(0, "1"), e(0, "2")}, nil, `[{"id":1,"error":{}},{"id":2,"error":{}}]` + "\n", true},
		{"fewer answers than expected", 200, []edgeAnswer{e(5, "1")}, []string{`[{"id":2}]`}, `[{"id":2},{"id":1,"error":{}}]`, true},
		{"a refused batch", 429, []edgeAnswer{e(0, "1")}, []string{`[{"id":2,"error":{"code":-32005}}]`}, `[{"id":1,"error":{}},{"id":2,"error":{"code":-32005}}]`, true},
		{"not an array", 200, []edgeAnswer{e(0, "1")}, []string{`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"batch too large"}}`},
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"batch too large"}}`, false},
		{"failure text", 502, []edgeAnswer{e(0, "1")}, []string{"bad gateway"}, "bad gateway", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			rec.Header().Set("Content-Length", "99")
			setOrigin(rec.Header(), FromUpstream)
			w := &spliceWriter{ResponseWriter: rec, extra: tt.extra}
			w.WriteHeader(tt.status)
			for _, s := range tt.writes {
				w.Write([]byte(s))
			}
			added := w.finish()
			if got := rec.Body.String(); got != tt.want || added != tt.added || rec.Code != tt.status {
				t.Fatalf("got %d %q, added %v; want %d %q, %v", rec.Code, got, added, tt.status, tt.want, tt.added)
			}
			if tt.added {
				if rec.Header().Get("Content-Length") != "" || rec.Header().Get("X-Avaedge-Source") != "upstream, edge" {
					t.Fatalf("headers %v", rec.Header())
				}
				var v []json.RawMessage
				if err := json.Unmarshal([]byte(strings.TrimSpace(tt.want)), &v); err != nil {
					t.Fatalf("answer is not an array: %v", err)
				}
			} else if rec.Header().Get("X-Avaedge-Source") != "upstream" {
				t.Fatalf("headers %v", rec.Header())
			}
		})
	}
}

// FuzzSpliceWriter: whatever JSON array the upstream answers, cut into
// writes anywhere, the client gets a JSON array of its elements with the
// edge's answers in their places; anything else passes unchanged.
func FuzzSpliceWriter(f *testing.F) {
	f.Fuzz(func(t *testing.T, body []byte, cut uint8, after uint8) {
		extra := []edgeAnswer{{int(after % 4), []byte(`{"edge":1}`)}, {int(after%4) + 1, []byte(`{"edge":2}`)}}
		rec := httptest.NewRecorder()
		w := &spliceWriter{ResponseWriter: rec, extra: extra}
		w.WriteHeader(200)
		for rest, n := body, int(cut%7)+1; len(rest) > 0; rest = rest[min(n, len(rest)):] {
			w.Write(rest[:min(n, len(rest))])
		}
		added := w.finish()
		var in []json.RawMessage
		isArray := json.Unmarshal(body, &in) == nil && len(strings.TrimSpace(string(body))) > 0 && strings.TrimSpace(string(body))[0] == '['
		if !isArray {
			if len(strings.TrimSpace(string(body))) > 0 && !added && rec.Body.String() != string(body) {
				t.Fatalf("%q passed as %q", body, rec.Body)
			}
			return
		}
		var out []json.RawMessage
		if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil || !added {
			t.Fatalf("%q became %q (%v), added %v", body, rec.Body, err, added)
		}
		var want []string
		for i := 0; i <= len(in); i++ {
			for _, e := range extra {
				if e.after == i || i == len(in) && e.after > i {
					want = append(want, string(e.body))
				}
			}
			if i < len(in) {
				want = append(want, string(in[i]))
			}
		}
		var got []string
		for _, o := range out {
			got = append(got, string(o))
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("%q became %q; want the elements %q", body, rec.Body, want)
		}
	})
}
