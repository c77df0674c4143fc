// Package pdata answers the Data API's primary-network routes from a
// pindex.Index: the real network of the avalanchego node avaedge follows
// (AVAEDGE_LOCAL_NODE), instead of the built-in devnet. Answers have the
// shapes of glacier.json that local/dataapi gives for the devnet: optional
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
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/avaedge/avaedge/apierror"
	"github.com/avaedge/avaedge/local/avax"
	"github.com/avaedge/avaedge/local/pagetoken"
	"github.com/avaedge/avaedge/local/pindex"
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
}

var _ Index = (*pindex.Index)(nil)

// Handlers returns the handlers by glacier.json operationId. They read the
// path values "network", "blockchainId", "nodeId" and "subnetId". now is the
// clock of page tokens and stake statuses. The handlers are safe for
// concurrent use.
func Handlers(ix Index, now func() time.Time) map[string]http.Handler {
	if now == nil {
		now = time.Now
	}
	a := &api{ix: ix, now: now}
	return map[string]http.Handler{
		"listSubnets":               a.handle("listSubnets", a.listSubnets),
		"getSubnetById":             a.handle("getSubnetById", a.getSubnet),
		"getUtxosByAddresses":       a.handle("getUtxosByAddresses", a.getUTXOs),
		"getChainIdsForAddresses":   a.handle("getChainIdsForAddresses", a.listChainIDs),
		"listValidators":            a.handle("listValidators", a.listValidators),
		"getSingleValidatorDetails": a.handle("getSingleValidatorDetails", a.getValidator),
		"listDelegators":            a.handle("listDelegators", a.listDelegators),
	}
}

type api struct {
	ix  Index
	now func() time.Time
}

// httpError is an answer other than 200.
type httpError struct {
	status int
	msgs   []string
	list   bool
}

func badRequest(msgs ...string) *httpError {
	return &httpError{status: http.StatusBadRequest, msgs: msgs, list: true}
}

func notFound(msg string) *httpError {
	return &httpError{status: http.StatusNotFound, msgs: []string{msg}}
}

func internal(err error) *httpError {
	return &httpError{status: http.StatusInternalServerError, msgs: []string{"index: " + err.Error()}}
}

// req is one request being answered.
type req struct {
	op   string
	r    *http.Request
	q    url.Values
	name string // the network name as requested
	net  pindex.Network
	errs []string
	now  time.Time
}

var networks = []string{"mainnet", "fuji", "testnet"}

func (a *api) handle(op string, fn func(*req) (any, *httpError)) http.Handler {
	return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		q := &req{op: op, r: r, q: r.URL.Query(), name: r.PathValue("network"), net: a.ix.Network(), now: a.now()}
		var body any
		var herr *httpError
		if !slices.Contains(networks, q.name) {
			herr = badRequest("network must be one of the following values: mainnet, fuji, testnet")
		} else {
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
	})
}

func (q *req) fail(format string, args ...any) { q.errs = append(q.errs, fmt.Sprintf(format, args...)) }

// pageSize reads pageSize within [1, maxSize], def when absent.
func (q *req) pageSize(def, maxSize int) int {
	s := q.q.Get("pageSize")
	if s == "" {
		return def
	}
	n, err := strconv.Atoi(s)
	switch {
	case err != nil:
		q.fail("pageSize must be an integer number")
	case n < 1:
		q.fail("pageSize must not be less than 1")
	case n > maxSize:
		q.fail("pageSize must not be greater than %d", maxSize)
	default:
		return n
	}
	return def
}

// desc reads sortOrder; absent means descending (newest first).
func (q *req) desc() bool {
	switch q.q.Get("sortOrder") {
	case "", "desc":
		return true
	case "asc":
		return false
	}
	q.fail("sortOrder must be one of the following values: asc, desc")
	return true
}

// enum reads an optional parameter that must be one of values.
func (q *req) enum(name string, values ...string) string {
	s := q.q.Get(name)
	if s != "" && !slices.Contains(values, s) {
		q.fail("%s must be one of the following values: %s", name, strings.Join(values, ", "))
		return ""
	}
	return s
}

// list splits a comma-separated parameter.
func (q *req) list(name string) []string {
	s := q.q.Get(name)
	if s == "" {
		return nil
	}
	parts := strings.Split(s, ",")
	for i, p := range parts {
		if parts[i] = strings.TrimSpace(p); parts[i] == "" {
			q.fail("%s must be a comma-separated list of values", name)
			return nil
		}
	}
	return parts
}

// addresses parses a list of P/X addresses of any HRP.
func (q *req) addresses(name string) []avax.ShortID {
	var out []avax.ShortID
	for _, s := range q.list(name) {
		_, _, a, err := avax.ParseAddress(s)
		if err != nil {
			q.fail("%s contains an invalid address: %s", name, s)
			continue
		}
		if !slices.Contains(out, a) {
			out = append(out, a)
		}
	}
	return out
}

// scope binds page tokens to the operation, its path values and filters.
func (q *req) scope(pathValues ...string) string {
	v := url.Values{}
	for k, vs := range q.q {
		if k != "pageToken" && k != "pageSize" {
			v[k] = vs
		}
	}
	return q.op + "|" + q.name + "|" + strings.Join(pathValues, "|") + "|" + v.Encode()
}

// paginate cuts items to the requested page and returns the next token.
func paginate[T any](q *req, items []T, size int, scope string) ([]T, string, *httpError) {
	lo := 0
	if tok := q.q.Get("pageToken"); tok != "" {
		c, err := pagetoken.Decode(scope, tok, q.now)
		if err != nil || c > uint64(len(items)) {
			return nil, "", badRequest("Invalid page token")
		}
		lo = int(c)
	}
	hi := min(lo+size, len(items))
	next := ""
	if hi < len(items) {
		next = pagetoken.Encode(scope, uint64(hi), q.now)
	}
	return items[lo:hi:hi], next, nil
}

// order sorts items stably by less, ascending or descending.
func order[T any](items []T, desc bool, less func(a, b T) bool) {
	sort.SliceStable(items, func(i, j int) bool {
		if desc {
			return less(items[j], items[i])
		}
		return less(items[i], items[j])
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

// chainInfo is PrimaryNetworkChainInfo.
type chainInfo struct {
	ChainName string `json:"chainName"`
	Network   string `json:"network"`
}

// resolveChain reads the blockchainId path value: an alias or the followed
// network's (or, as the catalogue allows, mainnet's and fuji's) chain ids.
func (q *req) resolveChain(allowed ...pindex.Chain) (pindex.Chain, *httpError) {
	s := q.r.PathValue("blockchainId")
	var c pindex.Chain
	switch s {
	case "p-chain", avax.EmptyID.String():
		c = pindex.ChainP
	case "x-chain", q.net.X, "2oYMBNV4eNHyqk2fjjV5nVQLDbtmNJzq5s3qs3Lo6ftnC6FByM", "2JVSBoinj9C2J33VntvzYtVJNZdN2NKiwwKjcumHUWEb5DbBrm":
		c = pindex.ChainX
	case "c-chain", q.net.C, "2q9e4r6Mu3U68nU1fYjgbR6JvwrRx36CohpAX5UQxse55x1Q5", "yH8D7ThNJkxmtkuv2jgBa4P1Rn3Qpr4pPr7QYNfcdoS6k6HWp":
		c = pindex.ChainC
	}
	if !slices.Contains(allowed, c) {
		names := make([]string, len(allowed))
		for i, a := range allowed {
			names[i] = alias(a)
		}
		return "", badRequest("blockchainId must be one of the following values: " + strings.Join(names, ", "))
	}
	return c, nil
}

func alias(c pindex.Chain) string { return strings.ToLower(string(c)) + "-chain" }
