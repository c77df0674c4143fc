package local

import (
	"net/http"
	"strconv"

	"github.com/avaedge/avaedge/apierror"
	"github.com/avaedge/avaedge/catalog"
	"github.com/avaedge/avaedge/local/cchain"
)

// pendingMessage is the 503 of a followed chain's routes before its node
// first answered, when the index holds nothing of it yet.
const pendingMessage = "the followed node's C-Chain has not answered yet and the index holds none of it; its EVM and Metrics routes answer as soon as it does"

// pendingChain is a chain followed from a real node that may not have
// answered yet.
type pendingChain struct {
	// evmID and blockchainID name it; aliases, when set, are the other ids
	// that resolve to it (local mode's C-Chain aliases).
	evmID        uint64
	blockchainID string
	aliases      *cchain.Aliases
	// alone says no other EVM chain is indexed: the routes that name no
	// chain have nothing to answer from either.
	alone bool
	// ready reports that its node answered or the index holds blocks of it.
	ready func() bool
}

// names reports whether a {chainId} value names the chain.
func (p *pendingChain) names(id string) bool {
	_, alias := p.aliases.Resolve(id)
	return alias || id == strconv.FormatUint(p.evmID, 10) || id == p.blockchainID
}

// gate makes every handler of hs answer the 503 of pendingMessage, in the
// service's error format, for a call about the chain while it is not ready.
func (p *pendingChain) gate(hs map[string]catalog.Handler, svc catalog.Service) map[string]catalog.Handler {
	out := make(map[string]catalog.Handler, len(hs))
	for name, h := range hs {
		out[name] = func(w http.ResponseWriter, r *http.Request, v catalog.Values) {
			id, named := v["chainId"]
			if !p.ready() && (named && p.names(id) || !named && p.alone) {
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
