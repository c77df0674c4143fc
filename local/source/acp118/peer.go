package acp118

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"sync"
	"time"

	"github.com/avaedge/avaedge/local/avax"
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
)

// PeerOptions is what this client tells a peer in its Handshake.
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
}

// Peer is one handshaken connection to an avalanchego node. It is safe for
// concurrent use; requests are multiplexed by request id.
type Peer struct {
	conn   *tls.Conn
	nodeID avax.NodeID
	hello  *Handshake // the peer's Handshake

	writeMu sync.Mutex // serializes frames on conn

	// mu guards pending, nextID and err.
	mu      sync.Mutex
	pending map[uint32]chan *Inbound
	nextID  uint32
	err     error // why the connection closed, nil while open

	done chan struct{} // closed when the read loop ends
}

// Dial connects to a node at addr over TLS with id's certificate and runs
// the p2p handshake, within ctx's deadline or 10s. want, when not zero, is
// the node id the peer's certificate must have.
func Dial(ctx context.Context, addr string, want avax.NodeID, id *Identity, opts PeerOptions) (*Peer, error) {
	var d net.Dialer
	raw, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("acp118: dial %s: %w", addr, err)
	}
	conn := tls.Client(raw, &tls.Config{
		Certificates: []tls.Certificate{id.cert},
		// A node's certificate is self-signed; it is authenticated by its
		// node id, checked below, as avalanchego peers do.
		InsecureSkipVerify: true, //nolint:gosec // checked against the node id
		MinVersion:         tls.VersionTLS13,
	})
	// The TLS and p2p handshakes end by ctx's deadline, or within 10s.
	dl, ok := ctx.Deadline()
	if !ok {
		dl = time.Now().Add(10 * time.Second)
	}
	conn.SetDeadline(dl)
	if err := conn.HandshakeContext(ctx); err != nil {
		conn.Close()
		return nil, fmt.Errorf("acp118: tls with %s: %w", addr, err)
	}
	certs := conn.ConnectionState().PeerCertificates
	if len(certs) == 0 {
		conn.Close()
		return nil, fmt.Errorf("acp118: %s sent no certificate", addr)
	}
	got := NodeIDOf(certs[0].Raw)
	if want != (avax.NodeID{}) && got != want {
		conn.Close()
		return nil, fmt.Errorf("%w: %s is %s, want %s", ErrWrongNode, addr, got, want)
	}
	p := &Peer{conn: conn, nodeID: got, pending: map[uint32]chan *Inbound{}, nextID: 1, done: make(chan struct{})}
	if err := p.handshake(ctx, id, opts); err != nil {
		conn.Close()
		return nil, err
	}
	conn.SetDeadline(time.Time{})
	go p.readLoop()
	return p, nil
}

// handshake sends this client's Handshake, answers the peer's Handshake with
// a PeerList and waits for the peer's PeerList, which completes it on both
// sides (avalanchego network/peer: handleHandshake, handlePeerList).
func (p *Peer) handshake(ctx context.Context, id *Identity, opts PeerOptions) error {
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
	if err := p.write(HandshakeMessage(h)); err != nil {
		return fmt.Errorf("%w: send: %v", ErrHandshake, err)
	}
	gotPeerList := false
	for p.hello == nil || !gotPeerList {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("%w: %v", ErrHandshake, err)
		}
		b, err := readFrame(p.conn)
		if err != nil {
			return fmt.Errorf("%w: the peer hung up (wrong network, incompatible version or refused identity): %v", ErrHandshake, err)
		}
		in, err := ParseMessage(b)
		if err != nil {
			return fmt.Errorf("%w: %v", ErrHandshake, err)
		}
		switch {
		case in.Handshake != nil:
			if in.Handshake.NetworkID != opts.NetworkID {
				return fmt.Errorf("%w: peer is on network %d, want %d", ErrHandshake, in.Handshake.NetworkID, opts.NetworkID)
			}
			p.hello = in.Handshake
			if err := p.write(PeerListMessage()); err != nil {
				return fmt.Errorf("%w: send peer list: %v", ErrHandshake, err)
			}
		case in.PeerList:
			// Before the peer's Handshake a PeerList does not count.
			gotPeerList = p.hello != nil
		case in.Ping:
			if err := p.write(PongMessage()); err != nil {
				return fmt.Errorf("%w: send pong: %v", ErrHandshake, err)
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

func (p *Peer) write(msg []byte) error {
	p.writeMu.Lock()
	defer p.writeMu.Unlock()
	p.conn.SetWriteDeadline(time.Now().Add(10 * time.Second))
	return writeFrame(p.conn, msg)
}

// readLoop dispatches responses to their requests and answers pings until
// the connection fails.
func (p *Peer) readLoop() {
	var err error
	defer func() {
		p.mu.Lock()
		p.err = fmt.Errorf("%w: %v", ErrClosed, err)
		for id, ch := range p.pending {
			close(ch)
			delete(p.pending, id)
		}
		p.mu.Unlock()
		p.conn.Close()
		close(p.done)
	}()
	for {
		var b []byte
		if b, err = readFrame(p.conn); err != nil {
			return
		}
		var in *Inbound
		if in, err = ParseMessage(b); err != nil {
			return
		}
		var reqID uint32
		switch {
		case in.Ping:
			if err = p.write(PongMessage()); err != nil {
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
	err := p.conn.Close()
	<-p.done
	return err
}

// Done is closed when the connection has closed.
func (p *Peer) Done() <-chan struct{} { return p.done }

// Request sends an AppRequest on chainID and returns the AppResponse's app
// bytes, or the peer's *AppError. The request's deadline is ctx's, or 5s.
func (p *Peer) Request(ctx context.Context, chainID [32]byte, appBytes []byte) ([]byte, error) {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, 5*time.Second)
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
	if err := p.write(AppRequestMessage(req)); err != nil {
		release()
		p.conn.Close()
		return nil, fmt.Errorf("%w: send: %v", ErrClosed, err)
	}
	select {
	case <-ctx.Done():
		release()
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
