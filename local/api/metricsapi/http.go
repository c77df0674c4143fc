package metricsapi

import (
	"cmp"
	"encoding/json"
	"math"
	"net/http"
	"strconv"
	"time"

	"github.com/avaedge/avaedge/avanet"
	"github.com/avaedge/avaedge/catalog"
	"github.com/avaedge/avaedge/local/api/apireq"
	"github.com/avaedge/avaedge/local/vocab/pagetoken"
)

// defaultPageSize is the page size of getAvgTps, and of getEvmChainMetrics
// when used without the catalogue's default.
const defaultPageSize = 100

// Handlers returns the Metrics API handlers by operation id:
// getEvmChainMetrics (GET /v2/chains/{chainId}/metrics/{metric}), listChains
// (GET /v2/chains), getChain (GET /v2/chains/{chainId}) and getAvgTps
// (GET /v1/avg_tps/{chainId}), getEvmChainRollingWindowMetrics,
// getAddressesByBtcbBridged, and with their sources (Options) the ICM
// series, the staking and L1 validator fee series, the validators' addresses
// and the legacy holder lists. They read their parameters from the values
// the catalogue validated (metric names, intervals and the day-only rule
// included). Every error body has an array message.
func (e *Engine) Handlers() map[string]catalog.Handler {
	hs := map[string]apireq.Func{
		"getEvmChainMetrics":              e.serveMetrics,
		"listChains":                      e.serveChains,
		"getChain":                        e.serveChain,
		"getAvgTps":                       e.serveAvgTps,
		"getEvmChainRollingWindowMetrics": e.serveRolling,
		"getAddressesByBtcbBridged":       e.serveBtcbBridged,
	}
	if e.icm != nil {
		hs["getICMSummary"], hs["getICMTimeseries"], hs["getTeleporterMetricsByChain"] = e.serveICMSummary, e.serveICMTimeseries, e.serveTeleporterMetrics
	}
	if e.stakeSrc != nil {
		hs["getStakingMetrics"], hs["getValidatorsByDateRange"] = e.serveStaking, e.serveValidatorAddresses
		for _, op := range []string{"getTotalL1ValidatorMetrics", "getMetricsByValidationId", "getMetricsByNodeId", "getMetricsBySubnetId"} {
			hs[op] = e.serveL1Fees
		}
	}
	if e.holders != nil {
		hs["getNftHoldersByContractAddress"], hs["getAddressesByBalanceOverTime"] = e.serveNftHolders, e.serveBalanceHolders
	}
	// Every error body has an array message (Lists).
	svc := apireq.Service{Now: e.now, Log: e.log.With("component", "metricsapi"), Lists: true}
	out := make(map[string]catalog.Handler, len(hs))
	for op, fn := range hs {
		out[op] = e.timed(op, svc.Handle(op, fn))
	}
	return out
}

func (e *Engine) timed(op string, f catalog.Handler) catalog.Handler {
	return func(w http.ResponseWriter, r *http.Request, v catalog.Values) {
		t0 := time.Now()
		f(w, r, v)
		e.tel.served(op, time.Since(t0))
	}
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

// serveMetrics answers getEvmChainMetrics. An absent timeInterval is day.
func (e *Engine) serveMetrics(q *apireq.Req) (any, error) {
	v := q.Q
	chainID, metric := v["chainId"], v["metric"]
	iv, _ := parseInterval(cmp.Or(v["timeInterval"], "day"))
	start := intValue(v, "startTimestamp", 0)
	end := intValue(v, "endTimestamp", math.MaxInt64)
	size := intValue(v, "pageSize", defaultPageSize)
	if start > end {
		return nil, apireq.BadRequest("startTimestamp must not be greater than endTimestamp")
	}
	scope := "getEvmChainMetrics|" + chainID + "|" + metric + "|" + iv.String() + "|" +
		strconv.FormatInt(start, 10) + "|" + strconv.FormatInt(end, 10)
	return e.servePage(v, chainID, scope, pageReq{metric: metric, iv: iv, start: start, end: end, size: int(size)}, nil)
}

// serveAvgTps answers the legacy /v1/avg_tps/{chainId}: the daily avgTps,
// newest first, 100 points a page, with status 200 and lastRun, the time the
// chain's data last changed (its newest block's).
func (e *Engine) serveAvgTps(q *apireq.Req) (any, error) {
	v := q.Q
	chainID := v["chainId"]
	return e.servePage(v, chainID, "getAvgTps|"+chainID, pageReq{metric: "avgTps", iv: day, end: math.MaxInt64, size: defaultPageSize},
		func(buf []byte, sel selection) []byte {
			var lastRun int64
			for _, cs := range sel.chains {
				lastRun = max(lastRun, cs.lastRun())
			}
			buf = append(buf, `,"status":200,"lastRun":`...)
			return strconv.AppendInt(buf, lastRun, 10)
		})
}

// servePage writes {"results":[...], "nextPageToken"?, extra...} for p over
// chainID, continuing from the request's pageToken.
func (e *Engine) servePage(v catalog.Values, chainID, scope string, p pageReq, extra func([]byte, selection) []byte) (any, error) {
	now := e.now()
	p.cursor = math.MaxInt64
	if tok := v["pageToken"]; tok != "" {
		c, err := pagetoken.Decode(scope, tok, now)
		if err != nil || c > math.MaxInt64 {
			return nil, apireq.BadRequest("pageToken is invalid or expired")
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
		return nil, apireq.NotFound("chainId " + chainID + " is not a supported chain id, total, mainnet or testnet")
	}
	if more {
		buf = append(buf, `,"nextPageToken":"`...)
		buf = append(buf, pagetoken.Encode(scope, uint64(next), now)...)
		buf = append(buf, '"')
	}
	buf = append(buf, '}')
	return json.RawMessage(buf), nil
}

// intValue reads the integer value name, def when absent. The catalogue
// has checked it.
func intValue(v catalog.Values, name string, def int64) int64 {
	n, err := strconv.ParseInt(v[name], 10, 64)
	if err != nil {
		return def
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
func (e *Engine) serveChains(q *apireq.Req) (any, error) {
	v := q.Q
	network := v["network"]
	if network == avanet.Fuji.Name {
		network = avanet.TestnetName
	}
	if tok := v["pageToken"]; tok != "" {
		// The list fits one page, so no token was ever issued.
		return nil, apireq.BadRequest("pageToken is invalid or expired")
	}
	out := struct {
		Chains []chainJSON `json:"chains"`
	}{Chains: []chainJSON{}}
	for _, c := range e.list {
		if network == "" || c.Network == network {
			out.Chains = append(out.Chains, c.toJSON())
		}
	}
	return out, nil
}

// serveChain answers getChain for an EVM chain id (or, beyond the spec, a
// blockchain id).
func (e *Engine) serveChain(q *apireq.Req) (any, error) {
	v := q.Q
	id := v["chainId"]
	for _, c := range e.list {
		if strconv.FormatUint(c.EVMChainID, 10) == id || c.BlockchainID == id {
			return c.toJSON(), nil
		}
	}
	if c, ok := e.aliasChain(id); ok {
		return c.toJSON(), nil
	}
	return nil, apireq.NotFound("chainId " + id + " is not a supported chain id")
}
