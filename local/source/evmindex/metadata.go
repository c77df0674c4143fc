package evmindex

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/url"
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

// Metadata index statuses (the Data API's NftTokenMetadataStatus).
const (
	StatusIndexed         = "INDEXED"
	StatusUnindexed       = "UNINDEXED"
	StatusMissingToken    = "MISSING_TOKEN"
	StatusInvalidURI      = "INVALID_TOKEN_URI"
	StatusInvalidScheme   = "INVALID_TOKEN_URI_SCHEME"
	StatusUnreachable     = "UNREACHABLE_TOKEN_URI"
	StatusTooLarge        = "METADATA_CONTENT_TOO_LARGE"
	StatusInvalidMetadata = "INVALID_METADATA"
	StatusInvalidJSON     = "INVALID_METADATA_JSON"
	maxMetadataBytes      = 256 << 10
)

// NFTMetadata is the parsed JSON metadata of an NFT, in the Data API's
// terms. Empty fields were absent.
type NFTMetadata struct {
	Name         string
	Description  string
	ImageURI     string
	AnimationURI string
	ExternalURL  string
	Background   string
	Attributes   string // ERC-721 "attributes", as JSON text
	Properties   string // ERC-1155 "properties", as JSON text
	Decimals     *int   // ERC-1155 "decimals"
}

// resolveURI expands an ERC-1155 {id} template.
func resolveURI(uri string, id *big.Int, kind TokenKind) string {
	if kind == ERC1155 && strings.Contains(uri, "{id}") {
		return strings.ReplaceAll(uri, "{id}", fmt.Sprintf("%064x", id))
	}
	return uri
}

// loadMetadata reads and parses the document at uri; status says how it
// went.
func (f *follower) loadMetadata(ctx context.Context, uri string) (NFTMetadata, string) {
	var raw []byte
	switch {
	case uri == "":
		return NFTMetadata{}, StatusInvalidURI
	case strings.HasPrefix(uri, "data:"):
		comma := strings.IndexByte(uri, ',')
		if comma < 0 {
			return NFTMetadata{}, StatusInvalidURI
		}
		head, body := uri[5:comma], uri[comma+1:]
		if strings.HasSuffix(head, ";base64") {
			b, err := base64.StdEncoding.DecodeString(body)
			if err != nil {
				return NFTMetadata{}, StatusInvalidURI
			}
			raw = b
		} else {
			s, err := url.PathUnescape(body)
			if err != nil {
				return NFTMetadata{}, StatusInvalidURI
			}
			raw = []byte(s)
		}
	case strings.HasPrefix(uri, "ipfs://"):
		if f.opts.IPFSGateway == "" {
			return NFTMetadata{}, StatusUnindexed
		}
		return f.fetchMetadata(ctx, strings.TrimSuffix(f.opts.IPFSGateway, "/")+"/"+strings.TrimPrefix(strings.TrimPrefix(uri, "ipfs://"), "ipfs/"))
	case strings.HasPrefix(uri, "https://"), strings.HasPrefix(uri, "http://"):
		if !f.opts.FetchHTTP {
			return NFTMetadata{}, StatusUnindexed
		}
		return f.fetchMetadata(ctx, uri)
	default:
		return NFTMetadata{}, StatusInvalidScheme
	}
	if len(raw) > maxMetadataBytes {
		return NFTMetadata{}, StatusTooLarge
	}
	return parseMetadata(raw)
}

func (f *follower) fetchMetadata(ctx context.Context, u string) (NFTMetadata, string) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return NFTMetadata{}, StatusInvalidURI
	}
	resp, err := f.http.Do(req)
	if err != nil {
		return NFTMetadata{}, StatusUnreachable
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return NFTMetadata{}, StatusUnreachable
	}
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxMetadataBytes+1))
	if err != nil {
		return NFTMetadata{}, StatusUnreachable
	}
	if len(raw) > maxMetadataBytes {
		return NFTMetadata{}, StatusTooLarge
	}
	return parseMetadata(raw)
}

// parseMetadata reads the common ERC-721 / ERC-1155 metadata fields.
func parseMetadata(raw []byte) (NFTMetadata, string) {
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(raw, &doc); err != nil {
		return NFTMetadata{}, StatusInvalidJSON
	}
	str := func(keys ...string) string {
		for _, k := range keys {
			var s string
			if v, ok := doc[k]; ok && json.Unmarshal(v, &s) == nil {
				return s
			}
		}
		return ""
	}
	m := NFTMetadata{
		Name: str("name"), Description: str("description"), ImageURI: str("image", "image_url", "imageUri"),
		AnimationURI: str("animation_url"), ExternalURL: str("external_url"), Background: str("background_color"),
	}
	if v, ok := doc["attributes"]; ok && string(v) != "null" {
		m.Attributes = string(v)
	}
	if v, ok := doc["properties"]; ok && string(v) != "null" {
		m.Properties = string(v)
	}
	var d int
	if v, ok := doc["decimals"]; ok && json.Unmarshal(v, &d) == nil {
		m.Decimals = &d
	}
	return m, StatusIndexed
}
