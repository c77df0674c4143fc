// Package dataapi answers the Data API's primary-network routes from an
// index of the P- and X-Chain (local/source/pindex): the one a followed
// avalanchego node fills (AVAEDGE_LOCAL_NODE), or the devnet's, which its
// generator fills with the same blocks of transactions. Each route is
// written once, for both worlds. Answers follow glacier.json (local/glacier):
// optional fields are left out rather than null, 64-bit quantities are
// strings, enums are the spec's, and lists page with stateless tokens
// (local/pagetoken).
//
// The devnet answers for every network name as that network (Options.
// AnyNetwork): addresses in the requested network's HRP, its chain and AVAX
// ids. A followed network answers as itself under every name: addresses in
// its own HRP, its own chain ids, except where glacier.json closes them in
// an enum of mainnet's and fuji's ids (addresses:listChainIds), where the
// requested network's id of the same chain stands for it.
package dataapi

import (
	"context"
	"encoding/json"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/avaedge/avaedge/avanet"
	"github.com/avaedge/avaedge/catalog"
	"github.com/avaedge/avaedge/local/api/apireq"
	"github.com/avaedge/avaedge/local/source/pindex"
	"github.com/avaedge/avaedge/local/vocab/avax"
	"github.com/avaedge/avaedge/local/vocab/glacier"
)

// Source is what the handlers read: a *pindex.Index, the followed node's or
// the devnet's (devnet.World.Index). Every method that reads the store takes
// a context and returns its error, which the handlers answer with a 500 and
// log; "not found" is a false ok, never an error.
type Source interface {
	Chains
	Subnets
	Blockchains
	UTXOs
	Activity
	Stakes
	Blocks
	Txs
	Supplies
}

// Chains describes the indexed network: its ids, the clock of its stake
// statuses, and how far each chain is indexed.
type Chains interface {
	Network() avanet.Network
	Now() time.Time
	Head(c avanet.Chain) (uint64, bool)
}

// Subnets reads the subnets with their owners, chains and L1 conversions.
type Subnets interface {
	Subnets(ctx context.Context) ([]*pindex.Subnet, error)
	Subnet(ctx context.Context, id string) (*pindex.Subnet, bool, error)
}

// Blockchains reads the chains CreateChainTxs made (the primary network's
// own in the P-Chain's genesis).
type Blockchains interface {
	Blockchains(ctx context.Context) ([]pindex.Blockchain, error)
	Blockchain(ctx context.Context, id string) (pindex.Blockchain, bool, error)
}

// Activity reads what happened to addresses' UTXOs: their latest activity
// on a chain, and the rewards they were paid.
type Activity interface {
	LastActivity(ctx context.Context, chain avanet.Chain, addrs []avax.ShortID) (pindex.Activity, bool, error)
	RewardUTXOs(ctx context.Context, addrs []avax.ShortID) ([]*pindex.UTXO, error)
}

// Supplies reads the AVAX supply as the network reported it (a followed
// node's platform.getCurrentSupply), and the amounts the index totals.
type Supplies interface {
	Supply(ctx context.Context) (pindex.Supply, bool, error)
	Totals(ctx context.Context) (pindex.Totals, error)
	LockedAVAX(ctx context.Context, now int64) (uint64, error)
}

// UTXOs reads UTXOs, the chains an address used and the assets.
type UTXOs interface {
	UTXOs(ctx context.Context, chain avanet.Chain, addrs []avax.ShortID, includeSpent bool) ([]*pindex.UTXO, error)
	ChainsOf(ctx context.Context, addr avax.ShortID) ([]avanet.Chain, error)
	Asset(ctx context.Context, id string) (pindex.Asset, bool, error)
}

// Stakes reads validations and delegations, and the network's current
// validators as platform.getCurrentValidators last listed them.
type Stakes interface {
	Stakes(ctx context.Context) ([]*pindex.Stake, error)
	CurrentValidators(ctx context.Context, subnet string) (json.RawMessage, int64, bool, error)
}

// Blocks reads the P- and X-Chain's blocks.
type Blocks interface {
	Blocks(ctx context.Context, chain avanet.Chain, r pindex.BlockRange) ([]*pindex.Block, error)
	BlockByID(ctx context.Context, chain avanet.Chain, id string) (*pindex.Block, bool, error)
	BlockID(ctx context.Context, chain avanet.Chain, height uint64) (string, error)
}

// Txs reads transactions and the UTXOs each made and spent.
type Txs interface {
	Txs(ctx context.Context, chain avanet.Chain, f pindex.TxFilter) ([]*pindex.Tx, error)
	Tx(ctx context.Context, id string) (*pindex.Tx, bool, error)
	TxUTXOs(ctx context.Context, txID string) (emitted, consumed []*pindex.UTXO, err error)
	TxsParts(ctx context.Context, txs []*pindex.Tx) ([]pindex.TxParts, error)
}

var _ Source = (*pindex.Index)(nil)

// Nodes knows where validators' nodes run and what they run: the devnet
// does, an index does not.
type Nodes interface {
	// Node returns the location and avalanchego version of a node.
	Node(id avax.NodeID) (glacier.Geolocation, string, bool)
}

// Proposers knows who proposed each block (snowman++) and the P-Chain's
// state after each block: the devnet does. A followed node's index does
// not: the node's platform.getBlockByHeight and avm.getBlockByHeight give
// the inner block without the ProposerVM header that names its proposer
// (in encoding json and hex alike), so without Proposers
// listPrimaryNetworkBlocksByNodeId lists no block.
type Proposers interface {
	// Proposer returns the proposer of chain's block id.
	Proposer(chain avanet.Chain, id string) (glacier.ProposerDetails, bool)
	// Proposed returns the ids of chain's blocks node proposed, newest
	// first; ok is false when node is none of the network's.
	Proposed(chain avanet.Chain, node avax.NodeID) (ids []string, ok bool)
	// PChainState returns the supply and the active L1 validators and their
	// accrued fees after the P-Chain block id.
	PChainState(id string) (supply uint64, l1Validators int, l1Fees uint64, ok bool)
}

// Options configures Handlers.
type Options struct {
	// Source is the index the handlers read.
	Source Source
	// AnyNetwork says the source is the devnet, which answers for every
	// network name as that network (and whose C-Chain, its dev chain, takes
	// no atomic transactions). False: the indexed network answers as itself
	// under every name.
	AnyNetwork bool
	// Nodes describes validators' nodes. Nil means unknown: geolocation is
	// null and avalancheGoVersion left out.
	Nodes Nodes
	// Proposers describes blocks beyond the index. Nil means unknown.
	Proposers Proposers
	// GenesisSupply is the AVAX the network's genesis made, in nAVAX, for a
	// source that does not record the network's current supply (the
	// devnet: getAvaxSupply then totals genesis, rewards and burned fees).
	// Zero means the source records it.
	GenesisSupply uint64
	// Now is the clock of page tokens. Nil means time.Now. Stake statuses
	// follow the source's clock.
	Now func() time.Time
	// Logger logs failed reads of the source. Nil means slog.Default().
	Logger *slog.Logger
}

// Handlers returns the handlers by glacier.json operationId. They read the
// values the catalogue validated ("network", "blockchainId", "nodeId",
// "subnetId" and the query) and check nothing it checked again. The
// handlers are safe for concurrent use.
func Handlers(opts Options) map[string]catalog.Handler {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	a := &api{src: opts.Source, opts: opts, own: idsOf(opts.Source.Network()),
		svc: apireq.Service{Now: opts.Now, Log: opts.Logger.With("component", "dataapi"), NetworkNames: true}}
	hs := map[string]catalog.Handler{
		"listSubnets":                                 a.handle("listSubnets", a.listSubnets),
		"getSubnetById":                               a.handle("getSubnetById", a.getSubnet),
		"getUtxosByAddresses":                         a.handle("getUtxosByAddresses", a.getUTXOs),
		"getChainIdsForAddresses":                     a.handle("getChainIdsForAddresses", a.listChainIDs),
		"listValidators":                              a.handle("listValidators", a.listValidators),
		"getSingleValidatorDetails":                   a.handle("getSingleValidatorDetails", a.getValidator),
		"listDelegators":                              a.handle("listDelegators", a.listDelegators),
		"listL1Validators":                            a.handle("listL1Validators", a.listL1Validators),
		"listPendingPrimaryNetworkRewards":            a.handle("listPendingPrimaryNetworkRewards", a.listPendingRewards),
		"listLatestPrimaryNetworkBlocks":              a.handle("listLatestPrimaryNetworkBlocks", a.listBlocks),
		"getBlockById":                                a.handle("getBlockById", a.getBlock),
		"listLatestPrimaryNetworkTransactions":        a.handle("listLatestPrimaryNetworkTransactions", a.listTxs),
		"getTxByHash":                                 a.handle("getTxByHash", a.getTx),
		"listPrimaryNetworkBlocksByNodeId":            a.handle("listPrimaryNetworkBlocksByNodeId", a.listBlocksByNode),
		"listLatestXChainVertices":                    a.handle("listLatestXChainVertices", a.listVertices),
		"getVertexByHash":                             a.handle("getVertexByHash", a.getVertex),
		"getVertexByHeight":                           a.handle("getVertexByHeight", a.listVertices),
		"getNetworkDetails":                           a.handle("getNetworkDetails", a.getNetworkDetails),
		"listBlockchains":                             a.handle("listBlockchains", a.listBlockchains),
		"getBlockchainById":                           a.handle("getBlockchainById", a.getBlockchain),
		"getAvaxSupply":                               a.handle("getAvaxSupply", a.getSupply),
		"getAssetDetails":                             a.handle("getAssetDetails", a.getAsset),
		"listAssetTransactions":                       a.handle("listAssetTransactions", a.listAssetTxs),
		"getBalancesByAddresses":                      a.handle("getBalancesByAddresses", a.getBalances),
		"getUtxosByAddressesV2":                       a.handle("getUtxosByAddressesV2", a.getUTXOs),
		"getLastActivityTimestampByAddresses":         a.handle("getLastActivityTimestampByAddresses", a.lastActivity),
		"getLastActivityTimestampByAddressesV2":       a.handle("getLastActivityTimestampByAddressesV2", a.lastActivity),
		"listActivePrimaryNetworkStakingTransactions": a.handle("listActivePrimaryNetworkStakingTransactions", a.listStakingTxs),
		"listHistoricalPrimaryNetworkRewards":         a.handle("listHistoricalPrimaryNetworkRewards", a.listRewards),
	}
	return hs
}

type api struct {
	src  Source
	opts Options
	svc  apireq.Service
	own  ids // the source's network

	currentMu sync.Mutex
	currents  map[string]parsedCurrent // by subnet
}

// req is one request being answered, with how the world presents itself
// under the requested network name.
type req struct {
	*apireq.Req
	view view
	ctx  context.Context
}

// ids are a network's ids, parsed once.
type ids struct {
	net          avanet.Network
	x, c, avaxID avax.ID
}

// idsOf parses n's ids; an id that does not parse stays zero (the sources
// check their network's ids when they open).
func idsOf(n avanet.Network) ids {
	out := ids{net: n}
	out.x, _ = avax.ParseID(n.XChainID)
	out.c, _ = avax.ParseID(n.CChainID)
	out.avaxID, _ = avax.ParseID(n.AVAXAssetID)
	return out
}

// presented are the ids of the networks the devnet presents itself as
// (Options.AnyNetwork), by network id.
var presented = func() map[uint32]ids {
	out := map[uint32]ids{}
	for _, n := range avanet.All() {
		out[n.ID] = idsOf(n)
	}
	return out
}()

// view is how the answers present the indexed network (own) under the
// requested name: the HRP of its addresses and the ids of its X- and
// C-Chain and of AVAX, which stand for own's in every answer.
type view struct {
	hrp     string
	x, c    avax.ID
	avaxID  avax.ID
	own     ids
	network string // the requested name
}

// handle makes fn the handler of operation op: fn answers the request as
// the requested network presents itself (view).
func (a *api) handle(op string, fn func(*req) (any, error)) catalog.Handler {
	return a.svc.Handle(op, func(r *apireq.Req) (any, error) {
		return fn(&req{Req: r, view: a.viewOf(r.Network), ctx: r.Context()})
	})
}

// viewOf returns the presentation of the network named name.
func (a *api) viewOf(name string) view {
	own := a.own
	v := view{hrp: own.net.HRP, x: own.x, c: own.c, avaxID: own.avaxID, own: own, network: name}
	if a.opts.AnyNetwork {
		if n, ok := avanet.ByName(name); ok {
			as := presented[n.ID]
			v.hrp, v.x, v.c, v.avaxID = n.HRP, as.x, as.c, as.avaxID
		}
	}
	return v
}

// chainID is the id of chain as presented.
func (v view) chainID(c avanet.Chain) avax.ID {
	switch c {
	case avanet.ChainX:
		return v.x
	case avanet.ChainC:
		return v.c
	}
	return avax.EmptyID
}

// id presents an id of the index: the network's own X- and C-Chain and
// AVAX ids as the view's, others as they are.
func (v view) id(s string) string {
	switch s {
	case v.own.net.XChainID:
		return v.x.String()
	case v.own.net.CChainID:
		return v.c.String()
	case v.own.net.AVAXAssetID:
		return v.avaxID.String()
	}
	return s
}

func u64(v uint64) string { return strconv.FormatUint(v, 10) }

// bech32 renders addrs with the view's HRP and chain prefix chain ("" for
// none).
func (q *req) bech32(chain string, addrs []avax.ShortID) []string {
	out := make([]string, len(addrs))
	for i, a := range addrs {
		out[i] = avax.FormatAddress(chain, q.view.hrp, a)
	}
	return out
}

// rebech32 renders "P-local1..." addresses of the index's JSON with the
// view's HRP, without the chain prefix when chain is "".
func (q *req) rebech32(chain string, addrs []string) []string {
	out := make([]string, 0, len(addrs))
	for _, s := range addrs {
		if a, err := avax.ParseShortID(s); err == nil {
			out = append(out, avax.FormatAddress(chain, q.view.hrp, a))
		} else if _, _, a, err := avax.ParseAddress(s); err == nil {
			out = append(out, avax.FormatAddress(chain, q.view.hrp, a))
		}
	}
	return out
}

// resolveChain reads the blockchainId path value (an alias or a primary
// network chain's id, as the catalogue allows) and checks it names one of
// allowed.
func (q *req) resolveChain(allowed ...avanet.Chain) (avanet.Chain, *apireq.Error) {
	c, _ := avanet.ResolveChain(q.Q.Get("blockchainId"))
	for _, a := range allowed {
		if a == c {
			return c, nil
		}
	}
	names := make([]string, len(allowed))
	for i, a := range allowed {
		names[i] = alias(a)
	}
	return "", apireq.BadRequest("blockchainId must be one of the following values: " + strings.Join(names, ", "))
}

func alias(c avanet.Chain) string { return c.Alias() }
