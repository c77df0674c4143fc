// Package bodyrate cuts off request bodies that arrive too slowly. A body
// must arrive within a grace period plus its length at a minimum rate (as
// Kestrel's MinRequestBodyDataRate): a client sending one byte a second, or
// nothing, after its headers loses the connection (HTTP/1.1) or the stream
// (HTTP/2) when the grace period is over, instead of holding it for as long
// as it likes.
//
// The deadline is the connection's (or stream's) read deadline, set through
// http.ResponseController, so it also bounds what net/http reads of a body
// the handler left unread. Requests without a body cost nothing.
package bodyrate

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"time"
)

// ErrTooSlow is (wrapped in) the error a body's Read returns when the body
// did not arrive at the minimum rate. A handler may answer it with 408.
var ErrTooSlow = errors.New("request body arrived too slowly")

// Options configures Handler. Zero values mean the documented defaults.
type Options struct {
	// Grace is how long a body may take beyond its length at MinRate.
	// Zero means 10s.
	Grace time.Duration
	// MinRate is the least average rate, in bytes per second, at which a body
	// must arrive once Grace is spent. Zero means 1024.
	MinRate int64
	// Now is the clock. Nil means time.Now.
	Now func() time.Time
}

// Handler returns h with every request body read under a deadline of
// Grace plus its bytes so far at MinRate from when h is called. The
// deadline is cleared when the body has been read to its end, so it never
// cuts off the answer or a handler that keeps working after reading. It is
// safe for concurrent use.
func Handler(h http.Handler, opts Options) http.Handler {
	if opts.Grace <= 0 {
		opts.Grace = 10 * time.Second
	}
	if opts.MinRate <= 0 {
		opts.MinRate = 1024
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	step := min(opts.Grace/4, time.Second)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body == nil || r.Body == http.NoBody {
			h.ServeHTTP(w, r)
			return
		}
		b := &body{src: r.Body, rc: http.NewResponseController(w), opts: &opts, step: step, start: opts.Now()}
		b.set = b.start.Add(opts.Grace)
		if err := b.rc.SetReadDeadline(b.set); err != nil {
			// The writer cannot set deadlines (not a net/http server's):
			// nothing to enforce with.
			h.ServeHTTP(w, r)
			return
		}
		r2 := r.WithContext(r.Context()) // never change the caller's request
		r2.Body = b
		h.ServeHTTP(w, r2)
	})
}

// body enforces the rate on one request body. Like any request body it is
// read by one goroutine at a time.
type body struct {
	src   io.ReadCloser
	rc    *http.ResponseController
	opts  *Options
	step  time.Duration // least extension worth a SetReadDeadline
	start time.Time
	set   time.Time // the read deadline in force
	n     int64     // bytes read
	done  bool      // read to the end: no deadline in force
}

func (b *body) Read(p []byte) (int, error) {
	n, err := b.src.Read(p)
	b.n += int64(n)
	if b.done {
		return n, err
	}
	switch {
	case err == io.EOF:
		// Clear the deadline: net/http now watches the connection for the
		// client going away, and a deadline passing during the rest of the
		// handler would read as that.
		b.done = true
		b.rc.SetReadDeadline(time.Time{})
	case err != nil:
		if errors.Is(err, os.ErrDeadlineExceeded) {
			took := b.opts.Now().Sub(b.start).Round(time.Millisecond)
			return n, fmt.Errorf("%w: %d bytes in %v (minimum %d bytes/s after %v)", ErrTooSlow, b.n, took, b.opts.MinRate, b.opts.Grace)
		}
	case n > 0:
		d := b.start.Add(b.opts.Grace + time.Duration(float64(b.n)/float64(b.opts.MinRate)*float64(time.Second)))
		if d.Sub(b.set) >= b.step {
			b.set = d
			b.rc.SetReadDeadline(d)
		}
	}
	return n, err
}

func (b *body) Close() error { return b.src.Close() }
