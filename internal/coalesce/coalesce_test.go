package coalesce

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// counting is a listener whose connections count their writes.
type counting struct {
	net.Listener
	writes atomic.Int64
}

func (l *counting) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &countingConn{Conn: c, n: &l.writes}, nil
}

type countingConn struct {
	net.Conn
	n *atomic.Int64
}

func (c *countingConn) Write(p []byte) (int, error) {
	c.n.Add(1)
	return c.Conn.Write(p)
}

// serve starts an HTTP server on a coalescing listener whose handler
// answers ?n= bytes, calling Answer first when whole is set. It returns the
// server's address and its write counter.
func serve(t *testing.T, whole bool, writeTimeout time.Duration) (string, *counting) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cl := &counting{Listener: ln}
	srv := &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			n, _ := strconv.Atoi(r.URL.Query().Get("n"))
			h := w.Header()
			h["Date"] = []string{"Mon, 24 Nov 2025 10:00:00 GMT"}
			h["Content-Type"] = []string{"application/octet-stream"}
			h["Content-Length"] = []string{strconv.Itoa(n)}
			if whole {
				Answer(r)
			}
			w.WriteHeader(http.StatusOK)
			w.Write(body(n))
		}),
		WriteTimeout: writeTimeout,
		IdleTimeout:  time.Minute,
		ConnContext:  ConnContext,
	}
	go srv.Serve(Listen(cl))
	t.Cleanup(func() { srv.Close() })
	return ln.Addr().String(), cl
}

func body(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte('a' + i%26)
	}
	return b
}

// get sends GET ?n=n on c and reads the answer, checking its body.
func get(t *testing.T, c net.Conn, br *bufio.Reader, n int, close bool) {
	t.Helper()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	req := fmt.Sprintf("GET /?n=%d HTTP/1.1\r\nHost: x\r\n", n)
	if close {
		req += "Connection: close\r\n"
	}
	if _, err := io.WriteString(c, req+"\r\n"); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatalf("n=%d: %v", n, err)
	}
	got, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || !bytes.Equal(got, body(n)) {
		t.Fatalf("n=%d: body of %d bytes (err %v); want %d bytes as sent", n, len(got), err, n)
	}
}

// headerLen is the size of the server's header block on a kept-alive
// connection for a body of 1,000 to 9,999 bytes: the answers' sizes are
// chosen around net/http's 4 KiB buffer.
func headerLen(t *testing.T, addr string) int {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	io.WriteString(c, "GET /?n=1000 HTTP/1.1\r\nHost: x\r\n\r\n")
	var b []byte
	buf := make([]byte, 8<<10)
	for {
		n, err := c.Read(buf)
		b = append(b, buf[:n]...)
		if i := bytes.Index(b, []byte("\r\n\r\n")); i >= 0 && len(b) == i+4+1000 {
			return i + 4
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

func TestAnswerOneWrite(t *testing.T) {
	for _, whole := range []bool{true, false} {
		addr, cl := serve(t, whole, 10*time.Second)
		hdr := headerLen(t, addr)
		tests := []struct {
			name       string
			n          int
			writes     int // with Answer
			writesNone int // without
		}{
			{"small", 200, 1, 1},
			{"exactly a buffer", fullBuffer - hdr, 1, 1},
			{"a cached page", 4222, 1, 2},
			{"three buffers", 12000, 1, 2},
			{"longer than joined", 40000, 2, 2},
		}
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		br := bufio.NewReader(c)
		for _, tt := range tests {
			t.Run(fmt.Sprintf("%s/whole=%v", tt.name, whole), func(t *testing.T) {
				before := cl.writes.Load()
				// Twice on one connection: nothing held leaks into the
				// next answer.
				get(t, c, br, tt.n, false)
				get(t, c, br, tt.n, false)
				want := tt.writesNone
				if whole {
					want = tt.writes
				}
				if got := (cl.writes.Load() - before) / 2; got != int64(want) {
					t.Errorf("%d writes per answer of %d bytes; want %d", got, tt.n+hdr, want)
				}
			})
		}
		c.Close()
	}
}

// TestConnectionClose: an answer whose connection closes after it (net/http
// writes it and closes, no next request) arrives whole, one buffer or many.
func TestConnectionClose(t *testing.T) {
	addr, _ := serve(t, true, 10*time.Second)
	hdr := headerLen(t, addr)
	for _, n := range []int{fullBuffer - hdr, 4222, 40000} {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		br := bufio.NewReader(c)
		get(t, c, br, n, true)
		if _, err := br.ReadByte(); err != io.EOF {
			t.Errorf("n=%d: after the answer: %v; want EOF", n, err)
		}
		c.Close()
	}
}

// TestWriteTimeout: a client that reads nothing still gets its connection
// cut at the server's WriteTimeout, as without coalescing.
func TestWriteTimeout(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	srv := &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			Answer(r)
			_, err := w.Write(make([]byte, 64<<20))
			done <- err
		}),
		WriteTimeout: 300 * time.Millisecond,
		ConnContext:  ConnContext,
	}
	go srv.Serve(Listen(ln))
	defer srv.Close()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("the write of 64 MiB to a client reading nothing succeeded")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the handler's write still blocked 10s after the 300ms write timeout")
	}
}

// TestConcurrent serves many connections at once (run with -race): each
// connection's held bytes are its own.
func TestConcurrent(t *testing.T) {
	addr, _ := serve(t, true, 10*time.Second)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := net.Dial("tcp", addr)
			if err != nil {
				t.Error(err)
				return
			}
			defer c.Close()
			br := bufio.NewReader(c)
			for j := range 50 {
				get(t, c, br, 3000+i*500+j*37, false)
			}
		}()
	}
	wg.Wait()
}

// TestOtherConnections: Answer on a request whose connection is not from
// Listen (a plain listener, or no server at all) does nothing.
func TestOtherConnections(t *testing.T) {
	r, _ := http.NewRequest("GET", "http://x/", nil)
	Answer(r) // must not panic
	var c net.Conn = &net.TCPConn{}
	if ctx := ConnContext(t.Context(), c); ctx.Value(connKey{}) != nil {
		t.Error("ConnContext stored a connection not from Listen")
	}
}
