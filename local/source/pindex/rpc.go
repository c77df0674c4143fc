package pindex

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"
)

// Endpoint paths of the avalanchego APIs the index reads.
const (
	pathP    = "/ext/bc/P"
	pathX    = "/ext/bc/X"
	pathInfo = "/ext/info"
)

// RPCError is an error answer of the node (gorilla/rpc json2: code -32000
// for handler errors).
type RPCError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

func (e *RPCError) Error() string { return "node: " + e.Message + " (" + strconv.Itoa(e.Code) + ")" }

// errNodeDown wraps transport errors and non-200 answers: the node did not
// answer at all.
var errNodeDown = errors.New("node unreachable")

// maxAnswer bounds one answer of the node, which the index reads whole into
// memory before decoding it.
const maxAnswer = 64 << 20

// client calls an avalanchego node's JSON-RPC APIs. It is safe for
// concurrent use.
type client struct {
	base    string
	http    *http.Client
	timeout time.Duration // of one call, answer read included
	limit   int64         // of one answer's bytes; 0 means maxAnswer
	id      atomic.Uint64
}

type rpcRequest struct {
	Version string `json:"jsonrpc"`
	ID      uint64 `json:"id"`
	Method  string `json:"method"`
	Params  any    `json:"params"`
}

// rpcResponse is decoded in one pass: Result holds the caller's pointer.
type rpcResponse struct {
	Result any       `json:"result"`
	Error  *RPCError `json:"error"`
}

// call posts method with params to path and decodes the result into out, a
// pointer (nil: the result is not kept). The call, reading the answer
// included, ends after the client's timeout.
func (c *client) call(ctx context.Context, path, method string, params, out any) error {
	if params == nil {
		params = struct{}{}
	}
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	body, err := json.Marshal(rpcRequest{Version: "2.0", ID: c.id.Add(1), Method: method, Params: params})
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base+path, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("%s: %w: %w", method, errNodeDown, err)
	}
	defer resp.Body.Close()
	limit := cmp.Or(c.limit, maxAnswer)
	raw, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return fmt.Errorf("%s: %w: %w", method, errNodeDown, err)
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: %w: HTTP %d", method, errNodeDown, resp.StatusCode)
	}
	if int64(len(raw)) > limit {
		return fmt.Errorf("%s: the answer is over %d bytes", method, limit)
	}
	return decodeAnswer(method, raw, out)
}

// decodeAnswer decodes a JSON-RPC answer: its result into out, a pointer
// (nil: the result is not kept), or its error as an *RPCError.
func decodeAnswer(method string, raw []byte, out any) error {
	if out == nil {
		out = new(json.RawMessage)
	}
	r := rpcResponse{Result: out}
	err := json.Unmarshal(raw, &r)
	if r.Error != nil {
		return fmt.Errorf("%s: %w", method, r.Error)
	}
	if err != nil {
		return fmt.Errorf("%s: bad JSON-RPC answer: %w", method, err)
	}
	return nil
}
