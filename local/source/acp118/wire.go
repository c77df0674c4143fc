package acp118

import (
	"errors"
	"fmt"

	"google.golang.org/protobuf/proto"

	"github.com/avaedge/avaedge/local/source/acp118/pb/p2p"
	"github.com/avaedge/avaedge/local/source/acp118/pb/sdk"
)

// The messages below are the part of avalanchego's p2p.Message and
// sdk.Signature* (v1.14) that a signature request needs, as plain values.
// They travel as the Go types generated from avalanchego's own .proto files
// (proto/, pb/): the main module cannot import avalanchego.

// messageFields are p2p.Message's fields: its oneof.
var messageFields = (&p2p.Message{}).ProtoReflect().Descriptor().Fields()

// ErrMalformed means a peer sent bytes that are not the protobuf message
// they should be.
var ErrMalformed = errors.New("acp118: malformed message")

// Handshake is p2p.Handshake.
type Handshake struct {
	NetworkID      uint32
	MyTime         uint64 // unix seconds
	IPAddr         []byte // 16 bytes
	IPPort         uint32
	UpgradeTime    uint64
	IPSigningTime  uint64
	IPNodeIDSig    []byte
	TrackedSubnets [][]byte
	Client         Version
	SupportedACPs  []uint32
	ObjectedACPs   []uint32
	KnownPeers     *BloomFilter
	IPBLSSig       []byte
	AllSubnets     bool
}

// Version is p2p.Client, the peer's software version.
type Version struct {
	Name                string
	Major, Minor, Patch uint32
}

// BloomFilter is p2p.BloomFilter.
type BloomFilter struct {
	Filter, Salt []byte
}

// AppRequest is p2p.AppRequest. Deadline is a duration in nanoseconds.
type AppRequest struct {
	ChainID   []byte
	RequestID uint32
	Deadline  uint64
	AppBytes  []byte
}

// AppResponse is p2p.AppResponse.
type AppResponse struct {
	ChainID   []byte
	RequestID uint32
	AppBytes  []byte
}

// AppError is p2p.AppError.
type AppError struct {
	ChainID      []byte
	RequestID    uint32
	ErrorCode    int32
	ErrorMessage string
}

// Error returns the peer's error message with its code.
func (e *AppError) Error() string {
	return fmt.Sprintf("acp118: peer answered error %d: %s", e.ErrorCode, e.ErrorMessage)
}

// SignatureRequest is sdk.SignatureRequest.
type SignatureRequest struct {
	Message, Justification []byte
}

// SignatureResponse is sdk.SignatureResponse.
type SignatureResponse struct {
	Signature []byte
}

// marshal encodes m; the generated messages hold nothing that fails to
// encode (no required fields, no invalid UTF-8 from this package).
func marshal(m proto.Message) []byte {
	b, err := proto.Marshal(m)
	if err != nil {
		panic(fmt.Sprintf("acp118: encoding %T: %v", m, err))
	}
	return b
}

// unmarshal decodes b into m, wrapping a failure in ErrMalformed.
func unmarshal(b []byte, m proto.Message) error {
	if err := proto.Unmarshal(b, m); err != nil {
		return fmt.Errorf("%w: %T: %v", ErrMalformed, m, err)
	}
	return nil
}

// pb returns h as the generated p2p.Handshake.
func (h *Handshake) pb() *p2p.Handshake {
	m := &p2p.Handshake{NetworkId: h.NetworkID, MyTime: h.MyTime, IpAddr: h.IPAddr, IpPort: h.IPPort, UpgradeTime: h.UpgradeTime,
		IpSigningTime: h.IPSigningTime, IpNodeIdSig: h.IPNodeIDSig, TrackedSubnets: h.TrackedSubnets,
		Client:        &p2p.Client{Name: h.Client.Name, Major: h.Client.Major, Minor: h.Client.Minor, Patch: h.Client.Patch},
		SupportedAcps: h.SupportedACPs, ObjectedAcps: h.ObjectedACPs, IpBlsSig: h.IPBLSSig, AllSubnets: h.AllSubnets}
	if h.KnownPeers != nil {
		m.KnownPeers = &p2p.BloomFilter{Filter: h.KnownPeers.Filter, Salt: h.KnownPeers.Salt}
	}
	return m
}

// handshakeOf returns the generated p2p.Handshake m as a Handshake.
func handshakeOf(m *p2p.Handshake) *Handshake {
	h := &Handshake{NetworkID: m.NetworkId, MyTime: m.MyTime, IPAddr: m.IpAddr, IPPort: m.IpPort, UpgradeTime: m.UpgradeTime,
		IPSigningTime: m.IpSigningTime, IPNodeIDSig: m.IpNodeIdSig, TrackedSubnets: m.TrackedSubnets,
		SupportedACPs: m.SupportedAcps, ObjectedACPs: m.ObjectedAcps, IPBLSSig: m.IpBlsSig, AllSubnets: m.AllSubnets}
	if c := m.Client; c != nil {
		h.Client = Version{Name: c.Name, Major: c.Major, Minor: c.Minor, Patch: c.Patch}
	}
	if k := m.KnownPeers; k != nil {
		h.KnownPeers = &BloomFilter{Filter: k.Filter, Salt: k.Salt}
	}
	return h
}

// Marshal returns the Handshake's encoding.
func (h *Handshake) Marshal() []byte { return marshal(h.pb()) }

// Marshal returns the AppRequest's encoding.
func (r *AppRequest) Marshal() []byte { return marshal(r.pb()) }

func (r *AppRequest) pb() *p2p.AppRequest {
	return &p2p.AppRequest{ChainId: r.ChainID, RequestId: r.RequestID, Deadline: r.Deadline, AppBytes: r.AppBytes}
}

// Marshal returns the SignatureRequest's encoding.
func (r *SignatureRequest) Marshal() []byte {
	return marshal(&sdk.SignatureRequest{Message: r.Message, Justification: r.Justification})
}

// Marshal returns the SignatureResponse's encoding.
func (r *SignatureResponse) Marshal() []byte {
	return marshal(&sdk.SignatureResponse{Signature: r.Signature})
}

// ParseHandshake decodes a p2p.Handshake.
func ParseHandshake(b []byte) (*Handshake, error) {
	var m p2p.Handshake
	if err := unmarshal(b, &m); err != nil {
		return nil, err
	}
	return handshakeOf(&m), nil
}

// ParseAppRequest decodes a p2p.AppRequest.
func ParseAppRequest(b []byte) (*AppRequest, error) {
	var m p2p.AppRequest
	if err := unmarshal(b, &m); err != nil {
		return nil, err
	}
	return &AppRequest{ChainID: m.ChainId, RequestID: m.RequestId, Deadline: m.Deadline, AppBytes: m.AppBytes}, nil
}

// ParseSignatureRequest decodes an sdk.SignatureRequest.
func ParseSignatureRequest(b []byte) (*SignatureRequest, error) {
	var m sdk.SignatureRequest
	if err := unmarshal(b, &m); err != nil {
		return nil, err
	}
	return &SignatureRequest{Message: m.Message, Justification: m.Justification}, nil
}

// ParseSignatureResponse decodes an sdk.SignatureResponse.
func ParseSignatureResponse(b []byte) (*SignatureResponse, error) {
	var m sdk.SignatureResponse
	if err := unmarshal(b, &m); err != nil {
		return nil, err
	}
	return &SignatureResponse{Signature: m.Signature}, nil
}
