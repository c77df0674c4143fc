package accesslog

import (
	"net/netip"
	"strconv"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/avaedge/avaedge/internal/decimal"
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
	b = append(b, `","level":"INFO","msg":"request","request_id":"`...)
	b = appendEscaped(b, e.RequestID)
	b = append(b, `","method":"`...)
	b = appendEscaped(b, e.Method)
	b = append(b, `","path":"`...)
	b = appendEscaped(b, e.Path)
	b = append(b, `","service":"`...)
	b = appendEscaped(b, e.Service)
	b = append(b, `","route":"`...)
	b = appendEscaped(b, e.Route)
	b = append(b, `","status":`...)
	b = append(b, decimal.Itoa(int64(e.Status))...)
	b = append(b, `,"source":"`...)
	b = appendEscaped(b, e.Source)
	b = append(b, `","cache":"`...)
	b = appendEscaped(b, e.Cache)
	b = append(b, `","bytes":`...)
	b = append(b, decimal.Itoa(e.Bytes)...)
	b = append(b, `,"duration":`...)
	b = strconv.AppendInt(b, int64(e.Duration), 10)
	b = append(b, `,"key_id":"`...)
	b = appendEscaped(b, e.KeyID)
	b = append(b, `","client":"`...)
	b = e.Client.AppendTo(b) // digits, dots, colons, hex and a zone: nothing to escape
	return append(b, '"')
}

// appendEscaped appends s as the inside of a JSON string, exactly as
// log/slog's JSONHandler writes it: the characters encoding/json escapes
// outside HTML mode, invalid UTF-8 as \ufffd, U+2028 and U+2029 escaped.
func appendEscaped(b []byte, s string) []byte {
	if plainString(s) {
		return append(b, s...)
	}
	start := 0
	for i := 0; i < len(s); {
		if i+8 <= len(s) && plain(word(s, i)) {
			i += 8
			continue
		}
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
	return append(b, s[start:]...)
}

const hex = "0123456789abcdef"

// plainString reports whether s needs no escaping, eight bytes at a time.
func plainString(s string) bool {
	if len(s) < 8 {
		w := uint64(0x6161616161616161) // "aaaaaaaa", then s over it
		for i := 0; i < len(s); i++ {
			w = w&^(0xff<<(8*i)) | uint64(s[i])<<(8*i)
		}
		return plain(w)
	}
	for i := 0; i+8 < len(s); i += 8 {
		if !plain(word(s, i)) {
			return false
		}
	}
	return plain(word(s, len(s)-8)) // the last eight, overlapping the ones before
}

// word is the eight bytes of s from i, little-endian (one load).
func word(s string, i int) uint64 {
	s = s[i : i+8]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// plain reports whether none of the eight bytes in w needs more than
// copying: no control character, '"', '\\' or byte of a multi-byte
// character. (Each test is exact for "some byte": x-0x01.. & ^x & 0x80.. has
// a bit set only if a byte of x is zero; with 0x20.. only if one is below
// 0x20.)
func plain(w uint64) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	quote, backslash := w^(ones*'"'), w^(ones*'\\')
	return (w|(w-ones*0x20)&^w|(quote-ones)&^quote|(backslash-ones)&^backslash)&highs == 0
}

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
	s := c.cur.Load()
	if s == nil || s.unix != t.Unix() || s.loc != t.Location() {
		if y := t.Year(); y < 0 || y > 9999 {
			return t.AppendFormat(b, time.RFC3339Nano) // as slog writes it, less its error
		}
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
