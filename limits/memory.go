package limits

import (
	"math"
	"time"

	"golang.org/x/time/rate"
)

// memState is one identity's limits in process.
type memState struct {
	liveMu         // guards the fields below
	rule      rule // what the buckets were made for
	rate, cu  *rate.Limiter
	dayID     string
	dayUsed   int64
	monthID   string
	monthUsed int64
}

// memory decides in process: golang.org/x/time/rate token buckets for the
// request rate and the CU per minute, counters for the UTC day and month.
// It is safe for concurrent use.
type memory struct {
	states table[memState]
}

// newMemory returns an in-process decider keeping at most max idle
// clients' states, forgetting a client idle for idle. The keys file's own
// keys ("key:" ids) are never forgotten.
func newMemory(max int64, idle time.Duration) *memory {
	m := &memory{}
	m.states = table[memState]{max: max, idle: idle,
		keep:  func(id string) bool { return len(id) > 4 && id[:4] == "key:" },
		evict: func(_ string, e *entry[memState]) { e.s.markDead() }}
	return m
}

// bucket makes or updates a token bucket, keeping its tokens.
func bucket(b *rate.Limiter, perSec float64, burst int64, now time.Time) *rate.Limiter {
	switch {
	case perSec <= 0:
		return nil
	case b == nil:
		return rate.NewLimiter(rate.Limit(perSec), int(burst))
	}
	b.SetLimitAt(now, rate.Limit(perSec))
	b.SetBurstAt(now, int(burst))
	return b
}

// wait is how long until b holds n tokens.
func wait(b *rate.Limiter, n int64, now time.Time) time.Duration {
	short := float64(n) - b.TokensAt(now)
	return time.Duration(math.Ceil(short / float64(b.Limit()) * float64(time.Second)))
}

// decide spends cost from id's limits under r, or refuses; request says it
// is a request's spend, which takes one from the rate too. left asks for
// what is left of the buckets on an allowed request too (for the headers).
func (m *memory) decide(id string, r rule, cost int64, request bool, now time.Time, left bool) result {
	s := getLocked(&m.states, id, now)
	defer s.mu.Unlock()
	if s.rule != r {
		s.rate = bucket(s.rate, r.rps, r.burst, now)
		s.cu = bucket(s.cu, r.cuPerSec, r.cuBurst, now)
		s.rule = r
	}
	day, month, dayLeft, monthLeft := windows(now)
	if s.dayID != day {
		s.dayID, s.dayUsed = day, 0
	}
	if s.monthID != month {
		s.monthID, s.monthUsed = month, 0
	}
	res := result{allowed: true, minuteLeft: -1, rateLeft: -1}
	refuse := func(failed string, retry time.Duration) {
		res.allowed, res.failed, res.retryAfter = false, failed, retry
	}
	// The counters first, then the buckets, each read once where one
	// bucket applies: a refusal by any limit takes nothing from the others.
	useRate, useCU := s.rate != nil && request, s.cu != nil && cost > 0
	switch {
	case r.day > 0 && s.dayUsed+cost > r.day:
		refuse("day", dayLeft)
	case r.month > 0 && s.monthUsed+cost > r.month:
		refuse("month", monthLeft)
	case useRate && useCU:
		if s.rate.TokensAt(now) < 1 {
			refuse("rate", wait(s.rate, 1, now))
		} else if s.cu.TokensAt(now) < float64(cost) {
			refuse("minute", wait(s.cu, cost, now))
		} else {
			s.rate.AllowN(now, 1)
			s.cu.AllowN(now, int(cost))
		}
	case useRate:
		if !s.rate.AllowN(now, 1) {
			refuse("rate", wait(s.rate, 1, now))
		}
	case useCU:
		if !s.cu.AllowN(now, int(cost)) {
			refuse("minute", wait(s.cu, cost, now))
		}
	}
	if res.allowed {
		s.dayUsed += cost
		s.monthUsed += cost
	}
	if left || !res.allowed {
		if s.rate != nil {
			res.rateLeft = int64(s.rate.TokensAt(now))
		}
		if s.cu != nil {
			res.minuteLeft = int64(s.cu.TokensAt(now))
		}
	}
	res.dayUsed, res.monthUsed = s.dayUsed, s.monthUsed
	return res
}

// usage returns the CU spent of the minute bucket, the day and the month.
func (m *memory) usage(id string, now time.Time) (minute, day, month int64) {
	v, ok := m.states.m.Load(id)
	if !ok {
		return 0, 0, 0
	}
	s := &v.(*entry[memState]).s
	s.mu.Lock()
	defer s.mu.Unlock()
	d, mo, _, _ := windows(now)
	if s.dayID == d {
		day = s.dayUsed
	}
	if s.monthID == mo {
		month = s.monthUsed
	}
	if s.cu != nil {
		minute = max(0, int64(float64(s.cu.Burst())-s.cu.TokensAt(now)))
	}
	return minute, day, month
}
