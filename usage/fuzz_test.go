package usage

import (
	"maps"
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

// FuzzParseMember: a stored log line (a member of a key's sorted set) is
// read or refused without panicking; one the meter wrote reads back as the
// line it was made from, and sorts among others as newer says.
func FuzzParseMember(f *testing.F) {
	r := logRec{f: logFormat{LogID: "a-1", EventTimestamp: 1795631520178, RequestType: "rpc"}}
	l := r.line()
	f.Add(member(&l), int64(1795631520178), "a-10")
	f.Add("0001795631520178 a-1 {}", int64(0), "b")
	f.Add("x", int64(-1), "")
	f.Fuzz(func(t *testing.T, s string, at int64, id string) {
		if l, ok := parseMember(s); ok && (l.ID == "" || l.At < 0) {
			t.Fatalf("%q read as %+v", s, l)
		}
		if at < 0 || at > maxLogTime || id == "" || strings.ContainsFunc(id, func(r rune) bool { return r < '!' }) {
			return
		}
		a := logLine{At: at, ID: id, JSON: `{"logId":"x"}`}
		back, ok := parseMember(member(&a))
		if !ok || back.At != a.At || back.ID != a.ID || back.JSON != a.JSON {
			t.Fatalf("%+v read back as %+v (%v)", a, back, ok)
		}
		b := logLine{At: 1795631520178, ID: "a-1"}
		if (member(&a) > member(&b)) != newer(&a, &b) && (a.At != b.At || a.ID != b.ID) {
			t.Fatalf("%+v and %+v: members sort unlike newer", a, b)
		}
	})
}

// FuzzUnpackCounters: a stored counter field is read without panicking,
// and counters packed by the meter read back as they were.
func FuzzUnpackCounters(f *testing.F) {
	d := dims{"data", "/v1/chains/{chainId}/blocks", "200", "43114", "", "", "cache"}.encode()
	f.Add(d, "n=5,ok=5,cu=50,d0=5", int64(7))
	f.Add(d+sep+"n", "12", int64(-1))
	f.Add("x", "n=,=3,,n=-", int64(0))
	f.Fuzz(func(t *testing.T, field, value string, v int64) {
		got := map[string]int64{}
		unpackCounters(field, value, got)
		want := map[string]int64{d + sep + "n": v, d + sep + "d3": 1}
		p := packCounters(want)
		back := map[string]int64{}
		for i := 0; i < len(p); i += 2 {
			unpackCounters(p[i].(string), p[i+1].(string), back)
		}
		if !maps.Equal(back, want) {
			t.Fatalf("%v packed as %v read back as %v", want, p, back)
		}
	})
}
