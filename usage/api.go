package usage

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"sort"
	"strconv"
	"strings"
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
		body, err = u.apiLogs(ctx, v, caller)
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

// subnetRPC answers the EVM JSON-RPC calls (the node endpoint's C-Chain).
func (u *Meter) subnetRPC(ctx context.Context, v catalog.Values, c Caller) (any, error) {
	iv := intervalOf(v)
	from, to := window(v, iv, u.opts.Now())
	chain := u.opts.EVMChainID
	if v.Has("chainId") {
		chain = v.Get("chainId")
	}
	g := rpcGroup(v, func(d dims) bool {
		return d.typ == "rpc" && d.path == "/ext/bc/C/rpc" && d.chain == chain && match(v, "responseCode", d.code) &&
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

// apiLogs pages through the caller's log lines in the range, newest first.
// A page token names the last line of the page before (its time and id).
func (u *Meter) apiLogs(ctx context.Context, v catalog.Values, c Caller) (any, error) {
	type answer struct {
		NextPageToken string            `json:"nextPageToken,omitempty"`
		OrgID         string            `json:"orgId"`
		Logs          []json.RawMessage `json:"logs"`
	}
	out := answer{OrgID: c.KeyID, Logs: []json.RawMessage{}}
	var after *logLine
	if v.Has("pageToken") {
		l, ok := parseToken(v.Get("pageToken"))
		if !ok {
			return nil, badRequest("Invalid page token")
		}
		after = &l
	}
	if foreign(v, c) {
		return out, nil
	}
	from, to := window(v, "daily", u.opts.Now())
	if !v.Has("startTimestamp") {
		from = 0 // every kept line, as far back as they are kept
	}
	lines, err := u.store.logs(ctx, c.Identity)
	if err != nil {
		return nil, err
	}
	kept := lines[:0]
	for _, l := range lines {
		if l.At < from*1000 || l.At >= to*1000 {
			continue
		}
		var f logFormat
		if json.Unmarshal(l.JSON, &f) != nil || !match(v, "chainId", f.ChainID) || !match(v, "requestType", f.RequestType) ||
			!match(v, "requestPath", f.RequestPath) || !match(v, "responseCode", strconv.Itoa(f.ResponseCode)) {
			continue
		}
		kept = append(kept, l)
	}
	sort.Slice(kept, func(i, j int) bool { return newer(&kept[i], &kept[j]) })
	if len(kept) > u.opts.LogsPerKey {
		kept = kept[:u.opts.LogsPerKey]
	}
	i := 0
	if after != nil {
		i = sort.Search(len(kept), func(i int) bool { return newer(after, &kept[i]) })
	}
	size, _ := strconv.Atoi(v.Get("pageSize"))
	end := min(len(kept), i+max(size, 1))
	for _, l := range kept[i:end] {
		out.Logs = append(out.Logs, l.JSON)
	}
	if end < len(kept) {
		out.NextPageToken = token(&kept[end-1])
	}
	return out, nil
}

// newer orders log lines newest first (by time, then id).
func newer(a, b *logLine) bool {
	if a.At != b.At {
		return a.At > b.At
	}
	return a.ID > b.ID
}

func token(l *logLine) string {
	return base64.RawURLEncoding.EncodeToString([]byte(strconv.FormatInt(l.At, 10) + ":" + l.ID))
}

func parseToken(s string) (logLine, bool) {
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return logLine{}, false
	}
	at, id, ok := strings.Cut(string(b), ":")
	n, err := strconv.ParseInt(at, 10, 64)
	if !ok || err != nil || id == "" {
		return logLine{}, false
	}
	return logLine{At: n, ID: id}, true
}

// parseLogLine reads a stored LogsFormat object's time and id.
func parseLogLine(b []byte) (logLine, bool) {
	var f struct {
		At int64  `json:"eventTimestamp"`
		ID string `json:"logId"`
	}
	if json.Unmarshal(b, &f) != nil || f.ID == "" {
		return logLine{}, false
	}
	return logLine{At: f.At, ID: f.ID, JSON: b}, true
}
