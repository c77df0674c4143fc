// Package pdata answers the Data API's primary-network routes from a
// pindex.Index: the real network of the avalanchego node avaedge follows
// (AVAEDGE_LOCAL_NODE), instead of the built-in devnet. Answers have the
// shapes of glacier.json that local/api/dataapi gives for the devnet: optional
// fields left out rather than null, 64-bit quantities as strings, lists paged
// with stateless tokens (local/pagetoken).
//
// Every network name (mainnet, fuji, testnet) resolves to the followed
// network, and addresses are printed with that network's own HRP (local1...
// on a local network), since they are that network's addresses. Chain ids
// are the followed network's too, except where glacier.json closes them in
// an enum of mainnet's and fuji's ids (addresses:listChainIds): there the
// requested network's id of the same chain stands for it.
package pdata

import (
	"context"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/avaedge/avaedge/avanet"
	"github.com/avaedge/avaedge/catalog"
	"github.com/avaedge/avaedge/local/apireq"
	"github.com/avaedge/avaedge/local/avax"
	"github.com/avaedge/avaedge/local/source/pindex"
)

// Index is what the handlers read; *pindex.Index is one.
type Index interface {
	Network() pindex.Network
	Subnets(ctx context.Context) ([]*pindex.Subnet, error)
	Subnet(ctx context.Context, id string) (*pindex.Subnet, bool, error)
	UTXOs(ctx context.Context, chain pindex.Chain, addrs []avax.ShortID, includeSpent bool) ([]*pindex.UTXO, error)
	ChainsOf(ctx context.Context, addr avax.ShortID) ([]pindex.Chain, error)
	Asset(ctx context.Context, id string) (pindex.Asset, bool, error)
	Stakes(ctx context.Context) ([]*pindex.Stake, error)
	CurrentValidators(ctx context.Context, subnet string) (json.RawMessage, int64, bool, error)
	Blocks(ctx context.Context, chain pindex.Chain, r pindex.BlockRange) ([]*pindex.Block, error)
	BlockByID(ctx context.Context, chain pindex.Chain, id string) (*pindex.Block, bool, error)
	BlockID(ctx context.Context, chain pindex.Chain, height uint64) (string, error)
	Txs(ctx context.Context, chain pindex.Chain, f pindex.TxFilter) ([]*pindex.Tx, error)
	Tx(ctx context.Context, id string) (*pindex.Tx, bool, error)
	TxUTXOs(ctx context.Context, txID string) (emitted, consumed []*pindex.UTXO, err error)
	Head(c pindex.Chain) (uint64, bool)
}

var _ Index = (*pindex.Index)(nil)

// Handlers returns the handlers by glacier.json operationId. They read the
// values the catalogue validated ("network", "blockchainId", "nodeId",
// "subnetId" and the query). now is the clock of page tokens and stake
// statuses. The handlers are safe for concurrent use.
func Handlers(ix Index, now func() time.Time) map[string]catalog.Handler {
	if now == nil {
		now = time.Now
	}
	a := &api{ix: ix, now: now}
	return map[string]catalog.Handler{
		"listSubnets":                          a.handle("listSubnets", a.listSubnets),
		"getSubnetById":                        a.handle("getSubnetById", a.getSubnet),
		"getUtxosByAddresses":                  a.handle("getUtxosByAddresses", a.getUTXOs),
		"getChainIdsForAddresses":              a.handle("getChainIdsForAddresses", a.listChainIDs),
		"listValidators":                       a.handle("listValidators", a.listValidators),
		"getSingleValidatorDetails":            a.handle("getSingleValidatorDetails", a.getValidator),
		"listDelegators":                       a.handle("listDelegators", a.listDelegators),
		"listLatestPrimaryNetworkBlocks":       a.handle("listLatestPrimaryNetworkBlocks", a.listBlocks),
		"getBlockById":                         a.handle("getBlockById", a.getBlock),
		"listLatestPrimaryNetworkTransactions": a.handle("listLatestPrimaryNetworkTransactions", a.listTxs),
		"getTxByHash":                          a.handle("getTxByHash", a.getTx),
		"listL1Validators":                     a.handle("listL1Validators", a.listL1Validators),
		"listPendingPrimaryNetworkRewards":     a.handle("listPendingPrimaryNetworkRewards", a.listPendingRewards),
	}
}

type api struct {
	ix  Index
	now func() time.Time
}

// req is one request being answered, with the followed network.
type req struct {
	*apireq.Req
	net pindex.Network
}

func (a *api) handle(op string, fn func(*req) (any, *apireq.Error)) catalog.Handler {
	return apireq.Handle(op, a.now, func(r *apireq.Req) (any, *apireq.Error) {
		return fn(&req{Req: r, net: a.ix.Network()})
	})
}

func u64(v uint64) string { return strconv.FormatUint(v, 10) }

// bech32 renders addrs with the followed network's HRP and chain prefix
// chain ("" for none).
func (q *req) bech32(chain string, addrs []avax.ShortID) []string {
	out := make([]string, len(addrs))
	for i, a := range addrs {
		out[i] = avax.FormatAddress(chain, q.net.HRP, a)
	}
	return out
}

// resolveChain reads the blockchainId path value: an alias or the followed
// network's (or, as the catalogue allows, mainnet's and fuji's) chain ids.
func (q *req) resolveChain(allowed ...pindex.Chain) (pindex.Chain, *apireq.Error) {
	s := q.Q.Get("blockchainId")
	var c pindex.Chain
	switch s {
	case "p-chain", avax.EmptyID.String():
		c = pindex.ChainP
	case "x-chain", q.net.X, avanet.Mainnet.XChainID, avanet.Fuji.XChainID:
		c = pindex.ChainX
	case "c-chain", q.net.C, avanet.Mainnet.CChainID, avanet.Fuji.CChainID:
		c = pindex.ChainC
	}
	if !slices.Contains(allowed, c) {
		names := make([]string, len(allowed))
		for i, a := range allowed {
			names[i] = alias(a)
		}
		return "", apireq.BadRequest("blockchainId must be one of the following values: " + strings.Join(names, ", "))
	}
	return c, nil
}

func alias(c pindex.Chain) string { return strings.ToLower(string(c)) + "-chain" }
