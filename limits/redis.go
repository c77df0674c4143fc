package limits

import (
	"context"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// leaseScript leases units of an identity's four budgets to one replica,
// atomically, with Redis TIME as the clock, after taking back what the
// replica returns. The rate and minute budgets are GCRAs (a theoretical
// arrival time, TAT, in microseconds); the day and month budgets are
// counters in keys named by their window. Each budget grants its need plus
// up to want more, in multiples of the need, but never more than 1/div of
// what would be left, so leases shrink as a budget runs out and its last
// units go one request at a time. If any budget cannot give its need,
// nothing is granted (what was returned is still taken back).
//
// KEYS: rate TAT, minute TAT, day counter, month counter (one hash tag).
// ARGV[1]: div; then per budget: p (emission in µs, or the limit), q
// (burst in units, or the key's TTL in s; p = 0: no such limit), return,
// need, want.
// Returns {1, grant x4, left x4}, or {0, budget, wait µs, left} on refusal.
var leaseScript = redis.NewScript(`
local t = redis.call('TIME')
local now = t[1] * 1000000 + t[2]
local div = tonumber(ARGV[1])
local a, cur, left, fail = {}, {}, {}, 0
for i = 1, 4 do
  local o = i * 5 - 3
  local p, q, ret, need, want = tonumber(ARGV[o]), tonumber(ARGV[o + 1]), tonumber(ARGV[o + 2]), tonumber(ARGV[o + 3]), tonumber(ARGV[o + 4])
  a[i] = {p, q, ret, need, want}
  left[i] = 0
  if p > 0 then
    local v = tonumber(redis.call('GET', KEYS[i]) or '0')
    if i < 3 then
      v = math.max(v - ret * p, now)
      left[i] = math.floor((now + q * p - v) / p)
    else
      v = math.max(v - ret, 0)
      left[i] = p - v
    end
    cur[i] = v
    if fail == 0 and need > 0 and need > left[i] then fail = i end
  end
end
local out = {1}
for i = 1, 4 do
  local p, q, ret, need, want = a[i][1], a[i][2], a[i][3], a[i][4], a[i][5]
  local g = 0
  if p > 0 then
    if fail == 0 then
      local per = math.max(need, 1)
      g = need + per * math.max(0, math.floor(math.min(want - need, (left[i] - need) / div) / per))
    end
    if g > 0 or ret > 0 then
      local v = cur[i] + g
      if i < 3 then
        v = cur[i] + g * p
        redis.call('SET', KEYS[i], string.format('%.17g', v), 'PX', math.max(1, math.ceil((v - now) / 1000)))
      else
        redis.call('SET', KEYS[i], string.format('%.17g', v), 'EX', q)
      end
    end
  end
  out[i + 1] = g
  out[i + 5] = left[i] - g
end
if fail > 0 then
  local p, q, need = a[fail][1], a[fail][2], a[fail][4]
  local w = 0
  if fail < 3 then w = cur[fail] + (need - q) * p - now end
  return {0, fail - 1, math.ceil(w), left[fail]}
end
return out
`)

// redisKeys names an identity's keys; one hash tag keeps them in one Cluster
// slot.
func redisKeys(prefix, id, day, month string) []string {
	tag := "{" + prefix + "|limits|" + id + "}"
	return []string{tag + "|rate", tag + "|cu", tag + "|day|" + day, tag + "|month|" + month}
}

// leaseArgs is one lease call: what goes back, what is needed, what is
// wanted, per budget.
type leaseArgs struct {
	ret, need, want [4]int64
}

// leaseReply is what a lease call answered.
type leaseReply struct {
	ok     bool
	grant  [4]int64
	left   [4]int64 // per budget, after the grant (ok); of the refusing budget (!ok)
	failed int      // the refusing budget
	wait   time.Duration
}

// us formats a float in the shortest form Lua's tonumber reads back exactly.
func us(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// leaseCall runs leaseScript for id under r in the windows of now.
func leaseCall(ctx context.Context, rdb redis.Scripter, prefix, id string, r *rule, div int, a *leaseArgs, now time.Time) (leaseReply, error) {
	day, month, dayLeft, monthLeft := windows(now)
	args := make([]any, 0, 21)
	args = append(args, div)
	add := func(i int, p string, q int64) {
		args = append(args, p, q, a.ret[i], a.need[i], a.want[i])
	}
	if r.rps > 0 {
		add(bRate, us(1e6/r.rps), r.burst)
	} else {
		add(bRate, "0", 0)
	}
	if r.cuPerSec > 0 {
		add(bMinute, us(1e6/r.cuPerSec), r.cuBurst)
	} else {
		add(bMinute, "0", 0)
	}
	add(bDay, strconv.FormatInt(r.day, 10), int64(dayLeft/time.Second)+3600)
	add(bMonth, strconv.FormatInt(r.month, 10), int64(monthLeft/time.Second)+86400)
	vals, err := leaseScript.Run(ctx, rdb, redisKeys(prefix, id, day, month), args...).Int64Slice()
	if err != nil {
		return leaseReply{}, err
	}
	var rep leaseReply
	if vals[0] == 0 {
		rep.failed, rep.wait = int(vals[1]), time.Duration(vals[2])*time.Microsecond
		rep.left[rep.failed] = vals[3]
		switch rep.failed {
		case bDay:
			rep.wait = dayLeft
		case bMonth:
			rep.wait = monthLeft
		}
		return rep, nil
	}
	rep.ok = true
	copy(rep.grant[:], vals[1:5])
	copy(rep.left[:], vals[5:9])
	return rep, nil
}

func redisUsage(ctx context.Context, rdb redis.UniversalClient, prefix, id string, now time.Time) (cuTAT int64, day, month int64, err error) {
	d, m, _, _ := windows(now)
	keys := redisKeys(prefix, id, d, m)
	vals, err := rdb.MGet(ctx, keys[1], keys[2], keys[3]).Result()
	if err != nil {
		return 0, 0, 0, err
	}
	num := func(v any) int64 {
		s, _ := v.(string)
		f, _ := strconv.ParseFloat(s, 64)
		return int64(f)
	}
	return num(vals[0]), num(vals[1]), num(vals[2]), nil
}
