package usage

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/avaedge/avaedge/apierror"
	"github.com/avaedge/avaedge/avanet"
	"github.com/avaedge/avaedge/catalog"
)

// Answer answers one call of a usage route (see Routes) for caller, from
// its own metering only; v holds the validated parameters. apiKeyId and
// orgId can only narrow to the caller's own key: naming another answers
// nothing of it. A store that fails answers 503.
func (u *Meter) Answer(w http.ResponseWriter, r *http.Request, rt *catalog.Route, v catalog.Values, caller Caller) {
	ctx, cancel := context.WithTimeout(r.Context(), 10*time.Second)
	defer cancel()
	var (
		body any
		err  error
	)
	switch rt.Name {
	case opUsage:
		body, err = u.usageMetrics(ctx, v, caller)
	case opLogs:
		body, err = u.logsPage(ctx, v, caller)
	case opSubnetRPC, opRPC:
		body, err = u.subnetRPC(ctx, v, caller)
	case opPrimaryRPC:
		body, err = u.primaryRPC(ctx, v, caller)
	default:
		apierror.Write(w, http.StatusNotFound, "Cannot GET "+r.URL.Path)
		return
	}
	var bad badRequest
	switch {
	case errors.As(err, &bad):
		apierror.WriteList(w, http.StatusBadRequest, string(bad))
	case err != nil:
		u.log.Warn("usage: reading the usage store failed", "route", rt.Name, "err", err)
		apierror.Write(w, http.StatusServiceUnavailable, "usage is unavailable right now: its store is not answering")
	default:
		if p, ok := body.(encodedPage); ok {
			apierror.WriteOKJSON(w, *p.b)
			p.release()
			return
		}
		apierror.WriteOK(w, body)
	}
}

// badRequest is a parameter the route's rules could not check (a page
// token), answered 400.
type badRequest string

func (b badRequest) Error() string { return string(b) }

// foreign reports whether v names another key than the caller's in orgId or
// apiKeyId: the answer is then empty.
func foreign(v catalog.Values, c Caller) bool {
	for _, p := range []string{"orgId", "apiKeyId"} {
		if v.Has(p) && v.Get(p) != c.KeyID {
			return true
		}
	}
	return false
}

func intervalOf(v catalog.Values) interval {
	if v.Has("timeInterval") {
		return interval(v.Get("timeInterval"))
	}
	return "daily"
}

// match keeps dims whose field equals the filter parameter, when it is set.
func match(v catalog.Values, param string, field string) bool {
	return !v.Has(param) || v.Get(param) == field
}

func (u *Meter) usageMetrics(ctx context.Context, v catalog.Values, c Caller) (any, error) {
	iv := intervalOf(v)
	from, to := window(v, iv, u.opts.Now())
	g := grouping{by: "None", keep: func(d dims) bool {
		return match(v, "chainId", d.chain) && match(v, "responseCode", d.code) && match(v, "requestType", d.typ) &&
			match(v, "requestPath", d.path)
	}}
	if by := v.Get("groupBy"); by != "" {
		g.by = by
		g.value = map[string]func(d dims) any{
			"requestPath":  func(d dims) any { return d.path },
			"responseCode": code,
			"chainId":      func(d dims) any { return d.chain },
			"apiKeyId":     func(dims) any { return c.KeyID },
			"requestType":  func(d dims) any { return d.typ },
		}[by]
	}
	out := struct {
		AggregateDuration string      `json:"aggregateDuration"`
		OrgID             string      `json:"orgId"`
		Metrics           []metricDTO `json:"metrics"`
	}{string(iv), c.KeyID, []metricDTO{}}
	if foreign(v, c) {
		return out, nil
	}
	m, err := u.series(ctx, c.Identity, iv, from, to, g)
	out.Metrics = m
	return out, err
}

// rpcGroup is the grouping of the RPC usage routes' groupBy.
func rpcGroup(v catalog.Values, keep func(d dims) bool) grouping {
	g := grouping{by: "None", keep: keep}
	by := v.Get("groupBy")
	if by == "" {
		return g
	}
	g.by = by
	switch by {
	case "rpcMethod":
		g.value = func(d dims) any { return d.method }
	case "requestPath":
		g.value = func(d dims) any { return d.path }
	case "responseCode":
		g.value = code
	case "country", "continent":
		// avaedge has no geolocation: "XX", as the service names clients
		// without country data.
		g.value = func(dims) any { return "XX" }
	case "userAgent":
		g.value = func(d dims) any { return d.ua }
	}
	return g
}

// subnetRPC answers the EVM JSON-RPC calls (the node endpoint's C-Chain),
// over HTTP and in its WebSockets, and the notifications sent there.
func (u *Meter) subnetRPC(ctx context.Context, v catalog.Values, c Caller) (any, error) {
	iv := intervalOf(v)
	from, to := window(v, iv, u.opts.Now())
	chain := u.opts.EVMChainID
	if v.Has("chainId") {
		chain = v.Get("chainId")
	}
	g := rpcGroup(v, func(d dims) bool {
		return d.typ == "rpc" && (d.path == cChainRPC || d.path == cChainSocket) && d.chain == chain && match(v, "responseCode", d.code) &&
			match(v, "rpcMethod", d.method) && !v.Has("rlBypassApiToken")
	})
	m, err := u.series(ctx, c.Identity, iv, from, to, g)
	return struct {
		AggregateDuration string      `json:"aggregateDuration"`
		Metrics           []metricDTO `json:"metrics"`
		ChainID           string      `json:"chainId"`
	}{string(iv), m, chain}, err
}

// primaryRPC answers every node JSON-RPC call (Info, X-Chain and C-Chain).
func (u *Meter) primaryRPC(ctx context.Context, v catalog.Values, c Caller) (any, error) {
	iv := intervalOf(v)
	from, to := window(v, iv, u.opts.Now())
	g := rpcGroup(v, func(d dims) bool {
		return d.typ == "rpc" && match(v, "responseCode", d.code) && match(v, "requestPath", d.path) &&
			match(v, "country", "XX") && match(v, "continent", "XX") && match(v, "userAgent", d.ua) &&
			match(v, "rpcMethod", d.method)
	})
	m, err := u.series(ctx, c.Identity, iv, from, to, g)
	network := v.Get("network")
	if network == avanet.Fuji.Name {
		network = avanet.TestnetName
	}
	return struct {
		AggregateDuration string      `json:"aggregateDuration"`
		Metrics           []metricDTO `json:"metrics"`
		Network           string      `json:"network"`
	}{string(iv), m, network}, err
}
