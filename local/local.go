// Package local is avaedge's offline implementation of every catalogued
// route, laid out by role, each layer importing only those below it:
//
//	local/vocab/...   vocabulary: ids and codecs (avax), the Warp message codec
//	                  (warpmsg), the Data API's answer shapes (glacier), the
//	                  C-Chain's aliases (cchain), page tokens (pagetoken)
//	local/source/...  sources: the P/X index (pindex), the EVM index
//	                  (evmindex), validators over p2p (acp118, warpsource), the
//	                  devnet's generated network and embedded chains (devnet),
//	                  a fleet's shared PostgreSQL: its writer's election
//	                  (lease) and versioned schemas (pgschema)
//	local/api/...     handlers: the Data API (dataapi, evmdata), the Metrics
//	                  API (metricsapi), the node's methods (node), the signature
//	                  aggregator (warp)
//	local/world/...   worlds: what a world is (world) and the two there are
//	                  (devnet, followed), each opening and owning its sources
//	local             wiring: Build opens a world and wires it to the handlers
//
// The Handler Build returns dispatches a validated call to the handlers
// (Handler.Answer, the edge's entry), mounts them on the catalogue's paths for
// use without the edge (Handler.ServeHTTP), and decides what it may answer
// for in proxy mode (Handler.Covers).
package local

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"sync"

	"github.com/ethereum/go-ethereum/rpc"

	"github.com/avaedge/avaedge/apierror"
	"github.com/avaedge/avaedge/catalog"
	"github.com/avaedge/avaedge/jsonrpc"
)

// Options assembles a Handler.
type Options struct {
	// Routes is the catalogue. Nil means catalog.Catalogue().
	Routes []catalog.Route
	// Handlers answer REST routes, by route name, with validated values.
	Handlers map[string]catalog.Handler
	// Methods answer JSON-RPC methods, by method name ("info.getNetworkID").
	Methods map[string]jsonrpc.Method
	// EVM serves the embedded EVM chain's Ethereum JSON-RPC (/ext/bc/C/rpc).
	EVM http.Handler
	// EVMPaths serve the JSON-RPC of the local world's other EVM chains, by
	// path (/ext/bc/<blockchainId>/rpc and its alias's).
	EVMPaths map[string]http.Handler
	// EVMSubs serve eth_subscribe for the local world's EVM chains (their
	// WebSocket twins at the edge), by JSON-RPC path.
	EVMSubs map[string]*rpc.Client
	// LocalMode says, per service, that there is no upstream: everything of
	// that service is answered locally.
	LocalMode map[catalog.Service]bool
	// Networks are the network names the devnet may answer for in proxy
	// mode (AVAEDGE_LOCAL_NETWORKS).
	Networks []string
	// NodeNetwork is the node upstream's network name; node methods fall back
	// locally only when it is one of Networks.
	NodeNetwork string
	// RealNode says the node methods are a real network's (the index of a
	// followed node, AVAEDGE_LOCAL_NODE), so they fall back locally whenever
	// the node upstream does not answer.
	RealNode bool
	// IndexedChain reports whether an EVM chain id (or blockchain id) is
	// followed by the indexer from a real node, so EVM and metrics routes may
	// fall back for it. Nil means none.
	IndexedChain func(chainID string) bool
}

// Handler is the local world. It is safe for concurrent use.
type Handler struct {
	opts   Options
	mux    *http.ServeMux
	routes map[string]*catalog.Route
	rest   map[string]catalog.Handler // by route name; missing routes answer 503
	rpc    map[string]http.Handler    // by endpoint name: info, avm, evm

	// closers are the components Build opened, closed once by Close;
	// onClose is Build's test hook, told of each.
	closers   []closer
	onClose   func(name string)
	closeOnce sync.Once
	closeErr  error
	wired     wiring
}

// New builds the Handler. Routes without a handler answer 503 in their
// service's format, saying that the route has no local implementation.
func New(opts Options) *Handler {
	if opts.Routes == nil {
		opts.Routes = catalog.Catalogue()
	}
	h := &Handler{opts: opts, mux: http.NewServeMux(), routes: map[string]*catalog.Route{},
		rest: map[string]catalog.Handler{}, rpc: map[string]http.Handler{}}
	// One method set per endpoint: like the node, /ext/info serves only info.*
	// and the X-Chain endpoints only avm.*.
	methods := map[string]map[string]jsonrpc.Method{}
	for i := range opts.Routes {
		rt := &opts.Routes[i]
		h.routes[rt.Name] = rt
		if rt.IsRPC() {
			if methods[rt.Endpoint] == nil {
				methods[rt.Endpoint] = map[string]jsonrpc.Method{}
			}
			if m, ok := opts.Methods[rt.Name]; ok {
				methods[rt.Endpoint][rt.Name] = m
			} else if rt.Endpoint != "evm" {
				methods[rt.Endpoint][rt.Name] = missingMethod(rt.Name)
			}
			continue
		}
		handler, ok := opts.Handlers[rt.Name]
		if !ok {
			handler = missing(rt)
		}
		h.rest[rt.Name] = handler
	}
	catalog.Mount(h.mux, opts.Routes, func(rt *catalog.Route) http.Handler { return rt.Validating(h.rest[rt.Name]) },
		http.HandlerFunc(notFound))
	for endpoint, paths := range catalog.NodeEndpoints {
		var eh http.Handler = jsonrpc.NewServer(methods[endpoint])
		if endpoint == "evm" {
			eh = opts.EVM
			if eh == nil {
				eh = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					jsonrpc.WriteResponse(w, &jsonrpc.Response{Version: jsonrpc.Version,
						Error: &jsonrpc.Error{Code: jsonrpc.CodeServer, Message: "the embedded EVM dev chain is not running"}, ID: nullID()})
				})
			}
		}
		h.rpc[endpoint] = eh
		for _, p := range paths {
			h.mux.Handle(p, eh)
		}
	}
	for p, eh := range opts.EVMPaths {
		h.mux.Handle(p, eh)
	}
	return h
}

// Close closes what Build opened (the indexes, the dev chain, the metrics
// history, the p2p connections), last opened first. A Handler made by New
// holds nothing to close. It is safe to call more than once.
func (h *Handler) Close() error {
	h.closeOnce.Do(func() { h.closeErr = closeAll(h.closers, h.onClose) })
	return h.closeErr
}

func nullID() *json.RawMessage { n := json.RawMessage("null"); return &n }

// ServeHTTP answers r from the local world without the edge: it matches the
// catalogue's patterns, validates a REST request through the catalogue (400
// in the service's format) and calls the route's handler with the values.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) { h.mux.ServeHTTP(w, r) }

// IndexLease returns this replica's role in the fleet sharing the
// followed network's index (writer or reader), the lease's holder and
// where its route reads go; ok is false without BuildOptions.IndexURL.
func (h *Handler) IndexLease() (st IndexStatus, ok bool) {
	if h.wired.fleet == nil {
		return IndexStatus{}, false
	}
	f := h.wired.fleet
	return f.reads.status(f.elector.Status()), true
}

// Answer answers one call of rt that the edge has validated: for a REST route
// v holds the validated values, and r's body is never read; for a JSON-RPC
// route r's body is the one call (or the EVM body). A nil rt (a JSON-RPC
// method the catalogue does not list) is answered by the endpoint of r's
// path, as the node answers an unknown method.
func (h *Handler) Answer(w http.ResponseWriter, r *http.Request, rt *catalog.Route, v catalog.Values) {
	switch {
	case rt == nil:
		h.mux.ServeHTTP(w, r)
	case rt.Endpoint == "evm":
		h.evmHandler(r.URL.Path).ServeHTTP(w, r)
	case rt.IsRPC():
		h.rpc[rt.Endpoint].ServeHTTP(w, r)
	default:
		handler, ok := h.rest[rt.Name]
		if !ok {
			handler = missing(rt)
		}
		handler(w, r, v)
	}
}

// Covers reports whether the local world has a real source for a call of rt
// with values v: in local mode always; in proxy mode only for networks mapped
// to the devnet and EVM chains the indexer follows from a real node.
func (h *Handler) Covers(rt *catalog.Route, v catalog.Values) bool {
	if rt == nil {
		return false
	}
	if h.opts.LocalMode[rt.Service] {
		return true
	}
	if rt.IsRPC() {
		if rt.Endpoint == "evm" {
			return false
		}
		return h.opts.RealNode || (h.opts.NodeNetwork != "" && slices.Contains(h.opts.Networks, h.opts.NodeNetwork))
	}
	if n := v["network"]; n != "" {
		return slices.Contains(h.opts.Networks, n)
	}
	if c := v["chainId"]; c != "" && h.opts.IndexedChain != nil {
		return h.opts.IndexedChain(c)
	}
	return false
}

// missing answers a route that has no local implementation yet.
func missing(rt *catalog.Route) catalog.Handler {
	msg := "route " + rt.Name + " has no local implementation yet; configure an upstream for the " + string(rt.Service) + " service"
	return func(w http.ResponseWriter, r *http.Request, _ catalog.Values) {
		if rt.Service == catalog.Metrics {
			apierror.WriteList(w, http.StatusServiceUnavailable, msg)
			return
		}
		apierror.Write(w, http.StatusServiceUnavailable, msg)
	}
}

func missingMethod(name string) jsonrpc.Method {
	return func(context.Context, json.RawMessage) (any, error) {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeServer, Message: "method " + name + " has no local implementation yet; configure a node upstream"}
	}
}

// notFound answers a path no route knows, as the services do.
func notFound(w http.ResponseWriter, r *http.Request) {
	if len(r.URL.Path) >= 5 && r.URL.Path[:5] == "/ext/" {
		jsonrpc.WriteNoEndpoint(w, r.URL.Path)
		return
	}
	apierror.Write(w, http.StatusNotFound, "Cannot "+r.Method+" "+r.URL.Path)
}

// ServesEVM reports whether path is the JSON-RPC endpoint of one of the
// local world's own EVM chains besides /ext/bc/C/rpc (a devnet chain's
// /ext/bc/<blockchainId>/rpc or its alias's), answered locally when the
// node service is.
func (h *Handler) ServesEVM(path string) bool {
	_, ok := h.opts.EVMPaths[path]
	return ok && h.opts.LocalMode[catalog.Node]
}

// EVMSubscriber returns the in-process client that serves eth_subscribe
// for the local world's EVM chain at path (/ext/bc/C/rpc, a devnet chain's
// /ext/bc/<blockchainId>/rpc or its alias's), when the node service is
// local; nil otherwise. The world closes it.
func (h *Handler) EVMSubscriber(path string) *rpc.Client {
	if !h.opts.LocalMode[catalog.Node] {
		return nil
	}
	return h.opts.EVMSubs[path]
}

// evmHandler is the handler of an EVM JSON-RPC request on path.
func (h *Handler) evmHandler(path string) http.Handler {
	if eh, ok := h.opts.EVMPaths[path]; ok {
		return eh
	}
	return h.rpc["evm"]
}
