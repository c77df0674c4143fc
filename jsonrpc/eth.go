package jsonrpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
)

// The Ethereum JSON-RPC envelope (go-ethereum's rpc package, which the
// C-Chain and the embedded dev chain serve) differs from the node's
// gorilla/rpc one: batches are served, a method is "namespace_name", errors
// carry no data, and each element of a batch is read on its own. ParseEth
// reads a body as go-ethereum v1.17 does (rpc/json.go fillMessage: keys
// matched exactly once unescaped, so "Method" is an unknown member; the last
// of a repeated member wins), except that an element with a method that is
// not a string is invalid (go-ethereum would keep an earlier string method,
// or none). Parsers disagree on such elements (the C-Chain's older
// go-ethereum, libevm, reads keys case-insensitively with encoding/json),
// so what is forwarded is each call re-encoded from what was read
// (EthCall.AppendRequest), never the client's bytes: the upstream executes
// exactly the method the edge allowed and priced, whatever its parser.

// EthVersion is the only protocol version go-ethereum accepts.
const EthVersion = "2.0"

// MaxEthMethodLength is go-ethereum's bound on a method name.
const MaxEthMethodLength = 2048

// Error codes of go-ethereum's rpc package.
const (
	EthCodeInvalidRequest = -32600
	EthCodeMethodNotFound = -32601
)

// EthError is a go-ethereum error object: no data member.
type EthError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// EthMethodNotFound is go-ethereum's answer for a call of a method it does
// not serve: -32601, or -32600 for a name longer than MaxEthMethodLength.
func EthMethodNotFound(method string) *EthError {
	if len(method) > MaxEthMethodLength {
		return &EthError{Code: EthCodeInvalidRequest,
			Message: "method name too long: " + strconv.Itoa(len(method)) + " > " + strconv.Itoa(MaxEthMethodLength)}
	}
	return &EthError{Code: EthCodeMethodNotFound, Message: "the method " + method + " does not exist/is not available"}
}

// EthCall is one element of an Ethereum JSON-RPC body, as ParseEth read it.
type EthCall struct {
	// Method, ID and Params are the element's members; ID and Params hold
	// their raw JSON and are nil when absent.
	Method string
	ID     json.RawMessage
	Params json.RawMessage
	// Invalid is the error the element is answered with instead of being
	// dispatched (-32600), nil for a call or a notification.
	Invalid *EthError
	// Response marks an answer (result or error, no method): go-ethereum's
	// server drops it without a word.
	Response bool
}

// IsNotification reports whether c is a valid call without an id: it is
// dispatched but gets no answer.
func (c *EthCall) IsNotification() bool { return c.Invalid == nil && !c.Response && c.ID == nil }

// AppendRequest appends c re-encoded as a request:
// {"jsonrpc":"2.0","id":...,"method":"...","params":...}, id and params
// only when present.
func (c *EthCall) AppendRequest(b []byte) []byte {
	b = append(b, `{"jsonrpc":"2.0"`...)
	if c.ID != nil {
		b = append(b, `,"id":`...)
		b = append(b, c.ID...)
	}
	b = append(b, `,"method":`...)
	b = appendJSONString(b, c.Method)
	if c.Params != nil {
		b = append(b, `,"params":`...)
		b = append(b, c.Params...)
	}
	return append(b, '}')
}

// AppendError appends go-ethereum's answer to c with e: c's id, or null for
// an element without a valid one.
func (c *EthCall) AppendError(b []byte, e *EthError) []byte {
	return AppendEthError(b, c.ID, e)
}

// AppendEthError appends {"jsonrpc":"2.0","id":id,"error":e} as go-ethereum
// writes it (id null when nil; the error object by encoding/json).
func AppendEthError(b []byte, id json.RawMessage, e *EthError) []byte {
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	if id == nil {
		id = null
	}
	b = append(b, id...)
	b = append(b, `,"error":`...)
	enc, _ := json.Marshal(e)
	b = append(b, enc...)
	return append(b, '}')
}

func appendJSONString(b []byte, s string) []byte {
	enc, _ := json.Marshal(s)
	return append(b, enc...)
}

// ErrEthParse is a body that is not one JSON value.
var ErrEthParse = errors.New("parse error")

// EthBatchTooLarge is a batch of more elements than ParseEth's limit; its
// elements are not read.
type EthBatchTooLarge struct{ Limit int }

func (e *EthBatchTooLarge) Error() string {
	return "batch of more than " + strconv.Itoa(e.Limit) + " calls exceeds the limit"
}

// ParseEth splits an Ethereum JSON-RPC body into its elements: one for a
// single request, each element of a batch (batch true; possibly none). An
// error means the body is not valid JSON (ErrEthParse: go-ethereum's
// -32700), or is a batch of more than limit elements (*EthBatchTooLarge).
// A batch's size is found first, by a scan that stops at the limit
// (batchOver): a batch over it is refused for the work of reading limit
// elements, whatever its length.
func ParseEth(body []byte, limit int) (calls []EthCall, batch bool, err error) {
	t := bytes.TrimLeft(body, " \t\r\n")
	if len(t) > 0 && t[0] == '[' && batchOver(t, limit) {
		return nil, true, &EthBatchTooLarge{Limit: limit}
	}
	if !json.Valid(body) {
		return nil, false, ErrEthParse
	}
	if len(t) == 0 || t[0] != '[' {
		return []EthCall{parseEthElement(t)}, false, nil
	}
	var elems []json.RawMessage
	if err := json.Unmarshal(t, &elems); err != nil {
		return nil, false, ErrEthParse
	}
	calls = make([]EthCall, len(elems))
	for i, e := range elems {
		calls[i] = parseEthElement(e)
	}
	return calls, true, nil
}

// batchOver reports whether the array that t starts with holds more than
// limit elements: it counts the commas between its elements (outside
// strings and nested values) and stops at the limit-th, never reading
// further. It does not validate: a body it passes is still checked whole.
func batchOver(t []byte, limit int) bool {
	depth, commas := 0, 0
	for i := 1; i < len(t); i++ {
		switch t[i] {
		case '"':
			// Skip the string: to the next quote not escaped.
			for i++; i < len(t) && t[i] != '"'; i++ {
				if t[i] == '\\' {
					i++
				}
			}
		case '[', '{':
			depth++
		case ']', '}':
			if depth == 0 {
				return false // the batch's end
			}
			depth--
		case ',':
			if depth == 0 {
				if commas++; commas >= limit {
					return true
				}
			}
		}
	}
	return false
}

// parseEthElement reads one element as go-ethereum's fillMessage does and
// marks it invalid where go-ethereum answers -32600, or where its method is
// not a string.
func parseEthElement(raw []byte) EthCall {
	invalid := func(id json.RawMessage) EthCall {
		return EthCall{ID: validID(id), Invalid: &EthError{Code: EthCodeInvalidRequest, Message: "invalid request"}}
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return invalid(nil) // null, a number, a string, an array
	}
	var (
		version, method       string
		id, params, res, fail json.RawMessage
		badMethod             bool
	)
	for dec.More() {
		tok, err := dec.Token()
		key, ok := tok.(string)
		var v json.RawMessage
		if err != nil || !ok || dec.Decode(&v) != nil {
			return invalid(nil) // cannot happen in valid JSON
		}
		switch key {
		case "jsonrpc":
			json.Unmarshal(v, &version) // a non-string leaves the last one, as go-ethereum
		case "id":
			id = v
		case "method":
			if json.Unmarshal(v, &method) != nil {
				badMethod = true
			}
		case "params":
			params = v
		case "error":
			fail = v
		case "result":
			res = v
		}
	}
	if badMethod {
		return invalid(id)
	}
	if version == EthVersion && method == "" && params == nil && validID(id) != nil && (res != nil || fail != nil) {
		return EthCall{ID: id, Response: true}
	}
	if version != EthVersion || method == "" || (id != nil && validID(id) == nil) {
		return invalid(id)
	}
	return EthCall{Method: method, ID: id, Params: params}
}

// validID returns id when go-ethereum accepts it as an id (present, not an
// object or array), else nil.
func validID(id json.RawMessage) json.RawMessage {
	if len(id) == 0 || id[0] == '{' || id[0] == '[' {
		return nil
	}
	return id
}
