// Package dataapi answers the Data API's primary-network routes from the
// local devnet: subnets, UTXOs, pending rewards, validators, delegators,
// X-chain vertices, blocks proposed by a node and the chains an address has
// touched. Answers follow the Data API's glacier.json: optional fields are
// left out rather than null, 64-bit quantities are strings, enums are the
// spec's, and lists page with stateless tokens (local/pagetoken).
//
// Network names mainnet, fuji and testnet all resolve to the devnet; the
// answer renders addresses with the requested network's HRP and chain and
// AVAX ids as that network's.
package dataapi

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/avaedge/avaedge/catalog"
	"github.com/avaedge/avaedge/local/apireq"
	"github.com/avaedge/avaedge/local/avax"
	"github.com/avaedge/avaedge/local/source/devnet"
)

// Handlers returns the Data API handlers over w, keyed by the glacier.json
// operationId. They read their parameters ("network", "blockchainId",
// "nodeId", "subnetId" and the query) from the values the catalogue
// validated, and check only what the catalogue does not (addresses, ids,
// page tokens). now is the clock of page tokens only; stake statuses follow
// the world's own clock. The handlers are safe for concurrent use.
func Handlers(w *devnet.World, now func() time.Time) map[string]catalog.Handler {
	if now == nil {
		now = time.Now
	}
	a := &api{w: w, now: now}
	return map[string]catalog.Handler{
		"listSubnets":                      a.handle("listSubnets", a.listSubnets),
		"getSubnetById":                    a.handle("getSubnetById", a.getSubnetByID),
		"getUtxosByAddresses":              a.handle("getUtxosByAddresses", a.getUtxos),
		"listPendingPrimaryNetworkRewards": a.handle("listPendingPrimaryNetworkRewards", a.listPendingRewards),
		"getSingleValidatorDetails":        a.handle("getSingleValidatorDetails", a.getSingleValidator),
		"listValidators":                   a.handle("listValidators", a.listValidators),
		"listDelegators":                   a.handle("listDelegators", a.listDelegators),
		"getVertexByHeight":                a.handle("getVertexByHeight", a.getVertices),
		"listPrimaryNetworkBlocksByNodeId": a.handle("listPrimaryNetworkBlocksByNodeId", a.listBlocksByNode),
		"getChainIdsForAddresses":          a.handle("getChainIdsForAddresses", a.listChainIDs),
		"listLatestPrimaryNetworkBlocks":   a.handle("listLatestPrimaryNetworkBlocks", a.listLatestBlocks),
		"getBlockById":                     a.handle("getBlockById", a.getBlockByID),
		"listL1Validators":                 a.handle("listL1Validators", a.listL1Validators),
	}
}

type api struct {
	w   *devnet.World
	now func() time.Time
}

// req is one request being answered, with the devnet network it names.
type req struct {
	*apireq.Req
	net devnet.Network
}

func (a *api) handle(op string, fn func(*req) (any, *apireq.Error)) catalog.Handler {
	return apireq.Handle(op, a.now, func(r *apireq.Req) (any, *apireq.Error) {
		n, ok := a.w.Network(r.Network)
		if !ok {
			return nil, apireq.BadRequest("network must be one of the following values: mainnet, fuji, testnet")
		}
		return fn(&req{Req: r, net: n})
	})
}

func (q *req) avaxAmount(amount uint64) assetAmount {
	return assetAmount{AssetID: q.net.AVAX.String(), Name: devnet.AVAXName, Symbol: devnet.AVAXSymbol,
		Denomination: devnet.AVAXDenomination, Type: "secp256k1", Amount: u64(amount)}
}

func u64(v uint64) string { return strconv.FormatUint(v, 10) }

// bech32 renders addrs with the network's HRP, with chain prefix chain ("" for
// none).
func (q *req) bech32(chain string, addrs []avax.ShortID) []string {
	out := make([]string, len(addrs))
	for i, a := range addrs {
		out[i] = avax.FormatAddress(chain, q.net.HRP, a)
	}
	return out
}

// resolveChain reads the blockchainId path value.
func (q *req) resolveChain(allowed ...devnet.Chain) (devnet.Chain, *apireq.Error) {
	s := q.Q.Get("blockchainId")
	c, ok := devnet.ResolveChain(s)
	if !ok || !slices.Contains(allowed, c) {
		return 0, apireq.BadRequest("blockchainId must be one of the following values: " + chainEnum(allowed))
	}
	return c, nil
}

func chainEnum(allowed []devnet.Chain) string {
	var vals []string
	for _, c := range allowed {
		vals = append(vals, c.Alias())
		for _, n := range []string{"mainnet", "fuji"} {
			if c != devnet.ChainP || n == "mainnet" {
				net, _ := devnet.LookupNetwork(n)
				vals = append(vals, net.ChainID(c).String())
			}
		}
	}
	return strings.Join(vals, ", ")
}
