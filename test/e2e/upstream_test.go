package e2e

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// recorded is one request an upstream received.
type recorded struct {
	Method string
	URI    string
	Header http.Header
	Body   []byte
}

// recorder is an httptest upstream that records every request. It forwards
// each one to target (a local-mode avaedge, whose answers are the real
// services' shapes) unless handle answers it first, and answers 404 for a
// route the local world has no implementation of yet; with fail set it
// answers every request with that status instead.
type recorder struct {
	URL    string
	target string
	fail   int
	handle func(w http.ResponseWriter, r *http.Request, body []byte) bool

	mu   sync.Mutex
	reqs []recorded
}

func newRecorder(t testing.TB, target string) *recorder {
	t.Helper()
	rec := &recorder{target: target}
	srv := httptest.NewServer(rec)
	t.Cleanup(srv.Close)
	rec.URL = srv.URL
	return rec
}

func (rec *recorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	rec.mu.Lock()
	rec.reqs = append(rec.reqs, recorded{r.Method, r.URL.RequestURI(), r.Header.Clone(), body})
	fail, handle := rec.fail, rec.handle
	rec.mu.Unlock()
	if fail != 0 {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(fail)
		w.Write([]byte(`{"message":"upstream failure injected by the e2e suite","statusCode":` + strconv.Itoa(fail) + `}`))
		return
	}
	if handle != nil && handle(w, r, body) {
		return
	}
	req, err := http.NewRequestWithContext(r.Context(), r.Method, rec.target+r.URL.RequestURI(), bytes.NewReader(body))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	if ct := r.Header.Get("Content-Type"); ct != "" {
		req.Header.Set("Content-Type", ct)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	answer, _ := io.ReadAll(resp.Body)
	if resp.StatusCode == http.StatusServiceUnavailable && bytes.Contains(answer, []byte(noLocalMessage)) {
		// The local world cannot answer this route yet (noLocalYet); the
		// real service would. Its stand-in answers as the service does for
		// a resource it does not have, so the edge's forwarding is still
		// tested without an upstream failure that trips its breaker.
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprintf(w, `{"message":"the e2e upstream stand-in has no answer for %s","statusCode":404,"error":"Not Found"}`, r.URL.Path)
		return
	}
	for _, h := range []string{"Content-Type", "Cache-Control"} {
		if v := resp.Header.Get(h); v != "" {
			w.Header().Set(h, v)
		}
	}
	w.WriteHeader(resp.StatusCode)
	w.Write(answer)
}

// requests returns the requests received so far whose URI starts with
// prefix (all with "").
func (rec *recorder) requests(prefix string) []recorded {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	var out []recorded
	for _, r := range rec.reqs {
		if strings.HasPrefix(r.URI, prefix) {
			out = append(out, r)
		}
	}
	return out
}

// count returns how many requests were received for uri's path, whatever
// their query: the edge sends the canonical query of the values it
// validated (sorted, defaults filled in), not the client's.
func (rec *recorder) count(method, uri string) int {
	path, _, _ := strings.Cut(uri, "?")
	n := 0
	for _, r := range rec.requests("") {
		if p, _, _ := strings.Cut(r.URI, "?"); r.Method == method && p == path {
			n++
		}
	}
	return n
}

// countURI counts the requests of method for exactly uri, query included.
func (rec *recorder) countURI(method, uri string) int {
	n := 0
	for _, r := range rec.requests("") {
		if r.Method == method && r.URI == uri {
			n++
		}
	}
	return n
}

// setHandle makes handle answer the requests it accepts (true) before
// they are forwarded.
func (rec *recorder) setHandle(handle func(w http.ResponseWriter, r *http.Request, body []byte) bool) {
	rec.mu.Lock()
	rec.handle = handle
	rec.mu.Unlock()
}

// setFail makes the upstream answer every request with status (0: forward).
func (rec *recorder) setFail(status int) {
	rec.mu.Lock()
	rec.fail = status
	rec.mu.Unlock()
}
