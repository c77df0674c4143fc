package metricsapi

import "time"

// interval is a timeInterval of the Metrics API: hour, day, week or month.
// The zero value is hour.
type interval int

const (
	hour interval = iota
	day
	week
	month
	numIntervals
)

var intervalNames = [numIntervals]string{"hour", "day", "week", "month"}

func (iv interval) String() string { return intervalNames[iv] }

// parseInterval returns the interval named s.
func parseInterval(s string) (interval, bool) {
	for i, n := range intervalNames {
		if n == s {
			return interval(i), true
		}
	}
	return 0, false
}

const daySeconds = 86400

// floor returns the start of the bucket that holds ts: the hour; 00:00 UTC;
// Monday 00:00 UTC; the first of the month 00:00 UTC (popsicle.json,
// getEvmChainMetrics).
func (iv interval) floor(ts int64) int64 {
	switch iv {
	case hour:
		return ts - mod(ts, 3600)
	case day:
		return ts - mod(ts, daySeconds)
	case week:
		d := floorDiv(ts, daySeconds)
		// 1970-01-01 was a Thursday: (d+3) mod 7 is 0 on Mondays.
		return (d - mod(d+3, 7)) * daySeconds
	}
	y, m, _ := time.Unix(ts, 0).UTC().Date()
	return time.Date(y, m, 1, 0, 0, 0, 0, time.UTC).Unix()
}

// next returns the start of the bucket after the one starting at start.
func (iv interval) next(start int64) int64 {
	switch iv {
	case hour:
		return start + 3600
	case day:
		return start + daySeconds
	case week:
		return start + 7*daySeconds
	}
	return time.Unix(start, 0).UTC().AddDate(0, 1, 0).Unix()
}

// prev returns the start of the bucket before the one starting at start.
func (iv interval) prev(start int64) int64 {
	switch iv {
	case hour:
		return start - 3600
	case day:
		return start - daySeconds
	case week:
		return start - 7*daySeconds
	}
	return time.Unix(start, 0).UTC().AddDate(0, -1, 0).Unix()
}

// ceil returns the start of the first bucket that starts at or after ts.
func (iv interval) ceil(ts int64) int64 {
	f := iv.floor(ts)
	if f < ts {
		return iv.next(f)
	}
	return f
}

func mod(a, b int64) int64 {
	r := a % b
	if r < 0 {
		r += b
	}
	return r
}

func floorDiv(a, b int64) int64 { return (a - mod(a, b)) / b }
