package hostile

import (
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
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
