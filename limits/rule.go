package limits

import (
	"sync/atomic"
	"time"
)

// rule is a plan's limits as the deciders see them: two token buckets (the
// request rate and the CU per minute) and two fixed UTC windows (CU per day
// and per month). Zero means no such limit. rule is comparable, so a state
// can tell that its plan changed.
type rule struct {
	rps      float64 // requests per second
	burst    int64   // requests at once
	cuPerSec float64 // CU per minute / 60
	cuBurst  int64   // CU at once: the whole minute's
	day      int64
	month    int64
}

// ruleOf returns p's limits divided by divide (the replicas sharing them
// while Redis fails), each at least one unit.
func ruleOf(p *Plan, divide int) rule {
	var r rule
	div := float64(max(1, divide))
	if p.RPS > 0 {
		r.rps = p.RPS / div
		r.burst = max(1, int64(float64(p.Burst)/div))
	}
	if p.CUPerMinute > 0 {
		r.cuPerSec = float64(p.CUPerMinute) / 60 / div
		r.cuBurst = max(1, int64(float64(p.CUPerMinute)/div))
	}
	if p.CUPerDay > 0 {
		r.day = max(1, int64(float64(p.CUPerDay)/div))
	}
	if p.CUPerMonth > 0 {
		r.month = max(1, int64(float64(p.CUPerMonth)/div))
	}
	return r
}

// needs returns what a request of cost takes from each budget of r, in the
// order rate, minute, day, month; 0 where r has no such limit.
func (r *rule) needs(cost int64) [4]int64 {
	var n [4]int64
	if r.rps > 0 {
		n[bRate] = 1
	}
	if r.cuPerSec > 0 {
		n[bMinute] = cost
	}
	if r.day > 0 {
		n[bDay] = cost
	}
	if r.month > 0 {
		n[bMonth] = cost
	}
	return n
}

// The budgets of a rule, in the order of its fields and of the Redis keys.
const (
	bRate = iota
	bMinute
	bDay
	bMonth
)

var budgetNames = [...]string{"rate", "minute", "day", "month"}

// windowIDs caches the ids of the current day's windows: formatting them
// for every decision would allocate.
var windowIDs atomic.Pointer[windowID]

type windowID struct {
	day      int64 // unix day
	dayID    string
	monthID  string
	dayEnd   time.Time
	monthEnd time.Time
}

// windows returns the UTC day and month windows of now: their ids and the
// time left in each.
func windows(now time.Time) (day, month string, dayLeft, monthLeft time.Duration) {
	now = now.UTC()
	unixDay := now.Unix() / 86400
	if w := windowIDs.Load(); w != nil && w.day == unixDay {
		return w.dayID, w.monthID, w.dayEnd.Sub(now), w.monthEnd.Sub(now)
	}
	y, m, d := now.Date()
	dayStart := time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
	monthStart := time.Date(y, m, 1, 0, 0, 0, 0, time.UTC)
	windowIDs.Store(&windowID{unixDay, dayStart.Format("2006-01-02"), monthStart.Format("2006-01"), dayStart.AddDate(0, 0, 1), monthStart.AddDate(0, 1, 0)})
	return dayStart.Format("2006-01-02"), monthStart.Format("2006-01"),
		dayStart.AddDate(0, 0, 1).Sub(now), monthStart.AddDate(0, 1, 0).Sub(now)
}

// result is one decision before it becomes a Decision.
type result struct {
	allowed    bool
	failed     string // which limit refused: "rate", "minute", "day", "month"
	retryAfter time.Duration
	minuteLeft int64 // CU left in the per-minute bucket (-1 = unlimited)
	rateLeft   int64 // requests left in the rate bucket (-1 = unlimited)
	dayUsed    int64
	monthUsed  int64
}
