package cache

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"sync"
)

// maxInflate bounds a decompressed body, so a corrupt or hostile value
// cannot make the cache allocate without limit.
const maxInflate = 64 << 20

var errTooLarge = errors.New("cache: decompressed body too large")

// gzipWriters and gzipReaders hold reusable (de)compressors: a fresh
// gzip.Reader costs ~40 KB of flate state.
var (
	gzipWriters = sync.Pool{New: func() any {
		w, _ := gzip.NewWriterLevel(io.Discard, gzip.BestSpeed)
		return w
	}}
	gzipReaders sync.Pool // *gzip.Reader
)

// appendGzip appends the gzip form of b to dst.
func appendGzip(dst, b []byte) ([]byte, error) {
	buf := bytes.NewBuffer(dst)
	w := gzipWriters.Get().(*gzip.Writer)
	defer gzipWriters.Put(w)
	w.Reset(buf)
	if _, err := w.Write(b); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// gunzip decompresses b. When size >= 0 it is the exact decompressed length
// and the result is allocated once; otherwise it grows up to maxInflate.
func gunzip(b []byte, size int) ([]byte, error) {
	if size > maxInflate {
		return nil, errTooLarge
	}
	var r *gzip.Reader
	if v := gzipReaders.Get(); v != nil {
		r = v.(*gzip.Reader)
		if err := r.Reset(bytes.NewReader(b)); err != nil {
			return nil, err
		}
	} else {
		var err error
		if r, err = gzip.NewReader(bytes.NewReader(b)); err != nil {
			return nil, err
		}
	}
	defer gzipReaders.Put(r)
	if size < 0 {
		out, err := io.ReadAll(io.LimitReader(r, maxInflate+1))
		if err != nil {
			return nil, err
		}
		if len(out) > maxInflate {
			return nil, errTooLarge
		}
		return out, nil
	}
	out := make([]byte, size)
	if _, err := io.ReadFull(r, out); err != nil {
		return nil, err
	}
	// The stream must end exactly here (and its checksum must match, which
	// gzip.Reader checks at EOF).
	var one [1]byte
	if n, err := r.Read(one[:]); n != 0 || err != io.EOF {
		if err == nil || err == io.EOF {
			err = errCorrupt
		}
		return nil, err
	}
	return out, nil
}
