// Package lazydeadline keeps net/http's per-request deadlines off the hit
// path. A server with ReadHeaderTimeout, IdleTimeout and WriteTimeout sets a
// deadline on its connection five or six times per request and clears it as
// often; each change reads the clock and moves a runtime timer (about 0.3 µs
// on a busy VM). Connections from Listen apply the changes lazily and keep
// their meaning exactly:
//
//   - Clearing a deadline leaves the one in force armed. If it passes, the
//     read or write it interrupts is resumed without a deadline: the caller
//     never sees it.
//   - A write deadline no more than a grain later than the one in force (the
//     next keep-alive request's WriteTimeout) leaves that one armed. If it
//     passes first, the caller's own deadline is armed and the write
//     resumed, so the caller's deadline ends the write, not an earlier one.
//   - Every other deadline (earlier ones, read deadlines, deadlines in the
//     past that wake a blocked read) is applied at once.
//
// So a deadline never ends an operation before the caller's, nor lets one
// run after it.
package lazydeadline

import (
	"errors"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// Listen returns ln whose connections apply deadlines lazily; grain is how
// much later than the write deadline in force a new one may be and leave it
// armed (zero means 1s).
func Listen(ln net.Listener, grain time.Duration) net.Listener {
	if grain <= 0 {
		grain = time.Second
	}
	return &listener{Listener: ln, grain: grain}
}

type listener struct {
	net.Listener
	grain time.Duration
}

func (l *listener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &conn{Conn: c, r: deadline{apply: c.SetReadDeadline}, w: deadline{apply: c.SetWriteDeadline, grain: int64(l.grain)}}, nil
}

// conn is a connection with lazy deadlines. Like any net.Conn it is safe for
// concurrent use.
type conn struct {
	net.Conn
	r, w deadline
}

// deadline is one direction's deadline: what the caller asked and what the
// connection has, in Unix nanoseconds (0 for none; a deadline armed again
// is set from its wall-clock time). Setting a deadline that the armed one
// stands for costs two atomic operations.
type deadline struct {
	apply func(time.Time) error // the connection's own setter
	grain int64                 // how much later a deadline may be left as armed (ns); zero for none

	want  atomic.Int64 // the caller's deadline
	armed atomic.Int64 // the connection's deadline, changed with mu held
	mu    sync.Mutex   // serialises changes of the connection's deadline
}

func unixNano(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

// set records the caller's deadline t and applies it unless the armed one
// may stand for it.
func (d *deadline) set(t time.Time) error {
	w := unixNano(t)
	d.want.Store(w)
	if d.covers(d.armed.Load(), w) {
		return nil
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.arm()
}

// covers reports whether the armed deadline a may stand for the caller's w:
// w is none (a passing deadline is then resumed from), a itself, or at
// most a grain later (a passes first, and w is armed then).
func (d *deadline) covers(a, w int64) bool {
	return w == 0 || w == a || a != 0 && a < w && w-a <= d.grain
}

// arm gives the connection the caller's deadline, again if the caller
// changed it meanwhile (set stores it before it looks at the armed one, so
// one of the two sees the other's change). d.mu must be held.
func (d *deadline) arm() error {
	for {
		w := d.want.Load()
		t := time.Time{}
		if w != 0 {
			t = time.Unix(0, w)
		}
		if err := d.apply(t); err != nil {
			return err
		}
		d.armed.Store(w)
		if now := d.want.Load(); now == w || d.covers(w, now) {
			return nil
		}
	}
}

// resume is called when an operation ended with a deadline exceeded. It
// reports whether the deadline that passed was not the caller's, after
// arming the caller's (or none), so the operation goes on.
func (d *deadline) resume() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if w := d.want.Load(); w != 0 && time.Now().UnixNano() >= w {
		return false // the caller's own deadline has passed
	}
	return d.arm() == nil
}

func (c *conn) SetReadDeadline(t time.Time) error  { return c.r.set(t) }
func (c *conn) SetWriteDeadline(t time.Time) error { return c.w.set(t) }

func (c *conn) SetDeadline(t time.Time) error {
	if err := c.r.set(t); err != nil {
		return err
	}
	return c.w.set(t)
}

func (c *conn) Read(p []byte) (int, error) {
	for {
		n, err := c.Conn.Read(p)
		if err == nil || n > 0 || !errors.Is(err, os.ErrDeadlineExceeded) || !c.r.resume() {
			return n, err
		}
	}
}

func (c *conn) Write(p []byte) (int, error) {
	n := 0
	for {
		m, err := c.Conn.Write(p[n:])
		n += m
		if err == nil || !errors.Is(err, os.ErrDeadlineExceeded) || !c.w.resume() {
			return n, err
		}
	}
}

// CloseWrite shuts down the writing side, as net/http does before closing a
// connection whose request body it did not read.
func (c *conn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

// NetConn returns the underlying connection.
func (c *conn) NetConn() net.Conn { return c.Conn }
