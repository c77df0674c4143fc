package main

import (
	"io"
	"net/http"
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
