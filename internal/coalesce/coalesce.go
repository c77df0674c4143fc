// Package coalesce sends an answer a handler writes whole in one write to
// the socket instead of two.
//
// net/http's HTTP/1.x server buffers a connection's output in 4 KiB: an
// answer of a few KiB (a cached 4 KiB page and its headers) leaves it as a
// full buffer, written while the handler writes the body, and the rest,
// written when the handler has returned. Each write is a system call, a TCP
// segment and a wake-up of the client: on loopback the second write cost a
// cache hit about 5 µs of kernel time, a fifth of all it costs (a bare
// net/http server pays the same). A connection from Listen, told by Answer
// that the handler writes its whole answer now, holds that first full
// buffer and sends it with the rest, in one write.
//
// What is held is sent with the next write, or before the connection's next
// deadline change, CloseWrite or Close; net/http's server changes the write
// deadline as soon as it has flushed an answer, so the held bytes never wait
// for anything but the end of their own answer. Deadlines bound the joined
// write exactly as they bounded the two.
package coalesce

import (
	"context"
	"net"
	"net/http"
	"sync"
	"time"
)

// fullBuffer is the size of net/http's per-connection write buffer: a write
// of exactly this many bytes is a buffer flushed because more follows (or,
// rarely, an answer of exactly this size, sent at the next deadline change).
const fullBuffer = 4 << 10

// maxJoined bounds the held bytes and the rest copied together; a longer
// answer is sent in two writes, as without this package.
const maxJoined = 16 << 10

// Listen returns ln whose connections can hold an answer's first full
// buffer (see Answer). Serve it with ConnContext as the server's
// ConnContext.
func Listen(ln net.Listener) net.Listener { return listener{ln} }

type listener struct{ net.Listener }

func (l listener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &conn{Conn: c}, nil
}

type connKey struct{}

// ConnContext is an http.Server's ConnContext for connections from Listen:
// it lets Answer find a request's connection.
func ConnContext(ctx context.Context, c net.Conn) context.Context {
	if cc, ok := c.(*conn); ok {
		return context.WithValue(ctx, connKey{}, cc)
	}
	return ctx
}

// Answer tells r's connection that the handler now writes r's whole answer
// and returns: the answer's first full buffer is held and sent with the
// rest. It does nothing for a request on another kind of connection, over
// TLS or HTTP/2 (whose writes are not the handler's goroutine's). It must be
// called from the handler's goroutine.
func Answer(r *http.Request) {
	if r.TLS != nil || r.ProtoMajor != 1 {
		return
	}
	if c, ok := r.Context().Value(connKey{}).(*conn); ok {
		c.armed = true
	}
}

// conn is a connection that can hold one full buffer of an answer. Like any
// net.Conn it is safe for concurrent use: armed and held are only set by
// the goroutine that serves its HTTP/1.x requests, which alone writes and
// changes deadlines while they are set (Close, which net/http may call
// from another goroutine, touches neither).
type conn struct {
	net.Conn
	armed bool    // Answer was called and the answer's first write is to come
	held  *[]byte // the held full buffer, from bufs
}

// bufs holds the held bytes (and the rest joined to them).
var bufs = sync.Pool{New: func() any { b := make([]byte, 0, maxJoined); return &b }}

func (c *conn) Write(p []byte) (int, error) {
	if c.held != nil {
		return c.join(p)
	}
	if c.armed {
		c.armed = false
		if len(p) == fullBuffer {
			bp := bufs.Get().(*[]byte)
			*bp = append((*bp)[:0], p...)
			c.held = bp
			return len(p), nil
		}
	}
	return c.Conn.Write(p)
}

// join writes the held bytes and p, in one write when they fit in the held
// buffer. It returns how much of p was written.
func (c *conn) join(p []byte) (int, error) {
	bp := c.held
	c.held = nil
	defer bufs.Put(bp)
	b := *bp
	if len(b)+len(p) > cap(b) {
		if _, err := c.Conn.Write(b); err != nil {
			return 0, err
		}
		return c.Conn.Write(p)
	}
	*bp = append(b, p...)
	n, err := c.Conn.Write(*bp)
	return max(n-len(b), 0), err
}

// release writes the held bytes, if any, before a deadline changes or the
// writing side closes. When they cannot be written, the answer is lost:
// the connection is closed, so the client does not wait for it.
func (c *conn) release() {
	if c.armed {
		c.armed = false
	}
	if c.held == nil {
		return
	}
	bp := c.held
	c.held = nil
	if _, err := c.Conn.Write(*bp); err != nil {
		c.Conn.Close()
	}
	bufs.Put(bp)
}

func (c *conn) SetDeadline(t time.Time) error {
	c.release()
	return c.Conn.SetDeadline(t)
}

func (c *conn) SetReadDeadline(t time.Time) error {
	c.release()
	return c.Conn.SetReadDeadline(t)
}

func (c *conn) SetWriteDeadline(t time.Time) error {
	c.release()
	return c.Conn.SetWriteDeadline(t)
}

// CloseWrite shuts down the writing side, after what is held, as net/http
// does before closing a connection whose request body it did not read.
func (c *conn) CloseWrite() error {
	c.release()
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

// NetConn returns the underlying connection.
func (c *conn) NetConn() net.Conn { return c.Conn }
