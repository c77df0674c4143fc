package hostile

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"
)

// rawGet sends "GET target" over a fresh connection exactly as written
// (Go's client would clean or refuse some of the targets tests need) and
// returns the answer with its body.
func rawGet(t *testing.T, base, target string) (*http.Response, string) {
	t.Helper()
	return rawGetWithKey(t, base, target, "")
}

// rawGetWithKey is rawGet with key as x-glacier-api-key, when it is set.
func rawGetWithKey(t *testing.T, base, target, key string) (*http.Response, string) {
	t.Helper()
	addr := strings.TrimPrefix(base, "http://")
	conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	hdr := ""
	if key != "" {
		hdr = "x-glacier-api-key: " + key + "\r\n"
	}
	fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: %s\r\n%sConnection: close\r\n\r\n", target, addr, hdr)
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("GET %q: %v", target, err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp, string(b)
}

// restError is the REST services' error body.
type restError struct {
	Message    []string `json:"message"`
	StatusCode int      `json:"statusCode"`
	Error      string   `json:"error"`
}

// wantBadRequest requires GET target to be answered by the edge with 400
// in the REST services' format, msg among its messages.
func wantBadRequest(t *testing.T, e *Edge, target, msg string) {
	t.Helper()
	resp, body := rawGet(t, e.URL, target)
	var got restError
	if resp.StatusCode != 400 || json.Unmarshal([]byte(body), &got) != nil || got.StatusCode != 400 || got.Error != "Bad Request" ||
		!slices.Contains(got.Message, msg) || resp.Header.Get("X-Avaedge-Source") != "edge" {
		t.Errorf("GET %s = %d %s %s; want 400 at the edge with %q", target, resp.StatusCode, resp.Header.Get("X-Avaedge-Source"), body, msg)
	}
}

// TestPathParamIsOneSegment (issue 28, finding 1): a path parameter is one
// segment. An encoded slash, backslash, dot segment or control character,
// in any encoding, is a 400 in the service's format at the edge and never
// reaches the operator's upstream; a path the router cleans is redirected
// without an upstream call; a valid but oddly encoded path reaches the
// upstream as the charged route's canonical path.
func TestPathParamIsOneSegment(t *testing.T) {
	up := NewUpstream(t, nil)
	env := proxyEnv(up)
	env["AVAEDGE_UPSTREAM_API_KEY"] = "operator-key"
	e := StartEdge(t, EdgeOptions{Env: env})
	before := len(up.Received()) // the node's network id, learned at start
	for _, c := range []struct{ target, msg string }{
		{"/v1/chains/43114%2Fwebhooks", "chainId must not contain '/'"},
		{"/v1/chains/43114%2fwebhooks", "chainId must not contain '/'"},
		{"/v2/chains/43114%2Fcontracts%2F0x52c8fbd0a1a2cd5fe2d58b4c4e1d4f1ac42b1c1c%2Fbalances", "chainId must not contain '/'"},
		{"/v1/chains/43114%252Fwebhooks", "chainId must not contain an encoded '/'"},
		{"/v1/chains/43114%25252Fwebhooks", "chainId must not contain an encoded '/'"},
		{"/v1/chains/%2e%2e", "chainId must not be '.' or '..'"},
		{"/v1/chains/%2E", "chainId must not be '.' or '..'"},
		{"/v1/chains/%252e%252e", "chainId must not be an encoded '.' or '..'"},
		{"/v1/chains/..%2Fwebhooks/blocks", "chainId must not contain '/'"},
		{`/v1/chains/43114\webhooks`, `chainId must not contain '\'`},
		{"/v1/chains/43114%5Cwebhooks", `chainId must not contain '\'`},
		{"/v1/chains/43114%00", "chainId must not contain control characters"},
		{"/v1/chains/43114%0A/blocks", "chainId must not contain control characters"},
		{"/v1/chains/43114%0D%0AX-Injected:%201", "chainId must not contain control characters"},
		{"/v1/networks/fuji%2F..%2F..%2Fwebhooks/validators", "network must not contain '/'"},
		{"/v1/chains/43114/addresses/0x1%2F..%2F..%2Fwebhooks/balances:listErc20", "address must not contain '/'"},
		// Legacy routes.
		{"/v2/chains/43114/contracts/0xabc%2F..%2F..%2F..%2Fwebhooks/balances", "address must not contain '/'"},
		{"/v1/teleporter/messages/%2e%2e", "messageId must not be '.' or '..'"},
	} {
		wantBadRequest(t, e, c.target, c.msg)
	}
	// Dot segments the router cleans: redirected to the cleaned path, never
	// forwarded as they are; a raw control character never gets past
	// net/http's request parser.
	for _, target := range []string{"/v1/chains/../webhooks", "/v1/chains/43114/./blocks", "/v1/chains/43114/blocks/../../../webhooks"} {
		resp, body := rawGet(t, e.URL, target)
		if resp.StatusCode != http.StatusTemporaryRedirect && resp.StatusCode != http.StatusMovedPermanently {
			t.Errorf("GET %s = %d %s; want a redirect to the cleaned path", target, resp.StatusCode, body)
		}
	}
	if resp, body := rawGet(t, e.URL, "/v1/chains/43114\x01/blocks"); resp.StatusCode != 400 {
		t.Errorf("raw control character: %d %s; want 400", resp.StatusCode, body)
	}
	if got := up.Received()[before:]; len(got) != 0 {
		t.Fatalf("the upstream received %d requests, first %s %s; want none", len(got), got[0].Method, got[0].URI)
	}

	// Valid values in odd encodings reach the upstream as the canonical
	// path of the route that was charged, with the operator's key.
	for _, c := range []struct{ target, want string }{
		{"/v1/chains/%34%33114/blocks?pageSize=3", "/v1/chains/43114/blocks?pageSize=3"},
		{"/v1/chains/43114/addresses/0x%61bc/balances%3AlistErc20", "/v1/chains/43114/addresses/0xabc/balances:listErc20?filterSpamTokens=true&pageSize=10"},
		{"/v1/chains/43114/transactions/0x%2Bplus%20space", "/v1/chains/43114/transactions/0x+plus%20space"},
		{"/v2/chains/43114/contracts/0x%61bc/balances?threshold=1%30", "/v2/chains/43114/contracts/0xabc/balances?pageSize=1000&threshold=10"},
	} {
		n := len(up.Received())
		resp, body := rawGet(t, e.URL, c.target)
		got := up.Received()[n:]
		if resp.StatusCode != 200 || len(got) != 1 || got[0].URI != c.want || got[0].Header.Get("X-Glacier-Api-Key") != "operator-key" {
			var uris []string
			for _, r := range got {
				uris = append(uris, r.URI)
			}
			t.Errorf("GET %s = %d %s; upstream received %q; want one %q", c.target, resp.StatusCode, body, uris, c.want)
		}
	}
}

// TestQueryIsWhatIsValidated (issue 28, finding 2): the query is parsed
// once, strictly. A repeated parameter, a bad percent-encoding or a ';' is
// a 400 in the service's format with no upstream call; the upstream gets
// exactly the validated values, canonically encoded, and the cache key is
// made of them: two clients share an entry only when the upstream query is
// the same.
func TestQueryIsWhatIsValidated(t *testing.T) {
	up := NewUpstream(t, nil)
	e := StartEdge(t, EdgeOptions{Env: proxyEnv(up)})
	before := len(up.Received())
	for _, c := range []struct{ target, msg string }{
		{"/v1/chains/43114/blocks?pageSize=1000", "pageSize must not be greater than 100"},
		{"/v1/chains/43114/blocks?pageSize=2&pageSize=1000", "pageSize must not be given more than once"},
		{"/v1/chains/43114/blocks?pageSize=1000&pageSize=2", "pageSize must not be given more than once"},
		{"/v1/chains/43114/blocks?pageSize=1000%zz", "pageSize must be correctly percent-encoded"},
		{"/v1/chains/43114/blocks?pageSize=1000;", "query parameters must be separated by '&', not ';'"},
		{"/v1/chains/43114/blocks?pageSize=2;pageSize=1000", "query parameters must be separated by '&', not ';'"},
		{"/v1/networks/fuji/subnets?sortOrder=sideways%", "sortOrder must be correctly percent-encoded"},
		{"/v1/networks/fuji/subnets?sortOrder=asc&sortOrder=sideways", "sortOrder must not be given more than once"},
		{"/v1/chains/43114/blocks?x=%zz&pageSize=2", "x must be correctly percent-encoded"},
		{"/v2/chains/43114/metrics/txCount?pageSize=1&pageSize=2", "pageSize must not be given more than once"},
		{"/v1/networks/fuji/blockchains/p-chain/transactions?addresses=a&addresses=b", "addresses must not be given more than once"},
		{"/v1/networks/fuji/blockchains/p-chain/transactions:listStaking?pageSize=1;x=2", "query parameters must be separated by '&', not ';'"},
		{"/v1/networks/fuji/blockchains/p-chain/transactions:listStaking?pageSize=%G1", "pageSize must be correctly percent-encoded"},
	} {
		wantBadRequest(t, e, c.target, c.msg)
	}
	if got := up.Received()[before:]; len(got) != 0 {
		t.Fatalf("the upstream received %d requests, first %s; want none", len(got), got[0].URI)
	}

	// Each group of queries means the same validated values: the upstream
	// receives the canonical query once, the others are cache hits.
	for _, g := range []struct {
		want    string
		targets []string
	}{
		{"/v1/chains/43114/blocks?pageSize=10", []string{
			"/v1/chains/43114/blocks", "/v1/chains/43114/blocks?pageSize=10", "/v1/chains/43114/blocks?page%53ize=1%30&x=1&y=%2F",
			"/v1/chains/43114/blocks?&&pageSize=10&"}},
		{"/v1/chains/43114/blocks?pageSize=2&pageToken=a+b%2Fc", []string{
			"/v1/chains/43114/blocks?pageToken=a%20b%2Fc&pageSize=2", "/v1/chains/43114/blocks?pageSize=2&pageToken=a+b/c"}},
		{"/v1/networks/fuji/blockchains/p-chain/transactions?pageSize=10&txTypes=ImportTx&txTypes=ExportTx", []string{
			"/v1/networks/fuji/blockchains/p-chain/transactions?txTypes=ImportTx&txTypes=ExportTx",
			"/v1/networks/fuji/blockchains/p-chain/transactions?txTypes=ImportTx,ExportTx",
			"/v1/networks/fuji/blockchains/p-chain/transactions?txTypes=ImportTx%2C%20ExportTx&pageSize=10"}},
	} {
		n := len(up.Received())
		for _, target := range g.targets {
			if resp, body := rawGet(t, e.URL, target); resp.StatusCode != 200 {
				t.Errorf("GET %s = %d %s", target, resp.StatusCode, body)
			}
		}
		got := up.Received()[n:]
		if len(got) != 1 || got[0].URI != g.want {
			var uris []string
			for _, r := range got {
				uris = append(uris, r.URI)
			}
			t.Errorf("queries %q: upstream received %q; want once %q", g.targets, uris, g.want)
		}
	}
}

// TestPublishedPathIsBuilt (issue 28, findings 1 and 2): an operator's
// publish: entry is held to the same rules: its "{name}" segments are one
// segment each, its query is read strictly, and the upstream gets the path
// built from the entry's pattern and the query re-encoded as read.
func TestPublishedPathIsBuilt(t *testing.T) {
	up := NewUpstream(t, nil)
	e := StartEdge(t, EdgeOptions{Env: proxyEnv(up), Keys: keysFile(2, false),
		Config: "publish:\n  - {method: GET, path: \"/v1/webhooks/{id}\", keys: [k0]}\n"})
	get := func(target, key string) (*http.Response, string) {
		t.Helper()
		return getWithKey(t, e.URL+target, key)
	}
	before := len(up.Received())
	for _, c := range []struct{ target, msg string }{
		{"/v1/webhooks/abc%2F..%2F..%2FapiLogs", "id must not contain '/'"},
		{"/v1/webhooks/%2e%2e", "id must not be '.' or '..'"},
		{"/v1/webhooks/abc?x=1;y=2", "query parameters must be separated by '&', not ';'"},
		{"/v1/webhooks/abc?x=%zz", "x must be correctly percent-encoded"},
	} {
		resp, body := get(c.target, "key-0")
		var got restError
		if resp.StatusCode != 400 || json.Unmarshal([]byte(body), &got) != nil || !slices.Contains(got.Message, c.msg) {
			t.Errorf("GET %s = %d %s; want 400 with %q", c.target, resp.StatusCode, body, c.msg)
		}
	}
	if resp, _ := get("/v1/webhooks/abc", "key-1"); resp.StatusCode != 404 {
		t.Errorf("another key: %d; want 404", resp.StatusCode)
	}
	if got := up.Received()[before:]; len(got) != 0 {
		t.Fatalf("the upstream received %d requests, first %s; want none", len(got), got[0].URI)
	}
	if resp, body := get("/v1/webhooks/%61bc?x=a%20b+c&x=2&y=%2F", "key-0"); resp.StatusCode != 200 {
		t.Fatalf("published path: %d %s", resp.StatusCode, body)
	}
	if got := up.Received()[before:]; len(got) != 1 || got[0].URI != "/v1/webhooks/abc?x=a+b+c&x=2&y=%2F" {
		t.Fatalf("published path: upstream received %+v; want /v1/webhooks/abc?x=a+b+c&x=2&y=%%2F", got)
	}
}

// TestPathValuesUTF8 (issue 35, finding 7): a path value must be valid
// UTF-8 (so no overlong form of '/', '.' or '\', which a lax decoder reads
// as one) and hold no character that NFKC normalization turns into one
// (fullwidth solidus, reverse solidus and full stop): a 400 in the
// service's format, never forwarded.
func TestPathValuesUTF8(t *testing.T) {
	up := NewUpstream(t, nil)
	e := StartEdge(t, EdgeOptions{Env: proxyEnv(up)})
	before := len(up.Received())
	for _, c := range []struct{ target, msg string }{
		{"/v1/chains/43114%C0%AFwebhooks", "chainId must be valid UTF-8"},
		{"/v1/chains/%C0%AE%C0%AE/blocks", "chainId must be valid UTF-8"},
		{"/v1/chains/43114%C1%9Cwebhooks", "chainId must be valid UTF-8"},
		{"/v1/chains/43114%25C0%25AFwebhooks", "chainId must be valid UTF-8"},
		{"/v1/chains/43114%EF%BC%8Fwebhooks", "chainId must not contain '\uff0f'"},
		{"/v1/chains/43114%EF%BC%BCwebhooks", "chainId must not contain '\uff3c'"},
		{"/v1/chains/%EF%BC%8E%EF%BC%8E/blocks", "chainId must not contain '\uff0e'"},
		{"/v1/chains/43114%25EF%25BC%258Fwebhooks", "chainId must not contain an encoded '\uff0f'"},
		{"/v1/chains/43114/addresses/0x1%EF%BC%8F..%EF%BC%8Fwebhooks/balances:listErc20", "address must not contain '\uff0f'"},
		{"/v2/chains/43114%EF%BC%8Fx/metrics/txCount", "chainId must not contain '\uff0f'"},
	} {
		wantBadRequest(t, e, c.target, c.msg)
	}
	if got := up.Received()[before:]; len(got) != 0 {
		t.Fatalf("the upstream received %d requests, first %s %s; want none", len(got), got[0].Method, got[0].URI)
	}
}

// TestTimestampsBounded (issue 35, finding 7): every timestamp parameter is
// bounded at 2^53-1 seconds: endTimestamp=9223372036854775807 is a 400 in the
// service's format (it overflowed into an empty list), on the catalogue's
// routes and on the edge's own usage routes.
func TestTimestampsBounded(t *testing.T) {
	up := NewUpstream(t, nil)
	e := StartEdge(t, EdgeOptions{Env: proxyEnv(up), Keys: keysFile(1, true)})
	before := len(up.Received())
	const max = "9223372036854775807"
	for _, c := range []struct{ target, msg string }{
		{"/v2/chains/43114/metrics/txCount?endTimestamp=" + max, "endTimestamp must not be greater than 9007199254740991"},
		{"/v2/chains/43114/metrics/txCount?startTimestamp=9007199254740992", "startTimestamp must not be greater than 9007199254740991"},
		{"/v1/networks/mainnet/blockchains/p-chain/blocks?endTimestamp=" + max, "endTimestamp must not be greater than 9007199254740991"},
		{"/v1/networks/mainnet/blockchains/p-chain/balances?addresses=P-avax1x&blockTimestamp=" + max, "blockTimestamp must not be greater than 9007199254740991"},
		{"/v1/networks/mainnet/blockchains/p-chain/balances?addresses=P-avax1x&blockTimestamp=-" + max, "blockTimestamp must not be less than -9007199254740991"},
	} {
		wantBadRequest(t, e, c.target, c.msg)
	}
	if got := up.Received()[before:]; len(got) != 0 {
		t.Fatalf("the upstream received %d requests, first %s %s; want none", len(got), got[0].Method, got[0].URI)
	}
	for _, path := range []string{"/v1/apiUsageMetrics?endTimestamp=" + max, "/v1/apiUsageMetrics?startTimestamp=0&endTimestamp=" + max} {
		resp, body := getWithKey(t, e.URL+path, "key-0")
		if resp.StatusCode != 400 || !strings.Contains(body, "endTimestamp must not be greater than 9007199254740991") {
			t.Errorf("GET %s = %d %s; want 400", path, resp.StatusCode, body)
		}
	}
}
