package proxy

import (
	"bufio"
	"context"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/rpc"
	"github.com/gorilla/websocket"

	"github.com/avaedge/avaedge/catalog"
	"github.com/avaedge/avaedge/limits"
)

// SocketOptions bounds the EVM endpoints' WebSocket twins (ws*.go). Zero
// values mean the documented defaults (docs/websockets.md).
type SocketOptions struct {
	// Disable leaves the WebSocket paths to the passthrough, like any
	// other node path the edge does not serve.
	Disable bool
	// MaxConnections bounds the open connections. Zero means 10,000.
	MaxConnections int
	// ConnectionsPerKey bounds the open connections of a key of the keys
	// file. Zero means 100.
	ConnectionsPerKey int
	// ConnectionsPerAddress bounds the open connections of one address
	// (IPv4, IPv6 /64) of clients without an issued key: anonymous ones
	// and keys nobody issued. Zero means 16.
	ConnectionsPerAddress int
	// SubscriptionsPerConnection bounds one connection's subscriptions.
	// Zero means 100.
	SubscriptionsPerConnection int
	// MaxSubscriptions bounds the subscriptions of every connection
	// together. Zero means 50,000.
	MaxSubscriptions int
	// MaxMessageBytes bounds one message a client sends (1009 past it).
	// Zero means Options.MaxBodyBytes.
	MaxMessageBytes int64
	// MessagesPerSecond is one connection's message rate, in bursts of
	// twice as many; a faster client is read more slowly. Zero means 50.
	MessagesPerSecond float64
	// BytesPerSecond is the rate one connection's bytes are read at (all
	// frames), in bursts of twice MaxMessageBytes. Zero means 256 KiB.
	BytesPerSecond int64
	// SendQueue bounds the messages waiting for one client; past it the
	// client is disconnected (1008). Zero means 1,024.
	SendQueue int
	// PingInterval is how often a client is pinged; one that sends
	// nothing for two intervals is disconnected. Zero means 30s.
	PingInterval time.Duration
	// IdleTimeout closes a connection without subscriptions that sent
	// nothing for this long. Zero means 5m.
	IdleTimeout time.Duration
	// NotificationCost is one notification's price in CU. Zero means 1.
	NotificationCost int64
	// Dial connects to the node upstream's WebSocket (url, the operator's
	// headers). Nil means go-ethereum's rpc.DialOptions.
	Dial func(ctx context.Context, url string, h http.Header) (*rpc.Client, error)
}

func (o *SocketOptions) defaults(maxBody int64) {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&o.MaxConnections, 10_000)
	def(&o.ConnectionsPerKey, 100)
	def(&o.ConnectionsPerAddress, 16)
	def(&o.SubscriptionsPerConnection, 100)
	def(&o.MaxSubscriptions, 50_000)
	def(&o.SendQueue, 1024)
	if o.MaxMessageBytes <= 0 {
		o.MaxMessageBytes = maxBody
	}
	if o.MessagesPerSecond <= 0 {
		o.MessagesPerSecond = 50
	}
	if o.BytesPerSecond <= 0 {
		o.BytesPerSecond = 256 << 10
	}
	if o.PingInterval <= 0 {
		o.PingInterval = 30 * time.Second
	}
	if o.IdleTimeout <= 0 {
		o.IdleTimeout = 5 * time.Minute
	}
	if o.NotificationCost <= 0 {
		o.NotificationCost = 1
	}
	if o.Dial == nil {
		o.Dial = func(ctx context.Context, u string, h http.Header) (*rpc.Client, error) {
			return rpc.DialOptions(ctx, u, rpc.WithHeaders(h), rpc.WithWebsocketMessageSizeLimit(maxAnswerBytes))
		}
	}
}

// LocalSubscriptions is the optional ability of a Local to serve
// eth_subscribe on its own EVM chains (the dev chains), for their
// WebSocket twins.
type LocalSubscriptions interface {
	// EVMSubscriber returns a client that serves eth_subscribe for the
	// chain whose JSON-RPC is at path (/ext/bc/C/rpc,
	// /ext/bc/<chain>/rpc), shared and never closed by the caller, or nil
	// when the local world has no such chain.
	EVMSubscriber(path string) *rpc.Client
}

// socketEndpoint is one WebSocket path and where its calls and
// subscriptions go.
type socketEndpoint struct {
	path, rpcPath string
	feed          *feed  // nil: eth_subscribe answers noFeed
	noFeed        string // why there is no feed
}

// mountSockets serves /ext/bc/C/ws in every mode (its calls go where
// /ext/bc/C/rpc's go; its subscriptions to the node upstream's /ext/bc/C/ws,
// or to the dev chain), and /ext/bc/<chain>/ws for every other EVM chain the
// local world serves; any other chain's path is a passthrough, as its
// /rpc twin is.
func (s *Server) mountSockets() {
	o := &s.opts.Sockets
	if o.Disable || s.rpc["evm"] == nil {
		return
	}
	o.defaults(s.opts.MaxBodyBytes)
	s.sockets.init(o, s.metrics.sockets)
	c := s.socketEndpoint("/ext/bc/C/ws")
	s.mux.HandleFunc("/ext/bc/C/ws", func(w http.ResponseWriter, r *http.Request) { s.serveSocket(c, w, r) })
	var mu sync.Mutex // guards others
	others := map[string]*socketEndpoint{}
	s.mux.HandleFunc("/ext/bc/{chain}/ws", func(w http.ResponseWriter, r *http.Request) {
		twin, _ := catalog.SocketTwin(r.URL.Path)
		l, ok := s.opts.Local.(LocalEVM)
		if !ok || !l.ServesEVM(twin) {
			s.servePassthrough(w, r)
			return
		}
		mu.Lock()
		ep := others[r.URL.Path]
		if ep == nil {
			ep = s.socketEndpoint(r.URL.Path)
			others[r.URL.Path] = ep
		}
		mu.Unlock()
		s.serveSocket(ep, w, r)
	})
}

// socketEndpoint describes the WebSocket at path: with a node upstream the
// C-Chain's subscriptions come from its /ext/bc/C/ws, with the operator's
// node headers; in local mode from the local world's chain.
func (s *Server) socketEndpoint(path string) *socketEndpoint {
	twin, _ := catalog.SocketTwin(path)
	ep := &socketEndpoint{path: path, rpcPath: twin}
	o := &s.opts.Sockets
	if up := s.opts.Upstreams[catalog.Node]; up != nil {
		u := *up.Base
		u.Path = singleJoin(up.Base.Path, path)
		u.RawPath, u.RawQuery = "", ""
		switch u.Scheme {
		case "https":
			u.Scheme = "wss"
		default:
			u.Scheme = "ws"
		}
		target, headers := u.String(), up.Headers.Clone()
		ep.feed = newFeed("upstream", true, func(ctx context.Context) (*rpc.Client, error) {
			return o.Dial(ctx, target, headers)
		}, s.metrics.sockets, s.log)
		return ep
	}
	l, ok := s.opts.Local.(LocalSubscriptions)
	var c *rpc.Client
	if ok {
		c = l.EVMSubscriber(twin)
	}
	if c == nil {
		ep.noFeed = "subscriptions are not available: no node upstream and no local chain at " + twin
		return ep
	}
	ep.feed = newFeed("local", false, func(context.Context) (*rpc.Client, error) { return c, nil }, s.metrics.sockets, s.log)
	return ep
}

// upgrader upgrades without compression (a client's permessage-deflate
// offer is declined, and a compressed frame is a protocol error, 1002: no
// inflation bomb), from any origin (the endpoint is public, as a node's),
// with small per-connection buffers (writes share a pool).
var upgrader = websocket.Upgrader{
	HandshakeTimeout: 10 * time.Second,
	ReadBufferSize:   2048,
	WriteBufferPool:  &sync.Pool{},
	CheckOrigin:      func(*http.Request) bool { return true },
	Error: func(w http.ResponseWriter, r *http.Request, status int, reason error) {
		writeRPCError(w, status, nil, reason.Error())
	},
}

// serveSocket admits an upgrade like a request of evm.ws (its key, rate
// and plan; EVMSocketCost), takes a connection slot of the server, its key
// or its address, upgrades and serves the socket until it closes. Refusals
// are HTTP answers with a JSON-RPC error body, as the node's endpoint's.
func (s *Server) serveSocket(ep *socketEndpoint, w http.ResponseWriter, r *http.Request) {
	ex := s.begin(w, r, catalog.Node, catalog.EVMSocketRoute)
	if !websocket.IsWebSocketUpgrade(r) {
		s.refuse(ex, http.StatusBadRequest, "websocket: the client is not using the websocket protocol")
		s.finish(ex)
		return
	}
	if s.opts.Limiter != nil && !s.identify(ex) {
		s.finish(ex)
		return
	}
	if !s.admit(ex, limits.Charge{Routes: socketRoute, Cost: catalog.EVMSocketCost}) {
		s.finish(ex)
		return
	}
	release, status, msg := s.sockets.take(ex.identity, addressGroup(s.clientAddr(r)), ex.identified && strings.HasPrefix(ex.identity, "key:"))
	if status != 0 {
		s.refuse(ex, status, msg)
		s.finish(ex)
		return
	}
	o := &s.opts.Sockets
	ctx, cancel := context.WithCancel(context.WithoutCancel(r.Context()))
	rw := &ratedWriter{ResponseWriter: w, rate: newByteRate(o.BytesPerSecond, 2*o.MaxMessageBytes), done: ctx.Done()}
	conn, err := upgrader.Upgrade(rw, r, ex.w.Header())
	if err != nil {
		cancel()
		release()
		ex.sw.status = http.StatusBadRequest // gorilla answered
		s.finish(ex)
		return
	}
	ex.sw.status = http.StatusSwitchingProtocols
	ex.source = FromEdge
	s.finish(ex)
	k := &socket{s: s, conn: conn, ep: ep, opts: o, base: r, header: callHeader(r.Header), id: ex.id, remote: r.RemoteAddr,
		client: ex.client, identified: ex.identified, keyID: ex.keyID, identity: ex.identity,
		ctx: ctx, cancel: cancel, out: make(chan outMsg, o.SendQueue), closed: make(chan struct{}), done: make(chan struct{}),
		slots: make(chan struct{}, maxCallsPerSocket), subs: map[string]*socketSub{}}
	k.last.Store(time.Now().UnixNano())
	k.release = func() { s.sockets.remove(k); release() }
	if !s.sockets.add(k) {
		k.closeWith(closeGoingAway, "avaedge is shutting down")
	}
	k.run()
}

// maxCallsPerSocket bounds the messages of one connection served at once;
// the next waits to be read.
const maxCallsPerSocket = 8

// callHeader is the upgrade's headers as each call of the socket carries
// them: the client's (its key, user agent, forwarded address) without the
// handshake's, and a JSON content type.
func callHeader(h http.Header) http.Header {
	out := h.Clone()
	for _, k := range []string{"Upgrade", "Connection", "Sec-Websocket-Key", "Sec-Websocket-Version", "Sec-Websocket-Extensions", "Sec-Websocket-Protocol"} {
		delete(out, k)
	}
	out["Content-Type"] = []string{"application/json"}
	return out
}

// addressGroup names the address a connection counts against: an IPv4
// address, an IPv6 /64 (one host usually holds a whole /64).
func addressGroup(a netip.Addr) string {
	if !a.IsValid() {
		return ""
	}
	if a.Is6() && !a.Is4In6() {
		p, _ := a.Prefix(64)
		return p.String()
	}
	return a.Unmap().String()
}

// ratedWriter hands gorilla a hijacked connection whose reads are rated
// (byteRate), so no kind of frame (a flood of pings, or of empty
// fragments that never end a message) is read faster than the bound.
type ratedWriter struct {
	http.ResponseWriter
	rate *byteRate
	done <-chan struct{}
}

func (w *ratedWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	c, brw, err := http.NewResponseController(w.ResponseWriter).Hijack()
	if err != nil {
		return nil, nil, err
	}
	// What a client may push beyond what the edge reads is bounded too: a
	// small receive buffer (a socket's messages are small; a large one
	// is read at the byte rate anyway), so a client sending an oversized
	// frame, refused from its header, has a few KiB in flight, not MiBs.
	for nc := c; nc != nil; {
		if tc, ok := nc.(interface{ SetReadBuffer(int) error }); ok {
			tc.SetReadBuffer(socketReadBuffer)
			break
		}
		u, ok := nc.(interface{ NetConn() net.Conn })
		if !ok {
			break
		}
		nc = u.NetConn()
	}
	return &ratedConn{Conn: c, rate: w.rate, done: w.done}, brw, nil
}

// socketReadBuffer is the kernel receive buffer of a socket's connection.
const socketReadBuffer = 64 << 10
