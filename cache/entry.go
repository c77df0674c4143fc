package cache

import (
	"encoding/binary"
	"errors"
	"strings"
	"time"
)

// Entry is one stored response. Entries are immutable once stored: readers
// share them without copying.
type Entry struct {
	Status      int
	ContentType string
	// Encoding is "" (identity) or "gzip": how Body is encoded. The cache
	// keeps identity bodies in process and compresses only at rest in Redis.
	Encoding string
	Body     []byte
	StoredAt time.Time
	// FreshFor is how long the entry is served as a HIT.
	FreshFor time.Duration
	// StaleFor is the stale-while-revalidate window after FreshFor.
	StaleFor time.Duration
	// ErrorFor is the stale-if-error window after FreshFor.
	ErrorFor time.Duration
}

// Age returns how old e is at now.
func (e *Entry) Age(now time.Time) time.Duration {
	if a := now.Sub(e.StoredAt); a > 0 {
		return a
	}
	return 0
}

// lifetime is how long e is worth keeping at all.
func (e *Entry) lifetime() time.Duration { return e.FreshFor + max(e.StaleFor, e.ErrorFor) }

func (e *Entry) fresh(now time.Time) bool { return e.Age(now) < e.FreshFor }

func (e *Entry) revalidatable(now time.Time) bool { return e.Age(now) < e.FreshFor+e.StaleFor }

func (e *Entry) usableOnError(now time.Time) bool { return e.Age(now) < e.FreshFor+e.ErrorFor }

// BodyFor returns the body and the Content-Encoding to send to a client
// with the given Accept-Encoding. In-process entries are identity-encoded, so
// this never decompresses on the hot path.
func (e *Entry) BodyFor(acceptEncoding string) ([]byte, string) {
	if e.Encoding == "" || strings.Contains(acceptEncoding, e.Encoding) {
		return e.Body, e.Encoding
	}
	if b, err := gunzip(e.Body); err == nil {
		return b, ""
	}
	return e.Body, e.Encoding
}

// The Redis value: a small fixed header, the content type, the body.
//
//	version u8 | flags u8 | status u16 | storedAt i64 (unix ns) |
//	fresh, stale, error i64 (ns) | ctLen u16 | ct | body
const (
	wireVersion = 1
	flagGzip    = 1
	headerLen   = 1 + 1 + 2 + 8 + 8*3 + 2
)

var errCorrupt = errors.New("cache: corrupt entry")

func encode(e *Entry, compressAbove int) []byte {
	body, flags := e.Body, byte(0)
	if e.Encoding == "" && compressAbove >= 0 && len(body) > compressAbove {
		if z, err := gzipBytes(body); err == nil && len(z) < len(body) {
			body, flags = z, flagGzip
		}
	}
	b := make([]byte, headerLen, headerLen+len(e.ContentType)+len(body))
	b[0] = wireVersion
	b[1] = flags
	binary.BigEndian.PutUint16(b[2:], uint16(e.Status))
	binary.BigEndian.PutUint64(b[4:], uint64(e.StoredAt.UnixNano()))
	binary.BigEndian.PutUint64(b[12:], uint64(e.FreshFor))
	binary.BigEndian.PutUint64(b[20:], uint64(e.StaleFor))
	binary.BigEndian.PutUint64(b[28:], uint64(e.ErrorFor))
	binary.BigEndian.PutUint16(b[36:], uint16(len(e.ContentType)))
	b = append(b, e.ContentType...)
	return append(b, body...)
}

// decode parses a Redis value into an identity-encoded Entry. The body may
// share b's memory: b must not be reused by the caller.
func decode(b []byte) (*Entry, error) {
	if len(b) < headerLen || b[0] != wireVersion {
		return nil, errCorrupt
	}
	ctLen := int(binary.BigEndian.Uint16(b[36:]))
	if len(b) < headerLen+ctLen {
		return nil, errCorrupt
	}
	e := &Entry{
		Status:      int(binary.BigEndian.Uint16(b[2:])),
		StoredAt:    time.Unix(0, int64(binary.BigEndian.Uint64(b[4:]))),
		FreshFor:    time.Duration(binary.BigEndian.Uint64(b[12:])),
		StaleFor:    time.Duration(binary.BigEndian.Uint64(b[20:])),
		ErrorFor:    time.Duration(binary.BigEndian.Uint64(b[28:])),
		ContentType: string(b[headerLen : headerLen+ctLen]),
	}
	body := b[headerLen+ctLen:]
	if b[1]&flagGzip != 0 {
		var err error
		if body, err = gunzip(body); err != nil {
			return nil, errCorrupt
		}
	}
	e.Body = body
	return e, nil
}
