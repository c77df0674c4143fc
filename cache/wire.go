package cache

import (
	"encoding/binary"
	"errors"
	"time"
)

// The Redis value of an entry: a fixed 42-byte header, the content type,
// the body (gzip-compressed when flagGzip is set).
//
//	version u8 | flags u8 | status u16 | storedAt i64 (unix ns) |
//	fresh i64 | stale i64 | error i64 (ns) | identity length u32 |
//	content-type length u16 | content type | body
//
// All integers are big-endian. A value with another version is treated as
// absent, so a format change needs no migration: old values expire.
const (
	wireVersion = 2
	flagGzip    = 1
	headerLen   = 1 + 1 + 2 + 8 + 8*3 + 4 + 2
)

var errCorrupt = errors.New("cache: corrupt entry")

// encode returns the Redis value of the identity entry e. gz, when not nil,
// is e.Body already gzip-compressed; otherwise bodies longer than
// compressAbove (when it is >= 0) are compressed here. The compressed form
// is kept only when it is smaller.
func encode(e *Entry, gz []byte, compressAbove int) []byte {
	ct := e.ContentType
	if len(ct) > 0xFFFF {
		ct = ct[:0xFFFF]
	}
	b := make([]byte, headerLen, headerLen+len(ct)+len(e.Body))
	b[0] = wireVersion
	binary.BigEndian.PutUint16(b[2:], uint16(e.Status))
	binary.BigEndian.PutUint64(b[4:], uint64(e.StoredAt.UnixNano()))
	binary.BigEndian.PutUint64(b[12:], uint64(e.FreshFor))
	binary.BigEndian.PutUint64(b[20:], uint64(e.StaleFor))
	binary.BigEndian.PutUint64(b[28:], uint64(e.ErrorFor))
	binary.BigEndian.PutUint32(b[36:], uint32(len(e.Body)))
	binary.BigEndian.PutUint16(b[40:], uint16(len(ct)))
	b = append(b, ct...)
	n := len(b)
	switch {
	case gz != nil && len(gz) < len(e.Body):
		b[1] = flagGzip
		return append(b, gz...)
	case gz == nil && compressAbove >= 0 && len(e.Body) > compressAbove:
		if z, err := appendGzip(b, e.Body); err == nil && len(z)-n < len(e.Body) {
			z[1] = flagGzip
			return z
		}
	}
	return append(b[:n], e.Body...)
}

// decode parses a Redis value into an identity-encoded Entry. An identity
// body shares b's memory, so b must not be reused by the caller.
func decode(b []byte) (*Entry, error) {
	if len(b) < headerLen || b[0] != wireVersion || b[1]&^flagGzip != 0 {
		return nil, errCorrupt
	}
	size := int(binary.BigEndian.Uint32(b[36:]))
	ctLen := int(binary.BigEndian.Uint16(b[40:]))
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
		if body, err = gunzip(body, size); err != nil {
			return nil, errCorrupt
		}
	} else if len(body) != size {
		return nil, errCorrupt
	}
	e.Body = body
	return e, nil
}
