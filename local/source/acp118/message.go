package acp118

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"

	"github.com/klauspost/compress/zstd"

	"github.com/avaedge/avaedge/local/source/acp118/pb/p2p"
)

// MaxMessageSize bounds one framed message, avalanchego's
// constants.DefaultMaxMessageSize (2 MiB).
const MaxMessageSize = 2 << 20

// SignatureHandlerID is ACP-118's application protocol handler id
// (avalanchego network/p2p.SignatureRequestHandlerID); a request's app bytes
// start with it as an unsigned varint.
const SignatureHandlerID = 2

// HandshakeMessage returns the p2p.Message carrying h.
func HandshakeMessage(h *Handshake) []byte {
	return marshal(&p2p.Message{Message: &p2p.Message_Handshake{Handshake: h.pb()}})
}

// PeerListMessage returns a p2p.Message carrying an empty PeerList: this
// client knows no peers worth gossiping.
func PeerListMessage() []byte {
	return marshal(&p2p.Message{Message: &p2p.Message_PeerList_{PeerList_: &p2p.PeerList{}}})
}

// PongMessage returns a p2p.Message carrying a Pong.
func PongMessage() []byte {
	return marshal(&p2p.Message{Message: &p2p.Message_Pong{Pong: &p2p.Pong{}}})
}

// AppRequestMessage returns the p2p.Message carrying r.
func AppRequestMessage(r *AppRequest) []byte {
	return marshal(&p2p.Message{Message: &p2p.Message_AppRequest{AppRequest: r.pb()}})
}

// SignatureAppBytes returns an AppRequest's app bytes asking for a signature
// of msg: the handler prefix, then the SignatureRequest.
func SignatureAppBytes(msg, justification []byte) []byte {
	b := binary.AppendUvarint(nil, SignatureHandlerID)
	return append(b, (&SignatureRequest{Message: msg, Justification: justification}).Marshal()...)
}

// Inbound is one decoded p2p.Message. Exactly one field is set, or none for
// a message this package does not handle (Kind names it by its field
// number in p2p.Message's oneof; 0 for none p2p.proto knows).
type Inbound struct {
	Kind        int
	Handshake   *Handshake
	PeerList    bool
	Ping        bool
	AppResponse *AppResponse
	AppError    *AppError
	AppRequest  *AppRequest
}

var (
	decoderOnce sync.Once
	decoder     *zstd.Decoder
	decoderErr  error
)

func zstdDecoder() (*zstd.Decoder, error) {
	decoderOnce.Do(func() {
		decoder, decoderErr = zstd.NewReader(nil, zstd.WithDecoderMaxMemory(MaxMessageSize), zstd.WithDecoderConcurrency(0))
	})
	return decoder, decoderErr
}

// ParseMessage decodes a p2p.Message, decompressing a compressed_zstd one
// (avalanchego compresses AppResponse, AppError and PeerList with zstd by
// default).
func ParseMessage(b []byte) (*Inbound, error) {
	return parseMessage(b, true)
}

func parseMessage(b []byte, mayDecompress bool) (*Inbound, error) {
	var m p2p.Message
	if err := unmarshal(b, &m); err != nil {
		return nil, err
	}
	in := &Inbound{}
	if f := m.ProtoReflect().WhichOneof(messageFields.ByName("compressed_zstd").ContainingOneof()); f != nil {
		in.Kind = int(f.Number())
	}
	switch msg := m.Message.(type) {
	case *p2p.Message_CompressedZstd:
		if !mayDecompress {
			return nil, fmt.Errorf("%w: nested compression", ErrMalformed)
		}
		d, err := zstdDecoder()
		if err != nil {
			return nil, err
		}
		plain, err := d.DecodeAll(msg.CompressedZstd, nil)
		if err != nil {
			return nil, fmt.Errorf("%w: zstd: %v", ErrMalformed, err)
		}
		if len(plain) > MaxMessageSize {
			return nil, fmt.Errorf("%w: decompressed message of %d bytes", ErrMalformed, len(plain))
		}
		return parseMessage(plain, false)
	case *p2p.Message_Handshake:
		in.Handshake = handshakeOf(msg.Handshake)
	case *p2p.Message_PeerList_:
		in.PeerList = true
	case *p2p.Message_Ping:
		in.Ping = true
	case *p2p.Message_AppResponse:
		r := msg.AppResponse
		in.AppResponse = &AppResponse{ChainID: r.ChainId, RequestID: r.RequestId, AppBytes: r.AppBytes}
	case *p2p.Message_AppError:
		r := msg.AppError
		in.AppError = &AppError{ChainID: r.ChainId, RequestID: r.RequestId, ErrorCode: r.ErrorCode, ErrorMessage: r.ErrorMessage}
	case *p2p.Message_AppRequest:
		r := msg.AppRequest
		in.AppRequest = &AppRequest{ChainID: r.ChainId, RequestID: r.RequestId, Deadline: r.Deadline, AppBytes: r.AppBytes}
	}
	return in, nil
}

// errTooLarge means a peer announced a frame over MaxMessageSize.
var errTooLarge = errors.New("acp118: message over the size limit")

// writeFrame writes msg with its 4-byte big-endian length prefix.
func writeFrame(w io.Writer, msg []byte) error {
	if len(msg) > MaxMessageSize {
		return errTooLarge
	}
	b := make([]byte, 4+len(msg))
	binary.BigEndian.PutUint32(b, uint32(len(msg)))
	copy(b[4:], msg)
	_, err := w.Write(b)
	return err
}

// frameChunk is how much of a frame is allocated ahead of its bytes: a
// peer that announces a large frame and sends little of it costs what it
// sent, not what it announced.
const frameChunk = 64 << 10

// readFrame reads one length-prefixed message.
func readFrame(r io.Reader) ([]byte, error) { return readFrameThen(r, nil) }

// readFrameThen reads one length-prefixed message; lengthRead, when not nil,
// runs once the length has arrived (the peer sets the deadline of the rest
// there). The message's buffer grows as its bytes arrive.
func readFrameThen(r io.Reader, lengthRead func()) ([]byte, error) {
	var l [4]byte
	if _, err := io.ReadFull(r, l[:]); err != nil {
		return nil, err
	}
	n := int(binary.BigEndian.Uint32(l[:]))
	if n > MaxMessageSize {
		return nil, fmt.Errorf("%w: %d bytes", errTooLarge, n)
	}
	if lengthRead != nil {
		lengthRead()
	}
	b := make([]byte, 0, min(n, frameChunk))
	for len(b) < n {
		if len(b) == cap(b) {
			b = slices.Grow(b, min(n-len(b), len(b)))
		}
		k, err := io.ReadFull(r, b[len(b):min(n, cap(b))])
		b = b[:len(b)+k]
		if err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return nil, err
		}
	}
	return b, nil
}
