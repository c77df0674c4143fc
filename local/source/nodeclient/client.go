// Package nodeclient calls an avalanchego node's JSON-RPC APIs (info.*,
// platform.*, avm.*) with one small Go method per call, as go-ethereum's
// ethclient does for geth: each method knows its endpoint and method name,
// sends its arguments and decodes its answer into Go values, its wire shapes
// private beside their decoders. It links without avalanchego and is built
// on jsonrpc.Client, so every call is bounded in time and size.
//
// The handles mirror avalanchego's own clients: Info (info.NewClient),
// Platform (platformvm.NewClient) and AVM (avm.NewClient on the X-Chain).
package nodeclient

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/avaedge/avaedge/jsonrpc"
)

// The endpoints of the APIs a Client calls, under the node's base URL.
const (
	pathInfo = "/ext/info"
	pathP    = "/ext/bc/P"
	pathX    = "/ext/bc/X"
)

// Client calls one avalanchego node. It is safe for concurrent use.
type Client struct {
	rpc *jsonrpc.Client
}

// New returns a Client of the node at base (e.g. "http://127.0.0.1:9650"),
// its calls made as opts says.
func New(base string, opts jsonrpc.ClientOptions) *Client {
	return &Client{rpc: jsonrpc.NewClient(base, opts)}
}

// Close closes the idle connections of the Client's own HTTP client (see
// jsonrpc.Client.Close).
func (c *Client) Close() { c.rpc.Close() }

// Info returns the node's info API.
func (c *Client) Info() Info { return Info{c.rpc} }

// P returns the P-Chain's API (platform.*).
func (c *Client) P() Platform { return Platform{chain{c.rpc, pathP, "platform"}} }

// X returns the X-Chain's API (avm.*).
func (c *Client) X() AVM { return AVM{chain{c.rpc, pathX, "avm"}} }

// Answer returns the node's answer to method, a method of the info, platform
// or avm API that takes no arguments (info.getNodeID, avm.getTxFee), as the
// node encoded it: for keeping it and answering with it later, byte for
// byte.
func (c *Client) Answer(ctx context.Context, method string) (json.RawMessage, error) {
	var path string
	switch {
	case strings.HasPrefix(method, "info."):
		path = pathInfo
	case strings.HasPrefix(method, "platform."):
		path = pathP
	case strings.HasPrefix(method, "avm."):
		path = pathX
	default:
		return nil, fmt.Errorf("%s: not a method of the info, platform or avm API", method)
	}
	var r json.RawMessage
	if err := c.rpc.Call(ctx, path, method, nil, &r); err != nil {
		return nil, err
	}
	return r, nil
}

// call posts method to path and returns its raw result, for a decoder.
func call(ctx context.Context, rpc *jsonrpc.Client, path, method string, params any) (json.RawMessage, error) {
	var r json.RawMessage
	if err := rpc.Call(ctx, path, method, params, &r); err != nil {
		return nil, err
	}
	return r, nil
}
