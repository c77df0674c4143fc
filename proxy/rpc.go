package proxy

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/avaedge/avaedge/cache"
	"github.com/avaedge/avaedge/catalog"
	"github.com/avaedge/avaedge/jsonrpc"
	"github.com/avaedge/avaedge/limits"
)

// maxBatch bounds the calls of one EVM batch (the node's own endpoints take
// no batches).
const maxBatch = 100

// serveRPC handles a node endpoint ("info", "avm", "platform", "avax", "evm"): the request is
// admitted for the endpoint's minimum before anything else (admit.go); then
// the node's envelope rules are enforced at the edge, and the body becomes a
// preparedCall: one call of an info or avm request (the node supports no
// batches: an array gets its -32700, answered here), or the EVM body's
// allowed calls, charged the rest of their price.
func (s *Server) serveRPC(endpoint string, w http.ResponseWriter, r *http.Request) {
	ex := s.begin(w, r, catalog.Node, endpoint)
	defer s.finish(ex)
	if endpoint == "evm" {
		ex.route = catalog.EVMRoute
	}
	if !s.admitEndpoint(ex, s.endpoints[endpoint]) {
		return
	}
	if status, msg := jsonrpc.HTTPError(r); status != 0 {
		ex.source = FromEdge
		setOrigin(ex.w.Header(), FromEdge)
		jsonrpc.WriteHTTPError(ex.w, status, msg)
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
	p := &preparedCall{service: catalog.Node, call: &c, url: nodeURL(r)}
	if c.ID != nil {
		ex.rpcID = *c.ID
	}
	if c.Err != nil {
		s.serve(ex, p)
		return
	}
	// What is forwarded (and keyed) is the call re-encoded from what was
	// decoded, never the client's bytes (nodeCall).
	params := canonicalParams(c.RawParams())
	p.body = nodeCall(&c, params)
	rt := s.rpc[endpoint][jsonrpc.LookupName(c.Method)]
	if rt == nil {
		p.method = c.Method
		// Not in the catalogue: forwarded (never cached) only when the
		// operator publishes it to this key; else the node's own answer for
		// a method it does not serve, at the edge.
		p.charge = limits.Charge{Routes: passthroughRoute, Cost: 1}
		if cost, ok := s.rpcPublished(endpoint, c.Method, ex.keyID); ok && s.opts.Upstreams[catalog.Node] != nil {
			p.charge.Cost = cost
		} else {
			svc, _, _ := strings.Cut(c.Method, ".")
			c.Err = jsonrpc.LookupError(jsonrpc.LookupName(c.Method), svc == endpoint)
		}
		if s.admitRest(ex, p.charge) {
			s.serve(ex, p)
		}
		return
	}
	ex.route = rt.Name
	p.rt, p.charge = rt, limits.Charge{Routes: s.charged[rt.Name], Cost: rt.Cost}
	if msg := overNodeBound(rt.Name, params); msg != "" {
		// More than the node reads: its own refusal, at the edge (answer),
		// at the method's price.
		c.Err = &jsonrpc.Error{Code: jsonrpc.CodeServer, Message: msg}
	}
	// Reads are retried and cached; writes (the issueTx methods) are neither.
	p.retry = rt.Cache != cache.Never && c.Err == nil
	if p.retry && s.opts.Cache != nil && !c.IsNotification() {
		p.key = RoutePrefix(rt) + r.URL.EscapedPath() + "|" + paramsHash(params)
	}
	if s.admitRest(ex, p.charge) {
		s.serve(ex, p)
	}
}

// maxUTXOAddresses is the most addresses the node's getUTXOs methods take
// (avalanchego v1.14.2 maxGetUTXOsAddrs, the same on the X-Chain, the
// P-Chain and the C-Chain's atomic API).
const maxUTXOAddresses = 1024

// overNodeBound returns the node's own refusal of a call of the catalogued
// method name that names more addresses than the node takes, or "" when the
// node would read it: the edge answers it, so a call the node would refuse
// after reading it never reaches the upstream. Params the node cannot read
// are left to it.
func overNodeBound(name string, params json.RawMessage) string {
	switch name {
	case "avm.getUTXOs", "platform.getUTXOs", "avax.getUTXOs":
	default:
		return ""
	}
	var args struct {
		Addresses []json.RawMessage `json:"addresses"`
	}
	if jsonrpc.UnmarshalParams(params, &args) != nil || len(args.Addresses) <= maxUTXOAddresses {
		return ""
	}
	return fmt.Sprintf("number of addresses given, %d, exceeds maximum, %d", len(args.Addresses), maxUTXOAddresses)
}

// nodeURL is where a node call goes upstream: the endpoint's path the
// request matched, without the client's query (the node reads none, and
// the cache key holds none).
func nodeURL(r *http.Request) *url.URL { return &url.URL{Path: r.URL.Path, RawPath: r.URL.RawPath} }

// passthroughRoute is the charge's route name of calls the catalogue does
// not name.
var passthroughRoute = []string{"passthrough"}

// serveEVM prepares an Ethereum JSON-RPC body (single or batch) for the node
// upstream's C-Chain endpoint, or the local dev chain. Each call is allowed
// or refused on its own: a method of catalog.EVMNamespaces, or one the
// operator publishes to the caller's key (or the debug_ namespace with
// Options.EVMDebug) is forwarded, re-encoded; any other call, and an element
// that is not a valid call, gets go-ethereum's own error element from the
// edge (in a batch, in its place among the upstream's answers) and is never
// forwarded.
// The body costs the sum of its calls' prices (an element answered by the
// edge costs evm.rpc's), charged beyond the endpoint's minimum it was
// admitted for (admitRest); a body that is no call (not JSON, an empty or
// oversized batch) keeps the minimum.
func (s *Server) serveEVM(ex *exchange, body []byte) {
	calls, batch, err := jsonrpc.ParseEth(body, maxBatch)
	var tooLarge *jsonrpc.EthBatchTooLarge
	switch {
	case errors.As(err, &tooLarge):
		s.refuse(ex, http.StatusRequestEntityTooLarge, tooLarge.Error())
		return
	case err != nil:
		// What geth answers; answered here at the endpoint's minimum, so a
		// body that is not JSON is never forwarded.
		s.writeEVM(ex, []byte(`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}`+"\n"))
		return
	case batch && len(calls) == 0:
		s.writeEVM(ex, jsonrpc.AppendEthError(nil, nil, &jsonrpc.EthError{Code: jsonrpc.EthCodeInvalidRequest, Message: "empty batch"}))
		return
	}
	rt := s.routes[catalog.EVMRoute]
	base := int64(1)
	if rt != nil {
		base = rt.Cost
	}
	fwd, nfwd, edge, own, cost := s.splitEVMCalls(calls, ex.keyID, base, socketCallsOf(ex) != nil)
	charge := limits.Charge{Routes: evmRoute, Cost: cost}
	if nfwd == 0 {
		// Nothing to forward: the edge answers (after charging) as
		// go-ethereum would, with no upstream call.
		if !s.admitRest(ex, charge) || !ex.admitted && !s.admit(ex, charge) {
			return
		}
		s.answerOwn(ex, calls, edge, own)
		if len(own) > 0 {
			// A socket's own calls are counted by their method.
			p := &preparedCall{rt: rt, service: catalog.Node, charge: charge, method: "batch"}
			if !batch {
				p.method = calls[0].Method
			}
			ex.prepared = p
		}
		s.writeEdgeAnswers(ex, edge, batch)
		return
	}
	if batch {
		fwd = append(append([]byte{'['}, fwd...), ']')
	}
	p := &preparedCall{rt: rt, service: catalog.Node, url: nodeURL(ex.r), body: fwd, charge: charge, edgeAnswers: edge, method: "batch"}
	if !batch {
		p.method = calls[0].Method
	}
	// Admitted before a socket's own calls are answered (serve would
	// admit it only after).
	if s.admitRest(ex, charge) && (ex.admitted || s.admit(ex, charge)) {
		s.answerOwn(ex, calls, edge, own)
		s.serve(ex, p)
		return
	}
	// Refused: its usage is counted by its method ("batch" for a batch),
	// as serve counts what it admits.
	ex.prepared = p
}

// splitEVMCalls sorts an EVM body's calls: those keyID may call are
// re-encoded into fwd (nfwd of them, comma-separated), at their price; the
// others cost base each and get go-ethereum's error element in edge, placed
// after the forwarded calls answered before them (notifications get none
// unless invalid). Answers sent to the edge are ignored, as go-ethereum
// does. On a socket (sock), its own calls (eth_subscribe, eth_unsubscribe)
// are answered by the edge once charged: own are their places in edge.
func (s *Server) splitEVMCalls(calls []jsonrpc.EthCall, keyID string, base int64, sock bool) (fwd []byte, nfwd int, edge []edgeAnswer, own []int, cost int64) {
	answered := 0 // forwarded calls the upstream answers
	for i := range calls {
		c := &calls[i]
		var refusal *jsonrpc.EthError
		switch price, ok := s.evmPrice(c.Method, keyID); {
		case c.Response:
			continue
		case c.Invalid != nil:
			refusal = c.Invalid
		case !ok:
			refusal = jsonrpc.EthMethodNotFound(c.Method)
		case sock && isSocketMethod(c.Method):
			cost += price
			if !c.IsNotification() {
				own = append(own, len(edge))
				edge = append(edge, edgeAnswer{after: answered})
			}
			continue
		default:
			cost += price
			if nfwd > 0 {
				fwd = append(fwd, ',')
			}
			fwd = c.AppendRequest(fwd)
			nfwd++
			if !c.IsNotification() {
				answered++
			}
			continue
		}
		cost += base
		if c.Invalid != nil || !c.IsNotification() {
			edge = append(edge, edgeAnswer{after: answered, body: c.AppendError(nil, refusal)})
		}
	}
	return fwd, nfwd, edge, own, cost
}

// writeEdgeAnswers writes the edge's answers to a body none of whose calls
// is forwarded: no body for notifications and answers only, an array for a
// batch, else the one element.
func (s *Server) writeEdgeAnswers(ex *exchange, edge []edgeAnswer, batch bool) {
	var b []byte
	for i, a := range edge {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, a.body...)
	}
	switch {
	case len(edge) == 0:
		s.writeEVM(ex, nil)
	case batch:
		s.writeEVM(ex, append(append([]byte{'['}, b...), ']'))
	default:
		s.writeEVM(ex, b)
	}
}

// answerOwn fills the edge's answers (edge[own]) to a socket's own calls,
// in the body's order.
func (s *Server) answerOwn(ex *exchange, calls []jsonrpc.EthCall, edge []edgeAnswer, own []int) {
	if len(own) == 0 {
		return
	}
	sc := socketCallsOf(ex)
	j := 0
	for i := range calls {
		c := &calls[i]
		if c.Response || c.Invalid != nil || !isSocketMethod(c.Method) || c.IsNotification() {
			continue
		}
		if _, ok := s.evmPrice(c.Method, ex.keyID); !ok {
			continue
		}
		edge[own[j]].body = sc.answer(c)
		j++
	}
}

// evmRoute is the charge's route name of every EVM call.
var evmRoute = []string{catalog.EVMRoute}

// evmPrice returns the price of one call of method on the EVM endpoint for
// keyID, and whether the call is forwarded at all: a catalogued method at
// its cost, any other of catalog.EVMNamespaces at evm.rpc's, the debug_
// namespace at catalog.EVMDebugCost with Options.EVMDebug, and the
// operator's published methods to their keys at their cost.
func (s *Server) evmPrice(method, keyID string) (int64, bool) {
	if rt := s.rpc["evm"][method]; rt != nil && rt.Name != catalog.EVMRoute {
		return rt.Cost, true
	}
	if catalog.EVMServes(method) {
		if rt := s.routes[catalog.EVMRoute]; rt != nil {
			return rt.Cost, true
		}
		return 1, true
	}
	if s.opts.EVMDebug && strings.HasPrefix(method, "debug_") {
		return catalog.EVMDebugCost, true
	}
	return s.rpcPublished("evm", method, keyID)
}

// rpcPublished returns the price of a call of method on endpoint that the
// operator publishes to keyID (config publish: rpc_methods), and whether it
// does.
func (s *Server) rpcPublished(endpoint, method, keyID string) (int64, bool) {
	for i := range s.opts.Publish {
		pub := &s.opts.Publish[i]
		if len(pub.RPCMethods) == 0 || catalog.EndpointOf(pub.Path) != endpoint || !slices.Contains(pub.Keys, keyID) {
			continue
		}
		for _, m := range pub.RPCMethods {
			if prefix, wild := strings.CutSuffix(m, "*"); m == method || wild && strings.HasPrefix(method, prefix) {
				if pub.Cost == 0 {
					return s.opts.PassthroughCost, true
				}
				return pub.Cost, true
			}
		}
	}
	return 0, false
}

// writeEVM answers an EVM request at the edge with go-ethereum's bytes: body
// (nil: an empty 200, as for notifications) and a newline.
func (s *Server) writeEVM(ex *exchange, body []byte) {
	ex.source = FromEdge
	h := ex.w.Header()
	setOrigin(h, FromEdge)
	if body == nil {
		ex.w.WriteHeader(http.StatusOK)
		return
	}
	if body[len(body)-1] != '\n' {
		body = append(body, '\n')
	}
	h["Content-Type"] = hdrEthJSON
	h["Content-Length"] = []string{strconv.Itoa(len(body))}
	ex.w.WriteHeader(http.StatusOK)
	ex.w.Write(body)
}

// hdrEthJSON is go-ethereum's Content-Type.
var hdrEthJSON = []string{"application/json"}

// canonicalParams is the form of a node call's params that is both forwarded
// and keyed: jsonrpc.Canonical's.
func canonicalParams(p json.RawMessage) json.RawMessage { return jsonrpc.Canonical(p) }

// nodeCall is the body forwarded for a node call: c re-encoded with params
// (canonicalParams), so the upstream reads the call that was priced and
// keyed whatever its reader (EthCall.AppendRequest does the same for the
// EVM endpoint).
func nodeCall(c *jsonrpc.Call, params json.RawMessage) []byte {
	return c.AppendRequest(make([]byte, 0, 64+len(c.Method)+len(params)), params)
}

// paramsHash names a call's params in a cache key: the SHA-256 of their
// canonical form (canonicalParams, "null" when absent), the bytes that are
// forwarded, so formatting does not split entries and no two calls the
// upstream may read differently share one.
func paramsHash(canon json.RawMessage) string {
	if canon == nil {
		canon = json.RawMessage("null")
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
