package cache

import (
	"strings"
	"time"
)

// Entry is one cached response. An Entry is immutable once it has been
// passed to Set or returned by Get or Do: the cache and every reader share it
// without copying or locking, so it is safe for concurrent use as long as
// nobody writes to it.
//
// Entries the cache returns are always identity-encoded (Encoding ""): the
// in-process tier keeps identity bytes and Redis values are decompressed
// once when they are read, so BodyFor never decompresses on the hit path.
type Entry struct {
	// Status is the HTTP status: 200, or 404 for a negative entry.
	Status int
	// ContentType is the Content-Type to send.
	ContentType string
	// Encoding is how Body is encoded: "" (identity) or "gzip". Set accepts
	// both and keeps the identity form; other encodings are not stored.
	Encoding string
	// Body is the response body, encoded as Encoding says.
	Body []byte
	// StoredAt is when the answer was fetched; Age counts from it.
	StoredAt time.Time
	// FreshFor is how long after StoredAt the entry is served as a HIT.
	// Entries with FreshFor <= 0 are not stored.
	FreshFor time.Duration
	// StaleFor is the stale-while-revalidate window after FreshFor: the
	// entry is served as STALE while one background refresh runs.
	StaleFor time.Duration
	// ErrorFor is the stale-if-error window after FreshFor: the entry is
	// served as STALE when a fetch fails. It should be >= StaleFor.
	ErrorFor time.Duration
}

// Age returns how old e is at now; never negative.
func (e *Entry) Age(now time.Time) time.Duration {
	if a := now.Sub(e.StoredAt); a > 0 {
		return a
	}
	return 0
}

// BodyFor returns the body to send to a client whose Accept-Encoding header
// is acceptEncoding, and the Content-Encoding to send with it ("" or
// "gzip"). An identity entry (every entry the cache returns) is sent as it
// is, without allocating. A gzip entry is sent as it is to a client that
// accepts gzip, and decompressed (allocating) for one that does not; a body
// that fails to decompress is sent gzip-encoded. It is safe for concurrent
// use.
func (e *Entry) BodyFor(acceptEncoding string) (body []byte, encoding string) {
	if e.Encoding != "gzip" || acceptsGzip(acceptEncoding) {
		return e.Body, e.Encoding
	}
	if b, err := gunzip(e.Body, -1); err == nil {
		return b, ""
	}
	return e.Body, e.Encoding
}

// lifetime is how long after StoredAt e is worth keeping at all: its
// freshness and then the longer of its two stale windows. It is the TTL of
// the Redis value.
func (e *Entry) lifetime() time.Duration { return e.FreshFor + max(e.StaleFor, e.ErrorFor) }

func (e *Entry) fresh(now time.Time) bool { return e.Age(now) < e.FreshFor }

func (e *Entry) revalidatable(now time.Time) bool { return e.Age(now) < e.FreshFor+e.StaleFor }

func (e *Entry) usableOnError(now time.Time) bool { return e.Age(now) < e.FreshFor+e.ErrorFor }

func (e *Entry) alive(now time.Time) bool { return e.Age(now) < e.lifetime() }

// acceptsGzip reports whether an Accept-Encoding value admits gzip
// (RFC 9110 §12.5.3): "gzip" or "x-gzip" or "*" with a non-zero q-value,
// an explicit gzip coding taking precedence over "*". It does not allocate.
func acceptsGzip(h string) bool {
	star := false
	for h != "" {
		var tok string
		if i := strings.IndexByte(h, ','); i >= 0 {
			tok, h = h[:i], h[i+1:]
		} else {
			tok, h = h, ""
		}
		name, params, _ := strings.Cut(tok, ";")
		name = strings.TrimSpace(name)
		switch {
		case strings.EqualFold(name, "gzip"), strings.EqualFold(name, "x-gzip"):
			return !zeroQ(params)
		case name == "*":
			star = !zeroQ(params)
		}
	}
	return star
}

// zeroQ reports whether coding parameters carry q=0 (RFC 9110 §12.4.2:
// "0", "0.", "0.0", "0.00" or "0.000").
func zeroQ(params string) bool {
	for params != "" {
		var p string
		p, params, _ = strings.Cut(params, ";")
		k, v, ok := strings.Cut(strings.TrimSpace(p), "=")
		if !ok || !strings.EqualFold(strings.TrimSpace(k), "q") {
			continue
		}
		v = strings.TrimSpace(v)
		if v == "" || v[0] != '0' {
			return false
		}
		return strings.Trim(v[1:], ".0") == ""
	}
	return false
}
