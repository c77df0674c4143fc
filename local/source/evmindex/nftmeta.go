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
)

// NFT metadata is read over HTTP, apart from the chain and the store: an
// NFT's token URI (read with eth_call by the follower, readNFTs) names a
// document, which metadataReader reads from a data: URI, an IPFS gateway or
// the web, as ChainOptions allow, bounded in size and time.

// metadataReader reads NFTs' metadata documents. It is safe for concurrent
// use.
type metadataReader struct {
	// http reads the documents (ChainOptions.HTTPClient).
	http *http.Client
	// ipfsGateway resolves ipfs:// URIs; empty: they are not read.
	ipfsGateway string
	// fetchHTTP allows http(s) URIs.
	fetchHTTP bool
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

// load reads and parses the document at uri; status says how it
// went.
func (m metadataReader) load(ctx context.Context, uri string) (NFTMetadata, string) {
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
		if m.ipfsGateway == "" {
			return NFTMetadata{}, StatusUnindexed
		}
		return m.fetch(ctx, strings.TrimSuffix(m.ipfsGateway, "/")+"/"+strings.TrimPrefix(strings.TrimPrefix(uri, "ipfs://"), "ipfs/"))
	case strings.HasPrefix(uri, "https://"), strings.HasPrefix(uri, "http://"):
		if !m.fetchHTTP {
			return NFTMetadata{}, StatusUnindexed
		}
		return m.fetch(ctx, uri)
	default:
		return NFTMetadata{}, StatusInvalidScheme
	}
	if len(raw) > maxMetadataBytes {
		return NFTMetadata{}, StatusTooLarge
	}
	return parseMetadata(raw)
}

// fetch reads and parses the document at u over HTTP.
func (m metadataReader) fetch(ctx context.Context, u string) (NFTMetadata, string) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return NFTMetadata{}, StatusInvalidURI
	}
	resp, err := m.http.Do(req)
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
