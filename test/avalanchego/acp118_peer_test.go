package avalanchego

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/binary"
	"errors"
	"io"
	"net/netip"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/message"
	"github.com/ava-labs/avalanchego/network/peer"
	pbp2p "github.com/ava-labs/avalanchego/proto/pb/p2p"
	"github.com/ava-labs/avalanchego/proto/pb/sdk"
	"github.com/ava-labs/avalanchego/staking"
	"github.com/ava-labs/avalanchego/utils/crypto/bls"
	"google.golang.org/protobuf/proto"

	"github.com/avaedge/avaedge/local/source/acp118"
	"github.com/avaedge/avaedge/local/vocab/avax"
)

// fakeNode is one avalanchego-side connection built from avalanchego's own
// parts: its TLS config, certificate parsing and message creator.
type fakeNode struct {
	t    *testing.T
	conn *tls.Conn
	c    message.Creator
}

func (f *fakeNode) read() *message.InboundMessage {
	f.t.Helper()
	f.conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	var l [4]byte
	if _, err := io.ReadFull(f.conn, l[:]); err != nil {
		f.t.Fatalf("read: %v", err)
	}
	b := make([]byte, binary.BigEndian.Uint32(l[:]))
	if _, err := io.ReadFull(f.conn, b); err != nil {
		f.t.Fatalf("read: %v", err)
	}
	m, err := f.c.Parse(b, ids.EmptyNodeID, func() {})
	if err != nil {
		f.t.Fatalf("avalanchego cannot parse the client's message: %v", err)
	}
	return m
}

func (f *fakeNode) send(m *message.OutboundMessage, err error) {
	f.t.Helper()
	if err != nil {
		f.t.Fatal(err)
	}
	b := binary.BigEndian.AppendUint32(nil, uint32(len(m.Bytes)))
	if _, err := f.conn.Write(append(b, m.Bytes...)); err != nil {
		f.t.Fatalf("write: %v", err)
	}
}

// TestPeerAgainstAvalanchegoParts runs the client's handshake and requests
// against a peer made of avalanchego's networking parts: the server checks
// the client's certificate, TLS and BLS IP signatures as network/peer does,
// and the client answers pings, matches responses by request id, returns
// AppErrors and fails requests when the connection closes.
func TestPeerAgainstAvalanchegoParts(t *testing.T) {
	cert, err := staking.NewTLSCert()
	if err != nil {
		t.Fatal(err)
	}
	ln, err := tls.Listen("tcp", "127.0.0.1:0", peer.TLSConfig(*cert, nil))
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	serverCert, err := staking.ParseCertificate(cert.Leaf.Raw)
	if err != nil {
		t.Fatal(err)
	}
	serverID := ids.NodeIDFromCert(serverCert)
	id, err := acp118.NewIdentity()
	if err != nil {
		t.Fatal(err)
	}
	claimed := netip.MustParseAddrPort("10.0.0.7:9651")
	opts := acp118.PeerOptions{NetworkID: 12345, Client: acp118.Version{Name: "avalanchego", Major: 1, Minor: 14, Patch: 2}, ClaimedIP: claimed}

	t.Run("wrong node id", func(t *testing.T) {
		go func() {
			if c, err := ln.Accept(); err == nil {
				c.(*tls.Conn).Handshake()
				c.Close()
			}
		}()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_, err := acp118.Dial(ctx, ln.Addr().String(), avax.NodeID(ids.GenerateTestNodeID()), id, opts)
		if !errors.Is(err, acp118.ErrWrongNode) {
			t.Fatalf("err = %v; want ErrWrongNode", err)
		}
	})

	type dialed struct {
		p   *acp118.Peer
		err error
	}
	done := make(chan dialed, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		p, err := acp118.Dial(ctx, ln.Addr().String(), avax.NodeID(serverID), id, opts)
		done <- dialed{p, err}
	}()
	raw, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	conn := raw.(*tls.Conn)
	defer conn.Close()
	if err := conn.Handshake(); err != nil {
		t.Fatal(err)
	}
	clientCert, err := staking.ParseCertificate(conn.ConnectionState().PeerCertificates[0].Raw)
	if err != nil {
		t.Fatalf("avalanchego rejects the client's certificate: %v", err)
	}
	if got := ids.NodeIDFromCert(clientCert); got != ids.NodeID(id.NodeID()) {
		t.Fatalf("client node id %s; Identity says %s", got, id.NodeID())
	}
	f := &fakeNode{t: t, conn: conn, c: creator(t)}

	m := f.read()
	h, ok := m.Message.(*pbp2p.Handshake)
	if !ok {
		t.Fatalf("first message %s; want the Handshake", m.Op)
	}
	addr, _ := netip.AddrFromSlice(h.IpAddr)
	signed := &peer.SignedIP{UnsignedIP: peer.UnsignedIP{AddrPort: netip.AddrPortFrom(addr, uint16(h.IpPort)), Timestamp: h.IpSigningTime},
		TLSSignature: h.IpNodeIdSig}
	if err := signed.Verify(clientCert, time.Now().Add(time.Minute)); err != nil {
		t.Fatalf("avalanchego rejects the IP's TLS signature: %v", err)
	}
	if signed.AddrPort.Port() != claimed.Port() || signed.AddrPort.Addr().Unmap() != claimed.Addr() || h.NetworkId != 12345 {
		t.Fatalf("handshake claims %s on network %d", signed.AddrPort, h.NetworkId)
	}
	blsSig, err := bls.SignatureFromBytes(h.IpBlsSig)
	if err != nil {
		t.Fatal(err)
	}
	blsKey, err := bls.PublicKeyFromCompressedBytes(id.BLSPublicKey())
	if err != nil {
		t.Fatal(err)
	}
	a16 := claimed.Addr().As16()
	ipBytes := binary.BigEndian.AppendUint64(binary.BigEndian.AppendUint16(a16[:], claimed.Port()), h.IpSigningTime)
	if !bls.VerifyProofOfPossession(blsKey, blsSig, ipBytes) {
		t.Fatal("avalanchego rejects the IP's BLS proof of possession")
	}

	// The node's side: Handshake, a Ping, then its PeerList.
	f.send(f.c.Handshake(12345, uint64(time.Now().Unix()), netip.MustParseAddrPort("127.0.0.1:9651"), "avalanchego", 1, 14, 2,
		0, uint64(time.Now().Unix()), []byte("sig"), bytes.Repeat([]byte{0}, 96), nil, nil, nil, nil, nil, false))
	f.send(f.c.Ping(0))
	f.send(f.c.PeerList(nil, true))
	if m := f.read(); m.Op != message.PeerListOp {
		t.Fatalf("after the node's Handshake: %s; want the client's PeerList", m.Op)
	}
	if m := f.read(); m.Op != message.PongOp {
		t.Fatalf("after the Ping: %s; want a Pong", m.Op)
	}
	d := <-done
	if d.err != nil {
		t.Fatalf("dial: %v", d.err)
	}
	p := d.p

	chain := ids.GenerateTestID()
	type result struct {
		sig []byte
		err error
	}
	sign := func(msg string) chan result {
		ch := make(chan result, 1)
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			sig, err := p.Sign(ctx, chain, []byte(msg), []byte("j"))
			ch <- result{sig, err}
		}()
		return ch
	}
	// Two requests in flight, answered out of order.
	first := sign("one")
	r1 := f.read().Message.(*pbp2p.AppRequest)
	second := sign("two")
	r2 := f.read().Message.(*pbp2p.AppRequest)
	if r1.RequestId == r2.RequestId || !bytes.Equal(r1.ChainId, chain[:]) {
		t.Fatalf("requests %d and %d on chain %x", r1.RequestId, r2.RequestId, r1.ChainId)
	}
	f.send(f.c.AppError(chain, r2.RequestId, 7, "provided conversionID != expected"))
	resp, _ := proto.Marshal(&sdk.SignatureResponse{Signature: []byte("signature of one")})
	f.send(f.c.AppResponse(chain, r1.RequestId, resp))
	if r := <-first; r.err != nil || string(r.sig) != "signature of one" {
		t.Fatalf("first: %q, %v", r.sig, r.err)
	}
	var appErr *acp118.AppError
	if r := <-second; !errors.As(r.err, &appErr) || appErr.ErrorCode != 7 {
		t.Fatalf("second: %v; want the AppError", r.err)
	}

	// The node hangs up with a request in flight.
	third := sign("three")
	f.read()
	conn.Close()
	if r := <-third; !errors.Is(r.err, acp118.ErrClosed) {
		t.Fatalf("after the node closed: %v; want ErrClosed", r.err)
	}
	select {
	case <-p.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("Done not closed")
	}
}
