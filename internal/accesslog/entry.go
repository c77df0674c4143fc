package accesslog

import (
	"net/netip"
	"strconv"
	"sync/atomic"
	"time"
	"unicode/utf8"
)

// Entry is one request's access log line. Its JSON is the line log/slog's
// JSONHandler wrote for the same fields before this package existed, byte
// for byte:
//
//	{"time":"2026-11-25T17:34:17.432900807Z","level":"INFO","msg":"request","request_id":"345f652f-4y6k",
//	 "method":"GET","path":"/v1/chains/43114/blocks","service":"data","route":"getLatestBlocks","status":200,
//	 "source":"cache","cache":"HIT","bytes":4222,"duration":8393,"key_id":"anonymous","client":"127.0.0.1"}
//
// (one line; duration in nanoseconds), followed by "dropped":N when lines
// before it were dropped.
type Entry struct {
	// Time is when the answer was finished (RFC 3339 with nanoseconds, in
	// Time's location, as slog writes it).
	Time      time.Time
	RequestID string
	Method    string
	Path      string
	Service   string
	Route     string
	Status    int
	Source    string
	Cache     string
	Bytes     int64
	Duration  time.Duration
	KeyID     string
	// Client is the client's address; the zero Addr is written "".
	Client netip.Addr
}

// appendTo appends e's JSON object without its closing brace, so the queue
// can add "dropped" to it.
func (e *Entry) appendTo(b []byte) []byte {
	b = append(b, `{"time":"`...)
	b = stamps.append(b, e.Time)
	b = append(b, `","level":"INFO","msg":"request","request_id":`...)
	b = appendString(b, e.RequestID)
	b = append(b, `,"method":`...)
	b = appendString(b, e.Method)
	b = append(b, `,"path":`...)
	b = appendString(b, e.Path)
	b = append(b, `,"service":`...)
	b = appendString(b, e.Service)
	b = append(b, `,"route":`...)
	b = appendString(b, e.Route)
	b = append(b, `,"status":`...)
	b = strconv.AppendInt(b, int64(e.Status), 10)
	b = append(b, `,"source":`...)
	b = appendString(b, e.Source)
	b = append(b, `,"cache":`...)
	b = appendString(b, e.Cache)
	b = append(b, `,"bytes":`...)
	b = strconv.AppendInt(b, e.Bytes, 10)
	b = append(b, `,"duration":`...)
	b = strconv.AppendInt(b, int64(e.Duration), 10)
	b = append(b, `,"key_id":`...)
	b = appendString(b, e.KeyID)
	b = append(b, `,"client":"`...)
	b = e.Client.AppendTo(b) // digits, dots, colons, hex and a zone: nothing to escape
	return append(b, '"')
}

// appendString appends s as a JSON string exactly as log/slog's JSONHandler
// does: the characters encoding/json escapes outside HTML mode, invalid
// UTF-8 as \ufffd, U+2028 and U+2029 escaped.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if safe[c] {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

const hex = "0123456789abcdef"

// safe says which ASCII bytes a JSON string holds unescaped: all but
// control characters, '"' and '\\'.
var safe = func() (t [utf8.RuneSelf]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// stamps formats times as time.RFC3339Nano does, formatting the date, the
// clock to the second and the zone once a second.
var stamps stampCache

type stampCache struct{ cur atomic.Pointer[stamp] }

// stamp is one second's formatted parts.
type stamp struct {
	unix   int64
	loc    *time.Location
	second []byte // "2006-01-02T15:04:05"
	zone   []byte // "Z" or "-07:00"
}

func (c *stampCache) append(b []byte, t time.Time) []byte {
	if y := t.Year(); y < 0 || y > 9999 {
		return t.AppendFormat(b, time.RFC3339Nano)
	}
	s := c.cur.Load()
	if s == nil || s.unix != t.Unix() || s.loc != t.Location() {
		s = &stamp{unix: t.Unix(), loc: t.Location(),
			second: t.AppendFormat(nil, "2006-01-02T15:04:05"), zone: t.AppendFormat(nil, "Z07:00")}
		c.cur.Store(s)
	}
	b = append(b, s.second...)
	if ns := t.Nanosecond(); ns != 0 {
		// ".999999999": nine digits, trailing zeros left out.
		var d [10]byte
		d[0] = '.'
		for i := 9; i > 0; i-- {
			d[i] = byte('0' + ns%10)
			ns /= 10
		}
		n := len(d)
		for d[n-1] == '0' {
			n--
		}
		b = append(b, d[:n]...)
	}
	return append(b, s.zone...)
}
