package proxy

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/avaedge/avaedge/cache"
	"github.com/avaedge/avaedge/catalog"
	"github.com/avaedge/avaedge/jsonrpc"
)

// rpcAnswer is the answer to one JSON-RPC call.
type rpcAnswer struct {
	status int
	ctype  string
	body   []byte // nil for a notification
	source string
	cache  CacheStatus
}

// maxBatch bounds the calls of one batch.
const maxBatch = 100

// serveRPC handles a node endpoint ("info", "avm", "evm"): the node's
// envelope rules are enforced at the edge, batches are split into single
// calls (each cached and charged on its own) and answered as an array.
func (s *Server) serveRPC(endpoint string, w http.ResponseWriter, r *http.Request) {
	ex := s.begin(w, r, catalog.Node, endpoint)
	defer s.finish(ex)
	if status, msg := jsonrpc.HTTPError(r); status != 0 {
		setSource(ex.w.Header(), ex, "edge")
		jsonrpc.WriteHTTPError(ex.w, status, msg)
		return
	}
	body, err := s.readBody(r)
	if err != nil {
		setSource(ex.w.Header(), ex, "edge")
		writeRPCError(ex.w, bodyStatus(err), nil, bodyMessage(err))
		return
	}
	if endpoint == "evm" {
		s.serveEVM(ex, body)
		return
	}
	calls, batch, errResp := jsonrpc.Decode(body)
	if errResp != nil {
		setSource(ex.w.Header(), ex, "edge")
		jsonrpc.WriteResponse(ex.w, errResp)
		return
	}
	if len(calls) > maxBatch {
		setSource(ex.w.Header(), ex, "edge")
		writeRPCError(ex.w, http.StatusRequestEntityTooLarge, nil, "batch of "+strconv.Itoa(len(calls))+" calls exceeds the limit of "+strconv.Itoa(maxBatch))
		return
	}
	routes := make([]*catalog.Route, len(calls))
	charge := Charge{Routes: make([]string, 0, len(calls))}
	for i := range calls {
		if calls[i].Err != nil {
			continue
		}
		rt := s.rpc[endpoint][jsonrpc.LookupName(calls[i].Method)]
		routes[i] = rt
		if rt != nil {
			charge.Routes = append(charge.Routes, rt.Name)
			charge.Cost += rt.Cost
		} else {
			charge.Routes = append(charge.Routes, "passthrough")
			charge.Cost++
		}
	}
	if !batch && routes[0] != nil {
		ex.route = routes[0].Name
	}
	var firstID *json.RawMessage
	if !batch {
		firstID = calls[0].ID
	}
	if !s.admit(ex, charge, func(st int, msg string) { writeRPCError(ex.w, st, firstID, msg) }) {
		return
	}
	if !batch {
		a := s.rpcCall(ex, endpoint, &calls[0], routes[0], body)
		s.writeRPC(ex, a)
		return
	}
	answers := make([]rpcAnswer, len(calls))
	var wg sync.WaitGroup
	sem := make(chan struct{}, 8)
	for i := range calls {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			answers[i] = s.rpcCall(ex, endpoint, &calls[i], routes[i], nil)
		}()
	}
	wg.Wait()
	var out bytes.Buffer
	sources := map[string]bool{}
	for _, a := range answers {
		if a.body == nil {
			continue
		}
		sources[a.source] = true
		if out.Len() == 0 {
			out.WriteByte('[')
		} else {
			out.WriteByte(',')
		}
		out.Write(bytes.TrimRight(a.body, "\n"))
	}
	h := ex.w.Header()
	if out.Len() == 0 {
		setSource(h, ex, "edge")
		ex.w.WriteHeader(http.StatusOK)
		return
	}
	out.WriteString("]\n")
	src := make([]string, 0, len(sources))
	for _, name := range []string{"upstream", "cache", "local", "edge"} {
		if sources[name] {
			src = append(src, name)
		}
	}
	ex.source = strings.Join(src, ",")
	h["X-Avaedge-Source"] = []string{strings.Join(src, ", ")}
	h["Content-Type"] = hdrJSON
	h["Content-Length"] = []string{strconv.Itoa(out.Len())}
	ex.w.WriteHeader(http.StatusOK)
	ex.w.Write(out.Bytes())
}

func (s *Server) writeRPC(ex *exchange, a rpcAnswer) {
	h := ex.w.Header()
	setSource(h, ex, a.source)
	if a.cache != "" {
		ex.cache = a.cache
		h["X-Cache-Status"] = cacheHdr[a.cache]
	}
	if a.body == nil {
		ex.w.WriteHeader(http.StatusOK)
		return
	}
	if a.ctype != "" {
		h["Content-Type"] = []string{a.ctype}
	}
	h["Content-Length"] = []string{strconv.Itoa(len(a.body))}
	ex.w.WriteHeader(a.status)
	ex.w.Write(a.body)
}

// rpcCall answers one call: envelope errors at the edge; else upstream
// (through the cache for cacheable methods) with the fallback chain, or the
// local handler in local mode. raw is the original body of a single call,
// forwarded intact; nil re-encodes the call (a batch element).
func (s *Server) rpcCall(ex *exchange, endpoint string, c *jsonrpc.Call, rt *catalog.Route, raw []byte) rpcAnswer {
	if c.Err != nil {
		if c.IsNotification() && c.Err.Code != jsonrpc.CodeParse {
			return rpcAnswer{status: http.StatusOK, source: "edge"}
		}
		return rpcAnswer{status: http.StatusOK, ctype: hdrJSON[0], body: jsonrpc.Marshal(c.ErrorResponse()), source: "edge"}
	}
	if raw == nil {
		raw = encodeCall(c)
	}
	up := s.opts.Upstreams[catalog.Node]
	name := "passthrough"
	if rt != nil {
		name = rt.Name
	}
	if up == nil {
		return s.localRPC(ex, c, name, raw)
	}
	if rt == nil || rt.Cache == cache.Never || s.opts.Cache == nil || c.IsNotification() {
		a, err := s.upstreamRPC(ex.r.Context(), up, ex.r, raw)
		if err != nil {
			return s.rpcFallback(ex, up, c, name, raw, err)
		}
		return a
	}
	key := RoutePrefix(rt) + ex.r.URL.EscapedPath() + "|" + paramsHash(c.RawParams())
	st, cs, err := s.opts.Cache.Do(ex.r.Context(), key, noCache(ex.r.Header), func(ctx context.Context) (*Stored, error) {
		ctx, cancel := detached(ctx, up.timeout())
		defer cancel()
		a, err := s.upstreamRPC(ctx, up, ex.r, raw)
		if err != nil {
			return nil, err
		}
		st := &Stored{Status: a.status, ContentType: a.ctype, Body: a.body, StoredAt: s.now()}
		if a.status == http.StatusOK && isRPCResult(a.body) {
			if fresh, stale, errFor, store := s.opts.Freshness(rt, a.status, nil, false); store {
				st.FreshFor, st.StaleFor, st.ErrorFor = fresh, stale, errFor
			}
		}
		return st, nil
	})
	if err != nil {
		return s.rpcFallback(ex, up, c, name, raw, err)
	}
	src := "upstream"
	if cs == Hit || cs == Stale {
		src = "cache"
	}
	return rpcAnswer{status: st.Status, ctype: st.ContentType, body: withID(st.Body, c.ID), source: src, cache: cs}
}

// encodeCall re-encodes one call of a batch for the upstream, leaving out
// absent params and id (a notification stays one).
func encodeCall(c *jsonrpc.Call) []byte {
	b, _ := json.Marshal(struct {
		Version string           `json:"jsonrpc"`
		Method  string           `json:"method"`
		Params  *json.RawMessage `json:"params,omitempty"`
		ID      *json.RawMessage `json:"id,omitempty"`
	}{c.Version, c.Method, c.Params, c.ID})
	return b
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

// upstreamRPC sends one call's body to the node upstream on the request's
// path. 5xx and 429 answers are failures.
func (s *Server) upstreamRPC(ctx context.Context, up *Upstream, in *http.Request, raw []byte) (rpcAnswer, error) {
	ctx, cancel := context.WithTimeout(ctx, up.timeout())
	defer cancel()
	out := up.outgoing(ctx, in, raw, s.clientIP(in))
	out.Header.Del("Accept-Encoding")
	start := time.Now()
	resp, err := up.RoundTrip(out, true)
	s.metrics.upstreamLatency(up.Service, time.Since(start), err)
	if err != nil {
		return rpcAnswer{}, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxUpstreamBody))
	if err != nil {
		return rpcAnswer{}, &FailureError{Err: err}
	}
	if Failed(resp.StatusCode) {
		return rpcAnswer{}, &FailureError{Status: resp.StatusCode, Header: resp.Header, Body: b, Err: errUpstreamStatus}
	}
	if len(b) == 0 {
		b = nil // a notification's empty answer
	}
	return rpcAnswer{status: resp.StatusCode, ctype: resp.Header.Get("Content-Type"), body: b, source: "upstream"}, nil
}

// rpcFallback answers a call whose upstream failed: local when it serves the
// node's network, else the upstream's own failure answer, else a 503 carrying
// a JSON-RPC error.
func (s *Server) rpcFallback(ex *exchange, up *Upstream, c *jsonrpc.Call, route string, raw []byte, err error) rpcAnswer {
	if s.localServes(up, route, ex.r, nil) {
		return s.localRPC(ex, c, route, raw)
	}
	var fe *FailureError
	if errors.As(err, &fe) && fe.Status != 0 {
		return rpcAnswer{status: fe.Status, ctype: fe.Header.Get("Content-Type"), body: fe.Body, source: "upstream"}
	}
	return rpcAnswer{status: http.StatusServiceUnavailable, ctype: hdrJSON[0],
		body: rpcErrorBody(c.ID, "upstream node unavailable: "+reason(err)), source: "edge"}
}

// localRPC asks the local handler for one call's answer.
func (s *Server) localRPC(ex *exchange, c *jsonrpc.Call, route string, raw []byte) rpcAnswer {
	if s.opts.Local == nil {
		return rpcAnswer{status: http.StatusServiceUnavailable, ctype: hdrJSON[0],
			body: rpcErrorBody(c.ID, "no upstream is configured for the node service and "+route+" has no local handler"), source: "edge"}
	}
	lr, _ := http.NewRequestWithContext(ex.r.Context(), http.MethodPost, ex.r.URL.String(), bytes.NewReader(raw))
	lr.Header = ex.r.Header.Clone()
	lr.Header.Set("Content-Type", "application/json")
	lr.RemoteAddr = ex.r.RemoteAddr
	bw := &bufferWriter{header: http.Header{}}
	s.opts.Local.Serve(bw, lr, s.routes[route], nil)
	if bw.status == 0 {
		bw.status = http.StatusOK
	}
	var body []byte
	if bw.buf.Len() > 0 {
		body = bw.buf.Bytes()
	}
	return rpcAnswer{status: bw.status, ctype: bw.header.Get("Content-Type"), body: body, source: "local"}
}

// serveEVM forwards an Ethereum JSON-RPC body (single or batch) whole to the
// node upstream's C-Chain endpoint, or to the local dev chain.
func (s *Server) serveEVM(ex *exchange, body []byte) {
	n := int64(1)
	if t := bytes.TrimLeft(body, " \t\r\n"); len(t) > 0 && t[0] == '[' {
		var elems []json.RawMessage
		if json.Unmarshal(t, &elems) == nil && len(elems) > 0 {
			n = int64(len(elems))
		}
	}
	rt := s.rpc["evm"]["evm.rpc"]
	cost := n
	if rt != nil {
		cost = n * rt.Cost
	}
	if !s.admit(ex, Charge{Routes: []string{"evm.rpc"}, Cost: cost}, func(st int, msg string) { writeRPCError(ex.w, st, nil, msg) }) {
		return
	}
	ex.route = "evm.rpc"
	r := ex.r.Clone(ex.r.Context())
	r.Body = readCloser(body)
	if up := s.opts.Upstreams[catalog.Node]; up != nil {
		ex.r = r
		s.forward(ex, up, "evm.rpc", body)
		return
	}
	s.serveLocal(ex, "evm.rpc", r, nil)
}

// bufferWriter collects a local handler's answer in memory.
type bufferWriter struct {
	header http.Header
	status int
	buf    bytes.Buffer
}

func (b *bufferWriter) Header() http.Header { return b.header }
func (b *bufferWriter) WriteHeader(code int) {
	if b.status == 0 {
		b.status = code
	}
}
func (b *bufferWriter) Write(p []byte) (int, error) {
	if b.status == 0 {
		b.status = http.StatusOK
	}
	return b.buf.Write(p)
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

func rpcErrorBody(id *json.RawMessage, msg string) []byte {
	return rpcErrorBodyCode(id, jsonrpc.CodeServer, msg)
}

func rpcErrorBodyCode(id *json.RawMessage, code int, msg string) []byte {
	if id == nil {
		null := json.RawMessage("null")
		id = &null
	}
	return jsonrpc.Marshal(&jsonrpc.Response{Version: jsonrpc.Version, Error: &jsonrpc.Error{Code: code, Message: msg}, ID: id})
}

// writeRPCError answers a node request refused at the edge with status and a
// JSON-RPC error body.
func writeRPCError(w http.ResponseWriter, status int, id *json.RawMessage, msg string) {
	body := rpcErrorBodyCode(id, rpcErrorCode(status), msg)
	h := w.Header()
	h["Content-Type"] = hdrJSON
	h["Content-Length"] = []string{strconv.Itoa(len(body))}
	w.WriteHeader(status)
	w.Write(body)
}
