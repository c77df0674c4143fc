package lazydeadline

import (
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"sync"
	"testing"
	"time"
)

// fake is a connection that records the deadlines applied to it and
// answers reads and writes from a script.
type fake struct {
	net.Conn
	mu             sync.Mutex
	reads, writes  []time.Time // deadlines applied, in order
	readScript     []result
	writeScript    []result
	written        []byte
	readsAttempted int
	yield          bool // let other goroutines run inside every deadline change
	// hold, when set, makes the next write-deadline change wait for a
	// value on it (after telling held).
	hold, held chan struct{}
}

type result struct {
	n   int
	err error
}

var timeout = &net.OpError{Op: "read", Net: "tcp", Err: os.ErrDeadlineExceeded}

func (f *fake) SetReadDeadline(t time.Time) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reads = append(f.reads, t)
	return nil
}

func (f *fake) SetWriteDeadline(t time.Time) error {
	if f.yield {
		runtime.Gosched()
	}
	if f.hold != nil {
		hold := f.hold
		f.hold = nil
		f.held <- struct{}{}
		<-hold
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.writes = append(f.writes, t)
	return nil
}

func (f *fake) Read(p []byte) (int, error) {
	f.readsAttempted++
	r := f.readScript[0]
	f.readScript = f.readScript[1:]
	return r.n, r.err
}

func (f *fake) Write(p []byte) (int, error) {
	r := result{len(p), nil}
	if len(f.writeScript) > 0 {
		r = f.writeScript[0]
		f.writeScript = f.writeScript[1:]
	}
	f.written = append(f.written, p[:r.n]...)
	return r.n, r.err
}

func wrap(f *fake) *conn {
	return &conn{Conn: f, r: deadline{apply: f.SetReadDeadline}, w: deadline{apply: f.SetWriteDeadline, grain: int64(time.Second)}}
}

func equal(a, b []time.Time) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !a[i].Equal(b[i]) {
			return false
		}
	}
	return true
}

// TestClearIsLazy: clearing leaves the deadline armed; when it passes, the
// read goes on without one and the caller sees the data.
func TestClearIsLazy(t *testing.T) {
	f := &fake{readScript: []result{{0, timeout}, {5, nil}}}
	c := wrap(f)
	t1 := time.Now().Add(10 * time.Second)
	c.SetReadDeadline(t1)
	c.SetReadDeadline(time.Time{})
	if !equal(f.reads, []time.Time{t1}) {
		t.Fatalf("applied %v after set and clear; want only the set", f.reads)
	}
	n, err := c.Read(make([]byte, 8))
	if n != 5 || err != nil {
		t.Fatalf("read: %d, %v; want the data", n, err)
	}
	if !equal(f.reads, []time.Time{t1, {}}) || f.readsAttempted != 2 {
		t.Fatalf("applied %v in %d reads; want the deadline cleared when it passed, then the read again", f.reads, f.readsAttempted)
	}
}

// TestLaterWriteDeadline: a write deadline up to a grain later than the
// armed one leaves it armed; further ones and earlier ones are applied.
func TestLaterWriteDeadline(t *testing.T) {
	f := &fake{}
	c := wrap(f)
	t1 := time.Now().Add(60 * time.Second)
	c.SetWriteDeadline(t1)
	c.SetWriteDeadline(time.Time{})
	c.SetWriteDeadline(t1.Add(300 * time.Millisecond))
	c.SetWriteDeadline(time.Time{})
	c.SetWriteDeadline(t1.Add(time.Second))
	if !equal(f.writes, []time.Time{t1}) {
		t.Fatalf("applied %v; want the first only", f.writes)
	}
	t2 := t1.Add(1500 * time.Millisecond)
	c.SetWriteDeadline(t2)
	t3 := t2.Add(-time.Millisecond)
	c.SetWriteDeadline(t3)
	if !equal(f.writes, []time.Time{t1, t2, t3}) {
		t.Fatalf("applied %v; want a deadline more than a grain later, and an earlier one", f.writes)
	}
}

// TestArmedPassesFirst: when the armed deadline passes before the caller's,
// the caller's is armed and the write resumes where it stopped.
func TestArmedPassesFirst(t *testing.T) {
	f := &fake{writeScript: []result{{3, timeout}}}
	c := wrap(f)
	armed := time.Now().Add(time.Hour)
	want := armed.Add(500 * time.Millisecond)
	c.SetWriteDeadline(armed)
	c.SetWriteDeadline(want)
	n, err := c.Write([]byte("0123456789"))
	if n != 10 || err != nil || string(f.written) != "0123456789" {
		t.Fatalf("write: %d, %v, %q; want all of it", n, err, f.written)
	}
	if !equal(f.writes, []time.Time{armed, want}) {
		t.Fatalf("applied %v; want the caller's deadline armed when the earlier one passed", f.writes)
	}
}

// TestOwnDeadline: the caller's own deadline ends the operation.
func TestOwnDeadline(t *testing.T) {
	f := &fake{writeScript: []result{{2, timeout}}, readScript: []result{{0, timeout}}}
	c := wrap(f)
	past := time.Now().Add(-time.Millisecond)
	c.SetDeadline(past)
	if n, err := c.Write([]byte("0123")); n != 2 || !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("write past its deadline: %d, %v", n, err)
	}
	if n, err := c.Read(make([]byte, 4)); n != 0 || !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("read past its deadline: %d, %v", n, err)
	}
}

func pair(t *testing.T) (*conn, net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	l := Listen(ln, time.Second)
	dialed := make(chan net.Conn, 1)
	go func() {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Error(err)
		}
		dialed <- c
	}()
	c, err := l.Accept()
	if err != nil {
		t.Fatal(err)
	}
	peer := <-dialed
	t.Cleanup(func() { c.Close(); peer.Close() })
	return c.(*conn), peer
}

// TestWakeBlockedRead: a deadline in the past wakes a read blocked without
// one, as net/http ends its background read after each request.
func TestWakeBlockedRead(t *testing.T) {
	c, _ := pair(t)
	c.SetReadDeadline(time.Now().Add(time.Hour))
	c.SetReadDeadline(time.Time{})
	done := make(chan error, 1)
	go func() {
		_, err := c.Read(make([]byte, 1))
		done <- err
	}()
	c.SetReadDeadline(time.Unix(1, 0))
	if err := <-done; !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("read woken by a past deadline: %v", err)
	}
}

// TestStaleDeadlineOnRealConn: a cleared deadline that passes does not end
// a read; a write left at an earlier deadline runs to the caller's.
func TestStaleDeadlineOnRealConn(t *testing.T) {
	c, peer := pair(t)
	c.SetReadDeadline(time.Now().Add(20 * time.Millisecond))
	c.SetReadDeadline(time.Time{})
	got := make(chan string, 1)
	go func() {
		b := make([]byte, 1)
		n, err := c.Read(b)
		if err != nil {
			got <- err.Error()
			return
		}
		got <- string(b[:n])
	}()
	time.Sleep(100 * time.Millisecond) // the cleared deadline passes
	peer.Write([]byte("x"))
	if s := <-got; s != "x" {
		t.Fatalf("read across a cleared deadline: %q", s)
	}

	// The peer reads nothing: the write blocks until a deadline.
	start := time.Now()
	armed := start.Add(100 * time.Millisecond)
	want := armed.Add(300 * time.Millisecond) // within the grain: armed stays
	c.SetWriteDeadline(armed)
	c.SetWriteDeadline(want)
	_, err := c.Write(make([]byte, 64<<20))
	if !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("write to a peer that reads nothing: %v", err)
	}
	if took := time.Since(start); took < want.Sub(start) {
		t.Fatalf("write ended after %v; the caller's deadline was %v", took, want.Sub(start))
	}
}

// TestHTTPServer: net/http with every timeout on, over lazy deadlines: a
// handler slower than the header timeout (whose deadline net/http clears
// for its background read) keeps its context; keep-alive requests work; a
// client that reads nothing is cut off by the write timeout.
func TestHTTPServer(t *testing.T) {
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/big" {
			w.Write(make([]byte, 64<<20))
			return
		}
		time.Sleep(300 * time.Millisecond)
		if err := r.Context().Err(); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		io.WriteString(w, "ok")
	}))
	srv.Listener = Listen(srv.Listener, time.Second)
	srv.Config.ReadHeaderTimeout = 100 * time.Millisecond
	srv.Config.IdleTimeout = 5 * time.Second
	srv.Config.WriteTimeout = 2 * time.Second
	srv.Start()
	defer srv.Close()
	for i := range 3 {
		resp, err := srv.Client().Get(srv.URL)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || string(b) != "ok" {
			t.Fatalf("request %d: %s %q", i, resp.Status, b)
		}
	}
	c, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	io.WriteString(c, "GET /big HTTP/1.1\r\nHost: x\r\n\r\n")
	time.Sleep(2500 * time.Millisecond) // read nothing past the write timeout
	n, _ := io.Copy(io.Discard, c)
	if n >= 64<<20 {
		t.Fatalf("read the whole answer (%d bytes) after stalling past the write timeout", n)
	}
}

// TestConcurrentSets: however deadline changes from several goroutines
// interleave, once they are done the connection's deadline is the caller's
// last one or one that stands for it (never later).
func TestConcurrentSets(t *testing.T) {
	base := time.Now().Add(time.Hour)
	for round := range 200 {
		f := &fake{yield: true}
		c := wrap(f)
		var wg sync.WaitGroup
		for g := range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range 20 {
					switch (round + g + i) % 4 {
					case 0:
						c.SetWriteDeadline(time.Time{})
					case 1:
						c.SetWriteDeadline(time.Unix(1, 0))
					default:
						c.SetWriteDeadline(base.Add(time.Duration(g*i*37%2000) * time.Millisecond))
					}
				}
			}()
		}
		wg.Wait()
		f.mu.Lock()
		applied := int64(0)
		if n := len(f.writes); n > 0 && !f.writes[n-1].IsZero() {
			applied = f.writes[n-1].UnixNano()
		}
		f.mu.Unlock()
		if want := c.w.want.Load(); applied != c.w.armed.Load() || !c.w.covers(applied, want) {
			t.Fatalf("round %d: connection at %d, armed %d, caller wants %d", round, applied, c.w.armed.Load(), want)
		}
	}
}

// TestSetDuringArm: a deadline the armed one stands for, set while another
// goroutine is arming a later one, is armed once that one is.
func TestSetDuringArm(t *testing.T) {
	f := &fake{}
	c := wrap(f)
	base := time.Now().Add(time.Hour)
	c.SetWriteDeadline(base)
	f.hold, f.held = make(chan struct{}), make(chan struct{})
	hold := f.hold
	done := make(chan struct{})
	go func() {
		c.SetWriteDeadline(base.Add(2 * time.Second)) // not covered: armed, held inside
		close(done)
	}()
	<-f.held
	want := base.Add(500 * time.Millisecond)
	c.SetWriteDeadline(want) // base stands for it: left as armed
	hold <- struct{}{}
	<-done
	if last := f.writes[len(f.writes)-1]; !last.Equal(want) {
		t.Fatalf("applied %v; the caller's last deadline %v must be the connection's", f.writes, want)
	}
}
