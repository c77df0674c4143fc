package proxy

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/avaedge/avaedge/catalog"
)

// TestUpstreamNetworkID: the node upstream's network id is asked under the
// upstream's base path with its headers and never the operator's Data API
// key; an error answer or a malformed id is an error, not a network.
func TestUpstreamNetworkID(t *testing.T) {
	answer := `{"jsonrpc":"2.0","id":1,"result":{"networkID":"5"}}`
	var got *http.Request
	var body []byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r.Clone(context.Background())
		body, _ = io.ReadAll(r.Body)
		io.WriteString(w, answer)
	}))
	defer srv.Close()
	up := upstreamFor(t, catalog.Node, srv.URL+"/provider/key")
	up.APIKey = ""
	up.Headers.Set("X-Provider-Key", "provider-secret")
	id, err := up.NetworkID(context.Background())
	if err != nil || id != 5 {
		t.Fatalf("NetworkID = %d, %v; want 5", id, err)
	}
	var call struct{ Method string }
	json.Unmarshal(body, &call)
	if got.URL.Path != "/provider/key/ext/info" || call.Method != "info.getNetworkID" || got.Header.Get("X-Provider-Key") != "provider-secret" || got.Header.Get("X-Glacier-Api-Key") != "" {
		t.Fatalf("the node got %s %s (%s), provider key %q, glacier key %q", got.Method, got.URL.Path, call.Method,
			got.Header.Get("X-Provider-Key"), got.Header.Get("X-Glacier-Api-Key"))
	}
	for _, bad := range []string{
		`{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"down"}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"networkID":"one"}}`,
		`{"jsonrpc":"2.0","id":1,"result":{}}`,
	} {
		answer = bad
		if id, err := up.NetworkID(context.Background()); err == nil {
			t.Errorf("answer %s: NetworkID = %d; want an error", bad, id)
		}
	}
}
