package proxy

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/avaedge/avaedge/cache"
	"github.com/avaedge/avaedge/catalog"
	"github.com/avaedge/avaedge/jsonrpc"
	"github.com/avaedge/avaedge/limits"
)

func jsonrpcLookup(name string) string { return jsonrpc.LookupName(name) }

// maxBatch bounds the calls of one EVM batch (the node's own endpoints take
// no batches).
const maxBatch = 100

// serveRPC handles a node endpoint ("info", "avm", "evm"): the node's
// envelope rules are enforced at the edge, and the body becomes a
// preparedCall: one call of an info or avm request (the node supports no
// batches: an array gets its -32700, answered here), or a whole EVM body.
func (s *Server) serveRPC(endpoint string, w http.ResponseWriter, r *http.Request) {
	ex := s.begin(w, r, catalog.Node, endpoint)
	defer s.finish(ex)
	if status, msg := jsonrpc.HTTPError(r); status != 0 {
		ex.source = FromEdge
		setOrigin(ex.w.Header(), FromEdge)
		jsonrpc.WriteHTTPError(ex.w, status, msg)
		return
	}
	// The cost is in the body; the credentials are not: refuse unknown
	// keys before buffering anything.
	if s.opts.Limiter != nil && !s.identify(ex) {
		return
	}
	body, err := s.readBody(r)
	if err != nil {
		s.refuseBody(ex, err)
		return
	}
	if endpoint == "evm" {
		s.serveEVM(ex, body)
		return
	}
	c, errResp := jsonrpc.Decode(body)
	if errResp != nil {
		ex.source = FromEdge
		setOrigin(ex.w.Header(), FromEdge)
		jsonrpc.WriteResponse(ex.w, errResp)
		return
	}
	p := &preparedCall{service: catalog.Node, call: &c, body: body}
	if c.ID != nil {
		ex.rpcID = *c.ID
	}
	if c.Err != nil {
		s.serve(ex, p)
		return
	}
	rt := s.rpc[endpoint][jsonrpc.LookupName(c.Method)]
	if rt == nil {
		p.unknown = s.unknownRPC[endpoint]
		p.charge = limits.Charge{Routes: []string{"passthrough"}, Cost: 1}
		s.serve(ex, p)
		return
	}
	ex.route = rt.Name
	p.rt, p.charge = rt, limits.Charge{Routes: s.charged[rt.Name], Cost: rt.Cost}
	// Reads are retried and cached; writes (avm.issueTx) are neither.
	p.retry = rt.Cache != cache.Never
	if p.retry && s.opts.Cache != nil && !c.IsNotification() {
		p.key = RoutePrefix(rt) + r.URL.EscapedPath() + "|" + paramsHash(c.RawParams())
	}
	s.serve(ex, p)
}

// serveEVM prepares an Ethereum JSON-RPC body (single or batch): forwarded whole
// to the node upstream's C-Chain endpoint, or to the local dev chain, and
// charged per call.
func (s *Server) serveEVM(ex *exchange, body []byte) {
	if !json.Valid(body) {
		// What geth answers; answered here, so a body that is not JSON is
		// neither forwarded nor charged as if it were one call.
		ex.source = FromEdge
		setOrigin(ex.w.Header(), FromEdge)
		ex.w.Header()["Content-Type"] = hdrJSON
		ex.w.Write([]byte(`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}` + "\n"))
		return
	}
	n := 1
	if t := bytes.TrimLeft(body, " \t\r\n"); len(t) > 0 && t[0] == '[' {
		var elems []json.RawMessage
		if json.Unmarshal(t, &elems) == nil {
			n = max(len(elems), 1)
		}
	}
	if n > maxBatch {
		s.refuse(ex, http.StatusRequestEntityTooLarge, "batch of "+strconv.Itoa(n)+" calls exceeds the limit of "+strconv.Itoa(maxBatch))
		return
	}
	rt := s.routes["evm.rpc"]
	ex.route = "evm.rpc"
	p := &preparedCall{rt: rt, service: catalog.Node, body: body,
		charge: limits.Charge{Routes: []string{"evm.rpc"}, Cost: int64(n)}}
	if rt != nil {
		p.charge.Cost = int64(n) * rt.Cost
	}
	s.serve(ex, p)
}

// paramsHash names a call's params in a cache key: the SHA-256 of their
// canonical JSON (object keys sorted), so formatting does not split entries.
func paramsHash(p json.RawMessage) string {
	canon := []byte("null")
	if p != nil {
		var v any
		if json.Unmarshal(p, &v) == nil {
			canon, _ = json.Marshal(v)
		} else {
			canon = p
		}
	}
	sum := sha256.Sum256(canon)
	return hex.EncodeToString(sum[:16])
}

// isRPCResult reports whether body is a JSON-RPC success answer.
func isRPCResult(body []byte) bool {
	var probe struct {
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	return json.Unmarshal(body, &probe) == nil && probe.Result != nil && probe.Error == nil
}

// withID rewrites the id of a JSON-RPC answer: a cached answer was fetched
// for another request's id. Bodies that are not JSON-RPC objects are
// returned unchanged.
func withID(body []byte, id *json.RawMessage) []byte {
	var resp struct {
		Version string           `json:"jsonrpc"`
		Result  json.RawMessage  `json:"result,omitempty"`
		Error   json.RawMessage  `json:"error,omitempty"`
		ID      *json.RawMessage `json:"id"`
	}
	if json.Unmarshal(body, &resp) != nil || resp.Version == "" {
		return body
	}
	if resp.ID != nil && id != nil && bytes.Equal(*resp.ID, *id) {
		return body
	}
	resp.ID = id
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	if enc.Encode(&resp) != nil {
		return body
	}
	return buf.Bytes()
}

// rpcErrorCode maps an edge refusal to a JSON-RPC error code: -32005 "limit
// exceeded" for 429 (EIP-1474, what Ethereum clients back off on), -32000
// otherwise, like the node's own errors.
func rpcErrorCode(status int) int {
	if status == http.StatusTooManyRequests {
		return -32005
	}
	return jsonrpc.CodeServer
}

func rpcErrorBody(id *json.RawMessage, code int, msg string) []byte {
	if id == nil {
		null := json.RawMessage("null")
		id = &null
	}
	return jsonrpc.Marshal(&jsonrpc.Response{Version: jsonrpc.Version, Error: &jsonrpc.Error{Code: code, Message: msg}, ID: id})
}

// writeRPCError answers a node request refused at the edge with status and a
// JSON-RPC error body.
func writeRPCError(w http.ResponseWriter, status int, id *json.RawMessage, msg string) {
	body := rpcErrorBody(id, rpcErrorCode(status), msg)
	h := w.Header()
	h["Content-Type"] = hdrJSON
	h["Content-Length"] = []string{strconv.Itoa(len(body))}
	w.WriteHeader(status)
	w.Write(body)
}
