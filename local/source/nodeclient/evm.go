package nodeclient

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// pathC is the C-Chain's EVM JSON-RPC endpoint.
const pathC = "/ext/bc/C/rpc"

// EVM is the C-Chain's eth_* API, for what coreth adds to its blocks: the
// atomic transactions in their extra data.
type EVM struct{ c *Client }

// C returns the C-Chain's EVM API.
func (c *Client) C() EVM { return EVM{c} }

// CBlock is what the index reads of a C-Chain block: its place, its time
// and its extra data (coreth's blockExtraData: the atomic transactions).
type CBlock struct {
	Height    uint64
	Hash      string // 0x hex
	Parent    string // 0x hex
	Time      int64
	ExtraData []byte
}

// Height returns the C-Chain's last accepted height (eth_blockNumber).
func (e EVM) Height(ctx context.Context) (uint64, error) {
	raw, err := call(ctx, e.c.rpc, pathC, "eth_blockNumber", []any{})
	if err != nil {
		return 0, err
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return 0, fmt.Errorf("eth_blockNumber: %w", err)
	}
	return parseQuantity(s)
}

// Block returns the block at height (eth_getBlockByNumber, without its
// transactions).
func (e EVM) Block(ctx context.Context, height uint64) (*CBlock, error) {
	raw, err := call(ctx, e.c.rpc, pathC, "eth_getBlockByNumber", []any{"0x" + strconv.FormatUint(height, 16), false})
	if err != nil {
		return nil, err
	}
	b, err := decodeCBlock(raw)
	if err != nil {
		return nil, fmt.Errorf("eth_getBlockByNumber %d: %w", height, err)
	}
	if b.Height != height {
		return nil, fmt.Errorf("eth_getBlockByNumber %d: the node answered block %d", height, b.Height)
	}
	return b, nil
}

// decodeCBlock reads a block of eth_getBlockByNumber; null is an error
// (no block there yet).
func decodeCBlock(raw json.RawMessage) (*CBlock, error) {
	var j struct {
		Number, Hash, ParentHash, Timestamp string
		BlockExtraData                      *string `json:"blockExtraData"`
	}
	if string(raw) == "null" {
		return nil, fmt.Errorf("no such block")
	}
	if err := json.Unmarshal(raw, &j); err != nil {
		return nil, err
	}
	if j.BlockExtraData == nil {
		return nil, fmt.Errorf("no blockExtraData: not a coreth node")
	}
	b := &CBlock{Hash: j.Hash, Parent: j.ParentHash}
	var err error
	if b.Height, err = parseQuantity(j.Number); err != nil {
		return nil, fmt.Errorf("number: %w", err)
	}
	t, err := parseQuantity(j.Timestamp)
	if err != nil {
		return nil, fmt.Errorf("timestamp: %w", err)
	}
	b.Time = int64(min(t, 1<<62))
	extra, ok := strings.CutPrefix(*j.BlockExtraData, "0x")
	if b.ExtraData, err = hex.DecodeString(extra); err != nil || !ok {
		return nil, fmt.Errorf("blockExtraData %.40q: not 0x hex", *j.BlockExtraData)
	}
	if len(j.Hash) != 66 || len(j.ParentHash) != 66 {
		return nil, fmt.Errorf("hash %q parent %q: not 32-byte hashes", j.Hash, j.ParentHash)
	}
	return b, nil
}

// parseQuantity reads an EVM quantity, 0x hex.
func parseQuantity(s string) (uint64, error) {
	if len(s) < 3 || s[:2] != "0x" || len(s) > 18 {
		return 0, fmt.Errorf("%q is not a quantity", s)
	}
	return strconv.ParseUint(s[2:], 16, 64)
}
