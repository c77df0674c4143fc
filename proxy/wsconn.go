package proxy

import (
	"context"
	"errors"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"
	"golang.org/x/time/rate"

	"github.com/avaedge/avaedge/limits"
)

// The close codes a socket is closed with (RFC 6455 section 7.4 and IANA's
// registry; 4xxx are avaedge's own, in the range for applications). Each
// close frame's reason says why in words (docs/websockets.md).
const (
	closeNormal       = websocket.CloseNormalClosure     // 1000: idle, no subscription
	closeGoingAway    = websocket.CloseGoingAway         // 1001: avaedge shuts down; no pong
	closePolicy       = websocket.ClosePolicyViolation   // 1008: the client does not read (send queue full)
	closeTooBig       = websocket.CloseMessageTooBig     // 1009: a message over the bound (gorilla sends it)
	closeInternal     = websocket.CloseInternalServerErr // 1011
	closeBadGateway   = 1014                             // the chain or node ended a subscription
	closeUnauthorized = 4401                             // the key is no longer valid
	closeForbidden    = 4403                             // the plan no longer allows WebSockets
	closeOutOfCU      = 4429                             // the key ran out of compute units (or rate)
)

// maxPingRate is how many pings a second a client may send, in bursts of
// twice as many.
const maxPingRate = 10

var errTooManyPings = errors.New("too many pings")

// writeWait bounds one write to a client; closeWait bounds the close
// handshake's frame and the writer's exit once a socket is closed.
const (
	writeWait = 10 * time.Second
	closeWait = time.Second
)

// outMsg is one message waiting in a socket's send queue: an answer (body
// is the whole message), or a notification of sub (body is its result).
type outMsg struct {
	body []byte
	sub  *socketSub
}

// socket is one client connection. Its reader (run, in the upgrade's
// handler goroutine) admits and serves each message; its writer (writeLoop)
// alone writes data frames, charging each notification as it goes; the
// feeds hand it notifications through deliver, which never waits. It is
// safe for concurrent use.
type socket struct {
	s       *Server
	conn    *websocket.Conn
	ep      *socketEndpoint
	opts    *SocketOptions
	base    *http.Request // the upgrade, for the calls: its headers, address, host
	header  http.Header   // base's headers as each call carries them
	id      string        // the upgrade's request id
	remote  string        // the client's address, for logs
	release func()        // gives back the connection's slots

	client     limits.Client // who the limiter identified at the upgrade
	identified bool
	keyID      string
	identity   string

	ctx    context.Context // ends when the socket closes: in-flight calls stop
	cancel context.CancelFunc

	out    chan outMsg
	queued atomic.Int64 // bytes in out
	note   []byte       // the writer's buffer of a notification (writeLoop only)

	closeOnce sync.Once
	closed    chan struct{} // closed by closeWith: the writer sends the close frame
	code      int           // the close frame's code and reason, set in closeOnce
	reason    string
	done      chan struct{} // closed when the writer returned

	calls sync.WaitGroup // the messages being served
	slots chan struct{}  // one token per message being served

	last atomic.Int64 // unix nanoseconds of the last message read

	mu   sync.Mutex // guards subs and joining
	subs map[string]*socketSub
	// joining counts the subscriptions being made (subscribe).
	joining int
}

// closeWith closes the socket with code and reason (at most 123 bytes):
// the writer sends the close frame and stops; the reader's next read fails.
// Only the first call counts.
func (k *socket) closeWith(code int, reason string) {
	k.closeOnce.Do(func() {
		if len(reason) > 123 {
			reason = reason[:120] + "..."
		}
		k.code, k.reason = code, reason
		close(k.closed)
		k.cancel()
	})
}

func (k *socket) isClosed() bool {
	select {
	case <-k.closed:
		return true
	default:
		return false
	}
}

// send queues an answer.
func (k *socket) send(body []byte) { k.enqueue(outMsg{body: body}) }

// enqueue puts m in the send queue without waiting: a client whose queue
// is full (in messages, or in bytes with more than one waiting) does not
// read, and is disconnected.
func (k *socket) enqueue(m outMsg) {
	if k.isClosed() {
		return
	}
	n := int64(len(m.body))
	if q := k.queued.Add(n); q > n && q > maxQueuedBytes {
		k.queued.Add(-n)
		k.dropSlow()
		return
	}
	select {
	case k.out <- m:
	default:
		k.queued.Add(-n)
		k.dropSlow()
	}
}

// maxQueuedBytes bounds the bytes waiting for one client (one larger
// message is let through when nothing else waits).
const maxQueuedBytes = 8 << 20

// dropSlow disconnects a client that does not read its messages.
func (k *socket) dropSlow() {
	if k.isClosed() {
		return
	}
	k.s.sockets.m.slow.Inc()
	k.s.log.Warn("websocket: client does not read its messages; disconnected", "requestId", k.id, "remote", k.remote, "keyId", k.keyID)
	k.closeWith(closePolicy, "send queue full: the client does not read its messages")
}

// run serves the socket until it closes: it reads each message (the read
// limit closes an oversized one with 1009), at the connection's message
// rate, and serves it in its own goroutine, a bounded number at a time.
// Then it closes the socket, waits for the writer and the calls, and
// removes the subscriptions.
func (k *socket) run() {
	go k.writeLoop() // owned by the socket: returns once closed
	defer k.finish()
	o := k.opts
	lim := rate.NewLimiter(rate.Limit(o.MessagesPerSecond), max(1, int(2*o.MessagesPerSecond)))
	readWait := 2 * o.PingInterval
	k.conn.SetReadLimit(o.MaxMessageBytes)
	k.conn.SetPongHandler(func(string) error {
		return k.conn.SetReadDeadline(time.Now().Add(readWait))
	})
	// A client may ping (browsers do not; some libraries do, every few
	// seconds); a flood of pings, each a pong to write, is closed.
	pings := rate.NewLimiter(maxPingRate, 2*maxPingRate)
	k.conn.SetPingHandler(func(data string) error {
		if !pings.Allow() {
			k.closeWith(closePolicy, "too many pings")
			return errTooManyPings
		}
		err := k.conn.WriteControl(websocket.PongMessage, []byte(data), time.Now().Add(closeWait))
		var ne net.Error
		if err == nil || errors.Is(err, websocket.ErrCloseSent) || errors.As(err, &ne) && ne.Timeout() {
			return nil // as gorilla's own handler: a pong that cannot go now is dropped
		}
		return err
	})
	for {
		k.conn.SetReadDeadline(time.Now().Add(readWait))
		_, msg, err := k.conn.ReadMessage()
		if err != nil {
			k.readFailed(err)
			return
		}
		k.s.sockets.m.messages.Inc()
		k.last.Store(time.Now().UnixNano())
		if lim.Wait(k.ctx) != nil {
			return
		}
		select {
		case k.slots <- struct{}{}:
		case <-k.ctx.Done():
			return
		}
		k.calls.Add(1)
		go k.serve(msg) // owned by the socket: finish waits for it
	}
}

// readFailed closes the socket after a failed read, with the code that
// says why when the edge decides it (gorilla has already answered a
// client's close, an oversized message and a protocol error).
func (k *socket) readFailed(err error) {
	var ce *websocket.CloseError
	var ne net.Error
	switch {
	case errors.As(err, &ce):
		k.closeWith(ce.Code, "")
	case errors.Is(err, websocket.ErrReadLimit):
		k.closeWith(closeTooBig, "message larger than the limit")
	case errors.As(err, &ne) && ne.Timeout():
		k.closeWith(closeGoingAway, "no message or pong for two ping intervals")
	default:
		k.closeWith(closeInternal, "read failed")
	}
}

// finish ends the socket: the close frame and the writer, the calls being
// served, the subscriptions, the connection's slots.
func (k *socket) finish() {
	k.closeWith(closeInternal, "") // when nothing said otherwise
	select {
	case <-k.done:
	case <-time.After(2 * closeWait):
		k.conn.UnderlyingConn().Close() // a writer stuck on a client that does not read
		<-k.done
	}
	k.conn.Close()
	k.calls.Wait()
	k.mu.Lock()
	subs := k.subs
	k.subs = nil
	k.mu.Unlock()
	for _, sub := range subs {
		sub.leave()
	}
	k.s.sockets.m.closed.WithLabelValues(closeLabel(k.code)).Inc()
	k.release()
}

// writeLoop writes the queued messages, pings the client every ping
// interval, closes an idle connection, and sends the close frame when the
// socket is closed.
func (k *socket) writeLoop() {
	defer close(k.done)
	ping := time.NewTicker(k.opts.PingInterval)
	defer ping.Stop()
	for {
		select {
		case m := <-k.out:
			k.queued.Add(-int64(len(m.body)))
			if err := k.write(m); err != nil {
				k.closeWith(closeInternal, "write failed")
			}
		case now := <-ping.C:
			if k.idle(now) {
				k.closeWith(closeNormal, "idle: no subscription and no message for "+k.opts.IdleTimeout.String())
				continue
			}
			if k.conn.WriteControl(websocket.PingMessage, nil, now.Add(writeWait)) != nil {
				k.closeWith(closeInternal, "ping failed")
			}
		case <-k.closed:
			k.conn.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(k.code, k.reason), time.Now().Add(closeWait))
			return
		}
	}
}

// idle reports whether the socket has no subscription and read no message
// for the idle timeout.
func (k *socket) idle(now time.Time) bool {
	k.mu.Lock()
	n := len(k.subs)
	k.mu.Unlock()
	return n == 0 && now.Sub(time.Unix(0, k.last.Load())) >= k.opts.IdleTimeout
}

// write writes one queued message: an answer as it is, a notification
// once it is charged (a key out of compute units closes the socket).
func (k *socket) write(m outMsg) error {
	if k.isClosed() {
		return nil
	}
	k.conn.SetWriteDeadline(time.Now().Add(writeWait))
	if m.sub == nil {
		return k.conn.WriteMessage(websocket.TextMessage, m.body)
	}
	if !k.charge(m.sub) {
		return nil
	}
	// Built in the writer's own buffer and written whole: gorilla's
	// WriteMessage allocates nothing for a server without compression.
	b := append(k.note[:0], notePrefix...)
	b = append(b, m.sub.id...)
	b = append(b, noteMiddle...)
	b = append(b, m.body...)
	k.note = append(b, noteSuffix...)
	if err := k.conn.WriteMessage(websocket.TextMessage, k.note); err != nil {
		return err
	}
	if cap(k.note) > 64<<10 {
		k.note = nil // a large one is not kept
	}
	m.sub.sent.Inc()
	return nil
}

// A notification is written as go-ethereum writes it.
var (
	notePrefix = []byte(`{"jsonrpc":"2.0","method":"eth_subscription","params":{"subscription":"`)
	noteMiddle = []byte(`","result":`)
	noteSuffix = []byte(`}}`)
)
