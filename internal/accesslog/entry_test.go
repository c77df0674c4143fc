package accesslog

import (
	"bytes"
	"context"
	"log/slog"
	"net/netip"
	"testing"
	"time"
)

// slogLine is the line the edge wrote through log/slog before this package:
// the same attributes, in the same order, through a JSONHandler.
func slogLine(t testing.TB, e *Entry) []byte {
	t.Helper()
	var buf bytes.Buffer
	client := ""
	if e.Client.IsValid() {
		client = e.Client.String()
	}
	r := slog.NewRecord(e.Time, slog.LevelInfo, "request", 0)
	r.AddAttrs(
		slog.String("request_id", e.RequestID),
		slog.String("method", e.Method),
		slog.String("path", e.Path),
		slog.String("service", e.Service),
		slog.String("route", e.Route),
		slog.Int("status", e.Status),
		slog.String("source", e.Source),
		slog.String("cache", e.Cache),
		slog.Int64("bytes", e.Bytes),
		slog.Duration("duration", e.Duration),
		slog.String("key_id", e.KeyID),
		slog.String("client", client),
	)
	if err := slog.NewJSONHandler(&buf, nil).Handle(context.Background(), r); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func line(e *Entry) []byte { return append(e.appendTo(nil), '}', '\n') }

func hit() Entry {
	return Entry{
		Time: time.Date(2026, 11, 25, 17, 34, 17, 432900807, time.UTC), RequestID: "345f652f-4y6k",
		Method: "GET", Path: "/v1/chains/43114/blocks", Service: "data", Route: "getLatestBlocks",
		Status: 200, Source: "cache", Cache: "HIT", Bytes: 4222, Duration: 8393 * time.Nanosecond,
		KeyID: "anonymous", Client: netip.MustParseAddr("127.0.0.1"),
	}
}

// TestEntrySameAsSlog: the line is byte for byte the one log/slog wrote.
func TestEntrySameAsSlog(t *testing.T) {
	east := time.FixedZone("", 5*3600+30*60)
	west := time.FixedZone("", -7*3600)
	tests := []struct {
		name string
		edit func(e *Entry)
	}{
		{"hit", func(e *Entry) {}},
		{"the recorded line", func(e *Entry) {
			// A line the edge wrote through slog, in a test run.
			e.Time = time.Date(2026, 11, 25, 17, 34, 17, 432923081, time.UTC)
		}},
		{"whole second", func(e *Entry) { e.Time = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }},
		{"trailing zeros", func(e *Entry) { e.Time = time.Date(2026, 1, 2, 3, 4, 5, 120000000, east) }},
		{"one nanosecond", func(e *Entry) { e.Time = time.Date(2026, 1, 2, 3, 4, 5, 1, west) }},
		{"local zone", func(e *Entry) { e.Time = time.Now() }},
		{"quotes and controls", func(e *Entry) { e.Path = "/v1/\"a\\b\"\n\r\t\x00\x1f\x7f<>&" }},
		{"invalid UTF-8", func(e *Entry) { e.Path = "/v1/\xff\xfe/é/\xe2\x82" }},
		{"line separators", func(e *Entry) { e.Path = "/a\u2028b\u2029c\u00e9\U0001F600" }},
		{"method", func(e *Entry) { e.Method = "PATCH\"" }},
		{"refused", func(e *Entry) {
			e.Status, e.Source, e.Cache, e.KeyID, e.Route, e.Service = 429, "edge", "", "k1", "passthrough", "node"
		}},
		{"batch sources", func(e *Entry) { e.Source = "upstream, cache" }},
		{"IPv6 client", func(e *Entry) { e.Client = netip.MustParseAddr("2001:db8::1") }},
		{"mapped client", func(e *Entry) { e.Client = netip.MustParseAddr("::ffff:192.0.2.7") }},
		{"zoned client", func(e *Entry) { e.Client = netip.MustParseAddr("fe80::1%eth0") }},
		{"no client", func(e *Entry) { e.Client = netip.Addr{} }},
		{"large and negative", func(e *Entry) { e.Bytes, e.Duration, e.Status = 1<<40, -5, 0 }},
		{"empty", func(e *Entry) { *e = Entry{Time: e.Time} }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := hit()
			tt.edit(&e)
			if got, want := line(&e), slogLine(t, &e); !bytes.Equal(got, want) {
				t.Fatalf("got  %s\nwant %s", got, want)
			}
		})
	}
}

// TestStampsAcrossSeconds: the cached second is replaced when the second
// or the location changes.
func TestStampsAcrossSeconds(t *testing.T) {
	base := time.Date(2026, 3, 29, 0, 59, 58, 999999999, time.UTC)
	paris, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		paris = time.FixedZone("CET", 3600)
	}
	var c stampCache
	for i := range 5000 {
		tm := base.Add(time.Duration(i) * 777 * time.Microsecond)
		if i%3 == 1 {
			tm = tm.In(paris) // crosses the change to summer time at 01:00 UTC
		}
		if got, want := string(c.append(nil, tm)), tm.Format(time.RFC3339Nano); got != want {
			t.Fatalf("%d: got %s; want %s", i, got, want)
		}
	}
}

func FuzzEntry(f *testing.F) {
	f.Add("GET", "/v1/chains/43114/blocks", "anonymous", int64(1764092057), int64(432900807), 0, []byte{127, 0, 0, 1})
	f.Add("POST", "/ext/bc/C/rpc\u2028", "k\"1", int64(0), int64(0), -3600, []byte{32, 1, 13, 184, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1})
	f.Fuzz(func(t *testing.T, method, path, keyID string, sec, nsec int64, zone int, ip []byte) {
		e := hit()
		e.Method, e.Path, e.KeyID = method, path, keyID
		e.Time = time.Unix(sec%(250000*86400), nsec%1e9).In(time.FixedZone("", zone%(18*3600)))
		e.Client, _ = netip.AddrFromSlice(ip)
		if got, want := line(&e), slogLine(t, &e); !bytes.Equal(got, want) {
			t.Fatalf("got  %s\nwant %s", got, want)
		}
	})
}

func BenchmarkEntry(b *testing.B) {
	e := hit()
	e.Time = time.Now()
	buf := make([]byte, 0, 512)
	b.ReportAllocs()
	for b.Loop() {
		buf = e.appendTo(buf[:0])
	}
}

// BenchmarkSlog is the line as it was written through log/slog, for
// comparison with BenchmarkEntry.
func BenchmarkSlog(b *testing.B) {
	e := hit()
	log := slog.New(slog.NewJSONHandler(discard{}, nil))
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		log.LogAttrs(ctx, slog.LevelInfo, "request",
			slog.String("request_id", e.RequestID), slog.String("method", e.Method), slog.String("path", e.Path),
			slog.String("service", e.Service), slog.String("route", e.Route), slog.Int("status", e.Status),
			slog.String("source", e.Source), slog.String("cache", e.Cache), slog.Int64("bytes", e.Bytes),
			slog.Duration("duration", e.Duration), slog.String("key_id", e.KeyID), slog.String("client", e.Client.String()))
	}
}

type discard struct{}

func (discard) Write(b []byte) (int, error) { return len(b), nil }

// TestPlain: a word is plain exactly when each of its bytes is a safe ASCII
// byte, whatever the other bytes hold.
func TestPlain(t *testing.T) {
	for _, fill := range []byte{'a', 0x20, 0x7f, '"', 0x00, 0x80, 0xff} {
		for pos := range 8 {
			for c := range 256 {
				var w uint64
				want := true
				for i := range 8 {
					b := fill
					if i == pos {
						b = byte(c)
					}
					w |= uint64(b) << (8 * i)
					want = want && b < 0x80 && safe[b]
				}
				if got := plain(w); got != want {
					t.Fatalf("plain(%#016x) = %v; want %v", w, got, want)
				}
			}
		}
	}
}

// TestPlainString: every length, with a byte to escape at every place or
// none.
func TestPlainString(t *testing.T) {
	for n := range 40 {
		clean := bytes.Repeat([]byte{'x'}, n)
		if !plainString(string(clean)) {
			t.Fatalf("%q is plain", clean)
		}
		for i := range n {
			for _, c := range []byte{'"', '\\', '\n', 0x1f, 0x80, 0xff} {
				s := append([]byte(nil), clean...)
				s[i] = c
				if plainString(string(s)) {
					t.Fatalf("%q is not plain", s)
				}
			}
		}
	}
}
