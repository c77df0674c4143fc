package metricsapi

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/ethereum/go-ethereum/common"

	"github.com/avaedge/avaedge/avanet"
	"github.com/avaedge/avaedge/catalog"
	"github.com/avaedge/avaedge/local/api/apireq"
	"github.com/avaedge/avaedge/local/source/evmindex"
	"github.com/avaedge/avaedge/local/vocab/avax"
	"github.com/avaedge/avaedge/local/vocab/pagetoken"
)

// ICMSource counts the ICM messages the EVM index assembled
// (evmindex.Index).
type ICMSource interface {
	// ICMHourly counts messages by hour, source and destination.
	ICMHourly(ctx context.Context, since, until int64) ([]evmindex.ICMCount, error)
	// ICMChainTxs counts a chain's transactions that sent (ICMSend) or
	// delivered (ICMReceive) messages.
	ICMChainTxs(ctx context.Context, chainID uint64, kind evmindex.ICMEventKind) (uint64, error)
}

// icmFilter is the selection of getICMSummary and getICMTimeseries.
type icmFilter struct {
	src, dst *common.Hash
	chains   map[common.Hash]bool // the network's chains; nil: any
	groupSrc bool
	groupDst bool
}

func (f *icmFilter) keep(c *evmindex.ICMCount) bool {
	if f.src != nil && c.Source != *f.src || f.dst != nil && c.Destination != *f.dst {
		return false
	}
	return f.chains == nil || f.chains[c.Source] || f.chains[c.Destination]
}

// key names c's group: the source and destination ids the answer names
// (the filter's, or "" where the group and the filter leave them open).
func (f *icmFilter) key(c *evmindex.ICMCount) [2]string {
	name := func(group bool, h common.Hash, fixed *common.Hash) string {
		switch {
		case group:
			return avax.CB58Encode(h[:])
		case fixed != nil:
			return avax.CB58Encode(fixed[:])
		}
		return ""
	}
	return [2]string{name(f.groupSrc, c.Source, f.src), name(f.groupDst, c.Destination, f.dst)}
}

// icmFilterOf reads srcBlockchainId, destBlockchainId, network and groupBy.
func (e *Engine) icmFilterOf(v catalog.Values) (*icmFilter, string) {
	f := &icmFilter{}
	for _, p := range []struct {
		name string
		dst  **common.Hash
	}{{"srcBlockchainId", &f.src}, {"destBlockchainId", &f.dst}} {
		raw := v[p.name]
		if raw == "" {
			continue
		}
		h, ok := e.blockchainID(raw)
		if !ok {
			return nil, p.name + " must be a base58 blockchain id"
		}
		*p.dst = &h
	}
	if n := v["network"]; n != "" {
		f.chains = map[common.Hash]bool{}
		want := avanet.Mainnet.Name
		if n != avanet.Mainnet.Name {
			want = avanet.TestnetName
		}
		for _, c := range e.list {
			aliased := e.cchain != nil && c.EVMChainID == e.cchain.Target
			if h, ok := e.blockchainID(c.BlockchainID); ok && (c.Network == want || aliased) {
				f.chains[h] = true
			}
		}
	}
	switch v["groupBy"] {
	case "srcBlockchainId":
		f.groupSrc = true
	case "destBlockchainId":
		f.groupDst = true
	case "srcBlockchainId,destBlockchainId":
		f.groupSrc, f.groupDst = true, true
	}
	return f, ""
}

// blockchainID reads a base58 blockchain id, or the EVM chain id (or
// C-Chain alias) of a listed chain.
func (e *Engine) blockchainID(raw string) (common.Hash, bool) {
	if b, err := avax.CB58Decode(raw); err == nil && len(b) == common.HashLength {
		return common.BytesToHash(b), true
	}
	for _, c := range e.list {
		if strconv.FormatUint(c.EVMChainID, 10) == raw {
			return e.blockchainID(c.BlockchainID)
		}
	}
	if cs, _ := e.alias(raw); cs != nil {
		return e.blockchainID(cs.info.BlockchainID)
	}
	return common.Hash{}, false
}

// serveICMSummary answers getICMSummary: the messages sent (by the time of
// their send, else of their delivery) in each rolling window before now,
// over the filters. The answer is one object (popsicle.json's shape), so
// groupBy does not split it: srcBlockchainId and destBlockchainId name the
// filters, "" where none is set.
func (e *Engine) serveICMSummary(q *apireq.Req) (any, error) {
	v := q.Q
	f, bad := e.icmFilterOf(v)
	if bad != "" {
		return nil, apireq.BadRequest(bad)
	}
	f.groupSrc, f.groupDst = false, false
	now := e.now().Unix()
	counts, err := e.icm.ICMHourly(q.Context(), 0, now)
	if err != nil {
		return nil, apireq.Failed("reading the ICM messages failed", fmt.Errorf("icm counts: %w", err))
	}
	sums := make([]uint64, len(rollingWindows))
	for i := range counts {
		c := &counts[i]
		if !f.keep(c) {
			continue
		}
		for j, rw := range rollingWindows {
			// Hours are the counts' resolution: a window holds the hours
			// that start within it.
			if rw.secs == 0 || c.Hour > now-rw.secs {
				sums[j] += c.N
			}
		}
	}
	key := f.key(&evmindex.ICMCount{})
	buf := append(make([]byte, 0, 256), `{"result":{`...)
	for j, rw := range rollingWindows {
		buf = append(buf, '"')
		buf = append(buf, rw.name...)
		buf = append(buf, `":`...)
		buf = strconv.AppendUint(buf, sums[j], 10)
		buf = append(buf, ',')
	}
	buf = append(buf, `"srcBlockchainId":`...)
	buf = strconv.AppendQuote(buf, key[0])
	buf = append(buf, `,"destBlockchainId":`...)
	buf = strconv.AppendQuote(buf, key[1])
	buf = append(buf, "}}"...)
	return json.RawMessage(buf), nil
}

// serveICMTimeseries answers getICMTimeseries: messages per interval
// (timeInterval, day by default), newest first, one point per group
// (groupBy) and interval that has messages; points of one interval are
// ordered by source, then destination. A page token carries the position
// of the next point.
func (e *Engine) serveICMTimeseries(q *apireq.Req) (any, error) {
	v := q.Q
	f, bad := e.icmFilterOf(v)
	if bad != "" {
		return nil, apireq.BadRequest(bad)
	}
	iv, _ := parseInterval(cmp.Or(v["timeInterval"], "day"))
	start := intValue(v, "startTimestamp", 0)
	end := intValue(v, "endTimestamp", math.MaxInt32)
	size := int(intValue(v, "pageSize", defaultPageSize))
	if start > end {
		return nil, apireq.BadRequest("startTimestamp must not be greater than endTimestamp")
	}
	now := e.now()
	scope := "getICMTimeseries|" + v["srcBlockchainId"] + "|" + v["destBlockchainId"] + "|" + v["network"] + "|" + v["groupBy"] + "|" +
		iv.String() + "|" + strconv.FormatInt(start, 10) + "|" + strconv.FormatInt(end, 10)
	var offset int
	if tok := v["pageToken"]; tok != "" {
		c, err := pagetoken.Decode(scope, tok, now)
		if err != nil || c > 1<<31 {
			return nil, apireq.BadRequest("pageToken is invalid or expired")
		}
		offset = int(c)
	}
	// A point holds the messages of its interval: the hours counted are
	// those of the intervals the bounds touch.
	counts, err := e.icm.ICMHourly(q.Context(), iv.floor(start), end)
	if err != nil {
		return nil, apireq.Failed("reading the ICM messages failed", fmt.Errorf("icm counts: %w", err))
	}
	points := f.icmPoints(counts, iv, start, end)
	offset = min(offset, len(points))
	stop := max(offset, min(len(points), offset+size))
	next := ""
	if stop < len(points) {
		next = pagetoken.Encode(scope, uint64(stop), now)
	}
	return icmPointsJSON(points[offset:stop], next), nil
}

// icmPoint is one point of getICMTimeseries: n messages in the interval
// starting at ts from key[0] to key[1] (as the groupBy names them).
type icmPoint struct {
	ts  int64
	key [2]string
	n   uint64
}

// icmPoints groups the hourly counts f keeps into points per interval iv
// starting within [start, end], newest first, then by source and
// destination.
func (f *icmFilter) icmPoints(counts []evmindex.ICMCount, iv interval, start, end int64) []icmPoint {
	type at struct {
		ts  int64
		key [2]string
	}
	byKey := map[at]uint64{}
	for i := range counts {
		c := &counts[i]
		ts := iv.floor(c.Hour)
		if !f.keep(c) || ts < start || ts > end {
			continue
		}
		byKey[at{ts: ts, key: f.key(c)}] += c.N
	}
	points := make([]icmPoint, 0, len(byKey))
	for k, n := range byKey {
		points = append(points, icmPoint{ts: k.ts, key: k.key, n: n})
	}
	slices.SortFunc(points, func(a, b icmPoint) int {
		if a.ts != b.ts {
			return cmp.Compare(b.ts, a.ts)
		}
		return cmp.Or(cmp.Compare(a.key[0], b.key[0]), cmp.Compare(a.key[1], b.key[1]))
	})
	return points
}

// icmPointsJSON is getICMTimeseries' answer: page's points, and next as
// nextPageToken when it is not empty.
func icmPointsJSON(page []icmPoint, next string) json.RawMessage {
	buf := append(make([]byte, 0, 64+96*min(len(page), 256)), `{"results":[`...)
	for i, p := range page {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = append(buf, `{"value":`...)
		buf = strconv.AppendUint(buf, p.n, 10)
		buf = append(buf, `,"timestamp":`...)
		buf = strconv.AppendInt(buf, p.ts, 10)
		buf = append(buf, `,"srcBlockchainId":`...)
		buf = strconv.AppendQuote(buf, p.key[0])
		buf = append(buf, `,"destBlockchainId":`...)
		buf = strconv.AppendQuote(buf, p.key[1])
		buf = append(buf, '}')
	}
	buf = append(buf, ']')
	if next != "" {
		buf = append(buf, `,"nextPageToken":"`...)
		buf = append(buf, next...)
		buf = append(buf, '"')
	}
	buf = append(buf, '}')
	return json.RawMessage(buf)
}

// serveTeleporterMetrics answers the legacy getTeleporterMetricsByChain:
// {"result":{"value":N}}, N the chain's transactions that sent
// (teleporterSourceTxnCount) or delivered (teleporterDestinationTxnCount)
// ICM messages, or the sum of both (teleporterTotalTxnCount).
func (e *Engine) serveTeleporterMetrics(q *apireq.Req) (any, error) {
	v := q.Q
	chainID, metric := v["chainId"], v["metric"]
	e.mu.RLock()
	sel, ok := e.resolve(chainID)
	e.mu.RUnlock()
	if !ok || sel.group != nil {
		return nil, apireq.NotFound("chainId " + chainID + " is not a supported chain id")
	}
	id := sel.chains[0].info.EVMChainID
	var n uint64
	for _, k := range []struct {
		kind evmindex.ICMEventKind
		in   bool
	}{{evmindex.ICMSend, metric != "teleporterDestinationTxnCount"}, {evmindex.ICMReceive, metric != "teleporterSourceTxnCount"}} {
		if !k.in {
			continue
		}
		c, err := e.icm.ICMChainTxs(q.Context(), id, k.kind)
		if err != nil {
			return nil, apireq.Failed("reading the ICM messages failed", fmt.Errorf("icm transactions: %w", err))
		}
		n += c
	}
	buf := append(make([]byte, 0, 40), `{"result":{"value":`...)
	buf = strconv.AppendUint(buf, n, 10)
	return json.RawMessage(append(buf, "}}"...)), nil
}
