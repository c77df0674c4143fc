package bodyrate_test

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/avaedge/avaedge/internal/bodyrate"
)

const (
	grace   = 300 * time.Millisecond
	minRate = 1000 // bytes per second
	slack   = 400 * time.Millisecond
)

// echo reads the whole body and answers its length, or 408 when it came too
// slowly. After reading it waits pause, and fails if the request's context
// ends meanwhile.
func echo(pause time.Duration) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, err := io.ReadAll(r.Body)
		if errors.Is(err, bodyrate.ErrTooSlow) {
			http.Error(w, err.Error(), http.StatusRequestTimeout)
			return
		}
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		select {
		case <-time.After(pause):
		case <-r.Context().Done():
			http.Error(w, "context ended after the body was read", http.StatusInternalServerError)
			return
		}
		fmt.Fprintf(w, "%d", len(b))
	})
}

func server(t *testing.T, h http.Handler, h2 bool) *httptest.Server {
	t.Helper()
	srv := httptest.NewUnstartedServer(bodyrate.Handler(h, bodyrate.Options{Grace: grace, MinRate: minRate}))
	if h2 {
		srv.EnableHTTP2 = true
		srv.StartTLS()
	} else {
		srv.Start()
	}
	t.Cleanup(srv.Close)
	return srv
}

// slowPost sends headers announcing size bytes, then one byte every gap,
// and returns the status line it got (or "" when the connection was closed
// without an answer) and how long after the headers the connection ended.
func slowPost(t *testing.T, addr string, size int, gap time.Duration) (string, time.Duration) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n", size)
	start := time.Now()
	ended := make(chan struct{})
	var status string
	go func() {
		defer close(ended)
		c.SetReadDeadline(time.Now().Add(10 * time.Second))
		br := bufio.NewReader(c)
		status, _ = br.ReadString('\n')
		io.Copy(io.Discard, br) // until the server closes
	}()
	for i := 0; i < size; i++ {
		select {
		case <-ended:
			return strings.TrimSpace(status), time.Since(start)
		case <-time.After(gap):
		}
		if _, err := c.Write([]byte{'x'}); err != nil {
			break
		}
	}
	<-ended
	return strings.TrimSpace(status), time.Since(start)
}

// TestSlowBodyCutOff: a body at 10 bytes/s (minimum 1000) is cut off when
// the grace period ends, answered 408, and the connection is closed; so is
// one for a handler that never reads it (net/http's discard of the rest is
// bounded too).
func TestSlowBodyCutOff(t *testing.T) {
	ignore := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("ignored")) })
	for _, tc := range []struct {
		name   string
		h      http.Handler
		status string
	}{
		{"reading handler", echo(0), "HTTP/1.1 408 Request Timeout"},
		{"handler ignoring the body", ignore, "HTTP/1.1 200 OK"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := server(t, tc.h, false)
			status, took := slowPost(t, srv.Listener.Addr().String(), 100, 100*time.Millisecond)
			if status != tc.status {
				t.Fatalf("status %q; want %q", status, tc.status)
			}
			if took < grace-50*time.Millisecond || took > grace+slack {
				t.Fatalf("connection ended %v after the headers; want about the grace period %v", took, grace)
			}
		})
	}
}

// trickle is a body that sends size bytes in chunks of chunk, one every gap.
type trickle struct {
	left, chunk int
	gap         time.Duration
}

func (tr *trickle) Read(p []byte) (int, error) {
	if tr.left == 0 {
		return 0, io.EOF
	}
	time.Sleep(tr.gap)
	n := min(tr.chunk, tr.left, len(p))
	for i := range p[:n] {
		p[i] = 'x'
	}
	tr.left -= n
	return n, nil
}

// TestSteadyBodyPasses: a body that takes longer than the grace period but
// keeps above the minimum rate is read whole, and a handler that works on
// after reading it is not cut off by the deadline (its context stays live).
func TestSteadyBodyPasses(t *testing.T) {
	for _, h2 := range []bool{false, true} {
		t.Run(fmt.Sprintf("h2=%v", h2), func(t *testing.T) {
			srv := server(t, echo(2*grace), h2)
			client := srv.Client()
			// 1500 bytes at 2000 bytes/s: 750ms, more than twice the grace.
			body := &trickle{left: 1500, chunk: 100, gap: 50 * time.Millisecond}
			resp, err := client.Post(srv.URL, "text/plain", body)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != 200 || string(b) != "1500" {
				t.Fatalf("got %d %q; want 200 \"1500\"", resp.StatusCode, b)
			}
			if h2 && resp.ProtoMajor != 2 {
				t.Fatalf("answered over %s; want HTTP/2", resp.Proto)
			}
		})
	}
}

// TestSlowBodyHTTP2: over HTTP/2 a slow body is cut off per stream: the
// stream is answered 408 when the grace period ends, and the connection
// keeps serving other requests.
func TestSlowBodyHTTP2(t *testing.T) {
	srv := server(t, echo(0), true)
	client := srv.Client()
	pr, pw := io.Pipe()
	defer pw.Close()
	go func() {
		for i := 0; i < 100; i++ {
			if _, err := pw.Write([]byte{'x'}); err != nil {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
		pw.Close()
	}()
	start := time.Now()
	resp, err := client.Post(srv.URL, "text/plain", pr)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	took := time.Since(start)
	if resp.ProtoMajor != 2 || resp.StatusCode != http.StatusRequestTimeout {
		t.Fatalf("got %s %d %q; want HTTP/2 408", resp.Proto, resp.StatusCode, b)
	}
	if took > grace+slack {
		t.Fatalf("slow stream answered after %v; want about %v", took, grace)
	}
	resp, err = client.Post(srv.URL, "text/plain", bytes.NewReader(make([]byte, 10)))
	if err != nil {
		t.Fatal(err)
	}
	b, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(b) != "10" {
		t.Fatalf("next request: %d %q; want 200 \"10\"", resp.StatusCode, b)
	}
}

// TestNoBody: a request without a body reaches the handler unchanged.
func TestNoBody(t *testing.T) {
	var got *http.Request
	h := bodyrate.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { got = r }), bodyrate.Options{})
	r := httptest.NewRequest("GET", "/", nil)
	h.ServeHTTP(httptest.NewRecorder(), r)
	if got != r {
		t.Fatal("a request without a body was copied")
	}
}
