package hostile

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/avaedge/avaedge/catalog"
	"github.com/avaedge/avaedge/internal/spectest"
)

// seenCall is one request a recording upstream received.
type seenCall struct{ method, uri, body string }

// TestPublicSurfaceForwarded: in proxy mode every public read of
// glacier.json and popsicle.json (every operation but the account-scoped
// and writing ones of closedOps; its parameters taken from the spec's
// examples), and every legacy read the catalogue names, reaches the
// upstream once, with its path and body as sent and its validated query in
// its canonical form; the closed
// operations and the account-scoped routes only the SDKs know are refused
// 404 at the edge and never reach it, and the usage routes are answered by
// the edge itself.
func TestPublicSurfaceForwarded(t *testing.T) {
	var mu sync.Mutex // guards seen
	var seen []seenCall
	up := NewUpstream(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		mu.Lock()
		seen = append(seen, seenCall{r.Method, r.URL.RequestURI(), string(body)})
		mu.Unlock()
		defaultAnswer(w, r)
	}))
	e := StartEdge(t, EdgeOptions{Env: proxyEnv(up), Keys: keysFile(1, true)})
	routes := map[string]*catalog.Route{}
	all := catalog.Catalogue()
	for i := range all {
		routes[all[i].Name] = &all[i]
	}
	send := func(method, target, body string) (int, string) {
		t.Helper()
		req, _ := http.NewRequest(method, e.URL+target, strings.NewReader(body))
		if body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return resp.StatusCode, resp.Header.Get("X-Avaedge-Source") + " " + string(b)
	}
	forwarded := func(name, method, target, body string) {
		t.Helper()
		mu.Lock()
		before := len(seen)
		mu.Unlock()
		status, answer := send(method, target, body)
		mu.Lock()
		got := append([]seenCall(nil), seen[before:]...)
		mu.Unlock()
		// The upstream gets the path as built from the validated values and
		// the canonical query: the same path here (the examples need no
		// escaping), the known parameters sorted, defaults filled in.
		want := seenCall{method, target, body}
		if rt := routes[name]; rt != nil {
			path, raw, _ := strings.Cut(target, "?")
			q, msgs := rt.ParseQuery(raw)
			if msgs != nil {
				t.Fatalf("%s: %s: %v", name, target, msgs)
			}
			if canon := rt.CanonicalQuery(q); canon != "" {
				path += "?" + canon
			}
			want.uri = path
		}
		if status != http.StatusOK || len(got) != 1 || got[0] != want {
			t.Errorf("%s: %s %s = %d %.300s; upstream saw %v; want it once, as %v", name, method, target, status, answer, got, want)
		}
	}
	refused := func(method, target string) {
		t.Helper()
		mu.Lock()
		before := len(seen)
		mu.Unlock()
		status, answer := send(method, target, "{}")
		mu.Lock()
		n := len(seen) - before
		mu.Unlock()
		if status != http.StatusNotFound || !strings.HasPrefix(answer, "edge ") || n != 0 {
			t.Errorf("%s %s = %d %.200s, %d upstream calls; want 404 at the edge", method, target, status, answer, n)
		}
	}
	// The usage routes are the edge's own (issue 29): an anonymous client
	// gets 401 there, and the upstream never sees them.
	own := func(method, target string) {
		t.Helper()
		mu.Lock()
		before := len(seen)
		mu.Unlock()
		status, answer := send(method, target, "")
		mu.Lock()
		n := len(seen) - before
		mu.Unlock()
		if status != http.StatusUnauthorized || !strings.HasPrefix(answer, "edge ") || n != 0 {
			t.Errorf("%s %s = %d %.200s, %d upstream calls; want 401 from the edge itself", method, target, status, answer, n)
		}
	}

	public, closed := 0, 0
	for _, spec := range []*spectest.Spec{spectest.DataAPI(nil), spectest.MetricsAPI(nil)} {
		ops, err := spec.Operations()
		if err != nil {
			t.Fatal(err)
		}
		for _, op := range ops {
			target, body := exampleRequest(op)
			if usageOps[op.ID] {
				closed++
				own(op.Method, target)
				continue
			}
			if closedOps[op.ID] {
				closed++
				refused(op.Method, target)
				continue
			}
			public++
			forwarded(op.ID, op.Method, target, body)
			if routes[op.ID] == nil {
				t.Errorf("%s: forwarded, but the catalogue has no route of that name", op.ID)
			}
		}
	}
	legacy := 0
	for _, rt := range all {
		if rt.Legacy != "" {
			legacy++
			forwarded(rt.Name, rt.Method, legacyRequest(&rt), "")
		}
	}
	// Account-scoped routes the SDKs call that neither spec lists.
	own("GET", "/v1/rpcUsageMetrics")
	for _, c := range [][2]string{
		{"POST", "/v1/media/uploadImage"}, {"POST", "/v1/notifications/access"},
		{"POST", "/v1/notifications/subscribe"}, {"POST", "/v1/notifications/subscriptions"},
		{"POST", "/v1/notifications/unsubscribe"}, {"PATCH", "/v1/chains/43114/contracts/0xB97EF9Ef8734C71904D8002F8b6Bc66Dd9c48a6E"},
	} {
		refused(c[0], c[1])
	}
	if public != 79 || closed != len(closedOps)+len(usageOps) || legacy != 10 {
		t.Fatalf("%d public reads, %d closed operations, %d legacy reads: the specs or the catalogue shrank", public, closed, legacy)
	}
}

// closedOps are the operations of the specs that belong to the operator's
// account or write: webhooks, export operations, NFT reindexing, and the
// Metrics API's composite query.
var closedOps = map[string]bool{
	"reindexNft": true, "getOperationResult": true, "postTransactionExportJob": true,
	"createWebhook": true, "listWebhooks": true, "getWebhook": true, "deactivateWebhook": true, "updateWebhook": true,
	"generateOrRotateSharedSecret": true, "getSharedSecret": true, "addAddressesToWebhook": true,
	"removeAddressesFromWebhook": true, "getAddressesFromWebhook": true, "compositeQueryV2": true,
}

// usageOps are the usage routes of the specs, which the edge answers
// itself for the calling key.
var usageOps = map[string]bool{
	"getApiUsageMetrics": true, "getApiLogs": true, "getSubnetRpcUsageMetrics": true, "getPrimaryNetworkRpcUsageMetrics": true,
}

// exampleRequest builds op's request from its spec: every parameter with
// an example (or required) takes the example, else its enum's first value,
// else "x"; arrays are sent as repeated parameters, as the SDKs send them;
// body fields go into a JSON object.
func exampleRequest(op spectest.Operation) (target, body string) {
	path := op.Path
	q := url.Values{}
	var keys []string
	fields := map[string]any{}
	for _, p := range op.Params {
		if p.Example == "" && !p.Required && p.In != "path" {
			continue
		}
		var ex any
		json.Unmarshal([]byte(p.Example), &ex)
		var vals []string
		switch v := ex.(type) {
		case nil:
			if len(p.Enum) > 0 {
				vals = []string{p.Enum[0]}
			} else {
				vals = []string{"x"}
			}
		case []any:
			for _, item := range v {
				vals = append(vals, jsonText(item))
			}
		default:
			vals = []string{jsonText(v)}
		}
		switch p.In {
		case "path":
			path = strings.Replace(path, "{"+p.Name+"}", url.PathEscape(vals[0]), 1)
		case "body":
			fields[p.Name] = ex
			if ex == nil {
				fields[p.Name] = vals[0]
			}
		default:
			if !q.Has(p.Name) {
				keys = append(keys, p.Name)
			}
			q[p.Name] = append(q[p.Name], vals...)
		}
	}
	var parts []string
	for _, k := range keys {
		for _, v := range q[k] {
			parts = append(parts, url.QueryEscape(k)+"="+url.QueryEscape(v))
		}
	}
	target = path
	if len(parts) > 0 {
		target += "?" + strings.Join(parts, "&")
	}
	if len(fields) > 0 {
		b, _ := json.Marshal(fields)
		body = string(b)
	}
	return target, body
}

// legacyRequest builds a valid request for a legacy route from its
// catalogue entry: path values and required parameters from the first
// value of their enum, else a placeholder.
func legacyRequest(rt *catalog.Route) string {
	path := rt.Path
	var q []string
	for _, p := range rt.Params {
		v := "0xB97EF9Ef8734C71904D8002F8b6Bc66Dd9c48a6E"
		if p.Name == "chainId" {
			v = "43114"
		}
		if len(p.Enum) > 0 {
			v = p.Enum[0]
		}
		switch {
		case p.In == catalog.Path:
			path = strings.ReplaceAll(path, "{"+p.Name+"}", v)
		case p.Required:
			q = append(q, p.Name+"=1000")
		}
	}
	if len(q) > 0 {
		path += "?" + strings.Join(q, "&")
	}
	return path
}

// jsonText is a JSON example as a parameter value: a string as it is,
// anything else in its JSON text.
func jsonText(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, _ := json.Marshal(v)
	return string(b)
}
