package cache

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestAcceptsGzip(t *testing.T) {
	tests := []struct {
		h    string
		want bool
	}{
		{"", false},
		{"gzip", true},
		{"GZIP", true},
		{"deflate, gzip;q=1.0, *;q=0.5", true},
		{"br, x-gzip", true},
		{"gzip;q=0", false},
		{"gzip; q=0.000", false},
		{"gzip;q=0.001", true},
		{"*", true},
		{"*;q=0", false},
		{"gzip;q=0, *", false},
		{"identity", false},
		{"gzipx, br", false},
	}
	for _, tt := range tests {
		t.Run(tt.h, func(t *testing.T) {
			if got := acceptsGzip(tt.h); got != tt.want {
				t.Fatalf("acceptsGzip(%q) = %v; want %v", tt.h, got, tt.want)
			}
		})
	}
}

func TestBodyFor(t *testing.T) {
	plain := []byte(strings.Repeat(`{"a":1}`, 100))
	gz, _ := appendGzip(nil, plain)
	tests := []struct {
		name     string
		e        *Entry
		accept   string
		wantBody []byte
		wantEnc  string
	}{
		{"identity, no gzip", &Entry{Body: plain}, "", plain, ""},
		{"identity, gzip accepted", &Entry{Body: plain}, "gzip", plain, ""},
		{"gzip accepted", &Entry{Encoding: "gzip", Body: gz}, "gzip, br", gz, "gzip"},
		{"gzip refused", &Entry{Encoding: "gzip", Body: gz}, "br", plain, ""},
		{"corrupt gzip refused", &Entry{Encoding: "gzip", Body: []byte("nope")}, "", []byte("nope"), "gzip"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body, enc := tt.e.BodyFor(tt.accept)
			if !bytes.Equal(body, tt.wantBody) || enc != tt.wantEnc {
				t.Fatalf("BodyFor(%q) = %d bytes, %q; want %d bytes, %q", tt.accept, len(body), enc, len(tt.wantBody), tt.wantEnc)
			}
		})
	}
}

func TestBodyForIdentityDoesNotAllocate(t *testing.T) {
	e := &Entry{Body: make([]byte, 4096)}
	if n := testing.AllocsPerRun(100, func() { e.BodyFor("gzip, deflate, br") }); n != 0 {
		t.Fatalf("BodyFor allocates %v times; want 0", n)
	}
}

func TestAge(t *testing.T) {
	at := time.Unix(100, 0)
	e := &Entry{StoredAt: at}
	tests := []struct {
		now  time.Time
		want time.Duration
	}{
		{at.Add(3 * time.Second), 3 * time.Second},
		{at, 0},
		{at.Add(-time.Second), 0}, // another replica's clock ahead of ours
	}
	for _, tt := range tests {
		t.Run(tt.want.String(), func(t *testing.T) {
			if got := e.Age(tt.now); got != tt.want {
				t.Fatalf("Age = %v; want %v", got, tt.want)
			}
		})
	}
}

func TestWireRoundTrip(t *testing.T) {
	long := []byte(fmt.Sprintf(`{"pad":"%0900d"}`, 7))
	gz, _ := appendGzip(nil, long)
	tests := []struct {
		name          string
		body, gz      []byte
		compressAbove int
		wantGzip      bool
	}{
		{"never compress", long, nil, -1, false},
		{"compress", long, nil, 10, true},
		{"below threshold", long, nil, 1024, false},
		{"given gzip form", long, gz, -1, true},
		{"incompressible", []byte("ab"), nil, 0, false},
		{"empty", nil, nil, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := &Entry{Status: 404, ContentType: "application/json", Body: tt.body,
				StoredAt: time.Unix(0, 123456789), FreshFor: time.Second, StaleFor: 2 * time.Second, ErrorFor: 3 * time.Second}
			v := encode(e, tt.gz, tt.compressAbove)
			if gotGzip := v[1]&flagGzip != 0; gotGzip != tt.wantGzip {
				t.Fatalf("gzip flag = %v; want %v", gotGzip, tt.wantGzip)
			}
			got, err := decode(v)
			if err != nil {
				t.Fatalf("decode: %v", err)
			}
			if !bytes.Equal(got.Body, e.Body) || got.ContentType != e.ContentType || got.Encoding != "" || got.Status != e.Status ||
				!got.StoredAt.Equal(e.StoredAt) || got.FreshFor != e.FreshFor || got.StaleFor != e.StaleFor || got.ErrorFor != e.ErrorFor {
				t.Fatalf("decode(encode(e)) = %+v; want %+v", got, e)
			}
		})
	}
}

func TestDecodeRejects(t *testing.T) {
	good := encode(&Entry{Status: 200, Body: []byte(strings.Repeat("x", 2000))}, nil, 0)
	tests := []struct {
		name string
		v    []byte
	}{
		{"empty", nil},
		{"short", good[:headerLen-1]},
		{"other version", append([]byte{9}, good[1:]...)},
		{"unknown flag", append([]byte{wireVersion, 2}, good[2:]...)},
		{"truncated body", good[:len(good)-1]},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if e, err := decode(tt.v); err == nil {
				t.Fatalf("decode = %+v; want an error", e)
			}
		})
	}
}

func FuzzDecode(f *testing.F) {
	f.Add(encode(&Entry{Status: 200, ContentType: "text/plain", Body: []byte("abc")}, nil, -1))
	f.Add(encode(&Entry{Status: 200, Body: make([]byte, 2000)}, nil, 10))
	f.Fuzz(func(t *testing.T, b []byte) {
		e, err := decode(b)
		if err != nil {
			return
		}
		again, err := decode(encode(e, nil, -1))
		if err != nil || !bytes.Equal(again.Body, e.Body) || again.ContentType != e.ContentType {
			t.Fatalf("re-encoding a decoded value: %v", err)
		}
	})
}

func TestKey(t *testing.T) {
	c := mustNew(t, Options{})
	tests := []struct {
		parts []string
		want  string
	}{
		{[]string{"data", "getBlock", "/v1/x", "a=1&b=2"}, "data|getBlock|/v1/x|a=1&b=2"},
		{[]string{"a|b", "c"}, "a%7Cb|c"},
		{[]string{"a", "b|c"}, "a|b%7Cc"},
		{[]string{"*?[]\\%"}, "%2A%3F%5B%5D%5C%25"},
		{[]string{"%7C"}, "%257C"},
		{nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			if got := c.Key(tt.parts...); got != tt.want {
				t.Fatalf("Key(%q) = %q; want %q", tt.parts, got, tt.want)
			}
		})
	}
}
