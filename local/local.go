// Package local is avaedge's offline implementation of every catalogued
// route, as one http.Handler: the devnet's primary network, the EVM index,
// the metrics computed from it, the node's JSON-RPC methods and the signature
// aggregator. Subpackages provide the handlers; this package mounts them on
// the catalogue's paths and decides what it may answer for in proxy mode.
package local

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"

	"github.com/avaedge/avaedge/apierror"
	"github.com/avaedge/avaedge/catalog"
	"github.com/avaedge/avaedge/jsonrpc"
)

// Options assembles a Handler.
type Options struct {
	// Routes is the catalogue. Nil means catalog.Catalogue().
	Routes []catalog.Route
	// Handlers answer REST routes, by route name.
	Handlers map[string]http.Handler
	// Methods answer JSON-RPC methods, by method name ("info.getNetworkID").
	Methods map[string]jsonrpc.Method
	// EVM serves the embedded EVM chain's Ethereum JSON-RPC (/ext/bc/C/rpc).
	EVM http.Handler
	// LocalMode says, per service, that there is no upstream: everything of
	// that service is answered locally.
	LocalMode map[catalog.Service]bool
	// Networks are the network names the devnet may answer for in proxy
	// mode (AVAEDGE_LOCAL_NETWORKS).
	Networks []string
	// NodeNetwork is the node upstream's network name; node methods fall back
	// locally only when it is one of Networks.
	NodeNetwork string
	// IndexedChain reports whether an EVM chain id (or blockchain id) is
	// followed by the indexer from a real node, so EVM and metrics routes may
	// fall back for it. Nil means none.
	IndexedChain func(chainID string) bool
}

// Handler is the local world as one http.Handler. It is safe for concurrent
// use.
type Handler struct {
	opts   Options
	mux    *http.ServeMux
	routes map[string]*catalog.Route
}

// New builds the Handler. Routes without a handler answer 503 in their
// service's format, saying that the route has no local implementation.
func New(opts Options) *Handler {
	if opts.Routes == nil {
		opts.Routes = catalog.Catalogue()
	}
	h := &Handler{opts: opts, mux: http.NewServeMux(), routes: map[string]*catalog.Route{}}
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
		h.mux.Handle(rt.Pattern(), handler)
	}
	for endpoint, paths := range catalog.NodeEndpoints {
		rpc := jsonrpc.NewServer(methods[endpoint])
		for _, p := range paths {
			switch endpoint {
			case "evm":
				evm := opts.EVM
				if evm == nil {
					evm = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
						jsonrpc.WriteResponse(w, &jsonrpc.Response{Version: jsonrpc.Version,
							Error: &jsonrpc.Error{Code: jsonrpc.CodeServer, Message: "the embedded EVM dev chain is not running"}, ID: nullID()})
					})
				}
				h.mux.Handle(p, evm)
			default:
				h.mux.Handle(p, rpc)
			}
		}
	}
	h.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		notFound(w, r)
	})
	return h
}

func nullID() *json.RawMessage { n := json.RawMessage("null"); return &n }

// ServeHTTP answers r from the local world.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) { h.mux.ServeHTTP(w, r) }

// Has reports whether route has a real local implementation.
func (h *Handler) Has(route string) bool {
	if _, ok := h.opts.Handlers[route]; ok {
		return true
	}
	_, ok := h.opts.Methods[route]
	return ok || (route == "evm.rpc" && h.opts.EVM != nil)
}

// Serves reports whether the local world has a real source for r on route: in
// local mode always; in proxy mode only for networks mapped to the devnet and
// EVM chains the indexer follows from a real node.
func (h *Handler) Serves(r *http.Request, route string) bool {
	rt := h.routes[route]
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
		return h.opts.NodeNetwork != "" && slices.Contains(h.opts.Networks, h.opts.NodeNetwork)
	}
	if n := r.PathValue("network"); n != "" {
		return slices.Contains(h.opts.Networks, n)
	}
	if c := r.PathValue("chainId"); c != "" && h.opts.IndexedChain != nil {
		return h.opts.IndexedChain(c)
	}
	return false
}

// missing answers a route that has no local implementation yet.
func missing(rt *catalog.Route) http.Handler {
	msg := "route " + rt.Name + " has no local implementation yet; configure an upstream for the " + string(rt.Service) + " service"
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if rt.Service == catalog.Metrics {
			apierror.WriteList(w, http.StatusServiceUnavailable, msg)
			return
		}
		apierror.Write(w, http.StatusServiceUnavailable, msg)
	})
}

func missingMethod(name string) jsonrpc.Method {
	return func(context.Context, json.RawMessage) (any, error) {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeServer, Message: "method " + name + " has no local implementation yet; configure a node upstream"}
	}
}

// notFound answers a path no route knows, as the services do.
func notFound(w http.ResponseWriter, r *http.Request) {
	if len(r.URL.Path) >= 5 && r.URL.Path[:5] == "/ext/" {
		http.NotFound(w, r)
		return
	}
	apierror.Write(w, http.StatusNotFound, "Cannot "+r.Method+" "+r.URL.Path)
}
