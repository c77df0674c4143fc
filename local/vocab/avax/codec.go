package avax

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// CodecVersion is the linear codec version that prefixes every serialized
// UTXO, transaction, block and vertex.
const CodecVersion uint16 = 0

// Errors of Reader.
var (
	// ErrShort means the input ended inside a value.
	ErrShort = errors.New("avax: unexpected end of input")
	// ErrTrailing means bytes remain after the value.
	ErrTrailing = errors.New("avax: trailing bytes")
	// ErrTooLong means a length prefix exceeds what the input can hold.
	ErrTooLong = errors.New("avax: length prefix too large")
	// ErrCodecVersion means the codec version is not CodecVersion.
	ErrCodecVersion = errors.New("avax: unknown codec version")
	// ErrTypeID means an interface type id is not one this package knows.
	ErrTypeID = errors.New("avax: unknown type id")
)

// Writer builds linear-codec bytes: big-endian integers, fixed byte arrays,
// u32-length-prefixed byte slices and arrays. The zero value is ready to use.
// A Writer is not safe for concurrent use.
type Writer struct {
	b []byte
}

// Bytes returns what has been written.
func (w *Writer) Bytes() []byte { return w.b }

// U8 appends one byte.
func (w *Writer) U8(v uint8) { w.b = append(w.b, v) }

// Bool appends 1 or 0.
func (w *Writer) Bool(v bool) {
	if v {
		w.U8(1)
	} else {
		w.U8(0)
	}
}

// U16 appends a big-endian uint16.
func (w *Writer) U16(v uint16) { w.b = binary.BigEndian.AppendUint16(w.b, v) }

// U32 appends a big-endian uint32.
func (w *Writer) U32(v uint32) { w.b = binary.BigEndian.AppendUint32(w.b, v) }

// U64 appends a big-endian uint64.
func (w *Writer) U64(v uint64) { w.b = binary.BigEndian.AppendUint64(w.b, v) }

// Fixed appends b as is (a fixed-size array).
func (w *Writer) Fixed(b []byte) { w.b = append(w.b, b...) }

// Var appends b with a u32 length prefix.
func (w *Writer) Var(b []byte) {
	w.U32(uint32(len(b)))
	w.b = append(w.b, b...)
}

// Reader consumes linear-codec bytes. The first error sticks: later reads
// return zero values, and Err reports it. A Reader is not safe for
// concurrent use.
type Reader struct {
	b   []byte
	off int
	err error
}

// NewReader returns a Reader over b.
func NewReader(b []byte) *Reader { return &Reader{b: b} }

// Err returns the first error met.
func (r *Reader) Err() error { return r.err }

// Remaining returns the number of unread bytes.
func (r *Reader) Remaining() int { return len(r.b) - r.off }

// Fail records err unless an error is already recorded.
func (r *Reader) Fail(err error) {
	if r.err == nil {
		r.err = err
	}
}

// Done records ErrTrailing if bytes remain, and returns Err.
func (r *Reader) Done() error {
	if r.err == nil && r.off != len(r.b) {
		r.err = fmt.Errorf("%w: %d", ErrTrailing, len(r.b)-r.off)
	}
	return r.err
}

func (r *Reader) take(n int) []byte {
	if r.err != nil {
		return nil
	}
	if n < 0 || n > len(r.b)-r.off {
		r.err = ErrShort
		return nil
	}
	s := r.b[r.off : r.off+n]
	r.off += n
	return s
}

// U8 reads one byte.
func (r *Reader) U8() uint8 {
	if s := r.take(1); s != nil {
		return s[0]
	}
	return 0
}

// Bool reads a byte that must be 0 or 1.
func (r *Reader) Bool() bool {
	v := r.U8()
	if v > 1 {
		r.Fail(fmt.Errorf("avax: invalid bool %d", v))
	}
	return v == 1
}

// U16 reads a big-endian uint16.
func (r *Reader) U16() uint16 {
	if s := r.take(2); s != nil {
		return binary.BigEndian.Uint16(s)
	}
	return 0
}

// U32 reads a big-endian uint32.
func (r *Reader) U32() uint32 {
	if s := r.take(4); s != nil {
		return binary.BigEndian.Uint32(s)
	}
	return 0
}

// U64 reads a big-endian uint64.
func (r *Reader) U64() uint64 {
	if s := r.take(8); s != nil {
		return binary.BigEndian.Uint64(s)
	}
	return 0
}

// Fixed copies len(dst) bytes into dst.
func (r *Reader) Fixed(dst []byte) {
	if s := r.take(len(dst)); s != nil {
		copy(dst, s)
	}
}

// Var reads u32-length-prefixed bytes (a copy).
func (r *Reader) Var() []byte {
	n := r.U32()
	if r.err == nil && int64(n) > int64(r.Remaining()) {
		r.err = fmt.Errorf("%w: %d bytes", ErrTooLong, n)
		return nil
	}
	s := r.take(int(n))
	if s == nil {
		return nil
	}
	return append([]byte{}, s...)
}

// Len reads a u32 array length whose elements take at least minSize bytes
// each, failing if the rest of the input cannot hold that many.
func (r *Reader) Len(minSize int) int {
	n := r.U32()
	if r.err != nil {
		return 0
	}
	if minSize < 1 {
		minSize = 1
	}
	if int64(n)*int64(minSize) > int64(r.Remaining()) {
		r.err = fmt.Errorf("%w: %d elements", ErrTooLong, n)
		return 0
	}
	return int(n)
}

// Version reads the codec version and checks it is CodecVersion.
func (r *Reader) Version() {
	if v := r.U16(); r.err == nil && v != CodecVersion {
		r.err = fmt.Errorf("%w: %d", ErrCodecVersion, v)
	}
}
