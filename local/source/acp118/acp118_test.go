package acp118

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/avaedge/avaedge/local/source/acp118/pb/p2p"
	"github.com/avaedge/avaedge/local/vocab/avax"
)

// node is an in-process peer speaking this package's encoding: it
// handshakes and answers every signature request with sign(message), by
// default "sig:" + message. While hang is set it reads requests and answers
// none, as a hung validator does.
type node struct {
	ln       net.Listener
	id       *Identity
	network  uint32
	sign     func(msg []byte) []byte
	hang     atomic.Bool
	accepts  atomic.Int32 // connections accepted
	requests atomic.Int32 // AppRequests received
	closed   atomic.Int32 // connections the client closed (read EOF)
}

// listen returns a TLS listener on loopback with a fresh identity's
// certificate, as a node's staking port; the test closes it.
func listen(t *testing.T) (net.Listener, *Identity) {
	t.Helper()
	id, err := NewIdentity()
	if err != nil {
		t.Fatal(err)
	}
	ln, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{Certificates: []tls.Certificate{id.cert},
		ClientAuth: tls.RequireAnyClientCert, MinVersion: tls.VersionTLS13})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	return ln, id
}

func newNode(t *testing.T, network uint32) *node {
	t.Helper()
	ln, id := listen(t)
	n := &node{ln: ln, id: id, network: network, sign: func(msg []byte) []byte { return append([]byte("sig:"), msg...) }}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			n.accepts.Add(1)
			go n.serve(c)
		}
	}()
	return n
}

func (n *node) serve(c net.Conn) {
	defer c.Close()
	writeFrame(c, HandshakeMessage(&Handshake{NetworkID: n.network, IPAddr: make([]byte, 16), IPPort: 1}))
	for {
		b, err := readFrame(c)
		if err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
				n.closed.Add(1)
			}
			return
		}
		in, err := ParseMessage(b)
		if err != nil {
			return
		}
		switch {
		case in.Handshake != nil:
			writeFrame(c, PeerListMessage())
		case in.AppRequest != nil:
			n.requests.Add(1)
			if n.hang.Load() {
				continue
			}
			r, _ := ParseSignatureRequest(in.AppRequest.AppBytes[1:])
			if string(r.Message) == "hang up" {
				return
			}
			resp := &SignatureResponse{Signature: n.sign(r.Message)}
			writeFrame(c, marshal(&p2p.Message{Message: &p2p.Message_AppResponse{AppResponse: &p2p.AppResponse{
				ChainId: in.AppRequest.ChainID, RequestId: in.AppRequest.RequestID, AppBytes: resp.Marshal()}}}))
		}
	}
}

// newClient returns a Client of a fresh identity that finds the nodes by
// their listeners, with opts's clock and backoff.
func newClient(t *testing.T, network uint32, opts ClientOptions, nodes ...*node) *Client {
	t.Helper()
	me, err := NewIdentity()
	if err != nil {
		t.Fatal(err)
	}
	opts.Peer = func(context.Context) (PeerOptions, error) { return PeerOptions{NetworkID: network}, nil }
	opts.Resolve = func(_ context.Context, id avax.NodeID) (string, error) {
		for _, n := range nodes {
			if n.id.NodeID() == id {
				return n.ln.Addr().String(), nil
			}
		}
		return "", errors.New("unknown node")
	}
	c := NewClient(me, opts)
	t.Cleanup(func() { c.Close() })
	return c
}

func TestClient(t *testing.T) {
	n := newNode(t, 7)
	c := newClient(t, 7, ClientOptions{}, n)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for _, msg := range []string{"a", "b"} {
		sig, err := c.Sign(ctx, n.id.NodeID(), [32]byte{1}, []byte(msg), nil)
		if err != nil || string(sig) != "sig:"+msg {
			t.Fatalf("Sign(%s) = %q, %v", msg, sig, err)
		}
	}
	if got := n.accepts.Load(); got != 1 {
		t.Fatalf("%d connections for two requests; want one, reused", got)
	}
	// The node drops the kept connection: the request is retried once on a
	// fresh one, which the node drops too; the next request redials.
	if _, err := c.Sign(ctx, n.id.NodeID(), [32]byte{1}, []byte("hang up"), nil); !errors.Is(err, ErrClosed) {
		t.Fatalf("after a hang-up: %v; want ErrClosed", err)
	}
	if got := n.accepts.Load(); got != 2 {
		t.Fatalf("%d connections; want 2, one retry", got)
	}
	if sig, err := c.Sign(ctx, n.id.NodeID(), [32]byte{1}, []byte("c"), nil); err != nil || string(sig) != "sig:c" {
		t.Fatalf("after redial: %q, %v", sig, err)
	}
	if got := n.accepts.Load(); got != 3 {
		t.Fatalf("%d connections; want 3", got)
	}
	// A kept connection closed while idle: the request redials, no error.
	c.mu.Lock()
	kept := c.peers[n.id.NodeID()]
	c.mu.Unlock()
	kept.conn.Close()
	if sig, err := c.Sign(ctx, n.id.NodeID(), [32]byte{1}, []byte("d"), nil); err != nil || string(sig) != "sig:d" {
		t.Fatalf("after an idle close: %q, %v", sig, err)
	}
	other, _ := NewIdentity()
	if _, err := c.Sign(ctx, other.NodeID(), [32]byte{1}, []byte("x"), nil); err == nil || !strings.Contains(err.Error(), "unknown node") {
		t.Fatalf("unresolvable node: %v", err)
	}
	// Failures that are not timeouts back nothing off.
	if sig, err := c.Sign(ctx, n.id.NodeID(), [32]byte{1}, []byte("e"), nil); err != nil || string(sig) != "sig:e" {
		t.Fatalf("after the failures: %q, %v", sig, err)
	}
}

func TestDialFailures(t *testing.T) {
	me, _ := NewIdentity()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	t.Run("other network", func(t *testing.T) {
		n := newNode(t, 8)
		_, err := Dial(ctx, n.ln.Addr().String(), n.id.NodeID(), me, PeerOptions{NetworkID: 7})
		if !errors.Is(err, ErrHandshake) || !strings.Contains(err.Error(), "network 8, want 7") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("wrong node", func(t *testing.T) {
		n := newNode(t, 7)
		_, err := Dial(ctx, n.ln.Addr().String(), me.NodeID(), me, PeerOptions{NetworkID: 7})
		if !errors.Is(err, ErrWrongNode) {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("peer hangs up", func(t *testing.T) {
		ln, _ := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{Certificates: []tls.Certificate{me.cert},
			ClientAuth: tls.RequireAnyClientCert, MinVersion: tls.VersionTLS13})
		defer ln.Close()
		go func() {
			if c, err := ln.Accept(); err == nil {
				readFrame(c)
				c.Close()
			}
		}()
		_, err := Dial(ctx, ln.Addr().String(), avax.NodeID{}, me, PeerOptions{NetworkID: 7})
		if !errors.Is(err, ErrHandshake) || !strings.Contains(err.Error(), "hung up") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("silent peer", func(t *testing.T) {
		ln, _ := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{Certificates: []tls.Certificate{me.cert},
			ClientAuth: tls.RequireAnyClientCert, MinVersion: tls.VersionTLS13})
		defer ln.Close()
		go func() {
			if c, err := ln.Accept(); err == nil {
				defer c.Close()
				io.Copy(io.Discard, c) // reads, never answers, until the client hangs up
			}
		}()
		short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
		defer cancel()
		start := time.Now()
		_, err := Dial(short, ln.Addr().String(), avax.NodeID{}, me, PeerOptions{NetworkID: 7})
		if !errors.Is(err, ErrHandshake) || time.Since(start) > time.Second {
			t.Fatalf("err = %v after %v; want ErrHandshake at the deadline", err, time.Since(start))
		}
	})
	t.Run("nothing listens", func(t *testing.T) {
		ln, _ := net.Listen("tcp", "127.0.0.1:0")
		addr := ln.Addr().String()
		ln.Close()
		if _, err := Dial(ctx, addr, avax.NodeID{}, me, PeerOptions{NetworkID: 7}); err == nil {
			t.Fatal("dialled a closed port")
		}
	})
}

func TestFrames(t *testing.T) {
	var buf bytes.Buffer
	if err := writeFrame(&buf, []byte("hello")); err != nil {
		t.Fatal(err)
	}
	if got := buf.Bytes(); !bytes.Equal(got, []byte{0, 0, 0, 5, 'h', 'e', 'l', 'l', 'o'}) {
		t.Fatalf("frame %x", got)
	}
	if b, err := readFrame(&buf); err != nil || string(b) != "hello" {
		t.Fatalf("readFrame = %q, %v", b, err)
	}
	if err := writeFrame(&buf, make([]byte, MaxMessageSize+1)); !errors.Is(err, errTooLarge) {
		t.Fatalf("oversized write: %v", err)
	}
	if _, err := readFrame(bytes.NewReader([]byte{0, 0x20, 0, 1})); !errors.Is(err, errTooLarge) {
		t.Fatalf("oversized read: %v", err)
	}
}

func TestParseMessageRejects(t *testing.T) {
	enc, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	zip := func(b []byte) []byte { return compressed(enc.EncodeAll(b, nil)) }
	if in, err := ParseMessage(zip(PongMessage())); err != nil || in.Kind != kindOf("pong") {
		t.Fatalf("compressed Pong: %+v, %v", in, err)
	}
	for name, b := range map[string][]byte{
		"truncated tag":      {0x80},
		"truncated bytes":    {0x7a, 5, 1},
		"nested compression": zip(zip(PongMessage())),
		"not zstd":           compressed([]byte("plain")),
	} {
		if _, err := ParseMessage(b); !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: err = %v; want ErrMalformed", name, err)
		}
	}
	// An unknown message is not an error: it is skipped by its kind.
	in, err := ParseMessage(marshal(&p2p.Message{Message: &p2p.Message_AppGossip{AppGossip: &p2p.AppGossip{ChainId: []byte{1}}}}))
	if err != nil || in.Kind != 32 {
		t.Fatalf("AppGossip: %+v, %v", in, err)
	}
}

func FuzzParseMessage(f *testing.F) {
	f.Add(HandshakeMessage(&Handshake{NetworkID: 1, IPAddr: make([]byte, 16), IPPort: 1, SupportedACPs: []uint32{1, 2}}))
	f.Add(AppRequestMessage(&AppRequest{ChainID: make([]byte, 32), RequestID: 1, Deadline: 1, AppBytes: SignatureAppBytes([]byte("m"), nil)}))
	f.Add(marshal(&p2p.Message{Message: &p2p.Message_AppError{AppError: &p2p.AppError{ErrorCode: -3, ErrorMessage: "x"}}}))
	f.Fuzz(func(t *testing.T, b []byte) {
		in, err := ParseMessage(b)
		if err == nil && in == nil {
			t.Fatal("nil message without error")
		}
	})
}

// kindOf is the Kind of p2p.Message's oneof field name.
func kindOf(name protoreflect.Name) int { return int(messageFields.ByName(name).Number()) }

// compressed is a p2p.Message whose oneof is compressed_zstd holding b.
func compressed(b []byte) []byte {
	return marshal(&p2p.Message{Message: &p2p.Message_CompressedZstd{CompressedZstd: b}})
}
