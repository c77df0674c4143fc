package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
)

// TestDevChainDebugOff: debug_setHead on /ext/bc/C/rpc is refused by
// default (issue 18), while ordinary calls are served.
func TestDevChainDebugOff(t *testing.T) {
	pub, _, _ := startEdge(t, map[string]string{})
	post := func(body string) string {
		resp, err := http.Post(pub+"/ext/bc/C/rpc", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}
	if got := post(`{"jsonrpc":"2.0","id":1,"method":"debug_setHead","params":["0x1"]}`); !strings.Contains(got, `"code":-32601`) {
		t.Fatalf("debug_setHead: %s; want -32601 method not found", got)
	}
	if got := post(`{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}`); !strings.Contains(got, `"result":"0xa868"`) {
		t.Fatalf("eth_chainId: %s; want 0xa868", got)
	}
}

func TestWriteKeys(t *testing.T) {
	keys := writeKeys([]netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")})
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
