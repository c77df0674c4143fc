package proxy

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
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
	"github.com/avaedge/avaedge/usage"
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

func newFakeNode(t testing.TB) *fakeNode {
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
func socketEdge(t testing.TB, keys string, o SocketOptions) (*Server, *httptest.Server, *fakeNode, *prometheus.Registry) {
	t.Helper()
	fn := newFakeNode(t)
	uo := testUpstream(fn.srv.URL)
	uo.Headers = map[string]string{"X-Operator-Node-Key": "operator"}
	up, err := NewUpstream(catalog.Node, uo, "", nil)
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
func dialSocket(t testing.TB, hs *httptest.Server, path string, h http.Header) *websocket.Conn {
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

func readMsg(t testing.TB, c *websocket.Conn) rpcMsg {
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

func call(t testing.TB, c *websocket.Conn, body string) rpcMsg {
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
func gauge(t testing.TB, reg *prometheus.Registry, name string) prometheus.Collector {
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

// closeOf reads until the connection closes and returns its close frame.
func closeOf(t testing.TB, c *websocket.Conn) *websocket.CloseError {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(15 * time.Second))
	for {
		if _, _, err := c.ReadMessage(); err != nil {
			var ce *websocket.CloseError
			if errors.As(err, &ce) {
				return ce
			}
			t.Fatalf("the connection ended without a close frame: %v", err)
		}
	}
}

// subscribeHeads subscribes c to newHeads and returns the id.
func subscribeHeads(t testing.TB, c *websocket.Conn) string {
	t.Helper()
	m := call(t, c, `{"jsonrpc":"2.0","id":1,"method":"eth_subscribe","params":["newHeads"]}`)
	var id string
	if json.Unmarshal(m.Result, &id) != nil {
		t.Fatalf("eth_subscribe: %+v", m)
	}
	return id
}

// TestSocketOutOfComputeUnits: each notification is charged to the
// subscriber's key; when the key runs out mid-stream its socket is closed
// with 4429 and the limiter's reason, and a call on a socket whose key is
// out gets the node's -32005.
func TestSocketOutOfComputeUnits(t *testing.T) {
	keys := "plans:\n  tiny: {cu_per_minute: 10}\nkeys:\n  - {id: k, key: the-key, plan: tiny}\n  - {id: s, key: small-key, plan: tiny}\n"
	_, hs, fn, _ := socketEdge(t, keys, SocketOptions{})
	c := dialSocket(t, hs, "/ext/bc/C/ws", http.Header{"X-Glacier-Api-Key": {"the-key"}})
	// The upgrade cost 1, the message 1: 8 notifications are paid for.
	subscribeHeads(t, c)
	got := 0
	for i := 0; i < 20; i++ {
		fn.chain.emit("newHeads", map[string]int{"n": i})
	}
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	var ce *websocket.CloseError
	for {
		_, _, err := c.ReadMessage()
		if err != nil {
			if !errors.As(err, &ce) {
				t.Fatalf("read: %v; want a close frame", err)
			}
			break
		}
		got++
	}
	if ce.Code != 4429 || !strings.Contains(ce.Text, "compute units") {
		t.Fatalf("close %d %q; want 4429 naming compute units", ce.Code, ce.Text)
	}
	if got != 8 {
		t.Fatalf("%d notifications before the close; want the 8 paid for", got)
	}
	// Out of compute units: the upgrade is refused with 429.
	_, resp, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(hs.URL, "http")+"/ext/bc/C/ws", http.Header{"X-Glacier-Api-Key": {"the-key"}})
	if err == nil || resp == nil || resp.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("upgrade with the key out of compute units: %v, %v; want 429", err, resp)
	}
	// A call the key cannot pay for gets the node's rate-limit error.
	c2 := dialSocket(t, hs, "/ext/bc/C/ws", http.Header{"X-Glacier-Api-Key": {"small-key"}})
	m := call(t, c2, `{"jsonrpc":"2.0","id":5,"method":"eth_call","params":[{"to":"0x0000000000000000000000000000000000000001"},"latest"]}`)
	if m.Error == nil || m.Error.Code != -32005 || string(m.ID) != "5" {
		t.Fatalf("eth_call beyond the key's compute units: %+v; want -32005 with id 5", m)
	}
}

// TestSocketBounds: what one client may hold is bounded, and each bound
// answers as documented.
func TestSocketBounds(t *testing.T) {
	keys := "plans:\n  free: {}\n  nows: {routes: [evm.rpc]}\nkeys:\n  - {id: k, key: a-key, plan: free}\n  - {id: n, key: no-ws, plan: nows}\nanonymous: free\n"
	_, hs, fn, reg := socketEdge(t, keys, SocketOptions{ConnectionsPerAddress: 2, ConnectionsPerKey: 3, SubscriptionsPerConnection: 2, MaxMessageBytes: 4096})
	url := "ws" + strings.TrimPrefix(hs.URL, "http") + "/ext/bc/C/ws"
	refused := func(h http.Header) int {
		t.Helper()
		c, resp, err := websocket.DefaultDialer.Dial(url, h)
		if err == nil {
			c.Close()
			return 101
		}
		if resp == nil {
			t.Fatalf("dial: %v", err)
		}
		return resp.StatusCode
	}
	t.Run("plan without evm.ws", func(t *testing.T) {
		if got := refused(http.Header{"X-Glacier-Api-Key": {"no-ws"}}); got != http.StatusForbidden {
			t.Fatalf("upgrade = %d; want 403", got)
		}
	})
	t.Run("not an upgrade", func(t *testing.T) {
		resp, err := http.Get(hs.URL + "/ext/bc/C/ws")
		if err != nil {
			t.Fatal(err)
		}
		var m rpcMsg
		json.NewDecoder(resp.Body).Decode(&m)
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest || m.Error == nil {
			t.Fatalf("GET without upgrade = %d %+v; want 400 with a JSON-RPC error", resp.StatusCode, m)
		}
	})
	t.Run("connections per address", func(t *testing.T) {
		a, b := dialSocket(t, hs, "/ext/bc/C/ws", nil), dialSocket(t, hs, "/ext/bc/C/ws", nil)
		if got := refused(nil); got != http.StatusTooManyRequests {
			t.Fatalf("third anonymous connection = %d; want 429", got)
		}
		a.Close()
		b.Close()
	})
	t.Run("connections per key", func(t *testing.T) {
		waitConns(t, reg, 0)
		h := http.Header{"X-Glacier-Api-Key": {"a-key"}}
		for range 3 {
			dialSocket(t, hs, "/ext/bc/C/ws", h)
		}
		if got := refused(h); got != http.StatusTooManyRequests {
			t.Fatalf("fourth connection of the key = %d; want 429", got)
		}
	})
	t.Run("subscriptions per connection", func(t *testing.T) {
		waitConns(t, reg, 0)
		c := dialSocket(t, hs, "/ext/bc/C/ws", http.Header{"X-Glacier-Api-Key": {"a-key"}})
		subscribeHeads(t, c)
		call(t, c, `{"jsonrpc":"2.0","id":2,"method":"eth_subscribe","params":["logs",{"address":"0x0000000000000000000000000000000000000001"}]}`)
		m := call(t, c, `{"jsonrpc":"2.0","id":3,"method":"eth_subscribe","params":["newHeads"]}`)
		if m.Error == nil || m.Error.Code != -32005 || !strings.Contains(m.Error.Message, "at most 2") {
			t.Fatalf("third subscription: %+v; want -32005 at most 2", m)
		}
	})
	t.Run("subscriptions sent at once", func(t *testing.T) {
		waitConns(t, reg, 0)
		c := dialSocket(t, hs, "/ext/bc/C/ws", http.Header{"X-Glacier-Api-Key": {"a-key"}})
		for i := range 10 {
			c.WriteMessage(websocket.TextMessage, []byte(`{"jsonrpc":"2.0","id":`+strconv.Itoa(i)+`,"method":"eth_subscribe","params":["logs",{"address":"0x000000000000000000000000000000000000000`+strconv.Itoa(i)+`"}]}`))
		}
		made := 0
		for range 10 {
			if m := readMsg(t, c); m.Error == nil {
				made++
			}
		}
		if made != 2 {
			t.Fatalf("%d of 10 subscriptions sent at once were made; want the connection's 2", made)
		}
	})
	t.Run("subscription kinds and filters", func(t *testing.T) {
		c := dialSocket(t, hs, "/ext/bc/C/ws", http.Header{"X-Glacier-Api-Key": {"a-key"}})
		addrs := make([]string, 1001)
		for i := range addrs {
			addrs[i] = `"0x0000000000000000000000000000000000000001"`
		}
		for _, tc := range []struct{ params, want string }{
			{`["syncing"]`, "unsupported subscription kind"},
			{`["newHeads",{}]`, "too many arguments, want at most 0"},
			{`["logs",{"topics":[null,null,null,null,null]}]`, "exceed max topics"},
			{`["logs",{"address":[` + strings.Join(addrs[:70], ",") + `]}]`, ""},
			{`[]`, "eth_subscribe takes [kind, ...]"},
		} {
			m := call(t, c, `{"jsonrpc":"2.0","id":9,"method":"eth_subscribe","params":`+tc.params+`}`)
			if tc.want == "" {
				if m.Error != nil {
					t.Errorf("eth_subscribe %s: %+v; want a subscription", tc.params, m.Error)
				}
				continue
			}
			if m.Error == nil || !strings.Contains(m.Error.Message, tc.want) {
				t.Errorf("eth_subscribe %s: %+v; want an error saying %q", tc.params, m, tc.want)
			}
		}
	})
	t.Run("message too big", func(t *testing.T) {
		c := dialSocket(t, hs, "/ext/bc/C/ws", http.Header{"X-Glacier-Api-Key": {"a-key"}})
		c.WriteMessage(websocket.TextMessage, []byte(`[`+strings.Repeat(`1,`, 4096)+`1]`))
		if ce := closeOf(t, c); ce.Code != websocket.CloseMessageTooBig {
			t.Fatalf("close %d %q; want 1009", ce.Code, ce.Text)
		}
	})
	t.Run("compression", func(t *testing.T) {
		d := websocket.Dialer{EnableCompression: true}
		c, resp, err := d.Dial(url, http.Header{"X-Glacier-Api-Key": {"a-key"}})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if ext := resp.Header.Get("Sec-Websocket-Extensions"); ext != "" {
			t.Fatalf("the edge negotiated %q; want no compression", ext)
		}
		// A frame with RSV1 set anyway (a deflated message) is refused.
		raw := c.UnderlyingConn()
		raw.Write([]byte{0xc1, 0x80 | 4, 0, 0, 0, 0, 'a', 'b', 'c', 'd'})
		if ce := closeOf(t, c); ce.Code != websocket.CloseProtocolError {
			t.Fatalf("close %d %q; want 1002", ce.Code, ce.Text)
		}
	})
	_ = fn
	_ = reg
}

// TestSocketSlowConsumer: a subscriber that does not read is disconnected
// once its send queue is full (counted), while a subscriber of the same
// topic that reads gets every notification.
func TestSocketSlowConsumer(t *testing.T) {
	_, hs, fn, reg := socketEdge(t, "", SocketOptions{SendQueue: 64})
	slow, fast := dialSocket(t, hs, "/ext/bc/C/ws", nil), dialSocket(t, hs, "/ext/bc/C/ws", nil)
	subscribeHeads(t, slow)
	subscribeHeads(t, fast)
	big := strings.Repeat("x", 64<<10)
	const n = 300
	done := make(chan int)
	go func() {
		got := 0
		fast.SetReadDeadline(time.Now().Add(60 * time.Second))
		for got < n {
			if _, _, err := fast.ReadMessage(); err != nil {
				break
			}
			got++
		}
		done <- got
	}()
	for i := 0; i < n; i++ {
		fn.chain.emit("newHeads", big)
		time.Sleep(time.Millisecond) // a chain's pace, which a reader keeps
	}
	if got := <-done; got != n {
		t.Fatalf("the reading subscriber got %d notifications; want %d", got, n)
	}
	if v := testutil.ToFloat64(gauge(t, reg, "avaedge_ws_slow_consumers_total")); v != 1 {
		t.Fatalf("avaedge_ws_slow_consumers_total = %v; want 1", v)
	}
	// What the slow client finally reads ends with the edge closing it.
	slow.SetReadDeadline(time.Now().Add(10 * time.Second))
	for {
		if _, _, err := slow.ReadMessage(); err != nil {
			var ce *websocket.CloseError
			if errors.As(err, &ce) && ce.Code != websocket.ClosePolicyViolation {
				t.Fatalf("the slow client's close: %d %q; want 1008", ce.Code, ce.Text)
			}
			break
		}
	}
}

// TestSocketShutdown: CloseSockets closes every socket with a going-away
// frame and refuses new upgrades.
func TestSocketShutdown(t *testing.T) {
	srv, hs, _, _ := socketEdge(t, "", SocketOptions{})
	c := dialSocket(t, hs, "/ext/bc/C/ws", nil)
	subscribeHeads(t, c)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	go srv.CloseSockets(ctx)
	if ce := closeOf(t, c); ce.Code != websocket.CloseGoingAway || ce.Text != "avaedge is shutting down" {
		t.Fatalf("close %d %q; want 1001 avaedge is shutting down", ce.Code, ce.Text)
	}
	time.Sleep(50 * time.Millisecond)
	if _, resp, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(hs.URL, "http")+"/ext/bc/C/ws", nil); err == nil || resp == nil || resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("upgrade while shutting down: %v %v; want 503", err, resp)
	}
}

// TestSocketBatch: a batch mixing the socket's own calls with forwarded
// ones is answered in its order, each answer with its call's id.
func TestSocketBatch(t *testing.T) {
	_, hs, _, _ := socketEdge(t, "", SocketOptions{})
	c := dialSocket(t, hs, "/ext/bc/C/ws", nil)
	if err := c.WriteMessage(websocket.TextMessage, []byte(`[{"jsonrpc":"2.0","id":1,"method":"eth_chainId"},`+
		`{"jsonrpc":"2.0","id":2,"method":"eth_subscribe","params":["newHeads"]},{"jsonrpc":"2.0","id":3,"method":"admin_peers"},`+
		`{"jsonrpc":"2.0","id":4,"method":"eth_chainId"}]`)); err != nil {
		t.Fatal(err)
	}
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	_, b, err := c.ReadMessage()
	if err != nil {
		t.Fatal(err)
	}
	var ms []rpcMsg
	if err := json.Unmarshal(b, &ms); err != nil || len(ms) != 4 {
		t.Fatalf("batch answer %s; want 4 answers", b)
	}
	for i, m := range ms {
		if string(m.ID) != strconv.Itoa(i+1) {
			t.Fatalf("answer %d has id %s; want %d (%s)", i, m.ID, i+1, b)
		}
	}
	if ms[1].Error != nil || len(ms[1].Result) != 36 || ms[2].Error == nil || ms[2].Error.Code != -32601 || string(ms[3].Result) != `"0xa868"` {
		t.Fatalf("batch answer %s; want a chain id, a subscription id, method not found, a chain id", b)
	}
}

// waitConns waits until the edge counts n open connections (a closed
// client's is given back once the edge reads its close).
func waitConns(t testing.TB, reg *prometheus.Registry, n float64) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for testutil.ToFloat64(gauge(t, reg, "avaedge_ws_connections")) != n {
		if time.Now().After(deadline) {
			t.Fatalf("avaedge_ws_connections did not reach %v", n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestSocketUsage: a socket's upgrade, each of its calls and each
// notification are in its key's usage, which the RPC usage routes count by
// method.
func TestSocketUsage(t *testing.T) {
	fn := newFakeNode(t)
	up, err := NewUpstream(catalog.Node, testUpstream(fn.srv.URL), "", nil)
	if err != nil {
		t.Fatal(err)
	}
	meter, err := usage.New(usage.Options{FlushInterval: time.Hour, EVMChainID: "43114"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { meter.Close() })
	lim := testLimiter(t, "plans:\n  p: {cu_per_minute: 100000}\nkeys:\n  - {id: alice, key: alice-key, plan: p}\n")
	srv, err := New(Options{Upstreams: map[catalog.Service]*Upstream{catalog.Node: up}, Limiter: lim, Usage: meter})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	ws := dialSocket(t, hs, "/ext/bc/C/ws", http.Header{"X-Glacier-Api-Key": {"alice-key"}})
	call(t, ws, `{"jsonrpc":"2.0","id":1,"method":"eth_chainId"}`)
	subscribeHeads(t, ws)
	for i := range 3 {
		fn.chain.emit("newHeads", map[string]int{"n": i})
		readMsg(t, ws)
	}
	if err := meter.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	r := httptest.NewRequest(http.MethodGet, "/v1/rpcUsageMetrics?groupBy=rpcMethod", nil)
	r.Header.Set("X-Glacier-Api-Key", "alice-key")
	w := httptest.NewRecorder()
	srv.ServeHTTP(w, r)
	var got struct {
		Metrics []struct {
			Values []struct {
				GroupValue     string `json:"groupValue"`
				TotalRequests  int64  `json:"totalRequests"`
				APICreditsUsed int64  `json:"apiCreditsUsed"`
			} `json:"values"`
		} `json:"metrics"`
	}
	if err := json.Unmarshal(w.Body.Bytes(), &got); err != nil || w.Code != 200 {
		t.Fatalf("rpcUsageMetrics = %d %s", w.Code, w.Body)
	}
	counts := map[string]int64{}
	for _, m := range got.Metrics {
		for _, v := range m.Values {
			counts[v.GroupValue] += v.TotalRequests
		}
	}
	want := map[string]int64{"eth_chainId": 1, "eth_subscribe": 1, "eth_subscription": 3}
	for m, n := range want {
		if counts[m] != n {
			t.Errorf("rpcUsageMetrics by method = %v; want %v", counts, want)
			break
		}
	}
}
