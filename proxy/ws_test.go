package proxy

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/rpc"
	"github.com/gorilla/websocket"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/avaedge/avaedge/catalog"
	"github.com/avaedge/avaedge/config"
)

// fakeChain is an "eth" service for go-ethereum's rpc.Server: eth_chainId,
// and newHeads and logs subscriptions whose notifications the test sends
// (emit). Served by a real rpc.Server, over HTTP, WebSocket or in process.
type fakeChain struct {
	mu   sync.Mutex // guards subs
	subs map[rpc.ID]fakeSub
	made chan struct{} // a subscription was made
}

type fakeSub struct {
	n    *rpc.Notifier
	kind string
}

func newFakeChain() *fakeChain {
	return &fakeChain{subs: map[rpc.ID]fakeSub{}, made: make(chan struct{}, 1024)}
}

func (f *fakeChain) ChainId() hexutil.Uint64 { return 43112 }

func (f *fakeChain) subscribe(ctx context.Context, kind string) (*rpc.Subscription, error) {
	n, ok := rpc.NotifierFromContext(ctx)
	if !ok {
		return nil, rpc.ErrNotificationsUnsupported
	}
	sub := n.CreateSubscription()
	f.mu.Lock()
	f.subs[sub.ID] = fakeSub{n, kind}
	f.mu.Unlock()
	go func() {
		<-sub.Err()
		f.mu.Lock()
		delete(f.subs, sub.ID)
		f.mu.Unlock()
	}()
	f.made <- struct{}{}
	return sub, nil
}

// NewHeads serves eth_subscribe ["newHeads"].
func (f *fakeChain) NewHeads(ctx context.Context) (*rpc.Subscription, error) {
	return f.subscribe(ctx, "newHeads")
}

// Logs serves eth_subscribe ["logs", filter].
func (f *fakeChain) Logs(ctx context.Context, crit map[string]any) (*rpc.Subscription, error) {
	return f.subscribe(ctx, "logs")
}

// emit notifies every subscription of kind with v.
func (f *fakeChain) emit(kind string, v any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for id, s := range f.subs {
		if s.kind == kind {
			s.n.Notify(id, v)
		}
	}
}

func (f *fakeChain) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.subs)
}

// fakeNode serves f at /ext/bc/C/rpc and /ext/bc/C/ws, recording the
// WebSocket upgrades' headers.
type fakeNode struct {
	srv     *httptest.Server
	chain   *fakeChain
	mu      sync.Mutex // guards headers
	headers []http.Header
}

func newFakeNode(t *testing.T) *fakeNode {
	t.Helper()
	fn := &fakeNode{chain: newFakeChain()}
	rs := rpc.NewServer()
	if err := rs.RegisterName("eth", fn.chain); err != nil {
		t.Fatal(err)
	}
	ws := rs.WebsocketHandler([]string{"*"})
	mux := http.NewServeMux()
	mux.Handle("/ext/bc/C/rpc", rs)
	mux.HandleFunc("/ext/bc/C/ws", func(w http.ResponseWriter, r *http.Request) {
		fn.mu.Lock()
		fn.headers = append(fn.headers, r.Header.Clone())
		fn.mu.Unlock()
		ws.ServeHTTP(w, r)
	})
	fn.srv = httptest.NewServer(mux)
	t.Cleanup(func() { fn.srv.Close(); rs.Stop() })
	return fn
}

// socketEdge is an edge in front of a fake node, with a limiter of keys.
func socketEdge(t *testing.T, keys string, o SocketOptions) (*Server, *httptest.Server, *fakeNode, *prometheus.Registry) {
	t.Helper()
	fn := newFakeNode(t)
	var c config.Config
	c.Upstreams.Node.URL = fn.srv.URL
	c.Upstreams.Node.Headers = map[string]string{"X-Operator-Node-Key": "operator"}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	up, err := NewUpstream(catalog.Node, c.Upstreams.Node, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	reg := prometheus.NewRegistry()
	opts := Options{Upstreams: map[catalog.Service]*Upstream{catalog.Node: up}, Sockets: o, Registerer: reg}
	if keys != "" {
		opts.Limiter = testLimiter(t, keys)
	}
	srv, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.CloseSockets(ctx)
		hs.Close()
	})
	return srv, hs, fn, reg
}

// dialSocket opens a WebSocket to path of hs with headers h.
func dialSocket(t *testing.T, hs *httptest.Server, path string, h http.Header) *websocket.Conn {
	t.Helper()
	c, resp, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(hs.URL, "http")+path, h)
	if err != nil {
		status := 0
		if resp != nil {
			status = resp.StatusCode
		}
		t.Fatalf("dial %s: %v (status %d)", path, err, status)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// rpcMsg is a JSON-RPC message as a client reads it.
type rpcMsg struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
	Params struct {
		Subscription string          `json:"subscription"`
		Result       json.RawMessage `json:"result"`
	} `json:"params"`
}

func readMsg(t *testing.T, c *websocket.Conn) rpcMsg {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	_, b, err := c.ReadMessage()
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	var m rpcMsg
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("read %s: %v", b, err)
	}
	return m
}

func call(t *testing.T, c *websocket.Conn, body string) rpcMsg {
	t.Helper()
	if err := c.WriteMessage(websocket.TextMessage, []byte(body)); err != nil {
		t.Fatal(err)
	}
	return readMsg(t, c)
}

// TestSocketThroughTheEdge: in proxy mode a socket's calls go to the node's
// HTTP endpoint and its subscriptions to the node's WebSocket, with the
// operator's node headers and never the client's key; two clients that
// subscribe alike share one subscription of the node, each with its own
// id; eth_unsubscribe ends a client's, and the last one's ends the node's.
func TestSocketThroughTheEdge(t *testing.T) {
	_, hs, fn, reg := socketEdge(t, "", SocketOptions{})
	h := http.Header{"X-Glacier-Api-Key": {"client-secret"}}
	a, b := dialSocket(t, hs, "/ext/bc/C/ws", h), dialSocket(t, hs, "/ext/bc/C/ws", h)
	if m := call(t, a, `{"jsonrpc":"2.0","id":7,"method":"eth_chainId","params":[]}`); string(m.ID) != "7" || string(m.Result) != `"0xa868"` {
		t.Fatalf("eth_chainId: %+v; want id 7, 0xa868", m)
	}
	ma := call(t, a, `{"jsonrpc":"2.0","id":"s","method":"eth_subscribe","params":["newHeads"]}`)
	mb := call(t, b, `{"jsonrpc":"2.0","id":1,"method":"eth_subscribe","params":["newHeads"]}`)
	var ida, idb string
	if json.Unmarshal(ma.Result, &ida) != nil || json.Unmarshal(mb.Result, &idb) != nil || ida == idb || len(ida) != 34 {
		t.Fatalf("subscription ids %s and %s; want two distinct 0x ids", ma.Result, mb.Result)
	}
	if n := fn.chain.count(); n != 1 {
		t.Fatalf("the node holds %d subscriptions; want 1 shared", n)
	}
	fn.chain.emit("newHeads", map[string]string{"number": "0x1"})
	for _, c := range []struct {
		conn *websocket.Conn
		id   string
	}{{a, ida}, {b, idb}} {
		m := readMsg(t, c.conn)
		if m.Method != "eth_subscription" || m.Params.Subscription != c.id || string(m.Params.Result) != `{"number":"0x1"}` {
			t.Fatalf("notification %+v; want %s's head 0x1", m, c.id)
		}
	}
	fn.mu.Lock()
	for _, hd := range fn.headers {
		if hd.Get("X-Operator-Node-Key") != "operator" || hd.Get("X-Glacier-Api-Key") != "" {
			t.Errorf("the node's WebSocket got headers %v; want the operator's node key and no client key", hd)
		}
	}
	fn.mu.Unlock()
	if m := call(t, a, `{"jsonrpc":"2.0","id":2,"method":"eth_unsubscribe","params":["`+ida+`"]}`); string(m.Result) != "true" {
		t.Fatalf("eth_unsubscribe: %+v; want true", m)
	}
	if m := call(t, a, `{"jsonrpc":"2.0","id":3,"method":"eth_unsubscribe","params":["`+ida+`"]}`); m.Error == nil || m.Error.Message != "subscription not found" {
		t.Fatalf("eth_unsubscribe again: %+v; want subscription not found", m)
	}
	call(t, b, `{"jsonrpc":"2.0","id":2,"method":"eth_unsubscribe","params":["`+idb+`"]}`)
	deadline := time.Now().Add(5 * time.Second)
	for fn.chain.count() != 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := fn.chain.count(); n != 0 {
		t.Fatalf("the node holds %d subscriptions after both left; want 0", n)
	}
	if v := testutil.ToFloat64(gauge(t, reg, "avaedge_ws_connections")); v != 2 {
		t.Errorf("avaedge_ws_connections = %v; want 2", v)
	}
}

// gauge finds an unlabelled collector by name in reg.
func gauge(t *testing.T, reg *prometheus.Registry, name string) prometheus.Collector {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() == name && len(mf.GetMetric()) == 1 {
			return prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: name}, func() float64 {
				m := mf.GetMetric()[0]
				if m.GetGauge() != nil {
					return m.GetGauge().GetValue()
				}
				return m.GetCounter().GetValue()
			})
		}
	}
	t.Fatalf("no metric %s", name)
	return nil
}
