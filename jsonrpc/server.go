package jsonrpc

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
)

// Method answers one call. params is nil when the request had none; decode it
// with UnmarshalParams. A returned *Error is sent as is; any other error
// becomes -32000 with its text, as on the node.
type Method func(ctx context.Context, params json.RawMessage) (any, error)

// Server serves a set of methods on one endpoint with the node's wire
// behaviour. It is safe for concurrent use once built.
type Server struct {
	// methods is keyed by LookupName of the catalogue name.
	methods  map[string]Method
	services map[string]bool
}

// NewServer returns a Server for methods keyed by their documented names
// ("info.getNetworkID").
func NewServer(methods map[string]Method) *Server {
	s := &Server{methods: make(map[string]Method, len(methods)), services: map[string]bool{}}
	for name, m := range methods {
		s.methods[LookupName(name)] = m
		svc, _, _ := strings.Cut(name, ".")
		s.services[svc] = true
	}
	return s
}

// MaxBody bounds a request body read by ServeHTTP.
const MaxBody = 1 << 20

// ServeHTTP answers one JSON-RPC request. A JSON array is answered the way the
// node answers it: a -32700 parse error (the node supports no batches).
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !CheckHTTP(w, r) {
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, MaxBody))
	if err != nil {
		WriteHTTPError(w, http.StatusBadRequest, "rpc: "+err.Error())
		return
	}
	c, resp := Decode(body)
	if resp == nil {
		resp = s.Call(r.Context(), &c)
	}
	WriteResponse(w, resp)
}

// Call answers one decoded call; nil for a notification.
func (s *Server) Call(ctx context.Context, c *Call) *Response {
	resp := s.call(ctx, c)
	if c.IsNotification() && (resp.Error == nil || resp.Error.Code != CodeParse) {
		return nil
	}
	return resp
}

func (s *Server) call(ctx context.Context, c *Call) *Response {
	if c.Err != nil {
		return c.ErrorResponse()
	}
	name := LookupName(c.Method)
	m, ok := s.methods[name]
	if !ok {
		svc, _, _ := strings.Cut(c.Method, ".")
		return &Response{Version: Version, Error: LookupError(name, s.services[svc]), ID: c.ID}
	}
	result, err := m(ctx, c.RawParams())
	if err != nil {
		var rpcErr *Error
		if !errors.As(err, &rpcErr) {
			rpcErr = &Error{Code: CodeServer, Message: err.Error()}
		}
		return &Response{Version: Version, Error: rpcErr, ID: c.ID}
	}
	return &Response{Version: Version, Result: result, ID: c.ID}
}

// CheckHTTP enforces POST and the JSON content type, writing the node's 405
// or 415 answer and returning false when the request fails them.
func CheckHTTP(w http.ResponseWriter, r *http.Request) bool {
	if status, msg := HTTPError(r); status != 0 {
		WriteHTTPError(w, status, msg)
		return false
	}
	return true
}

// HTTPError returns the status and text/plain message the node answers for a
// request that is not a JSON POST, or 0.
func HTTPError(r *http.Request) (int, string) {
	if r.Method != http.MethodPost {
		return http.StatusMethodNotAllowed, "rpc: POST method required, received " + r.Method
	}
	ct := r.Header.Get("Content-Type")
	if i := strings.IndexByte(ct, ';'); i >= 0 {
		ct = ct[:i]
	}
	// avalanchego registers "application/json" only (and the ";charset"
	// variant, which the cut above reduces to it), so an absent type is 415.
	if mt, _, err := mime.ParseMediaType(ct); err != nil || mt != "application/json" {
		return http.StatusUnsupportedMediaType, "rpc: unrecognized Content-Type: " + ct
	}
	return 0, ""
}

// WriteHTTPError writes a text/plain transport-level error as gorilla/rpc does.
func WriteHTTPError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(status)
	io.WriteString(w, msg)
}

// WriteResponse sends resp with HTTP 200, or an empty 200 for nil (a
// notification).
func WriteResponse(w http.ResponseWriter, resp *Response) {
	if resp == nil {
		w.WriteHeader(http.StatusOK)
		return
	}
	body := Marshal(resp)
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	if resp.Error == nil {
		h.Set("X-Content-Type-Options", "nosniff")
	}
	w.WriteHeader(http.StatusOK)
	w.Write(body)
}

// WriteNoEndpoint answers a request for a node path that is no JSON-RPC
// endpoint: 404 with a JSON-RPC error in the node's envelope, -32601 "method
// not found" naming the path, so a JSON-RPC client reads why (the body is
// never read, so the id is null).
func WriteNoEndpoint(w http.ResponseWriter, path string) {
	null := json.RawMessage("null")
	body := Marshal(&Response{Version: Version, Error: &Error{Code: CodeMethodNotFound,
		Message: "method not found: " + strconv.Quote(path) + " is no JSON-RPC endpoint of the node"}, ID: &null})
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusNotFound)
	w.Write(body)
}
