package acp118

import (
	"errors"
	"fmt"

	"google.golang.org/protobuf/encoding/protowire"
)

// The messages below are the subset of avalanchego's proto/p2p/p2p.proto and
// proto/sdk/sdk.proto (v1.14) that a signature request needs, hand-encoded
// with protowire: the main module cannot import avalanchego. Field numbers
// are those of the .proto files.

// Field numbers of p2p.Message's oneof.
const (
	fieldCompressedZstd = 2
	fieldPing           = 11
	fieldPong           = 12
	fieldHandshake      = 13
	fieldPeerList       = 14
	fieldAppRequest     = 30
	fieldAppResponse    = 31
	fieldAppError       = 34
)

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

func appendBytesField(b []byte, num protowire.Number, v []byte) []byte {
	if len(v) == 0 {
		return b
	}
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendBytes(b, v)
}

func appendVarintField(b []byte, num protowire.Number, v uint64) []byte {
	if v == 0 {
		return b
	}
	b = protowire.AppendTag(b, num, protowire.VarintType)
	return protowire.AppendVarint(b, v)
}

// appendMessageField appends a submessage; unlike a scalar it is written
// even when empty, since a oneof or optional field's presence matters.
func appendMessageField(b []byte, num protowire.Number, m []byte) []byte {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendBytes(b, m)
}

// Marshal returns the Handshake's encoding.
func (h *Handshake) Marshal() []byte {
	var b []byte
	b = appendVarintField(b, 1, uint64(h.NetworkID))
	b = appendVarintField(b, 2, h.MyTime)
	b = appendBytesField(b, 3, h.IPAddr)
	b = appendVarintField(b, 4, uint64(h.IPPort))
	b = appendVarintField(b, 5, h.UpgradeTime)
	b = appendVarintField(b, 6, h.IPSigningTime)
	b = appendBytesField(b, 7, h.IPNodeIDSig)
	for _, s := range h.TrackedSubnets {
		b = protowire.AppendTag(b, 8, protowire.BytesType)
		b = protowire.AppendBytes(b, s)
	}
	var c []byte
	if h.Client.Name != "" {
		c = protowire.AppendTag(c, 1, protowire.BytesType)
		c = protowire.AppendString(c, h.Client.Name)
	}
	c = appendVarintField(c, 2, uint64(h.Client.Major))
	c = appendVarintField(c, 3, uint64(h.Client.Minor))
	c = appendVarintField(c, 4, uint64(h.Client.Patch))
	b = appendMessageField(b, 9, c)
	b = appendPacked(b, 10, h.SupportedACPs)
	b = appendPacked(b, 11, h.ObjectedACPs)
	if h.KnownPeers != nil {
		var f []byte
		f = appendBytesField(f, 1, h.KnownPeers.Filter)
		f = appendBytesField(f, 2, h.KnownPeers.Salt)
		b = appendMessageField(b, 12, f)
	}
	b = appendBytesField(b, 13, h.IPBLSSig)
	if h.AllSubnets {
		b = appendVarintField(b, 14, 1)
	}
	return b
}

func appendPacked(b []byte, num protowire.Number, vs []uint32) []byte {
	if len(vs) == 0 {
		return b
	}
	var p []byte
	for _, v := range vs {
		p = protowire.AppendVarint(p, uint64(v))
	}
	return appendMessageField(b, num, p)
}

// Marshal returns the AppRequest's encoding.
func (r *AppRequest) Marshal() []byte {
	var b []byte
	b = appendBytesField(b, 1, r.ChainID)
	b = appendVarintField(b, 2, uint64(r.RequestID))
	b = appendVarintField(b, 3, r.Deadline)
	return appendBytesField(b, 4, r.AppBytes)
}

// Marshal returns the SignatureRequest's encoding.
func (r *SignatureRequest) Marshal() []byte {
	var b []byte
	b = appendBytesField(b, 1, r.Message)
	return appendBytesField(b, 2, r.Justification)
}

// Marshal returns the SignatureResponse's encoding.
func (r *SignatureResponse) Marshal() []byte {
	return appendBytesField(nil, 1, r.Signature)
}

// wrap returns a p2p.Message whose oneof is field num holding inner.
func wrap(num protowire.Number, inner []byte) []byte {
	return appendMessageField(nil, num, inner)
}

// field is one decoded protobuf field: a varint or a length-delimited value.
type field struct {
	num   protowire.Number
	typ   protowire.Type
	v     uint64
	bytes []byte
}

// fields decodes b into its fields, in order; fixed32/64 fields are skipped.
func fields(b []byte) ([]field, error) {
	var out []field
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return nil, fmt.Errorf("%w: %v", ErrMalformed, protowire.ParseError(n))
		}
		b = b[n:]
		f := field{num: num, typ: typ}
		switch typ {
		case protowire.VarintType:
			f.v, n = protowire.ConsumeVarint(b)
		case protowire.BytesType:
			f.bytes, n = protowire.ConsumeBytes(b)
		default:
			n = protowire.ConsumeFieldValue(num, typ, b)
		}
		if n < 0 {
			return nil, fmt.Errorf("%w: field %d: %v", ErrMalformed, num, protowire.ParseError(n))
		}
		b = b[n:]
		out = append(out, f)
	}
	return out, nil
}

// unwrap returns the field number and bytes of a p2p.Message's oneof. A
// message with no field known to this package returns 0.
func unwrap(msg []byte) (protowire.Number, []byte, error) {
	fs, err := fields(msg)
	if err != nil {
		return 0, nil, err
	}
	var num protowire.Number
	var inner []byte
	for _, f := range fs {
		if f.typ == protowire.BytesType { // the last oneof field wins
			num, inner = f.num, f.bytes
		}
	}
	return num, inner, nil
}

// ParseHandshake decodes a p2p.Handshake.
func ParseHandshake(b []byte) (*Handshake, error) {
	fs, err := fields(b)
	if err != nil {
		return nil, err
	}
	h := &Handshake{}
	for _, f := range fs {
		switch f.num {
		case 1:
			h.NetworkID = uint32(f.v)
		case 2:
			h.MyTime = f.v
		case 3:
			h.IPAddr = f.bytes
		case 4:
			h.IPPort = uint32(f.v)
		case 5:
			h.UpgradeTime = f.v
		case 6:
			h.IPSigningTime = f.v
		case 7:
			h.IPNodeIDSig = f.bytes
		case 8:
			h.TrackedSubnets = append(h.TrackedSubnets, f.bytes)
		case 9:
			cfs, err := fields(f.bytes)
			if err != nil {
				return nil, err
			}
			for _, c := range cfs {
				switch c.num {
				case 1:
					h.Client.Name = string(c.bytes)
				case 2:
					h.Client.Major = uint32(c.v)
				case 3:
					h.Client.Minor = uint32(c.v)
				case 4:
					h.Client.Patch = uint32(c.v)
				}
			}
		case 10, 11:
			vs, err := unpack(f)
			if err != nil {
				return nil, err
			}
			if f.num == 10 {
				h.SupportedACPs = append(h.SupportedACPs, vs...)
			} else {
				h.ObjectedACPs = append(h.ObjectedACPs, vs...)
			}
		case 12:
			bfs, err := fields(f.bytes)
			if err != nil {
				return nil, err
			}
			h.KnownPeers = &BloomFilter{}
			for _, bf := range bfs {
				switch bf.num {
				case 1:
					h.KnownPeers.Filter = bf.bytes
				case 2:
					h.KnownPeers.Salt = bf.bytes
				}
			}
		case 13:
			h.IPBLSSig = f.bytes
		case 14:
			h.AllSubnets = f.v != 0
		}
	}
	return h, nil
}

// unpack reads a repeated uint32, packed or not.
func unpack(f field) ([]uint32, error) {
	if f.typ == protowire.VarintType {
		return []uint32{uint32(f.v)}, nil
	}
	var out []uint32
	b := f.bytes
	for len(b) > 0 {
		v, n := protowire.ConsumeVarint(b)
		if n < 0 {
			return nil, fmt.Errorf("%w: packed field %d", ErrMalformed, f.num)
		}
		out = append(out, uint32(v))
		b = b[n:]
	}
	return out, nil
}

// ParseAppRequest decodes a p2p.AppRequest.
func ParseAppRequest(b []byte) (*AppRequest, error) {
	fs, err := fields(b)
	if err != nil {
		return nil, err
	}
	r := &AppRequest{}
	for _, f := range fs {
		switch f.num {
		case 1:
			r.ChainID = f.bytes
		case 2:
			r.RequestID = uint32(f.v)
		case 3:
			r.Deadline = f.v
		case 4:
			r.AppBytes = f.bytes
		}
	}
	return r, nil
}

// ParseAppResponse decodes a p2p.AppResponse.
func ParseAppResponse(b []byte) (*AppResponse, error) {
	fs, err := fields(b)
	if err != nil {
		return nil, err
	}
	r := &AppResponse{}
	for _, f := range fs {
		switch f.num {
		case 1:
			r.ChainID = f.bytes
		case 2:
			r.RequestID = uint32(f.v)
		case 3:
			r.AppBytes = f.bytes
		}
	}
	return r, nil
}

// ParseAppError decodes a p2p.AppError; error_code is a sint32 (zigzag).
func ParseAppError(b []byte) (*AppError, error) {
	fs, err := fields(b)
	if err != nil {
		return nil, err
	}
	r := &AppError{}
	for _, f := range fs {
		switch f.num {
		case 1:
			r.ChainID = f.bytes
		case 2:
			r.RequestID = uint32(f.v)
		case 3:
			r.ErrorCode = int32(protowire.DecodeZigZag(f.v))
		case 4:
			r.ErrorMessage = string(f.bytes)
		}
	}
	return r, nil
}

// ParseSignatureRequest decodes an sdk.SignatureRequest.
func ParseSignatureRequest(b []byte) (*SignatureRequest, error) {
	fs, err := fields(b)
	if err != nil {
		return nil, err
	}
	r := &SignatureRequest{}
	for _, f := range fs {
		switch f.num {
		case 1:
			r.Message = f.bytes
		case 2:
			r.Justification = f.bytes
		}
	}
	return r, nil
}

// ParseSignatureResponse decodes an sdk.SignatureResponse.
func ParseSignatureResponse(b []byte) (*SignatureResponse, error) {
	fs, err := fields(b)
	if err != nil {
		return nil, err
	}
	r := &SignatureResponse{}
	for _, f := range fs {
		if f.num == 1 {
			r.Signature = f.bytes
		}
	}
	return r, nil
}
