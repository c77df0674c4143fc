package catalog

import (
	"net/url"
	"strings"
	"testing"
)

func TestSegmentProblem(t *testing.T) {
	tests := []struct {
		value, want string // want "" = one segment
	}{
		{"43114", ""},
		{"0x52c8fbd0a1a2cd5fe2d58b4c4e1d4f1ac42b1c1c", ""},
		{"NodeID-111111111111111111116DBWJs", ""},
		{"100%", ""},      // '%' that is no escape: sent as %25
		{"a%zzb", ""},     // likewise
		{"caf\u00e9", ""}, // non-ASCII is escaped, not refused
		{"a b+c:d@e", ""}, // escaped or allowed by url.PathEscape
		{"...", ""},       // not a dot segment
		{"43114/webhooks", "must not contain '/'"},
		{"43114%2Fwebhooks", "must not contain an encoded '/'"},     // %252F as received
		{"43114%252Fwebhooks", "must not contain an encoded '/'"},   // %25252F
		{"43114%25252Fwebhooks", "must not contain an encoded '/'"}, // deeper still
		{"a\\b", "must not contain '\\'"},
		{"a%5Cb", "must not contain an encoded '\\'"},
		{".", "must not be '.' or '..'"},
		{"..", "must not be '.' or '..'"},
		{"%2e%2e", "must not be an encoded '.' or '..'"},
		{"%2E", "must not be an encoded '.' or '..'"},
		{"%252e%252e", "must not be an encoded '.' or '..'"},
		{"a\x00b", "must not contain control characters"},
		{"a\nb", "must not contain control characters"},
		{"a\x7fb", "must not contain control characters"},
		{"a\u0085b", "must not contain control characters"},
		{"a%0Ab", "must not contain an encoded control characters"},
		{"%" + strings.Repeat("25", 9) + "2F", "must not be percent-encoded more than 8 times"},
		{"%" + strings.Repeat("25", 6) + "2F", "must not contain an encoded '/'"},
		// Overlong UTF-8 of '/', '.' and '\' (invalid UTF-8), and the
		// characters NFKC turns into them.
		{"a\xc0\xafb", "must be valid UTF-8"},
		{"a%C0%AFb", "must be valid UTF-8"},
		{"%C0%AE%C0%AE", "must be valid UTF-8"},
		{"a%C1%9Cb", "must be valid UTF-8"},
		{"a%E0%80%AFb", "must be valid UTF-8"},
		{"a%FFb", "must be valid UTF-8"},
		{"a\uff0fb", "must not contain '\uff0f'"},
		{"a%EF%BC%8Fb", "must not contain an encoded '\uff0f'"},
		{"a%EF%BC%BCb", "must not contain an encoded '\uff3c'"},
		{"%EF%BC%8E%EF%BC%8E", "must not contain an encoded '\uff0e'"},
		{"a\ufe68b", "must not contain '\ufe68'"},
		{"a\u2025b", "must not contain '\u2025'"},
		{"\u65e5\u672c", ""}, // other non-ASCII is escaped, not refused
	}
	for _, tt := range tests {
		if got := SegmentProblem(tt.value); got != tt.want {
			t.Errorf("SegmentProblem(%q) = %q; want %q", tt.value, got, tt.want)
		}
	}
}

// TestValidatePathSegments: a path value that is not one segment is a 400
// message of Validate, before any other rule of the parameter.
func TestValidatePathSegments(t *testing.T) {
	rt := route(t, "getChainInfo")
	for v, want := range map[string]string{
		"43114/webhooks":   "chainId must not contain '/'",
		"43114%2Fwebhooks": "chainId must not contain an encoded '/'",
		"..":               "chainId must not be '.' or '..'",
		"a\\b":             "chainId must not contain '\\'",
	} {
		_, msgs := rt.Validate(PathFunc(func(string) string { return v }), nil, nil)
		if strings.Join(msgs, ";") != want {
			t.Errorf("chainId %q: messages %q; want %q", v, msgs, want)
		}
	}
	_, msgs := route(t, "listSubnets").Validate(PathFunc(func(string) string { return "fuji/x" }), nil, nil)
	if strings.Join(msgs, ";") != "network must not contain '/'" {
		t.Errorf("enum path value with a slash: %q", msgs)
	}
}

func TestAppendPath(t *testing.T) {
	tests := []struct {
		route string
		vals  Values
		want  string
	}{
		{"getChainInfo", Values{"chainId": "43114"}, "/v1/chains/43114"},
		{"getChainInfo", Values{"chainId": "a b;c,d?e%f"}, "/v1/chains/a%20b%3Bc%2Cd%3Fe%25f"},
		{"listErc20Balances", Values{"chainId": "43114", "address": "0xAbC"}, "/v1/chains/43114/addresses/0xAbC/balances:listErc20"},
		{"getEvmChainMetrics", Values{"chainId": "43114", "metric": "txCount"}, "/v2/chains/43114/metrics/txCount"},
	}
	for _, tt := range tests {
		var b strings.Builder
		route(t, tt.route).AppendPath(&b, tt.vals)
		if b.String() != tt.want {
			t.Errorf("%s %v: path %q; want %q", tt.route, tt.vals, b.String(), tt.want)
		}
		// The escaped path decodes to the values, one segment each.
		if _, err := url.PathUnescape(b.String()); err != nil {
			t.Errorf("%s: %q does not decode: %v", tt.route, b.String(), err)
		}
	}
}

// TestMatchPathValues: segments are split on the escaped path and then
// unescaped, as ServeMux does, so an encoded slash stays in its value.
func TestMatchPathValues(t *testing.T) {
	tests := []struct {
		pattern, path string
		ok            bool
		literals      int
		vals          Values
	}{
		{"/v1/chains/{chainId}", "/v1/chains/43114", true, 2, Values{"chainId": "43114"}},
		{"/v1/chains/{chainId}", "/v1/chains/43114%2Fwebhooks", true, 2, Values{"chainId": "43114/webhooks"}},
		{"/v1/chains/{chainId}", "/v1/chains/43114/webhooks", false, 0, nil},
		{"/v1/chains/{chainId}", "/v1/chains/", false, 0, nil},
		{"/v1/chains/{chainId}", "/v1/chains/%zz", false, 0, nil},
		{"/v1/chains/{chainId}", "/v1/%63hains/1", true, 2, Values{"chainId": "1"}},
		{"/v1/a/{address}:verb", "/v1/a/0x1:verb", true, 3, Values{"address": "0x1"}},
		{"/v1/a/{address}:verb", "/v1/a/:verb", false, 0, nil},
		{"/v1/a/{address}:verb", "/v1/a/0x1:other", false, 0, nil},
		{"/v1/a/{address}:verb", "/v1/a/0x1%3Averb", true, 3, Values{"address": "0x1"}},
	}
	for _, tt := range tests {
		m, ok := MatchPath(tt.pattern, tt.path)
		if ok != tt.ok || ok && (m.Literals != tt.literals || len(m.Values) != len(tt.vals)) {
			t.Errorf("MatchPath(%q, %q) = %+v, %v; want %v, %d literals, %v", tt.pattern, tt.path, m, ok, tt.ok, tt.literals, tt.vals)
			continue
		}
		for k, v := range tt.vals {
			if m.Values[k] != v {
				t.Errorf("MatchPath(%q, %q): %s = %q; want %q", tt.pattern, tt.path, k, m.Values[k], v)
			}
		}
	}
}

// FuzzSegmentProblem: a value SegmentProblem accepts, escaped into a path
// by AppendPath, is exactly one segment that decodes (once, as any
// upstream does) back to the value, and no further decoding reaches a
// slash, backslash, dot segment or control character.
func FuzzSegmentProblem(f *testing.F) {
	rt := Route{Path: "/v1/chains/{chainId}/blocks"}
	f.Fuzz(func(t *testing.T, v string) {
		if SegmentProblem(v) != "" {
			return
		}
		var b strings.Builder
		rt.AppendPath(&b, Values{"chainId": v})
		p := b.String()
		segs := strings.Split(p, "/")
		if len(segs) != 5 || segs[4] != "blocks" {
			t.Fatalf("value %q made path %q: not one segment", v, p)
		}
		dec, err := url.PathUnescape(segs[3])
		if err != nil || dec != v {
			t.Fatalf("segment %q decodes to %q, %v; want %q", segs[3], dec, err, v)
		}
		for range maxDecodes {
			if dec == "." || dec == ".." || strings.ContainsAny(dec, "/\\\x00\n\r") {
				t.Fatalf("value %q decodes to %q", v, dec)
			}
			next, err := url.PathUnescape(dec)
			if err != nil || next == dec {
				return
			}
			dec = next
		}
	})
}
