package metricsapi

import (
	"encoding/json"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/avaedge/avaedge/apierror"
	"github.com/avaedge/avaedge/local/pagetoken"
)

// Page sizes of getEvmChainMetrics (popsicle.json): 1 to 2160, default 100.
const (
	defaultPageSize = 100
	maxPageSize     = 2160
)

// Handlers returns the Metrics API handlers by operation id:
// getEvmChainMetrics (GET /v2/chains/{chainId}/metrics/{metric}), listChains
// (GET /v2/chains), getChain (GET /v2/chains/{chainId}) and getAvgTps
// (GET /v1/avg_tps/{chainId}). They read the path values chainId and metric
// with r.PathValue. Every error body has an array message.
func (e *Engine) Handlers() map[string]http.Handler {
	return map[string]http.Handler{
		"getEvmChainMetrics": e.timed("getEvmChainMetrics", e.serveMetrics),
		"listChains":         e.timed("listChains", e.serveChains),
		"getChain":           e.timed("getChain", e.serveChain),
		"getAvgTps":          e.timed("getAvgTps", e.serveAvgTps),
	}
}

func (e *Engine) timed(op string, f http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t0 := time.Now()
		f(w, r)
		e.tel.served(op, time.Since(t0))
	})
}

// pageReq is one page of a series.
type pageReq struct {
	sel        selection
	metric     string
	iv         interval
	start, end int64 // inclusive bounds on the points' timestamps
	cursor     int64 // the newest timestamp this page may hold
	size       int
}

// appendPage appends the page's points, newest first, as JSON objects
// separated by commas, and returns the timestamp the next page starts at,
// if any. The caller holds e.mu for reading.
func appendPage(buf []byte, p pageReq) (out []byte, next int64, more bool) {
	first, last, ok := p.sel.span(p.iv)
	if !ok {
		return buf, 0, false
	}
	lo := p.iv.ceil(max(p.start, first))
	hi := min(p.end, last, p.cursor)
	if hi < lo {
		return buf, 0, false
	}
	ev := newEvaluator(p.sel, p.metric, p.iv)
	ts := p.iv.floor(hi)
	for n := 0; ts >= lo && n < p.size; n++ {
		if n > 0 {
			buf = append(buf, ',')
		}
		buf = append(buf, `{"value":`...)
		buf = ev.appendValue(buf, ts)
		buf = append(buf, `,"timestamp":`...)
		buf = strconv.AppendInt(buf, ts, 10)
		buf = append(buf, '}')
		ts = p.iv.prev(ts)
	}
	return buf, ts, ts >= lo
}

// resolve returns the chains chainId names: an EVM chain id, total, mainnet
// or testnet, or a C-Chain alias (Options.CChain). The caller holds e.mu for reading.
func (e *Engine) resolve(chainID string) (selection, bool) {
	if g := e.groups[chainID]; g != nil {
		return selection{chains: g.members, group: g}, true
	}
	n, err := strconv.ParseUint(chainID, 10, 64)
	cs := e.chains[n]
	if err != nil || cs == nil {
		if cs, _ = e.alias(chainID); cs == nil {
			return selection{}, false
		}
	}
	return selection{chains: []*chainState{cs}}, true
}

// serveMetrics answers getEvmChainMetrics.
func (e *Engine) serveMetrics(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	chainID, metric := r.PathValue("chainId"), r.PathValue("metric")
	var msgs []string
	if !slices.Contains(metricNames, metric) {
		msgs = append(msgs, "metric must be one of the following values: "+strings.Join(metricNames, ", "))
	}
	iv := day
	if s := q.Get("timeInterval"); s != "" {
		var ok bool
		if iv, ok = parseInterval(s); !ok {
			msgs = append(msgs, "timeInterval must be one of the following values: hour, day, week, month")
		}
	}
	if iv != day && dayOnly(metric) {
		msgs = append(msgs, "timeInterval must be day for metric "+metric+": metrics prefixed with cumulative, max or avg only support day")
	}
	start := intParam(q, "startTimestamp", 0, 0, math.MaxInt64, &msgs)
	end := intParam(q, "endTimestamp", math.MaxInt64, 0, math.MaxInt64, &msgs)
	size := intParam(q, "pageSize", defaultPageSize, 1, maxPageSize, &msgs)
	if len(msgs) == 0 && start > end {
		msgs = append(msgs, "startTimestamp must not be greater than endTimestamp")
	}
	if len(msgs) > 0 {
		apierror.WriteList(w, http.StatusBadRequest, msgs...)
		return
	}
	scope := "getEvmChainMetrics|" + chainID + "|" + metric + "|" + iv.String() + "|" +
		strconv.FormatInt(start, 10) + "|" + strconv.FormatInt(end, 10)
	e.servePage(w, r, chainID, scope, pageReq{metric: metric, iv: iv, start: start, end: end, size: int(size)}, nil)
}

// serveAvgTps answers the legacy /v1/avg_tps/{chainId}: the daily avgTps,
// newest first, with status 200 and lastRun, the time the chain's data last
// changed. It takes pageToken and, beyond the published route, pageSize
// (default 100).
func (e *Engine) serveAvgTps(w http.ResponseWriter, r *http.Request) {
	var msgs []string
	size := intParam(r.URL.Query(), "pageSize", defaultPageSize, 1, maxPageSize, &msgs)
	if len(msgs) > 0 {
		apierror.WriteList(w, http.StatusBadRequest, msgs...)
		return
	}
	chainID := r.PathValue("chainId")
	e.servePage(w, r, chainID, "getAvgTps|"+chainID, pageReq{metric: "avgTps", iv: day, end: math.MaxInt64, size: int(size)},
		func(buf []byte, sel selection) []byte {
			var lastRun int64
			for _, cs := range sel.chains {
				lastRun = max(lastRun, cs.lastRun)
			}
			buf = append(buf, `,"status":200,"lastRun":`...)
			return strconv.AppendInt(buf, lastRun, 10)
		})
}

// servePage writes {"results":[...], "nextPageToken"?, extra...} for p over
// chainID, continuing from the request's pageToken.
func (e *Engine) servePage(w http.ResponseWriter, r *http.Request, chainID, scope string, p pageReq, extra func([]byte, selection) []byte) {
	now := e.now()
	p.cursor = math.MaxInt64
	if tok := r.URL.Query().Get("pageToken"); tok != "" {
		c, err := pagetoken.Decode(scope, tok, now)
		if err != nil || c > math.MaxInt64 {
			apierror.WriteList(w, http.StatusBadRequest, "pageToken is invalid or expired")
			return
		}
		p.cursor = int64(c)
	}
	buf := make([]byte, 0, 64+40*min(p.size, 512))
	buf = append(buf, `{"results":[`...)
	e.mu.RLock()
	sel, ok := e.resolve(chainID)
	var next int64
	var more bool
	if ok {
		p.sel = sel
		buf, next, more = appendPage(buf, p)
		buf = append(buf, ']')
		if extra != nil {
			buf = extra(buf, sel)
		}
	}
	e.mu.RUnlock()
	if !ok {
		apierror.WriteList(w, http.StatusNotFound, "chainId "+chainID+" is not a supported chain id, total, mainnet or testnet")
		return
	}
	if more {
		buf = append(buf, `,"nextPageToken":"`...)
		buf = append(buf, pagetoken.Encode(scope, uint64(next), now)...)
		buf = append(buf, '"')
	}
	buf = append(buf, '}')
	writeBody(w, buf)
}

// intParam reads the integer query parameter name in [lo, hi], def when
// absent; a bad value adds a message to msgs.
func intParam(q map[string][]string, name string, def, lo, hi int64, msgs *[]string) int64 {
	vs := q[name]
	if len(vs) == 0 || vs[0] == "" {
		return def
	}
	n, err := strconv.ParseInt(vs[0], 10, 64)
	switch {
	case err != nil:
		*msgs = append(*msgs, name+" must be an integer number")
	case n < lo:
		*msgs = append(*msgs, name+" must not be less than "+strconv.FormatInt(lo, 10))
	case n > hi:
		*msgs = append(*msgs, name+" must not be greater than "+strconv.FormatInt(hi, 10))
	}
	return n
}

type chainJSON struct {
	EVMChainID   uint64 `json:"evmChainId"`
	ChainName    string `json:"chainName"`
	BlockchainID string `json:"blockchainId"`
	SubnetID     string `json:"subnetId"`
	Network      string `json:"network"`
}

func (c Chain) toJSON() chainJSON {
	return chainJSON(c)
}

// serveChains answers listChains: every chain of Options.Chains, filtered
// by network (mainnet, or testnet/fuji), on one page.
func (e *Engine) serveChains(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	network := q.Get("network")
	switch network {
	case "", "mainnet", "testnet":
	case "fuji":
		network = "testnet"
	default:
		apierror.WriteList(w, http.StatusBadRequest, "network must be one of the following values: mainnet, fuji, testnet")
		return
	}
	if tok := q.Get("pageToken"); tok != "" {
		// The list fits one page, so no token was ever issued.
		apierror.WriteList(w, http.StatusBadRequest, "pageToken is invalid or expired")
		return
	}
	out := struct {
		Chains []chainJSON `json:"chains"`
	}{Chains: []chainJSON{}}
	for _, c := range e.list {
		if network == "" || c.Network == network {
			out.Chains = append(out.Chains, c.toJSON())
		}
	}
	writeJSON(w, out)
}

// serveChain answers getChain for an EVM chain id (or, beyond the spec, a
// blockchain id).
func (e *Engine) serveChain(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("chainId")
	for _, c := range e.list {
		if strconv.FormatUint(c.EVMChainID, 10) == id || c.BlockchainID == id {
			writeJSON(w, c.toJSON())
			return
		}
	}
	if c, ok := e.aliasChain(id); ok {
		writeJSON(w, c.toJSON())
		return
	}
	apierror.WriteList(w, http.StatusNotFound, "chainId "+id+" is not a supported chain id")
}

func writeJSON(w http.ResponseWriter, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		apierror.WriteList(w, http.StatusInternalServerError, "encoding the response failed")
		return
	}
	writeBody(w, b)
}

func writeBody(w http.ResponseWriter, b []byte) {
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(http.StatusOK)
	w.Write(b)
}
