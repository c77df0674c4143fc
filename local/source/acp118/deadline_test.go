package acp118

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"runtime"
	"sync/atomic"
	"testing"
	"testing/iotest"
	"time"

	"github.com/avaedge/avaedge/local/source/acp118/pb/p2p"
)

// stallingPeer listens for one connection, handshakes with this package's
// wire code, then hands the connection to then. It returns the address and
// the peer's identity.
func stallingPeer(t *testing.T, then func(c net.Conn)) (string, *Identity) {
	t.Helper()
	ln, id := listen(t)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		writeFrame(c, HandshakeMessage(&Handshake{NetworkID: 7, IPAddr: make([]byte, 16), IPPort: 1}))
		writeFrame(c, PeerListMessage())
		for range 2 { // the client's Handshake and PeerList
			if _, err := readFrame(c); err != nil {
				return
			}
		}
		then(c)
	}()
	return ln.Addr().String(), id
}

func dialFast(t *testing.T, addr string, id *Identity, opts PeerOptions) *Peer {
	t.Helper()
	me, err := NewIdentity()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	opts.NetworkID = 7
	p, err := Dial(ctx, addr, id.NodeID(), me, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

// TestPeerStallsMidFrame: a peer that sends a frame's length and part of
// it, then nothing, is closed by the frame timeout, and the request in
// flight fails as a timeout at once, not at its own (much later) deadline.
func TestPeerStallsMidFrame(t *testing.T) {
	addr, id := stallingPeer(t, func(c net.Conn) {
		if _, err := readFrame(c); err != nil { // the request
			return
		}
		c.Write(binary.BigEndian.AppendUint32(nil, 100))
		c.Write(make([]byte, 10))
		io.Copy(io.Discard, c) // stalls until the client hangs up
	})
	p := dialFast(t, addr, id, PeerOptions{FrameTimeout: 100 * time.Millisecond})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err := p.Sign(ctx, [32]byte{1}, []byte("m"), nil)
	if !errors.Is(err, ErrClosed) || !errors.Is(err, ErrTimeout) {
		t.Fatalf("request to a peer stalled mid-frame: %v; want ErrClosed and ErrTimeout", err)
	}
	if ctx.Err() != nil {
		t.Fatal("the request waited for its own deadline")
	}
	<-p.Done()
}

// TestPeerIdleTimeout: a connection on which the peer sends nothing at all
// (not even its pings) closes after the idle timeout.
func TestPeerIdleTimeout(t *testing.T) {
	addr, id := stallingPeer(t, func(c net.Conn) { io.Copy(io.Discard, c) })
	p := dialFast(t, addr, id, PeerOptions{IdleTimeout: 100 * time.Millisecond})
	select {
	case <-p.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("a silent connection is still open 5s after a 100ms idle timeout")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := p.Sign(ctx, [32]byte{1}, []byte("m"), nil); !errors.Is(err, ErrClosed) {
		t.Fatalf("request after the idle close: %v; want ErrClosed", err)
	}
}

// TestPeerPingsKeepAlive: a peer that pings more often than the idle
// timeout keeps the connection open and gets its pongs; once it stops, the
// connection closes.
func TestPeerPingsKeepAlive(t *testing.T) {
	var pongs atomic.Int32
	stop := make(chan struct{})
	addr, id := stallingPeer(t, func(c net.Conn) {
		go func() {
			for {
				b, err := readFrame(c)
				if err != nil {
					return
				}
				if in, err := ParseMessage(b); err == nil && in.Kind == kindOf("pong") {
					pongs.Add(1)
				}
			}
		}()
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-tick.C:
				writeFrame(c, marshal(&p2p.Message{Message: &p2p.Message_Ping{Ping: &p2p.Ping{}}}))
			case <-stop:
				io.Copy(io.Discard, c)
				return
			}
		}
	})
	p := dialFast(t, addr, id, PeerOptions{IdleTimeout: 200 * time.Millisecond})
	waitFor(t, "ten pongs", func() bool { return pongs.Load() >= 10 })
	select {
	case <-p.Done():
		t.Fatal("a pinging peer's connection closed")
	default:
	}
	close(stop)
	select {
	case <-p.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("the connection stayed open after the pings stopped")
	}
}

// TestRequestWriteDeadline: a peer that stops reading makes writes block
// once the buffers are full; a request's write gives up at the request's
// deadline and the connection closes at once, as a timeout.
func TestRequestWriteDeadline(t *testing.T) {
	addr, id := stallingPeer(t, func(c net.Conn) { time.Sleep(time.Minute) })
	p := dialFast(t, addr, id, PeerOptions{})
	big := make([]byte, MaxMessageSize-1<<10)
	for i := range 64 { // the kernel's buffers hold up to ~36 MiB here
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		start := time.Now()
		_, err := p.Request(ctx, [32]byte{1}, big)
		cancel()
		// Closed at once: no TLS close_notify waits on a peer that reads
		// nothing (crypto/tls gives that write 5s).
		if took := time.Since(start); took > 2*time.Second {
			t.Fatalf("request %d with a 50ms deadline took %v", i, took)
		}
		switch {
		case errors.Is(err, ErrClosed) && errors.Is(err, ErrTimeout):
			<-p.Done()
			return
		case !errors.Is(err, ErrTimeout):
			t.Fatalf("request %d: %v; want an unanswered request's ErrTimeout", i, err)
		}
	}
	t.Fatal("128 MiB written to a peer that reads nothing")
}

// TestReadFrameGrowsWithData: a frame's buffer grows with the bytes that
// arrive, so a peer announcing 2 MiB and sending 10 bytes does not cost
// 2 MiB; frames larger than a chunk still read whole, in small reads too.
func TestReadFrameGrowsWithData(t *testing.T) {
	short := append(binary.BigEndian.AppendUint32(nil, MaxMessageSize), make([]byte, 10)...)
	var before, after runtime.MemStats
	const runs = 20
	runtime.ReadMemStats(&before)
	for range runs {
		if _, err := readFrame(bytes.NewReader(short)); !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Fatalf("truncated frame: %v", err)
		}
	}
	runtime.ReadMemStats(&after)
	if per := (after.TotalAlloc - before.TotalAlloc) / runs; per > 4*frameChunk {
		t.Fatalf("a 10-byte frame announcing %d bytes allocated %d bytes", MaxMessageSize, per)
	}

	for _, n := range []int{0, 1, frameChunk - 1, frameChunk, frameChunk + 1, 3*frameChunk + 7, MaxMessageSize} {
		msg := bytes.Repeat([]byte{0xab}, n)
		for i := range msg {
			msg[i] = byte(i * 7)
		}
		var buf bytes.Buffer
		if err := writeFrame(&buf, msg); err != nil {
			t.Fatal(err)
		}
		got, err := readFrame(iotest.HalfReader(&buf))
		if err != nil || !bytes.Equal(got, msg) {
			t.Fatalf("frame of %d bytes: %d bytes back, %v", n, len(got), err)
		}
	}
}
