package limits

import (
	"context"
	"errors"
	"sync"
	"time"
)

// Leases. With Redis, a replica does not ask Redis for each request: it
// leases units of each of a client's budgets (requests per second, CU per
// minute, day and month) in one call of leaseScript and spends them in
// process. A request the leases cover costs a mutex and a few subtractions;
// when they run low a call made in the background tops them up, and when
// they cannot cover a request it waits for one call (one at a time per client
// on each replica). Redis never grants more than 1/div of what would be left
// beyond the need, so near the end of a budget the leases are single
// requests' worth: the units of a budget are each spent once, by whichever
// replica leased them, and refusals come from Redis's own count.
//
// Units of the rate and minute buckets are only good for leaseTTL after they
// were leased: with every call, a replica gives back what it holds of them
// and leases afresh, so no unit is spent more than leaseTTL after Redis
// counted it. Day and month units keep until their window ends; they go back
// when the client is idle for leaseIdle, on a plan change and on Close.

const (
	leaseTTL   = 2 * time.Second
	leaseIdle  = 10 * time.Second
	leaseBatch = 64 // a lease asks for at least this many requests' worth
)

// leaseState is one client's leases on this replica.
type leaseState struct {
	mu     sync.Mutex // guards the fields below
	dead   bool       // removed from the table: its leases were given back
	rule   rule       // the plan the leases were taken under
	have   [4]int64   // leased units not yet spent
	ret    [4]int64   // units to give back with the next call
	exp    time.Time  // when the rate and minute units lapse
	day    string     // the day window of have[bDay]
	month  string     // the month window of have[bMonth]
	left   [4]int64   // what Redis had left after the last call
	spent  [4]int64   // spent since `since`, to size the next lease
	since  time.Time
	per    [4]int64 // the last request's need
	target [4]int64 // what the last call meant this replica to hold

	flight chan struct{} // closed when the call in flight ends; nil when none

	refused      leaseReply // the last refusal, answered again until refusedUntil
	refusedUntil time.Time
}

// refresh brings s up to date for rule r at now.
func (s *leaseState) refresh(r rule, now time.Time, day, month string) {
	if s.rule != r {
		for i := range s.have {
			s.ret[i] += s.have[i]
			s.have[i] = 0
		}
		s.rule, s.refusedUntil = r, time.Time{}
	}
	if now.After(s.exp) {
		s.lapse()
	}
	if s.day != day {
		s.day, s.have[bDay], s.ret[bDay], s.left[bDay] = day, 0, 0, r.day
		s.refusedUntil = time.Time{}
	}
	if s.month != month {
		s.month, s.have[bMonth], s.ret[bMonth], s.left[bMonth] = month, 0, 0, r.month
		s.refusedUntil = time.Time{}
	}
}

// lapse gives back the rate and minute units.
func (s *leaseState) lapse() {
	for _, i := range [...]int{bRate, bMinute} {
		s.ret[i] += s.have[i]
		s.have[i] = 0
	}
}

func (s *leaseState) covers(need [4]int64) bool {
	for i, n := range need {
		if s.have[i] < n {
			return false
		}
	}
	return true
}

// args is the next call for a request needing need (zero for a top-up).
// A lease is sized to what the client spent here lately, over leaseTTL (two
// for day and month units), and at least leaseBatch requests' worth. Every
// call takes fresh rate and minute units: a request's call gives back what
// is left of them now; a top-up lets them be spent until it lands (apply).
func (s *leaseState) args(need [4]int64, now time.Time, background bool) *leaseArgs {
	if !background {
		s.lapse()
		// Day and month units too few for this request go back, so that
		// fragments held by replicas join again in Redis.
		for _, i := range [...]int{bDay, bMonth} {
			if s.have[i] < need[i] {
				s.ret[i] += s.have[i]
				s.have[i] = 0
			}
		}
	}
	a := &leaseArgs{ret: s.ret}
	s.ret = [4]int64{}
	secs := now.Sub(s.since).Seconds()
	for i := range need {
		a.need[i] = max(0, need[i]-s.have[i])
		want := leaseBatch * max(s.per[i], need[i], 1)
		if secs > 0.05 {
			horizon := leaseTTL.Seconds() // what the next period will spend
			if i >= bDay {
				horizon *= 2
			}
			want = max(want, int64(float64(s.spent[i])/secs*horizon))
		}
		if i >= bDay {
			want -= s.have[i] // kept
		}
		a.want[i] = max(a.need[i], want)
		s.target[i] = a.want[i]
		if i >= bDay {
			s.target[i] += s.have[i]
		}
	}
	if secs > 0.05 {
		s.spent, s.since = [4]int64{}, now
	}
	return a
}

// apply adds a granted lease.
func (s *leaseState) apply(a *leaseArgs, rep leaseReply, now time.Time) {
	if !rep.ok {
		s.refused = rep
		s.refusedUntil = now.Add(min(max(rep.wait, time.Millisecond), time.Second))
		return
	}
	for _, i := range [...]int{bRate, bMinute} {
		s.ret[i] += s.have[i] // what a top-up's wait left over
		s.have[i] = 0
	}
	for i := range s.have {
		s.have[i] += rep.grant[i]
	}
	s.left = rep.left
	s.exp = now.Add(leaseTTL)
	s.refusedUntil = time.Time{}
}

// low reports whether a top-up should be leased in the background: the
// rate and minute units are past three quarters of their time, or a budget
// holds less than half a lease while Redis has plenty left.
func (s *leaseState) low(need [4]int64, now time.Time) bool {
	if (need[bRate] > 0 || need[bMinute] > 0) && now.After(s.exp.Add(-leaseTTL/4)) {
		return true
	}
	for i, n := range need {
		if n > 0 && s.have[i]*2 < s.target[i] && s.left[i] > s.target[i] {
			return true
		}
	}
	return false
}

// result reports a spend or a refusal with the client's counters: what
// Redis had left plus what this replica holds.
func (s *leaseState) result(r rule, allowed bool) result {
	res := result{allowed: true, minuteLeft: -1, rateLeft: -1}
	left := s.left
	if !allowed {
		f := s.refused.failed
		res.allowed, res.failed, res.retryAfter = false, budgetNames[f], s.refused.wait
		left[f] = s.refused.left[f]
	}
	if r.rps > 0 {
		res.rateLeft = left[bRate] + s.have[bRate]
	}
	if r.cuPerSec > 0 {
		res.minuteLeft = left[bMinute] + s.have[bMinute]
	}
	res.dayUsed = r.day - left[bDay] - s.have[bDay]
	res.monthUsed = r.month - left[bMonth] - s.have[bMonth]
	return res
}

// leaseDecide decides in process from the client's leases, leasing more from
// Redis when they do not cover the request (request: as Limiter.decide). An
// error means Redis failed.
func (l *Limiter) leaseDecide(id string, r *rule, cost int64, request bool, now time.Time) (result, error) {
	day, month, _, _ := windows(now)
	need := r.needs(cost)
	if !request {
		need[bRate] = 0 // extra compute units of a request already counted
	}
	e := l.leases.get(id, now)
	s := &e.s
	s.mu.Lock()
	for {
		if s.dead {
			s.mu.Unlock()
			e = l.leases.get(id, now)
			s = &e.s
			s.mu.Lock()
			continue
		}
		s.refresh(*r, now, day, month)
		if s.covers(need) {
			for i, n := range need {
				s.have[i] -= n
				s.spent[i] += n
			}
			s.per = need
			res := s.result(*r, true)
			if s.flight == nil && s.low(need, now) && !l.closing.Load() {
				l.lease(id, s, [4]int64{}, now, true)
			}
			s.mu.Unlock()
			return res, nil
		}
		if now.Before(s.refusedUntil) {
			f := s.refused.failed
			if need[f]-s.have[f] > s.refused.left[f] {
				res := s.result(*r, false)
				s.mu.Unlock()
				return res, nil
			}
		}
		if ch := s.flight; ch != nil {
			s.mu.Unlock()
			if !l.await(ch) {
				return result{}, errRedisSlow
			}
			s.mu.Lock()
			continue
		}
		if err := l.lease(id, s, need, now, false); err != nil {
			s.mu.Unlock()
			return result{}, err
		}
	}
}

// errRedisSlow is a lease call that outlived Options.RedisTimeout: a hung
// Redis is treated as a failing one.
var errRedisSlow = errors.New("limits: redis did not answer in time")

// lease makes one lease call for s, with s.mu held. In the background it
// returns at once; otherwise it waits, s.mu released meanwhile, at most
// RedisTimeout (and a little), and returns with s.mu held again.
func (l *Limiter) lease(id string, s *leaseState, need [4]int64, now time.Time, background bool) error {
	a := s.args(need, now, background)
	r := s.rule
	ch := make(chan struct{})
	s.flight = ch
	var err error // set before ch is closed
	call := func() {
		ctx, cancel := context.WithTimeout(context.Background(), l.opts.RedisTimeout)
		start := time.Now()
		rep, cerr := leaseCall(ctx, l.opts.Redis, l.opts.Prefix, id, &r, 2*l.opts.Replicas, a, now)
		cancel()
		l.m.redisLatency.Observe(time.Since(start).Seconds())
		l.m.leaseCalls.Inc()
		s.mu.Lock()
		switch {
		case cerr == nil && s.dead && rep.ok:
			// Evicted during the call: the grant goes back too.
			l.queueReturn(pendingReturn{id: id, rule: r, day: s.day, month: s.month, args: leaseArgs{ret: rep.grant}})
		case cerr != nil:
			for i := range s.ret {
				s.ret[i] += a.ret[i]
			}
		case s.rule == r:
			s.apply(a, rep, now)
		case rep.ok:
			// The plan changed during the call: give it all back.
			for i := range s.ret {
				s.ret[i] += rep.grant[i]
			}
		}
		s.flight = nil
		err = cerr
		close(ch)
		s.mu.Unlock()
		if cerr != nil && background {
			l.redisFailed(cerr, now)
		}
	}
	if l.closing.Load() {
		s.mu.Unlock()
		call()
		s.mu.Lock()
		return err
	}
	l.wg.Add(1)
	go func() {
		defer l.wg.Done()
		call()
	}()
	if background {
		return nil
	}
	s.mu.Unlock()
	if !l.await(ch) {
		s.mu.Lock()
		return errRedisSlow
	}
	s.mu.Lock()
	return err
}

// await waits for a lease call to end, at most a little longer than
// RedisTimeout (go-redis may not honour the context's deadline on a hung
// connection), and reports whether it ended.
func (l *Limiter) await(ch chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
	}
	t := time.NewTimer(l.opts.RedisTimeout + 10*time.Millisecond)
	defer t.Stop()
	select {
	case <-ch:
		return true
	case <-t.C:
		return false
	}
}

// pendingReturn is what an evicted client's leases give back.
type pendingReturn struct {
	id         string
	rule       rule
	day, month string // the windows of the day and month units
	args       leaseArgs
}

// evictLease marks an evicted client's state dead and queues its units to
// go back to Redis.
func (l *Limiter) evictLease(id string, e *entry[leaseState]) {
	s := &e.s
	s.mu.Lock()
	defer s.mu.Unlock()
	s.dead = true
	var a leaseArgs
	some := false
	for i := range s.have {
		a.ret[i] = s.ret[i] + s.have[i]
		some = some || a.ret[i] > 0
	}
	if !some {
		return
	}
	l.queueReturn(pendingReturn{id: id, rule: s.rule, day: s.day, month: s.month, args: a})
}

func (l *Limiter) queueReturn(p pendingReturn) {
	l.returnsMu.Lock()
	l.returns = append(l.returns, p)
	l.returnsMu.Unlock()
}

// flushReturns gives queued units back to Redis, off the request path.
func (l *Limiter) flushReturns(ctx context.Context, now time.Time) {
	l.returnsMu.Lock()
	rs := l.returns
	l.returns = nil
	l.returnsMu.Unlock()
	day, month, _, _ := windows(now)
	for _, p := range rs {
		if p.day != day {
			p.args.ret[bDay] = 0 // its window is over
		}
		if p.month != month {
			p.args.ret[bMonth] = 0
		}
		if ctx.Err() != nil {
			return
		}
		if _, err := leaseCall(ctx, l.opts.Redis, l.opts.Prefix, p.id, &p.rule, 2*l.opts.Replicas, &p.args, now); err != nil {
			l.log.Warn("limits: leases not given back", "err", err)
			return
		}
		l.m.leaseCalls.Inc()
	}
}
