package proxy

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/avaedge/avaedge/catalog"
)

// evmLocal serves one EVM chain of its own at /ext/bc/mychain/rpc and
// records the paths and bodies it is asked.
type evmLocal struct {
	mu    sync.Mutex // guards paths
	paths []string
}

func (l *evmLocal) Answer(w http.ResponseWriter, r *http.Request, rt *catalog.Route, v catalog.Values) {
	l.mu.Lock()
	l.paths = append(l.paths, r.URL.Path)
	l.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	w.Write([]byte(`{"jsonrpc":"2.0","id":1,"result":"0xc0ffee"}`))
}

func (l *evmLocal) Covers(*catalog.Route, catalog.Values) bool { return true }

func (l *evmLocal) ServesEVM(path string) bool { return path == "/ext/bc/mychain/rpc" }

// TestLocalEVMChains: a Local's own EVM chain is answered at its path
// through the EVM endpoint's admission (methods outside the public
// namespaces refused at the edge, never reaching the Local); any other
// chain's path is a passthrough (404 without a publish rule).
func TestLocalEVMChains(t *testing.T) {
	l := &evmLocal{}
	srv, err := New(Options{Local: l})
	if err != nil {
		t.Fatal(err)
	}
	post := func(path, body string) *httptest.ResponseRecorder {
		w := httptest.NewRecorder()
		r := httptest.NewRequest(http.MethodPost, path, strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		srv.ServeHTTP(w, r)
		return w
	}
	for _, c := range []struct {
		name, path, method string
		status             int
		answer             string
		reached            bool
	}{
		{"own chain", "/ext/bc/mychain/rpc", "eth_chainId", 200, `"result":"0xc0ffee"`, true},
		{"own chain, unpublished namespace", "/ext/bc/mychain/rpc", "admin_peers", 200, `"code":-32601`, false},
		{"another chain", "/ext/bc/other/rpc", "eth_chainId", 404, "", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			l.mu.Lock()
			l.paths = nil
			l.mu.Unlock()
			w := post(c.path, `{"jsonrpc":"2.0","id":1,"method":"`+c.method+`","params":[]}`)
			if w.Code != c.status || !strings.Contains(w.Body.String(), c.answer) {
				t.Fatalf("got %d %s; want %d with %s", w.Code, w.Body, c.status, c.answer)
			}
			l.mu.Lock()
			defer l.mu.Unlock()
			if reached := len(l.paths) > 0; reached != c.reached {
				t.Fatalf("the Local was asked %v; want asked %v", l.paths, c.reached)
			}
			if c.reached && l.paths[0] != c.path {
				t.Fatalf("the Local was asked at %s; want %s", l.paths[0], c.path)
			}
		})
	}
}
