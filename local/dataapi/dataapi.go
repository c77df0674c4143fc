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
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/avaedge/avaedge/apierror"
	"github.com/avaedge/avaedge/catalog"
	"github.com/avaedge/avaedge/local/avax"
	"github.com/avaedge/avaedge/local/devnet"
	"github.com/avaedge/avaedge/local/pagetoken"
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
	}
}

type api struct {
	w   *devnet.World
	now func() time.Time
}

// httpError is an answer other than 200, produced while parsing.
type httpError struct {
	status int
	msgs   []string
	list   bool // message as an array (validation errors)
}

func (e *httpError) Error() string { return strings.Join(e.msgs, "; ") }

func badRequest(msgs ...string) *httpError {
	return &httpError{status: http.StatusBadRequest, msgs: msgs, list: true}
}

func notFound(msg string) *httpError {
	return &httpError{status: http.StatusNotFound, msgs: []string{msg}}
}

// req is one request being answered.
type req struct {
	op   string
	r    *http.Request
	q    catalog.Values // the validated parameters, path values included
	net  devnet.Network
	name string // the network name as requested
	errs []string
	now  func() time.Time
}

func (a *api) handle(op string, fn func(*req) (any, *httpError)) catalog.Handler {
	return func(rw http.ResponseWriter, r *http.Request, v catalog.Values) {
		q := &req{op: op, r: r, q: v, name: v["network"], now: a.now}
		var (
			body any
			herr *httpError
		)
		switch n, ok := a.w.Network(q.name); {
		case !ok || (q.name != "mainnet" && q.name != "fuji" && q.name != "testnet"):
			herr = badRequest("network must be one of the following values: mainnet, fuji, testnet")
		default:
			q.net = n
			body, herr = fn(q)
		}
		if herr == nil && len(q.errs) > 0 {
			herr = badRequest(q.errs...)
		}
		if herr != nil {
			if herr.list {
				apierror.WriteList(rw, herr.status, herr.msgs...)
			} else {
				apierror.Write(rw, herr.status, herr.msgs[0])
			}
			return
		}
		apierror.WriteOK(rw, body)
	}
}

func (q *req) fail(format string, args ...any) { q.errs = append(q.errs, fmt.Sprintf(format, args...)) }

// The readers below parse values the catalogue has validated (types, bounds,
// enumerations, list items), so they report nothing.

// pageSize reads pageSize; def when absent (the catalogue fills the
// default, so only a route used without it sees def).
func (q *req) pageSize(def int) int {
	if n, err := strconv.Atoi(q.q.Get("pageSize")); err == nil {
		return n
	}
	return def
}

// desc reads sortOrder; absent means descending (newest first).
func (q *req) desc() bool { return q.q.Get("sortOrder") != "asc" }

// number reads an optional number.
func (q *req) number(name string) (float64, bool) {
	f, err := strconv.ParseFloat(q.q.Get(name), 64)
	return f, err == nil
}

// integer reads an optional integer.
func (q *req) integer(name string) (int64, bool) {
	n, err := strconv.ParseInt(q.q.Get(name), 10, 64)
	return n, err == nil
}

// list splits a comma-separated parameter.
func (q *req) list(name string) []string {
	s := q.q.Get(name)
	if s == "" {
		return nil
	}
	parts := strings.Split(s, ",")
	for i, p := range parts {
		parts[i] = strings.TrimSpace(p)
	}
	return parts
}

// addresses parses a list of P/X addresses ("avax1...", "P-fuji1...").
func (q *req) addresses(name string) []avax.ShortID {
	var out []avax.ShortID
	for _, s := range q.list(name) {
		_, _, a, err := avax.ParseAddress(s)
		if err != nil {
			q.fail("%s contains an invalid address: %s", name, shorten(s))
			continue
		}
		if !slices.Contains(out, a) {
			out = append(out, a)
		}
	}
	return out
}

// shorten cuts a rejected value to its first 64 bytes (and "...") for an
// error message, so that an answer never echoes a huge input.
func shorten(s string) string {
	if len(s) <= 64 {
		return s
	}
	return s[:64] + "..."
}

// nodeIDs parses a list of node ids.
func (q *req) nodeIDs(name string) []avax.NodeID {
	var out []avax.NodeID
	for _, s := range q.list(name) {
		id, err := avax.ParseNodeID(s)
		if err != nil {
			q.fail("%s contains an invalid node id: %s", name, shorten(s))
			continue
		}
		out = append(out, id)
	}
	return out
}

// scope binds page tokens to the operation, its path values and its
// filters: every parameter but pageToken and pageSize, canonically ordered.
func (q *req) scope(pathValues ...string) string {
	v := url.Values{}
	for k, s := range q.q {
		if k != "pageToken" && k != "pageSize" {
			v.Set(k, s)
		}
	}
	return q.op + "|" + q.name + "|" + strings.Join(pathValues, "|") + "|" + v.Encode()
}

// page returns the slice bounds of the requested page of n items and the
// next page's token ("" on the last page).
func (q *req) page(n, size int, scope string) (lo, hi int, next string, herr *httpError) {
	if tok := q.q.Get("pageToken"); tok != "" {
		c, err := pagetoken.Decode(scope, tok, q.now())
		if err != nil || c > uint64(n) {
			return 0, 0, "", badRequest("Invalid page token")
		}
		lo = int(c)
	}
	hi = min(lo+size, n)
	if hi < n {
		next = pagetoken.Encode(scope, uint64(hi), q.now())
	}
	return lo, hi, next, nil
}

// paginate cuts items to the requested page.
func paginate[T any](q *req, items []T, size int, scope string) ([]T, string, *httpError) {
	lo, hi, next, herr := q.page(len(items), size, scope)
	if herr != nil {
		return nil, "", herr
	}
	return items[lo:hi:hi], next, nil
}

// order sorts items stably by key, ascending or descending.
func order[T any](items []T, desc bool, less func(a, b T) bool) {
	sort.SliceStable(items, func(i, j int) bool {
		if desc {
			return less(items[j], items[i])
		}
		return less(items[i], items[j])
	})
}

// chainInfo is PrimaryNetworkChainInfo.
type chainInfo struct {
	ChainName string `json:"chainName"`
	Network   string `json:"network"`
}

// assetAmount is AssetAmount, for AVAX.
type assetAmount struct {
	AssetID      string `json:"assetId"`
	Name         string `json:"name"`
	Symbol       string `json:"symbol"`
	Denomination int    `json:"denomination"`
	Type         string `json:"type"`
	Amount       string `json:"amount"`
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
func (q *req) resolveChain(allowed ...devnet.Chain) (devnet.Chain, *httpError) {
	s := q.q.Get("blockchainId")
	c, ok := devnet.ResolveChain(s)
	if !ok || !slices.Contains(allowed, c) {
		return 0, badRequest("blockchainId must be one of the following values: " + chainEnum(allowed))
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
