package limits

import (
	"context"
	"time"

	"github.com/redis/go-redis/v9"
)

// decideScript makes one decision atomically with Redis TIME as the clock:
// the request-rate GCRA, the per-minute CU GCRA, and the UTC day and month
// CU windows (their keys named by the caller). A refusal by any limit
// consumes nothing from the others. Times are in microseconds.
//
// KEYS: rate tat, cu tat, day counter, month counter (one hash tag).
// ARGV: cost, rate emission, rate burst, cu emission, cu burst, day limit,
// day ttl (s), month limit, month ttl (s).
// Returns: allowed, failed (0 none, 1 rate, 2 minute, 3 day, 4 month),
// retry (us), minute left (-1 unlimited), minute reset (us), rate left,
// day used, month used.
var decideScript = redis.NewScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local cost = tonumber(ARGV[1])
local rem, rburst = tonumber(ARGV[2]), tonumber(ARGV[3])
local cem, cburst = tonumber(ARGV[4]), tonumber(ARGV[5])
local dlim, dttl = tonumber(ARGV[6]), tonumber(ARGV[7])
local mlim, mttl = tonumber(ARGV[8]), tonumber(ARGV[9])

local function gcra(key, em, burst, n)
  local tat = tonumber(redis.call('GET', key) or '0')
  if tat < now then tat = now end
  local new_tat = tat + em * n
  local diff = now - (new_tat - burst)
  if diff < 0 then return false, new_tat, 0, -diff, tat - now end
  return true, new_tat, math.floor(diff / em), 0, new_tat - now
end

local allowed, failed, retry = 1, 0, 0
local rate_ok, rate_tat, rate_left = true, 0, -1
if rem > 0 then
  local r
  rate_ok, rate_tat, rate_left, r = gcra(KEYS[1], rem, rburst, 1)
  if not rate_ok then allowed, failed, retry = 0, 1, r end
end
local cu_ok, cu_tat, cu_left, cu_reset = true, 0, -1, 0
if cem > 0 and cost > 0 then
  local r
  cu_ok, cu_tat, cu_left, r, cu_reset = gcra(KEYS[2], cem, cburst, cost)
  if not cu_ok and allowed == 1 then allowed, failed, retry = 0, 2, r end
end
local day = tonumber(redis.call('GET', KEYS[3]) or '0')
local month = tonumber(redis.call('GET', KEYS[4]) or '0')
if dlim > 0 and day + cost > dlim and allowed == 1 then allowed, failed, retry = 0, 3, dttl * 1000000 end
if mlim > 0 and month + cost > mlim and allowed == 1 then allowed, failed, retry = 0, 4, mttl * 1000000 end
if allowed == 1 then
  if rem > 0 then redis.call('SET', KEYS[1], rate_tat, 'PX', math.ceil((rate_tat - now) / 1000) + 1) end
  if cem > 0 and cost > 0 then redis.call('SET', KEYS[2], cu_tat, 'PX', math.ceil((cu_tat - now) / 1000) + 1) end
  if cost > 0 then
    day = redis.call('INCRBY', KEYS[3], cost)
    redis.call('EXPIRE', KEYS[3], dttl + 3600)
    month = redis.call('INCRBY', KEYS[4], cost)
    redis.call('EXPIRE', KEYS[4], mttl + 86400)
  end
end
return {allowed, failed, retry, cu_left, cu_reset, rate_left, day, month}
`)

var failedNames = [...]string{"", "rate", "minute", "day", "month"}

// redisKeys names an identity's keys; one hash tag keeps them in one Cluster
// slot.
func redisKeys(prefix, id, day, month string) []string {
	tag := "{" + prefix + "|limits|" + id + "}"
	return []string{tag + "|rate", tag + "|cu", tag + "|day|" + day, tag + "|month|" + month}
}

func redisDecide(ctx context.Context, rdb redis.UniversalClient, prefix, id string, r rule, cost int64, now time.Time) (result, error) {
	day, month, dayLeft, monthLeft := windows(now)
	us := func(d time.Duration) int64 { return d.Microseconds() }
	vals, err := decideScript.Run(ctx, rdb, redisKeys(prefix, id, day, month),
		cost, us(r.rateEmission), us(r.rateBurst), us(r.cuEmission), us(r.cuBurst),
		r.day, int64(dayLeft/time.Second)+1, r.month, int64(monthLeft/time.Second)+1).Int64Slice()
	if err != nil {
		return result{}, err
	}
	res := result{
		allowed:     vals[0] == 1,
		failed:      failedNames[vals[1]],
		retryAfter:  time.Duration(vals[2]) * time.Microsecond,
		minuteLeft:  vals[3],
		minuteReset: time.Duration(vals[4]) * time.Microsecond,
		rateLeft:    vals[5],
		dayUsed:     vals[6],
		monthUsed:   vals[7],
		dayLeft:     dayLeft,
		monthLeft:   monthLeft,
	}
	switch res.failed {
	case "day":
		res.retryAfter = dayLeft
	case "month":
		res.retryAfter = monthLeft
	}
	return res, nil
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
		var n int64
		for _, c := range s {
			if c < '0' || c > '9' {
				break
			}
			n = n*10 + int64(c-'0')
		}
		return n
	}
	return num(vals[0]), num(vals[1]), num(vals[2]), nil
}
