package usage

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// redisStore keeps usage in Redis, shared by every replica. Each key's data
// lives under one hash tag, so one Lua call per key and batch applies it
// atomically, also on a Redis Cluster:
//
//	<p>{<tag>}:<identity>:m:<unix minute start>  hash, counters of a minute; expires 48h after it began
//	<p>{<tag>}:<identity>:h:<unix hour start>    hash, counters of an hour; 35 days
//	<p>{<tag>}:<identity>:d:<unix day start>     hash, counters of a UTC day; 400 days
//	<p>{<tag>}:<identity>:lines                  sorted set of log lines (see member), capped by
//	                                              count and bytes, none older than LogMaxAge
//	<p>{<tag>}:<identity>:meta                   hash: per replica "<last batch applied> <unix ms>" (a
//	                                              retried batch is applied once), and the lines'
//	                                              count n, bytes b, oldest time t (ms) and when the
//	                                              TTLs were last set x (ms)
//	<p>keys:<unix day start>                     set of the identities with usage that day; 400 days
//
// where <p> is "<prefix>:usage:" and <tag> the first 16 hex digits of the
// identity's SHA-256. A counter field is a dims (dims.encode) holding its
// counters as "name=value,..." (packCounters); a field "<dims>\x1f<name>"
// holding one integer, as written before, is still read.
//
// A batch costs Redis a fixed number of commands per key it names, however
// many requests it counts: the call, HMGET and HSET of the meta hash, one
// ZADD per logsPerCall lines, and HMGET and HSET of each of the three
// counter hashes (EXPIRE only when one is created; trimming, three commands,
// only when the lines overflow a cap, by a sixteenth of it, or age). The
// lines' bytes are counted as written and, when lines are trimmed, taken
// off at the average line's size: the byte cap holds to that estimate.
type redisStore struct {
	rdb            redis.UniversalClient
	prefix         string
	replica        string
	logsPerKey     int
	logBytesPerKey int64
	logMaxAge      time.Duration
	// loaded says applyScript was loaded (guarded by the meter's flushMu,
	// held by every write): a pipeline of script calls by digest cannot
	// fall back to sending the script.
	loaded bool
}

// applyScript applies one key's part of a batch unless this replica already
// applied it. KEYS: meta hash, lines set, then the counter hashes. ARGV:
// replica, part sequence, the caps on lines and bytes, the oldest time a
// line may have (ms), now (ms), the lines' TTL (s), the oldest time of the
// part's lines, their number, the lines (members), then per counter hash:
// its TTL in seconds (what is left of its retention by the meter's clock),
// its number of fields, and the field/packed-counters pairs.
var applyScript = redis.NewScript(`
local function merge(a, b)
  local s, out = {}, {}
  for _, p in ipairs({a, b}) do
    for k, v in string.gmatch(p, '(%w+)=(%-?%d+)') do s[k] = (s[k] or 0) + tonumber(v) end
  end
  for k, v in pairs(s) do out[#out + 1] = k .. '=' .. string.format('%d', v) end
  table.sort(out)
  return table.concat(out, ',')
end
local m = redis.call('HMGET', KEYS[1], ARGV[1], 'n', 'b', 't', 'x')
if tonumber(ARGV[2]) <= tonumber(string.match(m[1] or '0', '^%d+') or '0') then return 0 end
local now, ttl = tonumber(ARGV[6]), tonumber(ARGV[7])
local n, b, t, x = tonumber(m[2] or '0'), tonumber(m[3] or '0'), tonumber(m[4] or '0'), tonumber(m[5] or '0')
local nl, i = tonumber(ARGV[9]), 10
if nl > 0 then
  local z, bytes = {}, 0
  for j = 1, nl do
    local l = ARGV[i + j - 1]
    z[2 * j - 1], z[2 * j], bytes = 0, l, bytes + #l
  end
  local added = redis.call('ZADD', KEYS[2], unpack(z))
  n, b = n + added, b + math.floor(bytes * added / nl)
  local oldest = tonumber(ARGV[8])
  if t == 0 or oldest < t then t = oldest end
  i = i + nl
end
local maxn, maxb, mint = tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
local trimmed = false
if t > 0 and t < mint then
  -- Lines older than LogMaxAge go, counted at the average line's size.
  local avg = b / math.max(n, 1)
  local r = redis.call('ZREMRANGEBYLEX', KEYS[2], '-', '(' .. string.format('%016d', mint))
  n, b, trimmed = n - r, b - math.floor(r * avg), true
end
if n > maxn or b > maxb then
  -- Over a cap: the oldest lines go, to a sixteenth below both caps.
  local avg = b / math.max(n, 1)
  local k = math.max(n - (maxn - math.floor(maxn / 16)), math.ceil((b - (maxb - math.floor(maxb / 16))) / math.max(avg, 1)))
  k = math.min(k, n)
  if k > 0 then redis.call('ZREMRANGEBYRANK', KEYS[2], 0, k - 1) end
  n, b, trimmed = n - k, b - math.floor(k * avg), true
end
if trimmed then
  local o = redis.call('ZRANGE', KEYS[2], 0, 0)
  t = 0
  if o[1] then t = tonumber(string.sub(o[1], 1, 16)) or 0 end
  if n <= 0 or t == 0 then n, b = 0, 0 end
end
local refresh = now - x > ttl * 1000 / 16
if refresh then
  n = redis.call('ZCARD', KEYS[2])
  -- Replicas that wrote nothing for a day are forgotten.
  local all, gone = redis.call('HGETALL', KEYS[1]), {}
  for j = 1, #all, 2 do
    local at = tonumber(string.match(all[j + 1], ' (%d+)$') or '')
    if at and now - at > 86400000 then gone[#gone + 1] = all[j] end
  end
  if #gone > 0 then redis.call('HDEL', KEYS[1], unpack(gone)) end
  x = now
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2] .. ' ' .. ARGV[6], 'n', n, 'b', b, 't', t, 'x', x)
if refresh then
  local keep = ttl + math.floor(ttl / 16)
  redis.call('EXPIRE', KEYS[1], keep)
  redis.call('EXPIRE', KEYS[2], keep)
end
for k = 3, #KEYS do
  local bttl, nd = ARGV[i], tonumber(ARGV[i + 1])
  i = i + 2
  local f = {}
  for j = 1, nd do f[j] = ARGV[i + 2 * j - 2] end
  local cur = redis.call('HMGET', KEYS[k], unpack(f))
  local set, fresh = {}, true
  for j = 1, nd do
    local v = ARGV[i + 2 * j - 1]
    if cur[j] then
      fresh, v = false, merge(cur[j], v)
    end
    set[2 * j - 1], set[2 * j] = f[j], v
  end
  redis.call('HSET', KEYS[k], unpack(set))
  if fresh then redis.call('EXPIRE', KEYS[k], bttl) end
  i = i + 2 * nd
end
return 1
`)

// logsPerCall bounds the log lines of one script call (about 50 KB); a
// key's lines beyond it go in further calls (parts) of the same batch, so
// no call holds Redis for long (a quarter of a millisecond on a quiet
// machine; 2-5 ms, at worst 20, measured on this 2-core VM at load 10-15).
const logsPerCall = 128

func (s *redisStore) base(identity string) string {
	sum := sha256.Sum256([]byte(identity))
	return s.prefix + "{" + hex.EncodeToString(sum[:8]) + "}:" + identity + ":"
}

func (s *redisStore) bucketKey(identity string, lv level, start int64) string {
	return s.base(identity) + levels[lv].name + ":" + strconv.FormatInt(start, 10)
}

func (s *redisStore) write(ctx context.Context, b *batch, now time.Time) error {
	if !s.loaded {
		if err := applyScript.Load(ctx, s.rdb).Err(); err != nil {
			return fmt.Errorf("usage: redis: %w", err)
		}
		s.loaded = true
	}
	err := s.apply(ctx, b, now)
	if err != nil && redis.HasErrorPrefix(err, "NOSCRIPT") {
		// Redis lost its scripts (a restart, SCRIPT FLUSH): load it and
		// write again; the parts already applied are skipped.
		if err = applyScript.Load(ctx, s.rdb).Err(); err == nil {
			err = s.apply(ctx, b, now)
		}
	}
	if err != nil {
		return fmt.Errorf("usage: redis: %w", err)
	}
	return nil
}

// scriptCall is one call of applyScript.
type scriptCall struct {
	keys  []string
	args  []any
	lines int // log lines it writes
}

// A pipeline holds at most callsPerPipeline script calls and logsPerCall
// lines in all (Redis runs a pipeline's commands one after another, other
// clients waiting): a batch of many keys or lines goes in short round trips,
// a fraction of a millisecond of Redis each, between which other clients are
// served, rather than one that holds Redis for long or outlasts the client's
// read timeout (200ms), which the guard would take for a hung Redis.
const callsPerPipeline = 16

// apply writes b: a script call per key and logsPerCall lines, by digest,
// in short pipelines, each followed by a pause as long as it took, then the
// day sets.
func (s *redisStore) apply(ctx context.Context, b *batch, now time.Time) error {
	calls, days := s.calls(b, now)
	for len(calls) > 0 {
		n, lines := 0, 0
		for n < len(calls) && n < callsPerPipeline && (n == 0 || lines+calls[n].lines <= logsPerCall) {
			lines += calls[n].lines
			n++
		}
		pipe := s.rdb.Pipeline()
		cmds := make([]*redis.Cmd, n)
		for i, c := range calls[:n] {
			cmds[i] = applyScript.EvalSha(ctx, pipe, c.keys, c.args...)
		}
		calls = calls[n:]
		if len(calls) == 0 {
			for day, ids := range days {
				k := s.prefix + "keys:" + strconv.FormatInt(day, 10)
				pipe.SAdd(ctx, k, ids...)
				pipe.Expire(ctx, k, time.Duration(ttl(day, dayLevel, now))*time.Second)
			}
		}
		start := time.Now()
		if _, err := pipe.Exec(ctx); err != nil {
			return err
		}
		for _, c := range cmds {
			if c.Err() != nil {
				return c.Err()
			}
		}
		if len(calls) > 0 {
			// As long again idle: the writer keeps Redis busy at most half
			// the time, so a large batch does not starve other clients.
			if err := pause(ctx, time.Since(start)); err != nil {
				return err
			}
		}
	}
	return nil
}

// pause waits d, or until ctx is done.
func pause(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// calls are the script calls that write b, each key's in order (its parts
// numbered after the batch), and the identities with usage by day.
func (s *redisStore) calls(b *batch, now time.Time) ([]scriptCall, map[int64][]any) {
	byID := map[string][]bucketKey{}
	for k := range b.counts {
		byID[k.identity] = append(byID[k.identity], k)
	}
	for id := range b.logs {
		if _, ok := byID[id]; !ok {
			byID[id] = nil
		}
	}
	head := []any{s.replica, 0, s.logsPerKey, s.logBytesPerKey, now.Add(-s.logMaxAge).UnixMilli(), now.UnixMilli(),
		int64(s.logMaxAge / time.Second)}
	days := map[int64][]any{}
	var calls []scriptCall
	for id, bks := range byID {
		base := s.base(id)
		lines := b.logs[id]
		for n := 0; n == 0 || len(lines) > 0; n++ {
			chunk := lines[:min(len(lines), logsPerCall)]
			lines = lines[len(chunk):]
			c := scriptCall{keys: []string{base + "meta", base + "lines"}, lines: len(chunk)}
			c.args = append(append(make([]any, 0, len(head)+2+len(chunk)), head...), oldest(chunk), len(chunk))
			c.args[1] = b.seq<<16 | uint64(n)
			for i := range chunk {
				c.args = append(c.args, member(&chunk[i]))
			}
			if len(lines) == 0 { // the last part carries the counters
				for _, k := range bks {
					c.keys = append(c.keys, s.bucketKey(id, k.level, k.start))
					packed := packCounters(b.counts[k])
					c.args = append(c.args, ttl(k.start, k.level, now), len(packed)/2)
					c.args = append(c.args, packed...)
					if k.level == dayLevel {
						days[k.start] = append(days[k.start], id)
					}
				}
			}
			calls = append(calls, c)
		}
	}
	return calls, days
}

// oldest is the time of the oldest of lines (0 when none).
func oldest(lines []logLine) int64 {
	var t int64
	for i := range lines {
		if t == 0 || lines[i].At < t {
			t = lines[i].At
		}
	}
	return t
}

// ttl is what is left of a bucket's retention at now, in seconds (at least
// one).
func ttl(start int64, lv level, now time.Time) int64 {
	return max(1, start+int64(levels[lv].retention/time.Second)-now.Unix())
}

func (s *redisStore) buckets(ctx context.Context, identity string, lv level, from, to int64) (map[int64]map[string]int64, error) {
	step := levels[lv].seconds
	pipe := s.rdb.Pipeline()
	starts := []int64{}
	var cmds []*redis.MapStringStringCmd
	for t := from / step * step; t < to; t += step {
		starts = append(starts, t)
		cmds = append(cmds, pipe.HGetAll(ctx, s.bucketKey(identity, lv, t)))
	}
	if len(cmds) == 0 {
		return map[int64]map[string]int64{}, nil
	}
	if _, err := pipe.Exec(ctx); err != nil {
		return nil, fmt.Errorf("usage: redis: %w", err)
	}
	out := map[int64]map[string]int64{}
	for i, c := range cmds {
		if len(c.Val()) == 0 {
			continue
		}
		f := make(map[string]int64, len(c.Val()))
		for k, v := range c.Val() {
			unpackCounters(k, v, f)
		}
		out[starts[i]] = f
	}
	return out, nil
}

func (s *redisStore) logs(ctx context.Context, identity string, q logQuery) ([]logLine, error) {
	hi := "(" + lexTime(q.to)
	if q.after != nil {
		if b := "(" + lexTime(q.after.At) + " " + q.after.ID + " "; b < hi {
			hi = b
		}
	}
	lo := "-"
	if q.from > 0 {
		lo = "[" + lexTime(q.from)
	}
	ms, err := s.rdb.ZRevRangeByLex(ctx, s.base(identity)+"lines", &redis.ZRangeBy{Max: hi, Min: lo, Count: int64(q.limit)}).Result()
	if err != nil {
		return nil, fmt.Errorf("usage: redis: %w", err)
	}
	out := make([]logLine, 0, len(ms))
	for _, m := range ms {
		if l, ok := parseMember(m); ok {
			out = append(out, l)
		}
	}
	return out, nil
}

func (s *redisStore) identities(ctx context.Context, from, to int64) ([]string, error) {
	pipe := s.rdb.Pipeline()
	var cmds []*redis.StringSliceCmd
	for day := from / 86400 * 86400; day < to; day += 86400 {
		cmds = append(cmds, pipe.SMembers(ctx, s.prefix+"keys:"+strconv.FormatInt(day, 10)))
	}
	if len(cmds) == 0 {
		return nil, nil
	}
	if _, err := pipe.Exec(ctx); err != nil {
		return nil, fmt.Errorf("usage: redis: %w", err)
	}
	seen := map[string]struct{}{}
	for _, c := range cmds {
		for _, id := range c.Val() {
			seen[id] = struct{}{}
		}
	}
	return slices.Sorted(maps.Keys(seen)), nil
}
