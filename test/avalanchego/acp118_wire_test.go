package avalanchego

import (
	"bytes"
	"net/netip"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/message"
	"github.com/ava-labs/avalanchego/network/p2p"
	"github.com/ava-labs/avalanchego/network/p2p/acp118"
	pbp2p "github.com/ava-labs/avalanchego/proto/pb/p2p"
	"github.com/ava-labs/avalanchego/proto/pb/sdk"
	"github.com/ava-labs/avalanchego/utils/compression"
	"github.com/prometheus/client_golang/prometheus"
	"google.golang.org/protobuf/proto"

	ours "github.com/avaedge/avaedge/local/source/acp118"
)

// creator is avalanchego's own message creator, compressing with zstd as a
// node does by default.
func creator(t *testing.T) message.Creator {
	t.Helper()
	c, err := message.NewCreator(prometheus.NewRegistry(), compression.TypeZstd, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestWireOursToAvalanchego encodes each message this client sends and
// decodes it with avalanchego's inbound parser and generated types.
func TestWireOursToAvalanchego(t *testing.T) {
	c := creator(t)
	parse := func(t *testing.T, b []byte) *message.InboundMessage {
		t.Helper()
		m, err := c.Parse(b, ids.GenerateTestNodeID(), func() {})
		if err != nil {
			t.Fatalf("avalanchego cannot parse %x: %v", b, err)
		}
		return m
	}
	t.Run("handshake", func(t *testing.T) {
		h := &ours.Handshake{
			NetworkID: 12345, MyTime: 1700000000, IPAddr: bytes.Repeat([]byte{7}, 16), IPPort: 9651, UpgradeTime: 1600000000,
			IPSigningTime: 1700000001, IPNodeIDSig: []byte("tls signature"), TrackedSubnets: [][]byte{bytes.Repeat([]byte{1}, 32)},
			Client: ours.Version{Name: "avalanchego", Major: 1, Minor: 14, Patch: 2}, SupportedACPs: []uint32{23, 24, 25},
			ObjectedACPs: []uint32{30}, KnownPeers: &ours.BloomFilter{Filter: []byte{1, 2, 3}, Salt: []byte{4}},
			IPBLSSig: bytes.Repeat([]byte{9}, 96), AllSubnets: true,
		}
		m := parse(t, ours.HandshakeMessage(h))
		got, ok := m.Message.(*pbp2p.Handshake)
		if !ok || m.Op != message.HandshakeOp {
			t.Fatalf("op %s, %T; want a Handshake", m.Op, m.Message)
		}
		want := &pbp2p.Handshake{
			NetworkId: h.NetworkID, MyTime: h.MyTime, IpAddr: h.IPAddr, IpPort: h.IPPort, UpgradeTime: h.UpgradeTime,
			IpSigningTime: h.IPSigningTime, IpNodeIdSig: h.IPNodeIDSig, TrackedSubnets: h.TrackedSubnets,
			Client:        &pbp2p.Client{Name: "avalanchego", Major: 1, Minor: 14, Patch: 2},
			SupportedAcps: h.SupportedACPs, ObjectedAcps: h.ObjectedACPs,
			KnownPeers: &pbp2p.BloomFilter{Filter: h.KnownPeers.Filter, Salt: h.KnownPeers.Salt},
			IpBlsSig:   h.IPBLSSig, AllSubnets: true,
		}
		if !proto.Equal(got, want) {
			t.Fatalf("got %v\nwant %v", got, want)
		}
	})
	t.Run("peer list, pong", func(t *testing.T) {
		if m := parse(t, ours.PeerListMessage()); m.Op != message.PeerListOp || len(m.Message.(*pbp2p.PeerList).ClaimedIpPorts) != 0 {
			t.Fatalf("got %s %v; want an empty PeerList", m.Op, m.Message)
		}
		if m := parse(t, ours.PongMessage()); m.Op != message.PongOp {
			t.Fatalf("got %s; want a Pong", m.Op)
		}
	})
	t.Run("app request with a signature request", func(t *testing.T) {
		chain := ids.GenerateTestID()
		msg, just := []byte("unsigned warp message"), []byte("justification")
		r := &ours.AppRequest{ChainID: chain[:], RequestID: 7, Deadline: uint64(2 * time.Second), AppBytes: ours.SignatureAppBytes(msg, just)}
		m := parse(t, ours.AppRequestMessage(r))
		got, ok := m.Message.(*pbp2p.AppRequest)
		if !ok {
			t.Fatalf("got %T; want an AppRequest", m.Message)
		}
		if !bytes.Equal(got.ChainId, chain[:]) || got.RequestId != 7 || got.Deadline != uint64(2*time.Second) {
			t.Fatalf("got %v", got)
		}
		if d := time.Until(m.Expiration); d <= 0 || d > 2*time.Second {
			t.Fatalf("expires in %v; want within the 2s deadline", d)
		}
		handler, body, ok := p2p.ParseMessage(got.AppBytes)
		if !ok || handler != acp118.HandlerID {
			t.Fatalf("handler %d, %v; want ACP-118's %d", handler, ok, acp118.HandlerID)
		}
		var req sdk.SignatureRequest
		if err := proto.Unmarshal(body, &req); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(req.Message, msg) || !bytes.Equal(req.Justification, just) {
			t.Fatalf("got %v", &req)
		}
	})
}

// TestWireAvalanchegoToOurs encodes each message a node sends with
// avalanchego's outbound builder (zstd where the node compresses) and
// decodes it with this package.
func TestWireAvalanchegoToOurs(t *testing.T) {
	c := creator(t)
	chain := ids.GenerateTestID()
	sigResp, err := proto.Marshal(&sdk.SignatureResponse{Signature: bytes.Repeat([]byte{0xab}, 96)})
	if err != nil {
		t.Fatal(err)
	}
	out := func(m *message.OutboundMessage, err error) []byte {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return m.Bytes
	}
	tests := []struct {
		name string
		b    []byte
		want ours.Inbound
	}{
		{"handshake", out(c.Handshake(12345, 1700000000, netip.MustParseAddrPort("[::ffff:127.0.0.1]:9651"), "avalanchego", 1, 14, 2,
			1600000000, 1700000001, []byte("sig"), bytes.Repeat([]byte{9}, 96), []ids.ID{chain}, []uint32{23}, []uint32{30},
			[]byte{1, 0, 0, 0, 0, 0, 0, 0, 0, 0}, []byte{5}, false)),
			ours.Inbound{Kind: 13, Handshake: &ours.Handshake{NetworkID: 12345, MyTime: 1700000000,
				IPAddr: netip.MustParseAddr("::ffff:127.0.0.1").AsSlice(), IPPort: 9651, UpgradeTime: 1600000000,
				IPSigningTime: 1700000001, IPNodeIDSig: []byte("sig"), TrackedSubnets: [][]byte{chain[:]},
				Client: ours.Version{Name: "avalanchego", Major: 1, Minor: 14, Patch: 2}, SupportedACPs: []uint32{23},
				ObjectedACPs: []uint32{30}, KnownPeers: &ours.BloomFilter{Filter: []byte{1, 0, 0, 0, 0, 0, 0, 0, 0, 0}, Salt: []byte{5}},
				IPBLSSig: bytes.Repeat([]byte{9}, 96)}}},
		{"peer list (zstd)", out(c.PeerList(nil, true)), ours.Inbound{Kind: 14, PeerList: true}},
		{"ping", out(c.Ping(100)), ours.Inbound{Kind: 11, Ping: true}},
		{"app response (zstd)", out(c.AppResponse(chain, 9, sigResp)),
			ours.Inbound{Kind: 31, AppResponse: &ours.AppResponse{ChainID: chain[:], RequestID: 9, AppBytes: sigResp}}},
		{"app error (zstd), negative code", out(c.AppError(chain, 11, -3, "no such message")),
			ours.Inbound{Kind: 34, AppError: &ours.AppError{ChainID: chain[:], RequestID: 11, ErrorCode: -3, ErrorMessage: "no such message"}}},
		{"app error (zstd), positive code", out(c.AppError(chain, 13, 7, "mismatch")),
			ours.Inbound{Kind: 34, AppError: &ours.AppError{ChainID: chain[:], RequestID: 13, ErrorCode: 7, ErrorMessage: "mismatch"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Field 2, compressed_zstd, is tag 0x12.
			if compressed := tt.b[0] == 0x12; compressed != strings.Contains(tt.name, "zstd") {
				t.Fatalf("compressed = %v; the case says otherwise", compressed)
			}
			got, err := ours.ParseMessage(tt.b)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(*got, tt.want) {
				t.Fatalf("got %+v\nwant %+v", *got, tt.want)
			}
		})
	}
	t.Run("signature response", func(t *testing.T) {
		r, err := ours.ParseSignatureResponse(sigResp)
		if err != nil || !bytes.Equal(r.Signature, bytes.Repeat([]byte{0xab}, 96)) {
			t.Fatalf("got %v, %v", r, err)
		}
	})
}
