package acp118

import (
	"cmp"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"sync"
	"time"

	"github.com/avaedge/avaedge/local/vocab/avax"
)

// Errors of a peer connection.
var (
	// ErrWrongNode means the peer's certificate is not the node id dialled.
	ErrWrongNode = errors.New("acp118: peer is not the node dialled")
	// ErrClosed means the connection closed before the answer came.
	ErrClosed = errors.New("acp118: connection closed")
	// ErrHandshake means the peer closed or misbehaved before the handshake
	// (Handshake and PeerList both ways) finished.
	ErrHandshake = errors.New("acp118: handshake failed")
	// ErrTimeout means the peer did not answer, or did not complete the
	// handshake, by the deadline.
	ErrTimeout = errors.New("acp118: the peer did not answer in time")
)

// Default durations of PeerOptions.
const (
	// DefaultIdleTimeout is PeerOptions.IdleTimeout's default: over two
	// of avalanchego's ping periods (network-ping-frequency, 22.5s).
	DefaultIdleTimeout = 60 * time.Second
	// DefaultFrameTimeout is PeerOptions.FrameTimeout's default.
	DefaultFrameTimeout = 10 * time.Second
	// DefaultDialTimeout bounds Dial when its context has no deadline.
	DefaultDialTimeout = 10 * time.Second
	// DefaultRequestTimeout bounds Request when its context has no
	// deadline.
	DefaultRequestTimeout = 5 * time.Second
)

// PeerOptions is what this client tells a peer in its Handshake, and how
// long it waits for the peer's bytes.
type PeerOptions struct {
	// NetworkID is the network's id; a peer of another network hangs up.
	NetworkID uint32
	// Client is the version announced. Peers hang up on versions they do not
	// consider compatible, so announce the followed node's own.
	Client Version
	// UpgradeTime is the network's latest upgrade time (unix seconds), sent
	// for the peer's information.
	UpgradeTime uint64
	// ClaimedIP is the address announced. This client accepts no inbound
	// connections; peers only track validators' IPs, so any valid address
	// with a non-zero port is fine. Zero means 127.0.0.1:9651.
	ClaimedIP netip.AddrPort
	// Now is the clock of MyTime and the IP signature. Nil means time.Now.
	Now func() time.Time
	// IdleTimeout bounds the wait for a frame once the connection is up: a
	// node pings its peers (every 22.5s by default), so a connection silent
	// for that long is dead or hung, and is closed. Requests in flight have
	// their own deadlines. Zero means DefaultIdleTimeout.
	IdleTimeout time.Duration
	// FrameTimeout bounds reading the rest of a frame once its length has
	// arrived, and writing one frame (or the request's deadline, when
	// sooner). A peer that stalls mid-frame is closed. Zero means
	// DefaultFrameTimeout.
	FrameTimeout time.Duration
}

// Peer is one handshaken connection to an avalanchego node. It is safe for
// concurrent use; requests are multiplexed by request id.
type Peer struct {
	conn   *tls.Conn
	nodeID avax.NodeID
	hello  *Handshake // the peer's Handshake
	idle   time.Duration
	frame  time.Duration

	writeMu sync.Mutex // serializes frames on conn

	// mu guards pending, nextID and err.
	mu      sync.Mutex
	pending map[uint32]chan *Inbound
	nextID  uint32
	err     error // why the connection closed, nil while open

	done chan struct{} // closed when the read loop ends
}

// Dial connects to a node at addr over TLS with id's certificate and runs
// the p2p handshake, within ctx's deadline or DefaultDialTimeout. want, when
// not zero, is the node id the peer's certificate must have. A dial that
// fails by the deadline wraps ErrTimeout.
func Dial(ctx context.Context, addr string, want avax.NodeID, id *Identity, opts PeerOptions) (*Peer, error) {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, DefaultDialTimeout)
		defer cancel()
	}
	dl, _ := ctx.Deadline()
	var d net.Dialer
	raw, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, timeout(fmt.Errorf("acp118: dial %s: %w", addr, err))
	}
	conn := tls.Client(raw, &tls.Config{
		Certificates: []tls.Certificate{id.cert},
		// A node's certificate is self-signed; it is authenticated by its
		// node id, checked below, as avalanchego peers do.
		InsecureSkipVerify: true, //nolint:gosec // checked against the node id
		MinVersion:         tls.VersionTLS13,
	})
	// The TLS and p2p handshakes end by ctx's deadline.
	conn.SetDeadline(dl)
	if err := conn.HandshakeContext(ctx); err != nil {
		raw.Close() // no TLS close_notify to a peer that may not read
		return nil, timeout(fmt.Errorf("acp118: tls with %s: %w", addr, err))
	}
	certs := conn.ConnectionState().PeerCertificates
	if len(certs) == 0 {
		raw.Close()
		return nil, fmt.Errorf("acp118: %s sent no certificate", addr)
	}
	got := NodeIDOf(certs[0].Raw)
	if want != (avax.NodeID{}) && got != want {
		raw.Close()
		return nil, fmt.Errorf("%w: %s is %s, want %s", ErrWrongNode, addr, got, want)
	}
	p := &Peer{conn: conn, nodeID: got, pending: map[uint32]chan *Inbound{}, nextID: 1, done: make(chan struct{}),
		idle: cmp.Or(opts.IdleTimeout, DefaultIdleTimeout), frame: cmp.Or(opts.FrameTimeout, DefaultFrameTimeout)}
	if err := p.handshake(ctx, dl, id, opts); err != nil {
		raw.Close()
		return nil, timeout(err)
	}
	conn.SetDeadline(time.Time{})
	go p.readLoop()
	return p, nil
}

// timeout wraps ErrTimeout around err when a deadline caused it.
func timeout(err error) error {
	var ne net.Error
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, os.ErrDeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()) {
		return fmt.Errorf("%w: %w", ErrTimeout, err)
	}
	return err
}

// handshake sends this client's Handshake, answers the peer's Handshake with
// a PeerList and waits for the peer's PeerList, which completes it on both
// sides (avalanchego network/peer: handleHandshake, handlePeerList), all by
// dl.
func (p *Peer) handshake(ctx context.Context, dl time.Time, id *Identity, opts PeerOptions) error {
	now := time.Now
	if opts.Now != nil {
		now = opts.Now
	}
	ip := opts.ClaimedIP
	if !ip.IsValid() {
		ip = netip.AddrPortFrom(netip.AddrFrom4([4]byte{127, 0, 0, 1}), 9651)
	}
	t := uint64(now().Unix())
	tlsSig, blsSig, err := id.signIP(ip, t)
	if err != nil {
		return err
	}
	addr := ip.Addr().As16()
	h := &Handshake{
		NetworkID:     opts.NetworkID,
		MyTime:        t,
		IPAddr:        addr[:],
		IPPort:        uint32(ip.Port()),
		UpgradeTime:   opts.UpgradeTime,
		IPSigningTime: t,
		IPNodeIDSig:   tlsSig,
		Client:        opts.Client,
		KnownPeers:    &BloomFilter{Filter: emptyBloom, Salt: []byte{0}},
		IPBLSSig:      blsSig,
	}
	if err := p.write(HandshakeMessage(h), dl); err != nil {
		return fmt.Errorf("%w: send: %w", ErrHandshake, err)
	}
	gotPeerList := false
	for p.hello == nil || !gotPeerList {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("%w: %w", ErrHandshake, err)
		}
		b, err := readFrame(p.conn)
		if errors.Is(err, os.ErrDeadlineExceeded) {
			return fmt.Errorf("%w: no handshake from the peer by the deadline: %w", ErrHandshake, err)
		}
		if err != nil {
			return fmt.Errorf("%w: the peer hung up (wrong network, incompatible version or refused identity): %w", ErrHandshake, err)
		}
		in, err := ParseMessage(b)
		if err != nil {
			return fmt.Errorf("%w: %w", ErrHandshake, err)
		}
		switch {
		case in.Handshake != nil:
			if in.Handshake.NetworkID != opts.NetworkID {
				return fmt.Errorf("%w: peer is on network %d, want %d", ErrHandshake, in.Handshake.NetworkID, opts.NetworkID)
			}
			p.hello = in.Handshake
			if err := p.write(PeerListMessage(), dl); err != nil {
				return fmt.Errorf("%w: send peer list: %w", ErrHandshake, err)
			}
		case in.PeerList:
			// Before the peer's Handshake a PeerList does not count.
			gotPeerList = p.hello != nil
		case in.Ping:
			if err := p.write(PongMessage(), dl); err != nil {
				return fmt.Errorf("%w: send pong: %w", ErrHandshake, err)
			}
		}
	}
	return nil
}

// emptyBloom is an avalanchego bloom filter (utils/bloom) with one hash seed
// and one byte of entries: the smallest filter bloom.Parse accepts.
var emptyBloom = []byte{1, 0, 0, 0, 0, 0, 0, 0, 0, 0}

// NodeID returns the peer's node id.
func (p *Peer) NodeID() avax.NodeID { return p.nodeID }

// Version returns the peer's announced version.
func (p *Peer) Version() Version { return p.hello.Client }

// write sends one frame by the frame timeout, or by dl when it is sooner.
// A write that fails leaves the connection unusable: the caller closes it.
func (p *Peer) write(msg []byte, dl time.Time) error {
	p.writeMu.Lock()
	defer p.writeMu.Unlock()
	if limit := time.Now().Add(p.frame); dl.IsZero() || limit.Before(dl) {
		dl = limit
	}
	p.conn.SetWriteDeadline(dl)
	return writeFrame(p.conn, msg)
}

// readFrame reads the next frame: its length within the idle timeout, the
// rest within the frame timeout.
func (p *Peer) readFrame() ([]byte, error) {
	p.conn.SetReadDeadline(time.Now().Add(p.idle))
	return readFrameThen(p.conn, func() { p.conn.SetReadDeadline(time.Now().Add(p.frame)) })
}

// readLoop dispatches responses to their requests and answers pings until
// the connection fails or a read passes its deadline.
func (p *Peer) readLoop() {
	var err error
	defer func() {
		p.mu.Lock()
		// A read past its deadline (a peer silent, or stalled mid-frame)
		// fails the requests in flight as a timeout.
		p.err = fmt.Errorf("%w: %w", ErrClosed, timeout(err))
		for id, ch := range p.pending {
			close(ch)
			delete(p.pending, id)
		}
		p.mu.Unlock()
		p.abort()
		close(p.done)
	}()
	for {
		var b []byte
		if b, err = p.readFrame(); err != nil {
			return
		}
		var in *Inbound
		if in, err = ParseMessage(b); err != nil {
			return
		}
		var reqID uint32
		switch {
		case in.Ping:
			if err = p.write(PongMessage(), time.Time{}); err != nil {
				return
			}
			continue
		case in.AppResponse != nil:
			reqID = in.AppResponse.RequestID
		case in.AppError != nil:
			reqID = in.AppError.RequestID
		default:
			continue // gossip, peer lists, requests to us: not ours to answer
		}
		p.mu.Lock()
		ch := p.pending[reqID]
		delete(p.pending, reqID)
		p.mu.Unlock()
		if ch != nil {
			ch <- in
		}
	}
}

// Close closes the connection; requests in flight fail with ErrClosed.
func (p *Peer) Close() error {
	err := p.abort()
	<-p.done
	return err
}

// abort closes the TCP connection under TLS, without the close_notify alert
// a graceful TLS close would first write: a peer that no longer reads would
// hold that write for seconds.
func (p *Peer) abort() error { return p.conn.NetConn().Close() }

// Done is closed when the connection has closed.
func (p *Peer) Done() <-chan struct{} { return p.done }

// Request sends an AppRequest on chainID and returns the AppResponse's app
// bytes, or the peer's *AppError. The request's deadline is ctx's, or
// DefaultRequestTimeout; a request the peer leaves unanswered until then
// fails with ErrTimeout (and context.DeadlineExceeded). The connection stays
// open: a late answer is dropped.
func (p *Peer) Request(ctx context.Context, chainID [32]byte, appBytes []byte) ([]byte, error) {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, DefaultRequestTimeout)
		defer cancel()
	}
	dl, _ := ctx.Deadline()
	deadline := time.Until(dl)
	if deadline <= 0 {
		return nil, context.DeadlineExceeded
	}
	ch := make(chan *Inbound, 1)
	p.mu.Lock()
	if p.err != nil {
		err := p.err
		p.mu.Unlock()
		return nil, err
	}
	id := p.nextID
	p.nextID += 2 // odd ids, as avalanchego's p2p SDK uses for its requests
	p.pending[id] = ch
	p.mu.Unlock()
	release := func() {
		p.mu.Lock()
		delete(p.pending, id)
		p.mu.Unlock()
	}
	req := &AppRequest{ChainID: chainID[:], RequestID: id, Deadline: uint64(deadline), AppBytes: appBytes}
	if err := p.write(AppRequestMessage(req), dl); err != nil {
		release()
		p.abort()
		if err := timeout(err); errors.Is(err, ErrTimeout) {
			return nil, fmt.Errorf("%w: sending to %s: %w", ErrClosed, p.nodeID, err)
		}
		return nil, fmt.Errorf("%w: send: %w", ErrClosed, err)
	}
	select {
	case <-ctx.Done():
		release()
		if err := ctx.Err(); errors.Is(err, context.DeadlineExceeded) {
			return nil, fmt.Errorf("%w: %s left request %d unanswered for %v: %w", ErrTimeout, p.nodeID, id, deadline.Round(time.Millisecond), err)
		}
		return nil, ctx.Err()
	case in, ok := <-ch:
		if !ok {
			p.mu.Lock()
			err := p.err
			p.mu.Unlock()
			return nil, err
		}
		if in.AppError != nil {
			return nil, in.AppError
		}
		return in.AppResponse.AppBytes, nil
	}
}

// Sign asks the peer for its ACP-118 signature of msg, an unsigned Warp
// message of chainID, and returns the signature bytes as sent (unverified).
func (p *Peer) Sign(ctx context.Context, chainID [32]byte, msg, justification []byte) ([]byte, error) {
	resp, err := p.Request(ctx, chainID, SignatureAppBytes(msg, justification))
	if err != nil {
		return nil, err
	}
	r, err := ParseSignatureResponse(resp)
	if err != nil {
		return nil, err
	}
	if len(r.Signature) == 0 {
		return nil, fmt.Errorf("%w: empty signature", ErrMalformed)
	}
	return r.Signature, nil
}
