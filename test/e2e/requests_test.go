package e2e

import (
	"net/http"
	"strings"
	"testing"
)

// TestHeadAndCacheDirectives (issue 35, findings 5 and 8): through the edge
// in front of an upstream, a HEAD is its GET without a body: the same
// answer's headers, one fill that the upstream gets as a GET with none of
// the client's headers, and the GET after it a HIT. A client's
// Cache-Control: no-cache or Pragma: no-cache still gets the cached answer
// (the default plans do not allow a bypass). In local mode a HEAD answers
// the GET's status and type without a body.
func TestHeadAndCacheDirectives(t *testing.T) {
	rec := newRecorder(t, localEdge(t).URL)
	e := startEdge(t, map[string]string{"AVAEDGE_DATA_UPSTREAM": rec.URL, "AVAEDGE_UPSTREAM_API_KEY": "operator-key-e2e"}, "operator-key-e2e")
	const path = "/v1/networks/fuji/blockchains/p-chain/blocks?pageSize=2"
	client := map[string]string{"Authorization": "Bearer client", "Cookie": "session=client", "X-Forwarded-Host": "evil.example"}
	head := do(t, "HEAD", e.URL+path, nil, client)
	if head.Status != 200 || len(head.Body) != 0 || head.Header.Get("X-Cache-Status") != "MISS" || !strings.HasPrefix(head.Header.Get("Content-Type"), "application/json") {
		t.Fatalf("HEAD %s = %s %v; want 200 without a body, a MISS", path, head, head.Header)
	}
	got := rec.requests("/v1/networks/fuji/blockchains/p-chain/blocks")
	if len(got) != 1 || got[0].Method != "GET" || got[0].Header.Get("Authorization") != "" || got[0].Header.Get("Cookie") != "" ||
		got[0].Header.Get("X-Forwarded-Host") != "" || got[0].Header.Get("X-Glacier-Api-Key") != "operator-key-e2e" {
		t.Fatalf("the upstream got %+v; want one GET with the edge's headers", got)
	}
	get := do(t, "GET", e.URL+path, nil, nil)
	if get.Status != 200 || get.Header.Get("X-Cache-Status") != "HIT" || get.Header.Get("Content-Type") != head.Header.Get("Content-Type") {
		t.Errorf("GET after the HEAD = %s %v; want a HIT with the HEAD's type", get, get.Header)
	} else if _, err := glacierSpec.validate(t, "listLatestPrimaryNetworkBlocks", 200, get.Body); err != nil {
		t.Errorf("GET after the HEAD: %v", err)
	}
	for _, h := range []map[string]string{{"Cache-Control": "no-cache"}, {"Pragma": "no-cache"}, {"Cache-Control": "no-store, max-age=0"}} {
		if r := do(t, "GET", e.URL+path, nil, h); r.Header.Get("X-Cache-Status") != "HIT" || string(r.Body) != string(get.Body) {
			t.Errorf("GET with %v = %s; want the cached answer", h, r.Header.Get("X-Cache-Status"))
		}
	}
	if n := len(rec.requests("/v1/networks/fuji/blockchains/p-chain/blocks")); n != 1 {
		t.Errorf("the upstream got %d requests for the page; want 1", n)
	}

	local := noKeysLocal(t)
	lget, lhead := do(t, "GET", local.URL+path, nil, nil), do(t, "HEAD", local.URL+path, nil, nil)
	if lget.Status != 200 || lhead.Status != 200 || len(lhead.Body) != 0 || lhead.Header.Get("Content-Type") != lget.Header.Get("Content-Type") {
		t.Errorf("local mode: GET %s, HEAD %s %v; want the GET's status and type without a body", lget, lhead, lhead.Header)
	}
}

// TestTimestampBound (issue 35, finding 7): a timestamp past 2^53-1 seconds
// (endTimestamp=9223372036854775807, which overflowed into an empty list)
// is a 400 in the service's format, in local mode and at the edge before
// any upstream call.
func TestTimestampBound(t *testing.T) {
	rec := newRecorder(t, localEdge(t).URL)
	proxy := startEdge(t, map[string]string{"AVAEDGE_METRICS_UPSTREAM": rec.URL, "AVAEDGE_DATA_UPSTREAM": rec.URL})
	for name, e := range map[string]*edge{"local": noKeysLocal(t), "edge": proxy} {
		for _, c := range []struct{ op, path string }{
			{"getEvmChainMetrics", "/v2/chains/43112/metrics/txCount?endTimestamp=9223372036854775807"},
			{"listLatestPrimaryNetworkBlocks", "/v1/networks/fuji/blockchains/p-chain/blocks?startTimestamp=9223372036854775807"},
		} {
			r := do(t, "GET", e.URL+c.path, nil, nil)
			spec := glacierSpec
			if strings.HasPrefix(c.path, "/v2/") {
				spec = popsicleSpec
			}
			if r.Status != http.StatusBadRequest || !strings.Contains(string(r.Body), "must not be greater than 9007199254740991") {
				t.Errorf("%s: GET %s = %s; want 400", name, c.path, r)
			} else if _, err := spec.validate(t, c.op, 400, r.Body); err != nil {
				t.Errorf("%s: GET %s: the 400 does not match the spec: %v", name, c.path, err)
			}
		}
	}
	if n := len(rec.requests("")); n != 0 {
		t.Errorf("the upstream got %d requests; want none", n)
	}
}
