// Package jsonrpc implements the JSON-RPC 2.0 envelope exactly as avalanchego
// serves it (gorilla/rpc v2 json2 behind avalanchego's method-name codec), so
// that the edge can answer envelope errors itself, split batches, and host
// local method handlers that avalanchego's own clients accept.
//
// Wire rules (gorilla/rpc v2 server.go and json2/server.go; docs/facts.md,
// section 4):
//   - POST only: 405 text/plain "rpc: POST method required, received GET".
//   - Content-Type application/json (case-insensitive, parameters after ';'
//     ignored), else 415 text/plain "rpc: unrecognized Content-Type: X".
//   - Every JSON-RPC error is HTTP 200. Unparseable JSON answers -32700 with
//     "id": null; a wrong or missing "jsonrpc" answers -32600; handler and
//     lookup errors answer -32000 with "data": null.
//   - A request without "id" is a notification: an empty body.
//   - Method "service.method": the service is exact, the method's first
//     letter must not be upper-case and is upper-cased before lookup, the
//     rest is exact (avalanchego v1.14.2 utils/json/codec.go). So
//     "info.getNetworkID" resolves and "info.GetNetworkID" is refused with
//     -32000 "method must start with a non-uppercase letter" (HTTP 200):
//     Decode marks such a call, so neither the edge (its route and cache
//     key) nor a local Server is more forgiving than the node.
package jsonrpc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Version is the only protocol version accepted.
const Version = "2.0"

// Error codes of gorilla/rpc json2.
const (
	CodeParse          = -32700
	CodeInvalidRequest = -32600
	CodeMethodNotFound = -32601
	CodeInvalidParams  = -32602
	CodeInternal       = -32603
	CodeServer         = -32000
)

// Error is a JSON-RPC error object. Data is always written, as null when nil,
// like the node does.
type Error struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data"`
}

// Error implements error.
func (e *Error) Error() string { return e.Message }

// Request is one decoded call. ID is nil for a notification; otherwise it
// holds the raw id bytes, echoed unchanged in the answer.
type Request struct {
	Version string           `json:"jsonrpc"`
	Method  string           `json:"method"`
	Params  *json.RawMessage `json:"params"`
	ID      *json.RawMessage `json:"id"`
}

// IsNotification reports whether r has no id and so gets no answer.
func (r *Request) IsNotification() bool { return r.ID == nil }

// RawParams returns the params bytes, or nil when absent.
func (r *Request) RawParams() json.RawMessage {
	if r.Params == nil {
		return nil
	}
	return *r.Params
}

// Response is one answer. Result and Error are exclusive and omitted when
// empty, as json2 does; ID is always written (null when the request had none).
type Response struct {
	Version string           `json:"jsonrpc"`
	Result  any              `json:"result,omitempty"`
	Error   *Error           `json:"error,omitempty"`
	ID      *json.RawMessage `json:"id"`
}

var null = json.RawMessage("null")

// Decode parses one HTTP body as the node does: one call. The node supports
// no batches: a JSON array, like any body that is not a request object, is a
// parse failure. A parse failure yields errResp, the complete -32700 answer
// the node gives; trailing bytes after the first value are ignored, like
// json.Decoder does. Other envelope errors are left in the call's Err.
func Decode(body []byte) (c Call, errResp *Response) {
	c = decodeOne(body)
	if c.Err != nil && c.Err.Code == CodeParse {
		return c, c.ErrorResponse()
	}
	return c, nil
}

// Call is a decoded request and, when the envelope is invalid, the error the
// node would answer with.
type Call struct {
	Request
	Err *Error
}

// ErrorResponse returns the answer for c.Err.
func (c *Call) ErrorResponse() *Response {
	id := c.ID
	if c.Err.Code == CodeParse {
		id = &null
	}
	return &Response{Version: Version, Error: c.Err, ID: id}
}

func decodeOne(b []byte) Call {
	var c Call
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&c.Request); err != nil {
		return Call{Request: c.Request, Err: parseError(err, &c.Request).Error}
	}
	if c.Version != Version {
		c.Err = &Error{Code: CodeInvalidRequest, Message: "jsonrpc must be " + Version, Data: envelope(&c.Request)}
	} else if _, ok := lookupName(c.Method); !ok {
		c.Err = &Error{Code: CodeServer, Message: ErrUppercaseMethod}
	}
	return c
}

// ErrUppercaseMethod is the node's message for a method whose name after the
// dot starts with an upper-case letter.
const ErrUppercaseMethod = "method must start with a non-uppercase letter"

// envelope renders a request as json2 does in the data of -32700 / -32600
// errors: every field present, absent ones null.
func envelope(r *Request) any {
	return struct {
		Version string           `json:"jsonrpc"`
		Method  string           `json:"method"`
		Params  *json.RawMessage `json:"params"`
		ID      *json.RawMessage `json:"id"`
	}{r.Version, r.Method, r.Params, r.ID}
}

// parseError is the node's -32700 answer. The node decodes into its
// json2.serverRequest type (gorilla/rpc v2), whose fields are Request's, so
// encoding/json's message names that type.
func parseError(err error, partial *Request) *Response {
	msg := strings.NewReplacer("type jsonrpc.Request", "type json2.serverRequest",
		"struct field Request.", "struct field serverRequest.").Replace(err.Error())
	return &Response{
		Version: Version,
		Error:   &Error{Code: CodeParse, Message: msg, Data: envelope(partial)},
		ID:      &null,
	}
}

// LookupName returns the name a method is looked up by on the node: split
// at the first dot, the service part unchanged and the first letter of the
// rest upper-cased (avalanchego utils/json codec). A name without a dot, or
// with nothing after it, is returned unchanged. For a name the node refuses
// (the letter after the dot is upper-case) it returns the name unchanged;
// Decode has already marked such a call with the node's error.
func LookupName(method string) string {
	name, _ := lookupName(method)
	return name
}

// lookupName is LookupName, with ok false when the node refuses the name
// because the method part starts with an upper-case letter.
func lookupName(method string) (string, bool) {
	service, fn, found := strings.Cut(method, ".")
	if !found {
		return method, true
	}
	r, n := utf8.DecodeRuneInString(fn)
	if r == utf8.RuneError {
		return method, true
	}
	if unicode.IsUpper(r) {
		return method, false
	}
	return service + "." + string(unicode.ToUpper(r)) + fn[n:], true
}

// LookupError returns the -32000 error the node gives for a method it does not
// serve (gorilla/rpc v2 map.go), given the looked-up name and whether its
// service exists.
func LookupError(lookupName string, serviceKnown bool) *Error {
	var msg string
	switch {
	case strings.Count(lookupName, ".") != 1:
		msg = fmt.Sprintf("rpc: service/method request ill-formed: %q", lookupName)
	case !serviceKnown:
		msg = fmt.Sprintf("rpc: can't find service %q", lookupName)
	default:
		msg = fmt.Sprintf("rpc: can't find method %q", lookupName)
	}
	return &Error{Code: CodeServer, Message: msg}
}

// UnmarshalParams fills dst from params the way json2 does: an object, or an
// array whose first element is the object; absent, null and [] leave dst as
// is. Field names match case-insensitively and unknown fields are ignored
// (encoding/json). A mismatch is a -32600 error carrying the params as data.
func UnmarshalParams(params json.RawMessage, dst any) *Error {
	if params == nil {
		return nil
	}
	if err := json.Unmarshal(params, dst); err != nil {
		arr := [1]any{dst}
		if err = json.Unmarshal(params, &arr); err != nil {
			return &Error{Code: CodeInvalidRequest, Message: err.Error(), Data: params}
		}
	}
	return nil
}

// Marshal encodes resp as the node does: json.Encoder output, so with a
// trailing newline.
func Marshal(resp *Response) []byte {
	if raw, ok := resp.Result.(Raw); ok && resp.Error == nil && len(raw) > 0 {
		return marshalRaw(resp, raw)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	if err := enc.Encode(resp); err != nil {
		// A result that cannot be encoded is a server bug; answer like the
		// node answers any handler error.
		buf.Reset()
		enc.Encode(&Response{Version: Version, Error: &Error{Code: CodeServer, Message: err.Error()}, ID: resp.ID})
	}
	return buf.Bytes()
}

// Raw is a result already in its final form: one compact, valid JSON value
// with <, > and & escaped as encoding/json escapes them (what a node
// answered, kept as it came). Marshal writes it as it is: encoding/json
// would scan it again, 15 ms for a primary network's megabyte of current
// validators.
type Raw []byte

// MarshalJSON returns r: encoded by encoding/json elsewhere (a batch, a
// caller's own encoder), a Raw is the JSON value it holds.
func (r Raw) MarshalJSON() ([]byte, error) { return r, nil }

// marshalRaw writes resp, whose result is raw, as Marshal's encoder would.
func marshalRaw(resp *Response, raw Raw) []byte {
	id := null
	if resp.ID != nil {
		id = *resp.ID
	}
	idJSON, err := json.Marshal(id)
	if err != nil {
		idJSON = null
	}
	out := make([]byte, 0, len(raw)+len(idJSON)+48)
	out = append(out, `{"jsonrpc":`...)
	version, _ := json.Marshal(resp.Version)
	out = append(out, version...)
	out = append(out, `,"result":`...)
	out = append(out, raw...)
	out = append(out, `,"id":`...)
	out = append(out, idJSON...)
	return append(out, "}\n"...)
}

// Canonical returns raw (one valid JSON value) in one canonical form that
// the node reads as it reads raw: within each object, of the members whose
// keys are equal but for case only the last is kept, as it is the one
// encoding/json (the node's reader) assigns, spelled as written; members
// sorted by key; numbers as written; strings re-escaped (invalid UTF-8 as
// U+FFFD, as encoding/json reads it); no white space. The form leaves no
// member a reader could take differently, so a cache key made of it names
// exactly what a call carrying it asks for. A nil raw stays nil; raw that is
// not valid JSON (a decoded call's members always are) is returned as is.
func Canonical(raw json.RawMessage) json.RawMessage {
	if raw == nil {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber() // 9007199254740993 stays itself, not the nearest float64
	out, err := appendCanonical(make([]byte, 0, len(raw)), dec)
	if err != nil {
		return raw
	}
	return out
}

// appendCanonical appends the canonical form (Canonical) of dec's next value.
// Its depth is bounded by encoding/json's own limit on the value's nesting,
// which the call's decoding has already enforced.
func appendCanonical(out []byte, dec *json.Decoder) ([]byte, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch v := tok.(type) {
	case json.Delim:
		if v == '[' {
			out = append(out, '[')
			for n := 0; dec.More(); n++ {
				if n > 0 {
					out = append(out, ',')
				}
				if out, err = appendCanonical(out, dec); err != nil {
					return nil, err
				}
			}
			_, err = dec.Token()
			return append(out, ']'), err
		}
		return appendObject(out, dec)
	case string:
		return appendJSONString(out, v), nil
	case json.Number:
		return append(out, v...), nil
	case bool:
		return strconv.AppendBool(out, v), nil
	}
	return append(out, "null"...), nil
}

// appendObject appends the canonical form of the object whose '{' dec has
// just read.
func appendObject(out []byte, dec *json.Decoder) ([]byte, error) {
	type member struct {
		key string
		val []byte
	}
	var members []member
	byFold := map[string]int{} // folded key -> index in members
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := tok.(string)
		val, err := appendCanonical(nil, dec)
		if err != nil {
			return nil, err
		}
		fold := foldKey(key)
		if i, ok := byFold[fold]; ok {
			members[i] = member{key, val} // the last one is what the node reads
			continue
		}
		byFold[fold] = len(members)
		members = append(members, member{key, val})
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	sort.Slice(members, func(i, j int) bool { return members[i].key < members[j].key })
	out = append(out, '{')
	for i, m := range members {
		if i > 0 {
			out = append(out, ',')
		}
		out = appendJSONString(out, m.key)
		out = append(out, ':')
		out = append(out, m.val...)
	}
	return append(out, '}'), nil
}

// foldKey folds key as encoding/json matches object keys to fields: each
// letter to the smallest rune of its Unicode simple case folding, so two
// keys fold alike exactly when strings.EqualFold says they are equal.
func foldKey(key string) string {
	b := make([]byte, 0, len(key))
	for _, r := range key {
		for {
			f := unicode.SimpleFold(r)
			if f <= r {
				r = f
				break
			}
			r = f
		}
		b = utf8.AppendRune(b, r)
	}
	return string(b)
}

// AppendRequest appends c re-encoded as a request the node reads as c:
// {"jsonrpc":"2.0","id":...,"method":...,"params":...}, with c's id and
// params (the caller's form of c's params, Canonical for the edge) only when
// present. The client's own bytes may hold members that readers take
// differently ("Method" beside "method": encoding/json, which the node
// uses, matches keys case-insensitively and keeps the last); the re-encoded
// call holds each member once.
func (c *Call) AppendRequest(b []byte, params json.RawMessage) []byte {
	b = append(b, `{"jsonrpc":"2.0"`...)
	if c.ID != nil {
		b = append(b, `,"id":`...)
		b = append(b, Canonical(*c.ID)...)
	}
	b = append(b, `,"method":`...)
	b = appendJSONString(b, c.Method)
	if params != nil {
		b = append(b, `,"params":`...)
		b = append(b, params...)
	}
	return append(b, '}')
}
