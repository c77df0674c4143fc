package limits

import (
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
)

// TestRequestIDs: the dev chain's write allowance counts a client by its
// address (IPv6 by /64) and by its key's hash, never the key.
func TestRequestIDs(t *testing.T) {
	trusted := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}
	keys := func(r *http.Request) []string { return RequestIDs(r, trusted) }
	r := httptest.NewRequest(http.MethodPost, "/ext/bc/C/rpc", nil)
	r.RemoteAddr = "10.1.2.3:5555"
	r.Header.Set("X-Forwarded-For", "203.0.113.9")
	if got := keys(r); len(got) != 1 || got[0] != "ip:203.0.113.9" {
		t.Fatalf("anonymous: %v; want the forwarded address only", got)
	}
	r.Header.Set("X-Glacier-Api-Key", "secret-key")
	got := keys(r)
	if len(got) != 2 || got[0] != "ip:203.0.113.9" || !strings.HasPrefix(got[1], "key:") || strings.Contains(got[1], "secret-key") {
		t.Fatalf("keyed: %v; want the address and the key's hash, never the key", got)
	}
	// IPv6 clients are counted by /64, as the edge counts them.
	r = httptest.NewRequest(http.MethodPost, "/ext/bc/C/rpc", nil)
	r.RemoteAddr = "[2001:db8:1:2:aaaa::1]:5555"
	if got := keys(r); len(got) != 1 || got[0] != "ip:2001:db8:1:2::/64" {
		t.Fatalf("IPv6: %v; want its /64", got)
	}
}
