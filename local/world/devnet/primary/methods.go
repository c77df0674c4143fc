package primary

import (
	"context"
	"encoding/json"

	"github.com/avaedge/avaedge/jsonrpc"
	"github.com/avaedge/avaedge/local/api/node"
	gen "github.com/avaedge/avaedge/local/source/devnet"
)

// NodeMethods returns the node methods of a devnet presented as network
// (NodeView's): the info.* and avm.* methods over its NodeView, the
// platform.* methods node.PlatformMethods answers from its index, the
// C-Chain's atomic reads node.AtomicMethods answers from it, the P-Chain's
// fee parameters and state and its proposed height (feeMethods), and the
// X-Chain's, the P-Chain's and the C-Chain's atomic writes, which answer
// that the devnet takes no transactions.
func NodeMethods(w *gen.World, network string) (map[string]jsonrpc.Method, error) {
	v, err := NodeView(w, network)
	if err != nil {
		return nil, err
	}
	methods := node.Methods(v)
	for name, m := range node.PlatformMethods(w.Index(), v) {
		methods[name] = m
	}
	for name, m := range node.AtomicMethods(w.Index(), v) {
		methods[name] = m
	}
	for name, m := range feeMethods(w) {
		methods[name] = m
	}
	for _, name := range []string{"avm.issueTx", "platform.issueTx", "avax.issueTx"} {
		methods[name] = noTransactions(name)
	}
	return methods, nil
}

// noTransactions answers a write in devnet mode: the devnet is generated,
// not a running network, so it takes no transaction.
func noTransactions(name string) jsonrpc.Method {
	return func(context.Context, json.RawMessage) (any, error) {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeServer, Message: name + ": the devnet takes no transactions (it is generated, not a running network); " +
			"to issue one, follow a node (AVAEDGE_LOCAL_NODE=http://127.0.0.1:9650) or configure a node upstream (upstreams.node.url)"}
	}
}
