package metricsapi

import (
	"encoding/json"
	"net/http"
	"slices"
	"sort"
	"strconv"

	"github.com/avaedge/avaedge/apierror"
	"github.com/avaedge/avaedge/local/pagetoken"
)

func sortInt64(s []int64) { sort.Slice(s, func(i, j int) bool { return s[i] < s[j] }) }

// Handlers returns the Metrics API handlers by operation: getEvmChainMetrics,
// listChains, getChain and getAvgTps. They read the path values chainId and
// metric.
func (e *Engine) Handlers() map[string]http.Handler {
	return map[string]http.Handler{
		"getEvmChainMetrics": http.HandlerFunc(e.serveMetric),
		"listChains":         http.HandlerFunc(e.serveChains),
		"getChain":           http.HandlerFunc(e.serveChain),
		"getAvgTps":          http.HandlerFunc(e.serveAvgTps),
	}
}

func writeJSON(w http.ResponseWriter, v any) {
	b, _ := json.Marshal(v)
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Write(b)
}

// selectChains resolves a chainId: an EVM chain id, or the aggregates
// total, mainnet and testnet. ok is false for an unknown chain.
func (e *Engine) selectChains(id string) ([]*chainState, bool) {
	switch id {
	case "total", "mainnet", "testnet":
		var out []*chainState
		for cid, cs := range e.chains {
			if id == "total" || e.networkOf(cid) == id {
				out = append(out, cs)
			}
		}
		return out, true
	}
	n, err := strconv.ParseUint(id, 10, 64)
	if err != nil {
		return nil, false
	}
	if cs, ok := e.chains[n]; ok {
		return []*chainState{cs}, true
	}
	for _, c := range e.opts.Chains {
		if c.EVMChainID == n {
			return []*chainState{newChainState()}, true
		}
	}
	return nil, false
}

func (e *Engine) networkOf(chainID uint64) string {
	for _, c := range e.opts.Chains {
		if c.EVMChainID == chainID {
			return c.Network
		}
	}
	return "testnet" // chains indexed locally without a listing are test chains
}

type result struct {
	Value     float64 `json:"value"`
	Timestamp int64   `json:"timestamp"`
}

func (e *Engine) serveMetric(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	metric := r.PathValue("metric")
	if !slices.Contains(Metrics, metric) {
		apierror.WriteList(w, http.StatusBadRequest, "metric must be one of the following values: "+joinComma(Metrics))
		return
	}
	iv := q.Get("timeInterval")
	if iv == "" {
		iv = Day
	}
	if !slices.Contains(intervals, iv) {
		apierror.WriteList(w, http.StatusBadRequest, "timeInterval must be one of the following values: hour, day, week, month")
		return
	}
	if iv != Day && dayOnly(metric) {
		apierror.WriteList(w, http.StatusBadRequest, "timeInterval must be day for metric "+metric)
		return
	}
	start, ok1 := intParam(q.Get("startTimestamp"), 0)
	end, ok2 := intParam(q.Get("endTimestamp"), 1<<62)
	size, ok3 := intParam(q.Get("pageSize"), 100)
	if !ok1 || !ok2 || !ok3 || start < 0 || end < 0 || size < 1 || size > 2160 {
		apierror.WriteList(w, http.StatusBadRequest, "startTimestamp, endTimestamp must be integers >= 0 and pageSize an integer from 1 to 2160")
		return
	}
	chainID := r.PathValue("chainId")
	scope := "metrics|" + chainID + "|" + metric + "|" + iv + "|" + strconv.FormatInt(start, 10) + "|" + strconv.FormatInt(end, 10)
	offset := uint64(0)
	if tok := q.Get("pageToken"); tok != "" {
		var err error
		if offset, err = pagetoken.Decode(scope, tok, e.opts.Now()); err != nil {
			apierror.WriteList(w, http.StatusBadRequest, "Invalid page token")
			return
		}
	}
	e.mu.RLock()
	chains, ok := e.selectChains(chainID)
	var pts []point
	if ok {
		pts = series(chains, metric, iv)
	}
	e.mu.RUnlock()
	if !ok {
		apierror.WriteList(w, http.StatusNotFound, "Chain "+chainID+" not found")
		return
	}
	// Newest first, within [start, end].
	var sel []result
	for i := len(pts) - 1; i >= 0; i-- {
		if pts[i].ts >= start && pts[i].ts <= end {
			sel = append(sel, result{Value: pts[i].value, Timestamp: pts[i].ts})
		}
	}
	resp := struct {
		NextPageToken string   `json:"nextPageToken,omitempty"`
		Results       []result `json:"results"`
	}{Results: []result{}}
	if offset < uint64(len(sel)) {
		stop := min(uint64(len(sel)), offset+uint64(size))
		resp.Results = sel[offset:stop]
		if stop < uint64(len(sel)) {
			resp.NextPageToken = pagetoken.Encode(scope, stop, e.opts.Now())
		}
	}
	writeJSON(w, resp)
}

func intParam(s string, def int64) (int64, bool) {
	if s == "" {
		return def, true
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil
}

func joinComma(s []string) string {
	out := ""
	for i, v := range s {
		if i > 0 {
			out += ", "
		}
		out += v
	}
	return out
}

type chainJSON struct {
	EVMChainID   uint64 `json:"evmChainId"`
	ChainName    string `json:"chainName"`
	BlockchainID string `json:"blockchainId"`
	SubnetID     string `json:"subnetId"`
	Network      string `json:"network"`
}

func (c Chain) json() chainJSON {
	return chainJSON{c.EVMChainID, c.ChainName, c.BlockchainID, c.SubnetID, c.Network}
}

func (e *Engine) serveChains(w http.ResponseWriter, r *http.Request) {
	network := r.URL.Query().Get("network")
	if network == "fuji" {
		network = "testnet"
	}
	out := []chainJSON{}
	for _, c := range e.opts.Chains {
		if network == "" || c.Network == network {
			out = append(out, c.json())
		}
	}
	writeJSON(w, struct {
		Chains []chainJSON `json:"chains"`
	}{out})
}

func (e *Engine) serveChain(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("chainId")
	for _, c := range e.opts.Chains {
		if strconv.FormatUint(c.EVMChainID, 10) == id || c.BlockchainID == id {
			writeJSON(w, c.json())
			return
		}
	}
	apierror.WriteList(w, http.StatusNotFound, "Chain "+id+" not found")
}

// serveAvgTps is the legacy /v1/avg_tps/{chainId}: daily avgTps, newest
// first, with status 200 and the time of the last update.
func (e *Engine) serveAvgTps(w http.ResponseWriter, r *http.Request) {
	chainID := r.PathValue("chainId")
	e.mu.RLock()
	chains, ok := e.selectChains(chainID)
	var pts []point
	var lastRun int64
	if ok {
		pts = series(chains, "avgTps", Day)
		for _, cs := range chains {
			lastRun = max(lastRun, cs.lastRun)
		}
	}
	e.mu.RUnlock()
	if !ok {
		apierror.WriteList(w, http.StatusNotFound, "Chain "+chainID+" not found")
		return
	}
	res := []result{}
	for i := len(pts) - 1; i >= 0; i-- {
		res = append(res, result{Value: pts[i].value, Timestamp: pts[i].ts})
	}
	writeJSON(w, struct {
		Results []result `json:"results"`
		Status  int      `json:"status"`
		LastRun int64    `json:"lastRun"`
	}{res, 200, lastRun})
}
