package usage

import (
	"strings"
	"testing"
)

// FuzzPageToken: any page token a client sends is refused or read back
// into the line it names; a token made from a line reads back as it.
func FuzzPageToken(f *testing.F) {
	f.Add(token(&logLine{At: 1795631520141, ID: "852736df-5"}))
	f.Add("")
	f.Add("MTc5NTYzMTUyMDE0MTo")
	f.Add("!!!")
	f.Fuzz(func(t *testing.T, s string) {
		l, ok := parseToken(s)
		if !ok {
			return
		}
		if l.ID == "" {
			t.Fatalf("%q read as a line without an id", s)
		}
		back, ok := parseToken(token(&l))
		if !ok || back.At != l.At || back.ID != l.ID {
			t.Fatalf("%q: %+v does not round-trip (%+v)", s, l, back)
		}
	})
}

// FuzzParseField: a stored counter field is read back into the dims and
// counter it was written from, and anything else is refused or read
// without panicking.
func FuzzParseField(f *testing.F) {
	f.Add("data", "/v1/chains/{chainId}/blocks", "200", "43114", "", "", "cache", "n")
	f.Add("rpc", "/ext/bc/C/rpc", "429", "43112", "eth_blockNumber", "curl/8", "edge", "d3")
	f.Fuzz(func(t *testing.T, typ, path, code, chain, method, ua, src, name string) {
		d := dims{clip(typ), clip(path), clip(code), clip(chain), clip(method), clip(ua), clip(src)}
		if strings.Contains(name, sep) {
			return
		}
		got, n, ok := parseField(d.encode() + sep + name)
		if !ok || got != d || n != name {
			t.Fatalf("%+v %q read back as %+v %q (%v)", d, name, got, n, ok)
		}
		var s sums
		s.add(n, 1) // any name: counted or ignored, never a panic
	})
}

// FuzzParseLogLine: a stored log line is read or refused without
// panicking; one the meter wrote reads back with its time and id.
func FuzzParseLogLine(f *testing.F) {
	r := logRec{f: logFormat{LogID: "a-1", EventTimestamp: 1795631520178, RequestType: "rpc"}}
	f.Add(r.line().JSON)
	f.Add([]byte(`{"eventTimestamp":"x"}`))
	f.Add([]byte(`null`))
	f.Fuzz(func(t *testing.T, b []byte) {
		l, ok := parseLogLine(b)
		if ok && l.ID == "" {
			t.Fatalf("%q read as a line without an id", b)
		}
	})
}
