package evmindex

import (
	"context"
	"fmt"
	"math/big"
	"strings"
	"unicode/utf8"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/rpc"
)

// Selectors of the metadata calls.
var (
	selName     = hexutil.MustDecode("0x06fdde03")
	selSymbol   = hexutil.MustDecode("0x95d89b41")
	selDecimals = hexutil.MustDecode("0x313ce567")
	selTokenURI = hexutil.MustDecode("0xc87b56dd")
	selURI      = hexutil.MustDecode("0x0e89341c")
)

// tokenInfo is a token contract's name, symbol and decimals as read from
// the contract.
type tokenInfo = Token

type callArgs struct {
	To   common.Address `json:"to"`
	Data hexutil.Bytes  `json:"data"`
}

// fetchTokenInfo reads name, symbol and decimals of the contracts with one
// batch of eth_call at the latest block. A call that fails leaves its field
// empty (or decimals 0).
func (f *follower) fetchTokenInfo(ctx context.Context, want map[common.Address]TokenKind) ([]tokenInfo, error) {
	out := make([]tokenInfo, 0, len(want))
	for a, k := range want {
		out = append(out, tokenInfo{Address: a, Kind: k})
	}
	if len(out) == 0 {
		return out, nil
	}
	res := make([]hexutil.Bytes, 3*len(out))
	elems := make([]rpc.BatchElem, 0, 3*len(out))
	for i, t := range out {
		for j, sel := range [][]byte{selName, selSymbol, selDecimals} {
			elems = append(elems, rpc.BatchElem{Method: "eth_call", Args: []any{callArgs{To: t.Address, Data: sel}, "latest"}, Result: &res[3*i+j]})
		}
	}
	for lo := 0; lo < len(elems); lo += 300 {
		if err := f.client.BatchCallContext(ctx, elems[lo:min(lo+300, len(elems))]); err != nil {
			return nil, fmt.Errorf("token metadata: %w", err)
		}
	}
	for i := range out {
		if elems[3*i].Error == nil {
			out[i].Name = abiString(res[3*i])
		}
		if elems[3*i+1].Error == nil {
			out[i].Symbol = abiString(res[3*i+1])
		}
		if elems[3*i+2].Error == nil && len(res[3*i+2]) == 32 {
			if d := new(big.Int).SetBytes(res[3*i+2]); d.IsUint64() && d.Uint64() <= 255 {
				out[i].Decimals = uint8(d.Uint64())
			}
		}
	}
	return out, nil
}

// abiString decodes an ABI string return value, or a bytes32 one (as some
// old tokens return), trimming NULs. Invalid input gives "".
func abiString(b []byte) string {
	if len(b) == 32 {
		s := strings.TrimRight(string(b), "\x00")
		if utf8.ValidString(s) {
			return s
		}
		return ""
	}
	if len(b) < 64 {
		return ""
	}
	off := new(big.Int).SetBytes(b[:32])
	if !off.IsUint64() || off.Uint64() > uint64(len(b)-32) {
		return ""
	}
	o := int(off.Uint64())
	n := new(big.Int).SetBytes(b[o : o+32])
	if !n.IsUint64() || n.Uint64() > uint64(len(b)-o-32) {
		return ""
	}
	s := string(b[o+32 : o+32+int(n.Uint64())])
	if !utf8.ValidString(s) {
		return ""
	}
	return s
}
