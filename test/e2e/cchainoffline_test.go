package e2e

import (
	"fmt"
	"io"
	"log"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// cGate fronts a node: every path is the node's, but its C-Chain answers as
// a node whose C-Chain is not up yet (404, no handler) until open is set.
func cGate(t *testing.T, node string) (*httptest.Server, *atomic.Bool) {
	t.Helper()
	u, err := url.Parse(node)
	if err != nil {
		t.Fatal(err)
	}
	var open atomic.Bool
	rp := httputil.NewSingleHostReverseProxy(u)
	rp.ErrorLog = log.New(io.Discard, "", 0) // a stopped node is the point
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/ext/bc/C/") && !open.Load() {
			http.NotFound(w, r)
			return
		}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, &open
}

// TestNodeModeCChainOffline: following a real one-node network whose
// C-Chain does not answer when avaedge starts (the node's info, P- and
// X-Chain do), the C-Chain's EVM and Metrics routes answer 503 and come up
// within 10 s of the C-Chain answering, without a restart. After ethers'
// transactions on the C-Chain, with the node stopped, and again after
// avaedge restarts with the node still stopped, the C-Chain's blocks,
// transactions, ewoq's native balance and the Metrics routes answer 200
// with what they answered while the node ran.
func TestNodeModeCChainOffline(t *testing.T) {
	n := startOwnNode(t)
	front, open := cGate(t, n.URI)
	env := map[string]string{"AVAEDGE_LOCAL_NODE": front.URL, "AVAEDGE_DATA_DIR": t.TempDir(), "AVAEDGE_KEYS_FILE": bulkKeysFile(t)}
	e := startEdge(t, env)
	blocks := e.URL + "/v1/chains/43112/blocks?pageSize=1"
	for _, p := range []string{blocks, e.URL + "/v2/chains/43112/metrics/txCount"} {
		if r := do(t, "GET", p, nil, nil); r.Status != 503 || !strings.Contains(string(r.Body), "has not answered yet") {
			t.Fatalf("GET %s before the C-Chain answers: %s; want the clear 503", p, r)
		}
	}
	// Long enough for avaedge's retries to reach their 5 s bound.
	time.Sleep(8 * time.Second)
	open.Store(true)
	var id string
	if err := rawResult(front.URL+"/ext/bc/C/rpc", "eth_chainId", "[]", &id); err != nil || id != "0xa868" {
		t.Fatalf("the node's eth_chainId once open: %q, %v", id, err)
	}
	answered := time.Now()
	for {
		r := do(t, "GET", blocks, nil, nil)
		if r.Status == 200 && strings.Contains(string(r.Body), `"blockNumber"`) {
			break
		}
		if time.Since(answered) > 10*time.Second {
			t.Fatalf("the C-Chain's blocks 10 s after it answered: %s", r)
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Logf("the C-Chain's EVM routes answered %s after its eth_chainId did", time.Since(answered).Round(time.Millisecond))

	act := makeEVMActivity(t, front.URL+"/ext/bc/C/rpc")
	waitIndexed(t, e.URL, act)
	ch := "/v1/chains/43112"
	paths := []string{
		ch + "/blocks",
		ch + "/blocks/" + fmt.Sprint(act.Txs["native"].Block),
		ch + "/transactions/" + act.Txs["native"].Hash,
		ch + "/transactions",
		ch + "/addresses/" + act.From + "/transactions?pageSize=100",
		ch + "/addresses/" + act.To + "/transactions:listNative",
		ch + "/addresses/" + act.From + "/balances:getNative",
		ch + "/addresses/" + act.To + "/balances:getNative",
		"/v1/chains",
		"/v2/chains",
		"/v2/chains/43112/metrics/txCount?timeInterval=day",
		"/v2/chains/43112/rollingWindowMetrics/txCount",
	}
	running := map[string]reply{}
	for _, p := range paths {
		r := do(t, "GET", e.URL+p, nil, nil)
		if r.Status != 200 {
			t.Fatalf("GET %s with the node running: %s", p, r)
		}
		running[p] = r
	}
	// ewoq's balance is the node's at the block it is as of.
	ewoqBal := running[ch+"/addresses/"+act.From+"/balances:getNative"]
	asOf := ewoqBal.Header.Get("X-Avaedge-Balance-Block")
	var nodeBal string
	if err := rawResult(n.URI+"/ext/bc/C/rpc", "eth_getBalance", fmt.Sprintf(`[%q,"0x%x"]`, act.From, mustUint(t, asOf)), &nodeBal); err != nil {
		t.Fatal(err)
	}
	nb, _ := new(big.Int).SetString(strings.TrimPrefix(nodeBal, "0x"), 16)
	if !strings.Contains(string(ewoqBal.Body), `"balance":"`+nb.String()+`"`) {
		t.Fatalf("ewoq's native balance %s; the node has %s at block %s", ewoqBal.Body, nb, asOf)
	}
	same := func(t *testing.T, base string) {
		t.Helper()
		for _, p := range paths {
			r := do(t, "GET", base+p, nil, nil)
			if r.Status != 200 || string(r.Body) != string(running[p].Body) {
				t.Errorf("GET %s: %s\nwith the node running: %s", p, r, running[p])
			}
			if h := running[p].Header.Get("X-Avaedge-Balance-Block"); h != "" && r.Header.Get("X-Avaedge-Balance-Block") != h {
				t.Errorf("GET %s: as of block %q; with the node running %q", p, r.Header.Get("X-Avaedge-Balance-Block"), h)
			}
		}
	}
	n.stop()
	t.Run("node stopped", func(t *testing.T) { same(t, e.URL) })
	e.stop(t)
	restarted := startEdge(t, env)
	t.Run("avaedge restarted, node stopped", func(t *testing.T) { same(t, restarted.URL) })
}

func mustUint(t *testing.T, s string) uint64 {
	t.Helper()
	var v uint64
	if _, err := fmt.Sscan(s, &v); err != nil {
		t.Fatalf("%q: %v", s, err)
	}
	return v
}
