package local

import (
	"net/http"
	"strconv"

	"github.com/avaedge/avaedge/apierror"
	"github.com/avaedge/avaedge/catalog"
	"github.com/avaedge/avaedge/local/source/evmindex"
	"github.com/avaedge/avaedge/local/vocab/cchain"
)

// pendingMessage is the 503 of a followed chain's routes before its node
// first answered, when the index holds nothing of it yet.
const pendingMessage = "the followed node's C-Chain has not answered yet and the index holds none of it; its EVM and Metrics routes answer as soon as it does"

// pendingChain is a chain followed from a real node that may not have
// answered yet.
type pendingChain struct {
	// evmID and blockchainID name it.
	evmID        uint64
	blockchainID string
	// ready reports that its node answered or the index holds blocks of it.
	ready func() bool
}

// names reports whether a {chainId} value names the chain: its own ids, or
// one of aliases (nil: none), the other ids that resolve to it in the
// service's mode.
func (p pendingChain) names(id string, aliases *cchain.Aliases) bool {
	_, alias := aliases.Resolve(id)
	return alias || id == strconv.FormatUint(p.evmID, 10) || id == p.blockchainID
}

// gate makes every handler of hs answer the 503 of pendingMessage, in the
// service's error format, for a call naming the chain ({chainId}, by its own
// ids or aliases) while it is not ready. Routes that name no chain (the
// chain lists, the staking metrics) answer as ever.
func (p pendingChain) gate(hs map[string]catalog.Handler, svc catalog.Service, aliases *cchain.Aliases) map[string]catalog.Handler {
	out := make(map[string]catalog.Handler, len(hs))
	for name, h := range hs {
		out[name] = func(w http.ResponseWriter, r *http.Request, v catalog.Values) {
			if id, named := v["chainId"]; named && !p.ready() && p.names(id, aliases) {
				if svc == catalog.Metrics {
					apierror.WriteList(w, http.StatusServiceUnavailable, pendingMessage)
				} else {
					apierror.Write(w, http.StatusServiceUnavailable, pendingMessage)
				}
				return
			}
			h(w, r, v)
		}
	}
	return out
}

// readyIn reports whether the index is ready for the chain: its node
// answered, or it holds blocks of it.
func readyIn(ix *evmindex.Index, chainID uint64) func() bool {
	return func() bool { return ix.Ready(chainID) }
}
