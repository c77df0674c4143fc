package hostile

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestCacheFillHeaders (issue 28, finding 6): a cache fill, whose answer
// serves every client, carries none of the first client's headers (its
// credentials, cookies, language, forwarding and override headers), only
// what every client asks; an answer that sets a cookie, or varies with a
// request header other than Accept-Encoding (or CORS's Origin, which a fill
// never sends), is answered but not stored, and its cookie never reaches a
// client.
func TestCacheFillHeaders(t *testing.T) {
	up := NewUpstream(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch {
		case strings.HasSuffix(r.URL.Path, "/blocks/1"):
			w.Header().Set("Vary", "Accept-Language")
		case strings.HasSuffix(r.URL.Path, "/blocks/2"):
			w.Header().Set("Set-Cookie", "session=operator-session; HttpOnly")
		case strings.HasSuffix(r.URL.Path, "/blocks/3"):
			w.Header().Set("Vary", "*")
		case strings.HasSuffix(r.URL.Path, "/blocks/4"):
			w.Header().Set("Vary", "Accept-Encoding")
		case strings.HasSuffix(r.URL.Path, "/blocks/5"):
			w.Header().Set("Vary", "Origin") // CORS, as avalanchego answers everything
		}
		if r.Method == http.MethodPost {
			io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{"networkID":"1"}}`)
			return
		}
		fmt.Fprintf(w, `{"path":%q,"lang":%q}`, r.URL.Path, r.Header.Get("Accept-Language"))
	}))
	env := proxyEnv(up)
	env["AVAEDGE_UPSTREAM_API_KEY"] = "operator-key"
	e := StartEdge(t, EdgeOptions{Env: env})
	client := map[string]string{
		"Authorization":          "Bearer client-token",
		"Cookie":                 "client-session=1",
		"Accept-Language":        "fr-FR",
		"Forwarded":              "for=203.0.113.9;host=evil.example",
		"X-Forwarded-For":        "203.0.113.9",
		"X-Forwarded-Host":       "evil.example",
		"X-Forwarded-Proto":      "gopher",
		"X-Http-Method-Override": "DELETE",
		"X-Glacier-Api-Key":      "client-key-1",
		"X-Data-Api-Key":         "client-key-2",
		"User-Agent":             "client-agent/1",
		"Origin":                 "https://evil.example",
		"Referer":                "https://evil.example/page",
		"If-None-Match":          `"abc"`,
		"Range":                  "bytes=0-1",
		"X-Custom":               "anything",
	}
	get := func(method, path, body string, h map[string]string) *http.Response {
		t.Helper()
		req, _ := http.NewRequest(method, e.URL+path, strings.NewReader(body))
		for k, v := range h {
			req.Header.Set(k, v)
		}
		if method == http.MethodPost {
			req.Header.Set("Content-Type", "application/json; charset=utf-8")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp
	}
	allowed := []string{"Accept", "User-Agent", "X-Glacier-Api-Key", "Content-Type", "Content-Length", "Accept-Encoding"}
	for _, c := range []struct{ method, path, body string }{
		{"GET", "/v1/chains/43114/blocks/7", ""},
		{"GET", "/v2/chains/43114", ""},
		{"POST", "/ext/bc/X", `{"jsonrpc":"2.0","id":1,"method":"avm.getAssetDescription","params":{"assetID":"AVAX"}}`},
	} {
		n := len(up.Received())
		if resp := get(c.method, c.path, c.body, client); resp.StatusCode != 200 || resp.Header.Get("X-Cache-Status") != "MISS" {
			t.Fatalf("%s %s = %d %s; want a 200 cache fill", c.method, c.path, resp.StatusCode, resp.Header.Get("X-Cache-Status"))
		}
		got := up.Received()[n:]
		if len(got) != 1 {
			t.Fatalf("%s %s: %d upstream calls; want 1", c.method, c.path, len(got))
		}
		h := got[0].Header
		for name := range h {
			if !slices.Contains(allowed, name) {
				t.Errorf("%s %s: the cache fill carried %s: %q", c.method, c.path, name, h.Values(name))
			}
		}
		key := "operator-key"
		if strings.HasPrefix(c.path, "/ext/") {
			key = "" // the Data API key never goes to the node
		}
		if h.Get("X-Glacier-Api-Key") != key || h.Get("User-Agent") != "avaedge" || h.Get("Accept") != "application/json" {
			t.Errorf("%s %s: fill headers %v; want key %q, User-Agent avaedge, Accept application/json", c.method, c.path, h, key)
		}
		if ae := h.Get("Accept-Encoding"); ae != "" {
			t.Errorf("%s %s: fill asked for Accept-Encoding %q; stored answers are identity-encoded", c.method, c.path, ae)
		}
		if c.method == http.MethodPost && h.Get("Content-Type") != "application/json" {
			t.Errorf("%s %s: Content-Type %q", c.method, c.path, h.Get("Content-Type"))
		}
	}

	// Answers that vary by client, or set a cookie, are not served from
	// the cache: the second client's request goes upstream too.
	for _, c := range []struct {
		path   string
		stored bool
	}{
		{"/v1/chains/43114/blocks/1", false}, // Vary: Accept-Language
		{"/v1/chains/43114/blocks/2", false}, // Set-Cookie
		{"/v1/chains/43114/blocks/3", false}, // Vary: *
		{"/v1/chains/43114/blocks/4", true},  // Vary: Accept-Encoding
		{"/v1/chains/43114/blocks/5", true},  // Vary: Origin
	} {
		n := len(up.Received())
		first := get("GET", c.path, "", map[string]string{"Accept-Language": "fr-FR"})
		second := get("GET", c.path, "", map[string]string{"Accept-Language": "de-DE"})
		calls := len(up.Received()) - n
		if first.StatusCode != 200 || second.StatusCode != 200 {
			t.Errorf("%s: %d, %d", c.path, first.StatusCode, second.StatusCode)
		}
		if want := map[bool]int{true: 1, false: 2}[c.stored]; calls != want {
			t.Errorf("%s: %d upstream calls for two clients (second %s); want %d", c.path, calls, second.Header.Get("X-Cache-Status"), want)
		}
		for i, r := range []*http.Response{first, second} {
			if sc := r.Header.Values("Set-Cookie"); len(sc) > 0 {
				t.Errorf("%s: client %d got Set-Cookie %q", c.path, i+1, sc)
			}
		}
	}
}

// TestHeadIsAGet (issue 35, finding 5): a HEAD is its GET without a body:
// the same cache entry and fill, built by the edge, so the upstream never
// sees a HEAD or the client's headers, and HEADs that the upstream would
// fail cannot open the breaker for everyone.
func TestHeadIsAGet(t *testing.T) {
	up := NewUpstream(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodHead || r.Header.Get("Authorization") != "" {
			w.WriteHeader(http.StatusServiceUnavailable) // what finding 5's upstream did
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"path":%q}`, r.URL.Path)
	}))
	env := proxyEnv(up)
	env["AVAEDGE_UPSTREAM_API_KEY"] = "operator-key"
	e := StartEdge(t, EdgeOptions{Env: env})
	before := len(up.Received())
	client := map[string]string{"Authorization": "Bearer client-token", "Cookie": "session=client", "X-Forwarded-Host": "evil.example"}
	for i := range 8 {
		path := fmt.Sprintf("/v1/chains/43114/blocks/%d", 100+i)
		resp, body := send(t, http.MethodHead, e.URL+path, client)
		if resp.StatusCode != 200 || body != "" || resp.Header.Get("X-Cache-Status") != "MISS" || resp.Header.Get("Content-Type") != "application/json" {
			t.Errorf("HEAD %s = %d %s %q %q; want 200, a MISS without a body", path, resp.StatusCode, resp.Header.Get("X-Cache-Status"), resp.Header.Get("Content-Type"), body)
		}
		resp, body = send(t, http.MethodGet, e.URL+path, nil)
		if resp.StatusCode != 200 || resp.Header.Get("X-Cache-Status") != "HIT" || !strings.Contains(body, path) {
			t.Errorf("GET %s after its HEAD = %d %s %s; want the HEAD's entry", path, resp.StatusCode, resp.Header.Get("X-Cache-Status"), body)
		}
	}
	got := up.Received()[before:]
	for _, r := range got {
		if r.Method != http.MethodGet || r.Header.Get("Authorization") != "" || r.Header.Get("Cookie") != "" || r.Header.Get("X-Forwarded-Host") != "" ||
			r.Header.Get("X-Glacier-Api-Key") != "operator-key" {
			t.Errorf("the upstream received %s %s with %v; want a GET with the edge's headers only", r.Method, r.URI, r.Header)
		}
	}
	if len(got) != 8 {
		t.Errorf("the upstream received %d requests; want 8 fills", len(got))
	}
	// Another client, another page: the breaker is closed.
	if resp, body := send(t, http.MethodGet, e.URL+"/v1/chains/43114/blocks/99", nil); resp.StatusCode != 200 {
		t.Errorf("another client's GET = %d %s; want 200", resp.StatusCode, body)
	}
}

// TestFillFraming (issue 35, finding 7): a request the upstream gets is
// built by the edge, never cloned from the client's: a client's chunked
// body and Connection: close never make a cache fill (or a forwarded call)
// go upstream chunked or closing, and a GET's body never goes upstream.
func TestFillFraming(t *testing.T) {
	type framing struct {
		method        string
		chunked, shut bool
		length        int64
		body          string
	}
	var mu sync.Mutex // guards seen
	var seen []framing
	up := NewUpstream(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		seen = append(seen, framing{r.Method, slices.Contains(r.TransferEncoding, "chunked"), r.Close, r.ContentLength, string(b)})
		mu.Unlock()
		defaultAnswer(w, r)
	}))
	e := StartEdge(t, EdgeOptions{Env: proxyEnv(up)})
	addr := strings.TrimPrefix(e.URL, "http://")
	call := `{"jsonrpc":"2.0","id":1,"method":"avm.getAssetDescription","params":{"assetID":"AVAX"}}`
	for _, c := range []struct {
		method, path, body string
		want               framing
	}{
		{"GET", "/v1/chains/43114/blocks/7", "client body", framing{method: "GET"}},
		{"POST", "/ext/bc/X", call, framing{method: "POST", length: int64(len(call)), body: call}},
		{"POST", "/ext/bc/C/rpc", `{"jsonrpc":"2.0","id":1,"method":"eth_chainId"}`,
			framing{method: "POST", length: 47, body: `{"jsonrpc":"2.0","id":1,"method":"eth_chainId"}`}},
	} {
		mu.Lock()
		seen = nil
		mu.Unlock()
		conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		conn.SetDeadline(time.Now().Add(10 * time.Second))
		fmt.Fprintf(conn, "%s %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n%x\r\n%s\r\n0\r\n\r\n",
			c.method, c.path, addr, len(c.body), c.body)
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatalf("%s %s: %v", c.method, c.path, err)
		}
		io.Copy(io.Discard, resp.Body)
		conn.Close()
		mu.Lock()
		got := seen
		mu.Unlock()
		if resp.StatusCode != 200 || len(got) != 1 || got[0] != c.want {
			t.Errorf("%s %s chunked with Connection: close = %d; the upstream saw %+v; want %+v", c.method, c.path, resp.StatusCode, got, c.want)
		}
	}
}
