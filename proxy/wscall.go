package proxy

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/rpc"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/avaedge/avaedge/catalog"
	"github.com/avaedge/avaedge/jsonrpc"
	"github.com/avaedge/avaedge/limits"
	"github.com/avaedge/avaedge/usage"
)

// Each message a client sends on a socket is served as a request to the
// socket's JSON-RPC twin (/ext/bc/C/rpc for /ext/bc/C/ws) made of the
// upgrade's headers and the message: admitted for the endpoint's minimum
// before it is parsed, its calls allowed and priced as over HTTP and charged
// the rest, forwarded (the node upstream's HTTP endpoint, with its breaker
// and fallback, or the dev chain's handler, which counts the client's
// writes), answered with the same bytes, and metered as a request of its
// route. eth_subscribe and eth_unsubscribe are the socket's own: answered
// by the edge from a feed (wsfeed.go), in the batch's order among the other
// answers. A call the client is not allowed, or cannot pay for, gets the
// node's error (-32005 "limit exceeded" for 429) in its answer.

// serveMessage serves one message of k and queues its answer, then starts
// the subscriptions it made: a subscription's first notification never
// comes before its id.
func (k *socket) serve(msg []byte) {
	defer func() { <-k.slots; k.calls.Done() }()
	w := &messageWriter{h: make(http.Header, 8)}
	sc := &socketCalls{sock: k}
	r := (&http.Request{Method: http.MethodPost, URL: &url.URL{Path: k.ep.rpcPath}, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: k.header, Host: k.base.Host, RemoteAddr: k.base.RemoteAddr, RequestURI: k.ep.rpcPath,
		ContentLength: int64(len(msg)), Body: http.NoBody}).WithContext(context.WithValue(k.ctx, socketCallsKey{}, sc))
	s := k.s
	ex := s.begin(w, r, catalog.Node, catalog.EVMRoute)
	if s.admitEndpoint(ex, s.endpoints["evm"]) {
		s.serveEVM(ex, msg)
	}
	s.finish(ex)
	body := w.answer()
	if w.status >= http.StatusBadRequest && ex.source == FromEdge {
		body = refusalPerCall(body, msg)
	}
	if body != nil {
		k.send(body)
	}
	for _, sub := range sc.made {
		sub.activate()
	}
}

// messageWriter holds the answer to one message.
type messageWriter struct {
	h      http.Header
	status int
	body   []byte
	over   bool // the answer passed maxAnswerBytes
}

// maxAnswerBytes bounds one answer sent on a socket, as go-ethereum's
// client bounds what it reads.
const maxAnswerBytes = maxUpstreamBody

func (w *messageWriter) Header() http.Header { return w.h }

func (w *messageWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
}

func (w *messageWriter) Write(p []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	if len(w.body)+len(p) > maxAnswerBytes {
		w.over = true
		return 0, errAnswerTooLarge
	}
	w.body = append(w.body, p...)
	return len(p), nil
}

var errAnswerTooLarge = errors.New("answer too large for a WebSocket message")

// answer is the message to send: the body without its final newline; nil
// for none (notifications only). An answer that is not JSON (an upstream's
// failure page) or too large becomes a JSON-RPC error without an id.
func (w *messageWriter) answer() []byte {
	b := bytes.TrimRight(w.body, "\n")
	switch {
	case w.over:
		return jsonrpc.AppendEthError(nil, nil, &jsonrpc.EthError{Code: jsonrpc.CodeServer, Message: errAnswerTooLarge.Error()})
	case len(b) == 0:
		return nil
	case !json.Valid(b):
		return jsonrpc.AppendEthError(nil, nil, &jsonrpc.EthError{Code: jsonrpc.CodeServer, Message: "the node answered HTTP " + strconv.Itoa(w.status) + " without a JSON-RPC body"})
	}
	return b
}

// refusalPerCall turns the edge's refusal of a whole message (401, 403,
// 429 at admission: one error without an id, as over HTTP, where the
// status tells) into go-ethereum's answer to each of its calls: the error
// with each call's id, in a batch for a batch. A socket has no status: a
// client matches answers by id.
func refusalPerCall(refusal, msg []byte) []byte {
	var r struct {
		Error *jsonrpc.EthError `json:"error"`
	}
	calls, batch, err := jsonrpc.ParseEth(msg, maxBatch)
	if err != nil || json.Unmarshal(refusal, &r) != nil || r.Error == nil {
		return refusal
	}
	var b []byte
	n := 0
	for i := range calls {
		c := &calls[i]
		if c.Response || c.IsNotification() {
			continue
		}
		if n > 0 {
			b = append(b, ',')
		}
		b = c.AppendError(b, r.Error)
		n++
	}
	switch {
	case n == 0:
		return nil
	case batch:
		return append(append([]byte{'['}, b...), ']')
	}
	return b
}

// socketCalls are the socket's own calls of one message (eth_subscribe,
// eth_unsubscribe), which serveEVM answers through it once the message is
// charged.
type socketCalls struct {
	sock *socket
	// made are the subscriptions the message made, started once its
	// answer is queued.
	made []*socketSub
}

// socketCallsKey is the context key of a socket message's socketCalls,
// which serveEVM finds there: an HTTP request has none (and its exchange,
// allocated on every hit, no field for it).
type socketCallsKey struct{}

// socketCallsOf returns the socket calls of ex's message, nil for an HTTP
// request.
func socketCallsOf(ex *exchange) *socketCalls {
	sc, _ := ex.r.Context().Value(socketCallsKey{}).(*socketCalls)
	return sc
}

// isSocketMethod reports whether a call is the socket's own.
func isSocketMethod(m string) bool { return m == "eth_subscribe" || m == "eth_unsubscribe" }

// answer answers one call of the socket's own methods.
func (sc *socketCalls) answer(c *jsonrpc.EthCall) []byte {
	var res any
	var err *jsonrpc.EthError
	if c.Method == "eth_subscribe" {
		res, err = sc.subscribe(c.Params)
	} else {
		res, err = sc.sock.unsubscribe(c.Params)
	}
	if err != nil {
		return c.AppendError(nil, err)
	}
	b := append([]byte(`{"jsonrpc":"2.0","id":`), c.ID...)
	b = append(b, `,"result":`...)
	enc, _ := json.Marshal(res)
	return append(append(b, enc...), '}')
}

// Bounds of a logs subscription's filter: go-ethereum's for eth_getLogs
// (eth/filters: 4 topic positions, LogQueryLimit's 1,000 addresses and
// topics per position).
const (
	maxLogTopics    = 4
	maxLogAddresses = 1000
)

// subscribe makes a subscription of params ([kind, ...]) on the socket's
// feed.
func (sc *socketCalls) subscribe(params json.RawMessage) (any, *jsonrpc.EthError) {
	k := sc.sock
	var args []json.RawMessage
	if json.Unmarshal(params, &args) != nil || len(args) == 0 {
		return nil, &jsonrpc.EthError{Code: -32602, Message: "invalid params: eth_subscribe takes [kind, ...]"}
	}
	var kind string
	if json.Unmarshal(args[0], &kind) != nil || !slices.Contains(catalog.SubscriptionKinds, kind) {
		return nil, &jsonrpc.EthError{Code: -32602, Message: "unsupported subscription kind; served: newHeads, logs, newPendingTransactions"}
	}
	if msg := checkSubscription(kind, args[1:]); msg != "" {
		return nil, &jsonrpc.EthError{Code: -32602, Message: msg}
	}
	if k.ep.feed == nil {
		return nil, &jsonrpc.EthError{Code: jsonrpc.CodeServer, Message: k.ep.noFeed}
	}
	// A place among the connection's subscriptions is taken before the
	// feed is asked, so messages served at once cannot pass the bound.
	k.mu.Lock()
	if len(k.subs)+k.joining >= k.opts.SubscriptionsPerConnection {
		k.mu.Unlock()
		return nil, &jsonrpc.EthError{Code: -32005, Message: "too many subscriptions on this connection (at most " + strconv.Itoa(k.opts.SubscriptionsPerConnection) + ")"}
	}
	k.joining++
	k.mu.Unlock()
	defer func() {
		k.mu.Lock()
		k.joining--
		k.mu.Unlock()
	}()
	release, ok := k.s.sockets.takeSubscription()
	if !ok {
		return nil, &jsonrpc.EthError{Code: -32005, Message: "too many subscriptions on this server; try again later"}
	}
	canon := make([]any, len(args))
	for i, a := range args {
		canon[i] = jsonrpc.Canonical(a)
	}
	key, _ := json.Marshal(canon)
	sub := newSocketSub(k, kind, release)
	ctx, cancel := context.WithTimeout(k.ctx, subscribeTimeout)
	t, err := k.ep.feed.join(ctx, string(key), canon, sub)
	cancel()
	if err != nil {
		release()
		return nil, feedError(err)
	}
	sub.topic = t
	k.mu.Lock()
	if k.subs == nil { // closed meanwhile: finish has taken the list
		k.mu.Unlock()
		sub.leave()
		return nil, &jsonrpc.EthError{Code: jsonrpc.CodeServer, Message: "connection closed"}
	}
	k.subs[string(sub.id)] = sub
	k.mu.Unlock()
	sub.gauge.Inc()
	sc.made = append(sc.made, sub)
	return string(sub.id), nil
}

// checkSubscription checks the parameters after the kind, as go-ethereum
// decodes them, and a logs filter against eth_getLogs's bounds. It returns
// the refusal's message, or "".
func checkSubscription(kind string, rest []json.RawMessage) string {
	want := 1
	if kind == "newHeads" {
		want = 0
	}
	switch {
	case len(rest) > want:
		return "too many arguments, want at most " + strconv.Itoa(want)
	case len(rest) == 0:
		return ""
	case kind == "newPendingTransactions":
		var full *bool
		if json.Unmarshal(rest[0], &full) != nil {
			return "invalid argument 0: fullTx must be a boolean"
		}
		return ""
	}
	var crit struct {
		Address json.RawMessage   `json:"address"`
		Topics  []json.RawMessage `json:"topics"`
	}
	if json.Unmarshal(rest[0], &crit) != nil {
		return "invalid argument 0: the filter must be an object"
	}
	if len(crit.Topics) > maxLogTopics {
		return "exceed max topics"
	}
	var addrs []json.RawMessage
	if len(crit.Address) > 0 && crit.Address[0] == '[' && json.Unmarshal(crit.Address, &addrs) == nil && len(addrs) > maxLogAddresses {
		return "exceed max addresses or topics per search position"
	}
	for _, t := range crit.Topics {
		var alts []json.RawMessage
		if len(t) > 0 && t[0] == '[' && json.Unmarshal(t, &alts) == nil && len(alts) > maxLogAddresses {
			return "exceed max addresses or topics per search position"
		}
	}
	return ""
}

// feedError is the answer to a subscription the feed could not make: the
// chain's own error, or -32000 naming the failure.
func feedError(err error) *jsonrpc.EthError {
	var re rpc.Error
	if errors.As(err, &re) {
		return &jsonrpc.EthError{Code: re.ErrorCode(), Message: re.Error()}
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return &jsonrpc.EthError{Code: jsonrpc.CodeServer, Message: "the chain did not make the subscription in time"}
	}
	return &jsonrpc.EthError{Code: jsonrpc.CodeServer, Message: "the chain's subscriptions are unavailable: " + err.Error()}
}

// unsubscribe ends one of the socket's subscriptions: true, or
// go-ethereum's "subscription not found".
func (k *socket) unsubscribe(params json.RawMessage) (any, *jsonrpc.EthError) {
	var ids []string
	if json.Unmarshal(params, &ids) != nil || len(ids) != 1 {
		return nil, &jsonrpc.EthError{Code: -32602, Message: "invalid params: eth_unsubscribe takes [id]"}
	}
	k.mu.Lock()
	sub := k.subs[ids[0]]
	delete(k.subs, ids[0])
	k.mu.Unlock()
	if sub == nil {
		return nil, &jsonrpc.EthError{Code: jsonrpc.CodeServer, Message: "subscription not found"}
	}
	sub.leave()
	return true, nil
}

// socketSub is one client subscription: its id, its socket, its topic.
type socketSub struct {
	id      []byte // "0x" and 32 hex digits, as go-ethereum makes them
	kind    string
	sock    *socket
	topic   *topic
	release func() // gives back the server's subscription slot
	gauge   prometheus.Gauge
	sent    prometheus.Counter

	mu sync.Mutex // guards active and early
	// active says the client has the subscription's id: notifications go
	// straight to the send queue; before, they wait in early.
	active bool
	early  []json.RawMessage
	once   sync.Once // guards leave
}

// maxEarly bounds the notifications a subscription keeps until its id is
// sent.
const maxEarly = 64

func newSocketSub(k *socket, kind string, release func()) *socketSub {
	var b [16]byte
	rand.Read(b[:])
	id := make([]byte, 2, 34)
	copy(id, "0x")
	id = hex.AppendEncode(id, b[:])
	m := k.s.sockets.m
	return &socketSub{id: id, kind: kind, sock: k, release: release,
		gauge: m.subs.WithLabelValues(kind), sent: m.notes.WithLabelValues(kind)}
}

// deliver hands one notification to the subscriber's socket, never
// waiting; the topic calls it for each notification, in order.
func (sub *socketSub) deliver(raw json.RawMessage) {
	sub.mu.Lock()
	if !sub.active {
		full := len(sub.early) >= maxEarly
		if !full {
			sub.early = append(sub.early, raw)
		}
		sub.mu.Unlock()
		if full {
			sub.sock.dropSlow()
		}
		return
	}
	sub.mu.Unlock()
	sub.sock.enqueue(outMsg{body: raw, sub: sub})
}

// activate sends what waited and lets notifications through.
func (sub *socketSub) activate() {
	sub.mu.Lock()
	defer sub.mu.Unlock()
	for _, raw := range sub.early {
		sub.sock.enqueue(outMsg{body: raw, sub: sub})
	}
	sub.early, sub.active = nil, true
}

// leave ends the subscription: its topic forgets it, its slot is given
// back.
func (sub *socketSub) leave() {
	sub.once.Do(func() {
		sub.topic.f.leave(sub.topic, sub)
		sub.release()
		sub.gauge.Dec()
	})
}

// charge charges the subscriber for one notification, by the socket's
// plan's price, and records it in the key's usage. A client the limiter
// refuses is closed with the reason: out of compute units (4429), its
// plan no longer allowing WebSockets (4403), its key no longer valid
// (4401).
func (k *socket) charge(sub *socketSub) bool {
	cost := k.opts.NotificationCost
	now := time.Now()
	if id, ok := k.s.opts.Limiter.(Identifier); ok && k.identified {
		d := id.AdmitClient(k.ctx, k.client, limits.Charge{Routes: socketRoute, Cost: cost, Extra: true, At: now})
		if d.Status != 0 {
			code := closeOutOfCU
			switch d.Status {
			case http.StatusUnauthorized:
				code = closeUnauthorized
			case http.StatusForbidden:
				code = closeForbidden
			}
			k.closeWith(code, d.Message)
			return false
		}
	}
	if u := k.s.opts.Usage; u != nil && k.identity != "" {
		// The endpoint stands for the route, path and method of every
		// notification it sends (usage.Record.Shape): counted by a pointer.
		u.Record(usage.Record{Start: now, Identity: k.identity, KeyID: k.keyID, Route: catalog.EVMSocketRoute,
			Path: k.ep.path, Method: "eth_subscription", Shape: k.ep, RequestID: k.id, RemoteAddr: k.base.RemoteAddr, Host: k.base.Host,
			Header: k.header, Status: http.StatusOK, Source: k.ep.feed.source, CU: cost, RPC: true})
	}
	return true
}

// socketRoute is the charge's route of what only a socket does.
var socketRoute = []string{catalog.EVMSocketRoute}
