package limits

import (
	"context"
	"net/http"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// Keys nobody issued. Without a keys file any client key is accepted and
// metered on its own (KeysFile.Unmanaged), so that an app that sends its key
// works unchanged; but each new key would be a fresh budget, and one
// address rotating random keys would spend the operator's upstream quota
// without bound. So from one client address (IPv6: its /64) at most
// UnissuedKeys.PerAddress distinct such keys are in use at a time (a key
// counts from its first request until it has been idle from that address
// for UnissuedKeys.Window; a key in use keeps working), and all of them
// together spend at most PerAddress times the plan's day and month budgets.
// One address therefore buys at most PerAddress times one key's plan, per
// minute and per day, beside its anonymous budget.

// UnissuedKeys bounds what keys nobody issued buy from one address.
type UnissuedKeys struct {
	// PerAddress is how many distinct unissued keys one address may have in
	// use. Zero means DefaultUnissuedPerAddress; negative means no bound.
	PerAddress int
	// Window is how long a key stays in use after its last request from
	// the address. Zero means one hour.
	Window time.Duration
}

// DefaultUnissuedPerAddress is UnissuedKeys.PerAddress's default.
const DefaultUnissuedPerAddress = 5

// unissuedScript admits key ARGV[1] for an address whose keys in use are
// the sorted set KEYS[1] (member: the key's hash, score: its last request,
// Redis TIME in µs): keys idle for ARGV[3] µs are dropped; a key in the set,
// or a new one while fewer than ARGV[2] are, is (re)stamped and admitted.
// Returns {1, 0}, or {0, µs until the oldest key lapses}.
var unissuedScript = redis.NewScript(`
local t = redis.call('TIME')
local now = t[1] * 1000000 + t[2]
local window = tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
if redis.call('ZSCORE', KEYS[1], ARGV[1]) or redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[2]) then
  redis.call('ZADD', KEYS[1], now, ARGV[1])
  redis.call('PEXPIRE', KEYS[1], math.ceil(window / 1000))
  return {1, 0}
end
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
return {0, math.ceil(tonumber(oldest[2]) + window - now)}
`)

// keyCap tracks, per address, the unissued keys in use. Without Redis it is
// the authority; with Redis it remembers the keys Redis admitted, so a key
// in use costs one Redis call per keyConfirm on each replica, not one per
// request. A key this replica has not seen asks Redis each time (another
// replica may have admitted it, so a refusal cannot be remembered): a
// client rotating keys costs one small call per request, as a new key's
// first lease always did. It is safe for concurrent use.
type keyCap struct {
	max    int
	window time.Duration
	states table[capState] // by address group
}

// capState is one address's keys in use.
type capState struct {
	liveMu           // guards the fields below
	keys    []capKey // at most max without Redis
	spendID string   // the identity of the address's shared budgets
}

type capKey struct {
	member    string    // the key's hash, as far as the cap needs it
	last      time.Time // its last request here
	confirmed time.Time // when Redis last admitted it (zero without Redis)
}

func newKeyCap(o UnissuedKeys, maxClients int64) *keyCap {
	c := &keyCap{max: o.PerAddress, window: o.Window}
	c.states = table[capState]{max: maxClients, idle: o.Window, evict: func(_ string, e *entry[capState]) { e.s.markDead() }}
	return c
}

// keyConfirm is how often a key in use is stamped again in Redis: a
// sixtieth of the window (a minute of an hour), at least a second.
func (c *keyCap) keyConfirm() time.Duration { return max(c.window/60, time.Second) }

// allow reports whether member may be used from group now, and if not, when
// a key of the group lapses; and the identity of the group's shared budgets
// (made once per group). redisCall, when not nil, asks Redis; its error
// makes the decision in process.
func (c *keyCap) allow(group, member string, now time.Time, redisCall func(ctx context.Context) (bool, time.Duration, error)) (ok bool, retry time.Duration, spendID string) {
	s := getLocked(&c.states, group, now)
	defer s.mu.Unlock()
	if s.spendID == "" {
		s.spendID = "unissued|" + group
	}
	spendID = s.spendID
	// Keys idle for the window have lapsed.
	kept := s.keys[:0]
	for _, k := range s.keys {
		if now.Sub(k.last) < c.window {
			kept = append(kept, k)
		}
	}
	clear(s.keys[len(kept):])
	s.keys = kept
	i := -1
	for j := range s.keys {
		if s.keys[j].member == member {
			i = j
			break
		}
	}
	if redisCall == nil || i >= 0 && now.Sub(s.keys[i].confirmed) < c.keyConfirm() {
		ok, retry = s.decide(i, member, now, c.max, c.window)
		return ok, retry, spendID
	}
	ok, retry, err := redisCall(context.Background())
	switch {
	case err != nil:
		ok, retry = s.decide(i, member, now, c.max, c.window)
		return ok, retry, spendID
	case !ok:
		if i >= 0 {
			s.keys = append(s.keys[:i], s.keys[i+1:]...) // lapsed in Redis
		}
		return false, retry, spendID
	}
	if i < 0 {
		s.keys = append(s.keys, capKey{member: member})
		i = len(s.keys) - 1
	}
	s.keys[i].last, s.keys[i].confirmed = now, now
	return true, 0, spendID
}

// decide is the in-process decision for key i (-1: new), with s.mu held.
func (s *capState) decide(i int, member string, now time.Time, limit int, window time.Duration) (bool, time.Duration) {
	if i >= 0 {
		s.keys[i].last = now
		return true, 0
	}
	if len(s.keys) < limit {
		s.keys = append(s.keys, capKey{member: member, last: now})
		return true, 0
	}
	oldest := s.keys[0].last
	for _, k := range s.keys[1:] {
		if k.last.Before(oldest) {
			oldest = k.last
		}
	}
	return false, oldest.Add(window).Sub(now)
}

// admitUnissued applies the bound on keys in use from the address of
// client, which presented a key nobody issued. It returns a refusal, or a
// zero Decision and the identity of the address's shared budgets, which
// spendUnissued charges once the key's own limits allowed the request (so
// that the key's refusals never cost the address).
func (l *Limiter) admitUnissued(client Client, now time.Time) (Decision, string) {
	member := client.unissuedMember()
	var call func(ctx context.Context) (bool, time.Duration, error)
	if l.opts.Redis != nil && now.UnixNano() >= l.redisUntil.Load() {
		call = func(ctx context.Context) (bool, time.Duration, error) {
			ctx, cancel := context.WithTimeout(ctx, l.opts.RedisTimeout)
			defer cancel()
			vals, err := unissuedScript.Run(ctx, l.opts.Redis, []string{"{" + l.opts.Prefix + "|unissued|" + client.group + "}"},
				member, l.keyCap.max, l.keyCap.window.Microseconds()).Int64Slice()
			l.m.leaseCalls.Inc()
			if err != nil {
				l.redisFailed(err, now)
				return false, 0, err
			}
			return vals[0] == 1, time.Duration(vals[1]) * time.Microsecond, nil
		}
	}
	ok, retry, spendID := l.keyCap.allow(client.group, member, now, call)
	if ok {
		return Decision{}, spendID
	}
	client.plan.limited.Inc()
	window := strconv.FormatInt(int64(l.keyCap.window/time.Second), 10)
	return Decision{Status: http.StatusTooManyRequests, KeyID: client.keyID, Plan: client.plan.plan.Name,
		Message: "Too many API keys from this address: at most " + strconv.Itoa(l.keyCap.max) +
			" keys that this service did not issue may be used from one address within " + l.keyCap.window.String() +
			"; retry after " + seconds(retry) + "s",
		Policy: strconv.Itoa(l.keyCap.max) + ";w=" + window, Limit: int64(l.keyCap.max), Remaining: 0,
		RetryAfter: retry, ResetAfter: retry}, ""
}

// unissuedMember names an unissued key in the bound: the first half of its
// hash (its id is "hash:" and the hex SHA-256).
func (c Client) unissuedMember() string { return c.id[len("hash:") : len("hash:")+32] }

// spendUnissued charges cost to the shared budgets of client's address,
// spendID.
func (l *Limiter) spendUnissued(client Client, spendID string, cost int64, now time.Time) Decision {
	pi := l.keys.Load().unissued
	if pi == nil {
		return Decision{}
	}
	res := l.decide(spendID, pi, cost, true, now, false)
	if res.allowed {
		return Decision{}
	}
	pi.limited.Inc()
	d := Decision{Status: http.StatusTooManyRequests, KeyID: client.keyID, Plan: client.plan.plan.Name, Policy: pi.policy,
		RetryAfter: res.retryAfter, ResetAfter: res.retryAfter}
	fill(&d, &pi.plan, res)
	d.Message = "Rate limit exceeded (" + limitName(res.failed) + " of all the keys this service did not issue used from this address); retry after " +
		seconds(res.retryAfter) + "s"
	return d
}
