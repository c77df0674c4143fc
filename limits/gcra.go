package limits

import (
	"math"
	"sync"
	"sync/atomic"
	"time"
)

// A plan's limits as the deciders see them. Rates are GCRAs (one theoretical
// arrival time per identity); quotas are fixed windows.
type rule struct {
	rateEmission time.Duration // per request; 0 = no request rate
	rateBurst    time.Duration // burst tolerance
	cuEmission   time.Duration // per CU; 0 = no per-minute CU limit
	cuBurst      time.Duration
	day, month   int64 // 0 = unlimited
}

func ruleOf(p *Plan, divide int) rule {
	var r rule
	div := float64(max(1, divide))
	if p.RPS > 0 {
		rps := p.RPS / div
		r.rateEmission = time.Duration(float64(time.Second) / rps)
		r.rateBurst = time.Duration(float64(r.rateEmission) * math.Max(1, float64(p.Burst)/div))
	}
	if p.CUPerMinute > 0 {
		perMin := float64(p.CUPerMinute) / div
		r.cuEmission = time.Duration(float64(time.Minute) / perMin)
		r.cuBurst = time.Minute
	}
	r.day = int64(float64(p.CUPerDay) / div)
	r.month = int64(float64(p.CUPerMonth) / div)
	if p.CUPerDay > 0 && r.day == 0 {
		r.day = 1
	}
	if p.CUPerMonth > 0 && r.month == 0 {
		r.month = 1
	}
	return r
}

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
	allowed     bool
	failed      string // which limit refused: "rate", "minute", "day", "month"
	retryAfter  time.Duration
	minuteLeft  int64 // CU left in the per-minute GCRA (-1 = unlimited)
	minuteReset time.Duration
	rateLeft    int64
	dayUsed     int64
	monthUsed   int64
	dayLeft     time.Duration
	monthLeft   time.Duration
}

// gcraCheck evaluates a GCRA of emission interval em and burst tolerance
// burst for n units at now given the stored tat (theoretical arrival time).
// It returns the new tat when allowed, the units left, and the wait.
func gcraCheck(tat, now time.Time, em, burst time.Duration, n int64) (newTAT time.Time, ok bool, left int64, retry, reset time.Duration) {
	if tat.Before(now) {
		tat = now
	}
	newTAT = tat.Add(time.Duration(n) * em)
	allowAt := newTAT.Add(-burst)
	diff := now.Sub(allowAt)
	if diff < 0 {
		return tat, false, 0, -diff, tat.Sub(now)
	}
	return newTAT, true, int64(diff / em), 0, newTAT.Sub(now)
}

// memState is one identity's counters in process.
type memState struct {
	mu        sync.Mutex // guards the fields below
	rateTAT   time.Time
	cuTAT     time.Time
	dayID     string
	dayUsed   int64
	monthID   string
	monthUsed int64
}

// memory decides in process. It is safe for concurrent use.
type memory struct {
	states sync.Map // identity -> *memState
}

func (m *memory) decide(id string, r rule, cost int64, now time.Time) result {
	v, ok := m.states.Load(id)
	if !ok {
		v, _ = m.states.LoadOrStore(id, &memState{})
	}
	s := v.(*memState)
	s.mu.Lock()
	defer s.mu.Unlock()
	day, month, dayLeft, monthLeft := windows(now)
	if s.dayID != day {
		s.dayID, s.dayUsed = day, 0
	}
	if s.monthID != month {
		s.monthID, s.monthUsed = month, 0
	}
	res := result{allowed: true, minuteLeft: -1, rateLeft: -1, dayLeft: dayLeft, monthLeft: monthLeft}
	var rateTAT, cuTAT time.Time
	if r.rateEmission > 0 {
		t, ok, left, retry, _ := gcraCheck(s.rateTAT, now, r.rateEmission, r.rateBurst, 1)
		rateTAT, res.rateLeft = t, left
		if !ok {
			res.allowed, res.failed, res.retryAfter = false, "rate", retry
		}
	}
	if r.cuEmission > 0 && cost > 0 {
		t, ok, left, retry, reset := gcraCheck(s.cuTAT, now, r.cuEmission, r.cuBurst, cost)
		cuTAT, res.minuteLeft, res.minuteReset = t, left, reset
		if !ok && res.allowed {
			res.allowed, res.failed, res.retryAfter = false, "minute", retry
		}
	}
	if r.day > 0 && s.dayUsed+cost > r.day && res.allowed {
		res.allowed, res.failed, res.retryAfter = false, "day", dayLeft
	}
	if r.month > 0 && s.monthUsed+cost > r.month && res.allowed {
		res.allowed, res.failed, res.retryAfter = false, "month", monthLeft
	}
	if res.allowed {
		if r.rateEmission > 0 {
			s.rateTAT = rateTAT
		}
		if r.cuEmission > 0 && cost > 0 {
			s.cuTAT = cuTAT
		}
		s.dayUsed += cost
		s.monthUsed += cost
	}
	res.dayUsed, res.monthUsed = s.dayUsed, s.monthUsed
	return res
}

func (m *memory) usage(id string, now time.Time) (minuteTAT time.Time, day, month int64) {
	v, ok := m.states.Load(id)
	if !ok {
		return time.Time{}, 0, 0
	}
	s := v.(*memState)
	s.mu.Lock()
	defer s.mu.Unlock()
	d, mo, _, _ := windows(now)
	if s.dayID == d {
		day = s.dayUsed
	}
	if s.monthID == mo {
		month = s.monthUsed
	}
	return s.cuTAT, day, month
}
