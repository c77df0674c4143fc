package limits

import (
	"context"
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

// TestOwner: a client's share belongs to its issued key, else to its
// address (an unissued key buys none of its own while unissued keys are
// bounded), and travels in a context.
func TestOwner(t *testing.T) {
	issued := newLimiter(t, Options{})
	unissued := newLimiter(t, Options{Keys: DefaultKeysFile()})
	unbounded := newLimiter(t, Options{Keys: DefaultKeysFile(), UnissuedKeys: UnissuedKeys{PerAddress: -1}})
	for _, tc := range []struct {
		name string
		l    *Limiter
		key  string
		want string
	}{
		{"issued key", issued, "alice-secret", "key:alice"},
		{"anonymous", issued, "", "ip:192.0.2.1"},
		{"unissued key", unissued, "made-up", "ip:192.0.2.1"},
		{"unissued key, unbounded", unbounded, "made-up", "hash:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, d := tc.l.Identify(req(tc.key))
			if d.Status != 0 {
				t.Fatalf("Identify: %d %s", d.Status, d.Message)
			}
			if got := c.Owner(); !strings.HasPrefix(got, tc.want) || tc.want != "hash:" && got != tc.want {
				t.Fatalf("Owner() = %q; want %q", got, tc.want)
			}
			if got, ok := FromContext(NewContext(context.Background(), c)); !ok || got != c {
				t.Fatalf("FromContext(NewContext(c)) = %v, %v; want c", got, ok)
			}
		})
	}
	if _, ok := FromContext(context.Background()); ok {
		t.Fatal("FromContext of a bare context found a client")
	}
}
