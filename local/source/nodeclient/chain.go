package nodeclient

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/avaedge/avaedge/jsonrpc"
	"github.com/avaedge/avaedge/local/vocab/avax"
)

// chain holds the calls the P- and X-Chain answer alike, under their
// service's name (platform, avm).
type chain struct {
	rpc           *jsonrpc.Client
	path, service string
}

// Height returns the chain's last accepted height (<service>.getHeight).
func (c chain) Height(ctx context.Context) (uint64, error) {
	raw, err := call(ctx, c.rpc, c.path, c.service+".getHeight", nil)
	if err != nil {
		return 0, err
	}
	h, err := decodeHeight(raw)
	if err != nil {
		return 0, fmt.Errorf("%s.getHeight: %w", c.service, err)
	}
	return h, nil
}

// BlockJSON returns the block at height in the node's JSON encoding
// (<service>.getBlockByHeight, encoding json).
func (c chain) BlockJSON(ctx context.Context, height uint64) (json.RawMessage, error) {
	var r struct {
		Block json.RawMessage `json:"block"`
	}
	args := map[string]string{"height": strconv.FormatUint(height, 10), "encoding": "json"}
	if err := c.rpc.Call(ctx, c.path, c.service+".getBlockByHeight", args, &r); err != nil {
		return nil, err
	}
	return r.Block, nil
}

// BlockBytes returns the bytes of the block at height
// (<service>.getBlockByHeight, encoding hexnc).
func (c chain) BlockBytes(ctx context.Context, height uint64) ([]byte, error) {
	var r struct {
		Block json.RawMessage `json:"block"`
	}
	args := map[string]string{"height": strconv.FormatUint(height, 10), "encoding": "hexnc"}
	if err := c.rpc.Call(ctx, c.path, c.service+".getBlockByHeight", args, &r); err != nil {
		return nil, err
	}
	b, err := decodeHex(r.Block)
	if err != nil {
		return nil, fmt.Errorf("%s.getBlockByHeight hexnc: %w", c.service, err)
	}
	return b, nil
}

// TxJSON returns transaction id in the node's JSON encoding (<service>.getTx,
// encoding json).
func (c chain) TxJSON(ctx context.Context, id string) (json.RawMessage, error) {
	var r struct {
		Tx json.RawMessage `json:"tx"`
	}
	if err := c.rpc.Call(ctx, c.path, c.service+".getTx", map[string]string{"txID": id, "encoding": "json"}, &r); err != nil {
		return nil, err
	}
	return r.Tx, nil
}

// TxBytes returns the signed bytes of transaction id (<service>.getTx,
// encoding hexnc), which must hash to the id.
func (c chain) TxBytes(ctx context.Context, id string) ([]byte, error) {
	var r struct {
		Tx json.RawMessage `json:"tx"`
	}
	if err := c.rpc.Call(ctx, c.path, c.service+".getTx", map[string]string{"txID": id, "encoding": "hexnc"}, &r); err != nil {
		return nil, err
	}
	b, err := decodeSignedTx(id, r.Tx)
	if err != nil {
		return nil, fmt.Errorf("%s.getTx %s: %w", c.service, id, err)
	}
	return b, nil
}

// decodeHeight reads a getHeight answer, {"height":"42"}.
func decodeHeight(raw json.RawMessage) (uint64, error) {
	var r struct {
		Height string `json:"height"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return 0, err
	}
	return ParseHeight(r.Height)
}

// ParseHeight reads a height the node printed. A height is kept as a signed
// 64-bit integer by the stores that index it, so a larger one is not a
// height: taken as one it would read as negative, below any index's head,
// and roll it all back.
func ParseHeight(s string) (uint64, error) {
	h, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("height %q: %w", s, err)
	}
	if h > math.MaxInt64 {
		return 0, fmt.Errorf("height %s is beyond any chain's", s)
	}
	return h, nil
}

// decodeHex reads a value in encoding hexnc: a JSON string of 0x-prefixed
// hex, no checksum.
func decodeHex(raw json.RawMessage) ([]byte, error) {
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, err
	}
	b, err := hex.DecodeString(strings.TrimPrefix(s, "0x"))
	if err != nil {
		return nil, fmt.Errorf("bad hex %q: %w", s, err)
	}
	return b, nil
}

// decodeSignedTx reads a transaction in encoding hexnc (getTx's tx): the
// signed bytes of transaction id, which they must hash to.
func decodeSignedTx(id string, raw json.RawMessage) ([]byte, error) {
	b, err := decodeHex(raw)
	if err != nil {
		return nil, err
	}
	if avax.Hash256(b).String() != id {
		return nil, fmt.Errorf("the bytes hash to another id")
	}
	return b, nil
}
