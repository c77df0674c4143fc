package usage

import (
	"context"
	"sort"
	"strconv"
	"time"

	"github.com/avaedge/avaedge/catalog"
)

// interval is a timeInterval of the usage routes.
type interval string

// levelOf is the finest stored level an interval is summed from.
func (iv interval) level() level {
	switch iv {
	case "minute":
		return minuteLevel
	case "hourly":
		return hourLevel
	}
	return dayLevel
}

// period returns the start and length in seconds of the interval's period
// holding the bucket that starts at t: weeks start on Monday 00:00 UTC,
// months on the 1st.
func (iv interval) period(t int64) (int64, int64) {
	switch iv {
	case "minute":
		return t, 60
	case "hourly":
		return t, 3600
	case "weekly":
		day := t / 86400
		monday := day - (day+3)%7 // 1970-01-01 was a Thursday
		return monday * 86400, 7 * 86400
	case "monthly":
		d := time.Unix(t, 0).UTC()
		first := time.Date(d.Year(), d.Month(), 1, 0, 0, 0, 0, time.UTC)
		return first.Unix(), int64(first.AddDate(0, 1, 0).Sub(first) / time.Second)
	}
	return t, 86400
}

// defaultDays is how many days before the end's day a range starts when
// startTimestamp is absent.
func (iv interval) defaultDays() int64 {
	switch iv {
	case "daily":
		return 6
	case "weekly":
		return 27
	case "monthly":
		return 364
	}
	return 0
}

// window is a request's range [from, to) in unix seconds: both timestamps
// are rounded down to 0:00 UTC of their day, as glacier.json says, and the
// end's day is included; endTimestamp defaults to now. The range is cut to
// what the interval's level keeps, so a request reads a bounded number of
// buckets (at most 2,880 minutes, 840 hours or 400 days).
func window(v catalog.Values, iv interval, now time.Time) (from, to int64) {
	end := now.Unix()
	if v.Has("endTimestamp") {
		end, _ = strconv.ParseInt(v.Get("endTimestamp"), 10, 64)
	}
	to = end/86400*86400 + 86400
	from = to - 86400 - iv.defaultDays()*86400
	if v.Has("startTimestamp") {
		s, _ := strconv.ParseInt(v.Get("startTimestamp"), 10, 64)
		from = s / 86400 * 86400
	}
	lv := levels[iv.level()]
	oldest := (now.Unix() - int64(lv.retention/time.Second)) / lv.seconds * lv.seconds
	from = max(from, oldest)
	to = min(to, now.Unix()/lv.seconds*lv.seconds+lv.seconds)
	return from, max(from, to)
}

// sums are counters summed over a group.
type sums struct {
	n, ok, inv, cu, cuw int64
	dur                 [nDur]int64
}

func (s *sums) add(name string, v int64) {
	switch name {
	case "n":
		s.n += v
	case "ok":
		s.ok += v
	case "inv":
		s.inv += v
	case "cu":
		s.cu += v
	case "cuw":
		s.cuw += v
	default:
		if len(name) > 1 && name[0] == 'd' {
			if i, err := strconv.Atoi(name[1:]); err == nil && i >= 0 && i < nDur {
				s.dur[i] += v
			}
		}
	}
}

// median estimates the median duration in milliseconds from the buckets,
// interpolating linearly within the bucket that holds it.
func (s *sums) median() float64 {
	var total int64
	for _, v := range s.dur {
		total += v
	}
	if total == 0 {
		return 0
	}
	half := float64(total) / 2
	var seen int64
	for i, v := range s.dur {
		if v == 0 || float64(seen+v) < half {
			seen += v
			continue
		}
		lo := 0.0
		if i > 0 {
			lo = durBounds[i-1]
		}
		if i == len(durBounds) {
			return lo
		}
		frac := (half - float64(seen)) / float64(v)
		return round3(lo + frac*(durBounds[i]-lo))
	}
	return 0
}

func round3(f float64) float64 { return float64(int64(f*1000+0.5)) / 1000 }

// valueDTO is glacier.json's UsageMetricsValueDTO and
// RpcUsageMetricsValueAggregated (the same fields).
type valueDTO struct {
	GroupedBy               string  `json:"groupedBy"`
	GroupValue              any     `json:"groupValue,omitempty"`
	TotalRequests           int64   `json:"totalRequests"`
	RequestsPerSecond       float64 `json:"requestsPerSecond"`
	SuccessRatePercent      float64 `json:"successRatePercent"`
	MedianResponseTimeMsecs float64 `json:"medianResponseTimeMsecs"`
	InvalidRequests         int64   `json:"invalidRequests"`
	APICreditsUsed          int64   `json:"apiCreditsUsed"`
	APICreditsWasted        int64   `json:"apiCreditsWasted"`
}

// metricDTO is glacier.json's Metric and RpcMetrics.
type metricDTO struct {
	Timestamp int64      `json:"timestamp"`
	Values    []valueDTO `json:"values"`
}

// grouping says which counted dims a query keeps and how it groups them.
type grouping struct {
	keep func(d dims) bool
	// by is the groupedBy value ("None" without grouping); value returns a
	// dims' groupValue (nil leaves it out).
	by    string
	value func(d dims) any
}

// series sums identity's counters over [from, to) by period of iv and by
// group, newest period first, groups in order of their value.
func (u *Meter) series(ctx context.Context, identity string, iv interval, from, to int64, g grouping) ([]metricDTO, error) {
	lv := iv.level()
	bks, err := u.store.buckets(ctx, identity, lv, from, to)
	if err != nil {
		return nil, err
	}
	type groupKey struct {
		period int64
		value  string
	}
	acc := map[groupKey]*sums{}
	vals := map[groupKey]any{}
	lengths := map[int64]int64{}
	for start, fields := range bks {
		p, length := iv.period(start)
		lengths[p] = length
		for f, v := range fields {
			d, name, ok := parseField(f)
			if !ok || !g.keep(d) {
				continue
			}
			var gv any
			if g.value != nil {
				gv = g.value(d)
			}
			k := groupKey{p, groupString(gv)}
			s := acc[k]
			if s == nil {
				s = &sums{}
				acc[k] = s
				vals[k] = gv
			}
			s.add(name, v)
		}
	}
	keys := make([]groupKey, 0, len(acc))
	for k, s := range acc {
		if s.n > 0 {
			keys = append(keys, k)
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].period != keys[j].period {
			return keys[i].period > keys[j].period
		}
		return lessValue(vals[keys[i]], vals[keys[j]])
	})
	out := []metricDTO{}
	for _, k := range keys {
		s := acc[k]
		if len(out) == 0 || out[len(out)-1].Timestamp != k.period {
			out = append(out, metricDTO{Timestamp: k.period, Values: []valueDTO{}})
		}
		m := &out[len(out)-1]
		m.Values = append(m.Values, valueDTO{GroupedBy: g.by, GroupValue: vals[k], TotalRequests: s.n,
			RequestsPerSecond:  round3(float64(s.n) / float64(lengths[k.period])),
			SuccessRatePercent: round3(100 * float64(s.ok) / float64(s.n)), MedianResponseTimeMsecs: s.median(),
			InvalidRequests: s.inv, APICreditsUsed: s.cu, APICreditsWasted: s.cuw})
	}
	return out, nil
}

func groupString(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return "s" + x
	case int:
		return "n" + strconv.Itoa(x)
	}
	return ""
}

func lessValue(a, b any) bool {
	if x, ok := a.(int); ok {
		if y, ok := b.(int); ok {
			return x < y
		}
	}
	return groupString(a) < groupString(b)
}

// code is a responseCode as the answers give it: a number.
func code(d dims) any {
	n, err := strconv.Atoi(d.code)
	if err != nil {
		return d.code
	}
	return n
}
