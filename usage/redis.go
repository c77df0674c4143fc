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
//	<p>{<tag>}:<identity>:log                    stream of log lines: XADD MAXLEN ~ LogsPerKey,
//	                                              XTRIM MINID ~ (now - LogMaxAge), EXPIRE LogMaxAge
//	<p>{<tag>}:<identity>:seq                    hash, replica -> last batch applied (a retried
//	                                              batch is applied once); 1 day
//	<p>keys:<unix day start>                     set of the identities with usage that day; 400 days
//
// where <p> is "<prefix>:usage:" and <tag> the first 16 hex digits of the
// identity's SHA-256. Counter fields are "<dims>\x1f<counter>" (see
// dims.encode), incremented with HINCRBY.
type redisStore struct {
	rdb        redis.UniversalClient
	prefix     string
	replica    string
	logsPerKey int
	logMaxAge  time.Duration
}

// applyScript applies one key's part of a batch unless this replica already
// applied it. KEYS: seq hash, log stream, then the counter hashes. ARGV:
// replica, part sequence, MAXLEN, MINID (ms), log TTL (s), number of log
// lines, the lines, then per counter hash: its TTL in seconds (what is left
// of its retention by the meter's clock), number of fields, and the
// field/increment pairs.
var applyScript = redis.NewScript(`
local last = tonumber(redis.call('HGET', KEYS[1], ARGV[1]) or '0')
if tonumber(ARGV[2]) <= last then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('EXPIRE', KEYS[1], 86400)
local i = 7
local nlogs = tonumber(ARGV[6])
if nlogs > 0 then
  for j = 1, nlogs do
    redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[3], '*', 'l', ARGV[i])
    i = i + 1
  end
  redis.call('XTRIM', KEYS[2], 'MINID', '~', ARGV[4])
  redis.call('EXPIRE', KEYS[2], ARGV[5])
end
for k = 3, #KEYS do
  local ttl = ARGV[i]
  local n = tonumber(ARGV[i + 1])
  i = i + 2
  for j = 1, n do
    redis.call('HINCRBY', KEYS[k], ARGV[i], ARGV[i + 1])
    i = i + 2
  end
  redis.call('EXPIRE', KEYS[k], ttl)
end
return 1
`)

// logsPerCall bounds the log lines of one script call; a key's lines beyond
// it go in further calls (parts) of the same batch.
const logsPerCall = 1000

func (s *redisStore) base(identity string) string {
	sum := sha256.Sum256([]byte(identity))
	return s.prefix + "{" + hex.EncodeToString(sum[:8]) + "}:" + identity + ":"
}

func (s *redisStore) bucketKey(identity string, lv level, start int64) string {
	return s.base(identity) + levels[lv].name + ":" + strconv.FormatInt(start, 10)
}

func (s *redisStore) write(ctx context.Context, b *batch, now time.Time) error {
	type part struct {
		keys []string
		args []any
	}
	byID := map[string][]bucketKey{}
	for k := range b.counts {
		byID[k.identity] = append(byID[k.identity], k)
	}
	for id := range b.logs {
		if _, ok := byID[id]; !ok {
			byID[id] = nil
		}
	}
	minID := strconv.FormatInt(now.Add(-s.logMaxAge).UnixMilli(), 10)
	logTTL := int64(s.logMaxAge / time.Second)
	days := map[int64][]any{}
	pipe := s.rdb.Pipeline()
	var cmds []*redis.Cmd
	for id, bks := range byID {
		base := s.base(id)
		lines := b.logs[id]
		for n := 0; n == 0 || len(lines) > 0; n++ {
			chunk := lines[:min(len(lines), logsPerCall)]
			lines = lines[len(chunk):]
			p := part{keys: []string{base + "seq", base + "log"},
				args: []any{s.replica, b.seq<<16 | uint64(n), s.logsPerKey, minID, logTTL, len(chunk)}}
			for _, l := range chunk {
				p.args = append(p.args, l.JSON)
			}
			if len(lines) == 0 { // the last part carries the counters
				for _, k := range bks {
					f := b.counts[k]
					p.keys = append(p.keys, s.bucketKey(id, k.level, k.start))
					p.args = append(p.args, ttl(k.start, k.level, now), len(f))
					for name, v := range f {
						p.args = append(p.args, name, v)
					}
					if k.level == dayLevel {
						days[k.start] = append(days[k.start], id)
					}
				}
			}
			cmds = append(cmds, applyScript.Eval(ctx, pipe, p.keys, p.args...))
		}
	}
	for day, ids := range days {
		k := s.prefix + "keys:" + strconv.FormatInt(day, 10)
		pipe.SAdd(ctx, k, ids...)
		pipe.Expire(ctx, k, time.Duration(ttl(day, dayLevel, now))*time.Second)
	}
	if _, err := pipe.Exec(ctx); err != nil {
		return fmt.Errorf("usage: redis: %w", err)
	}
	for _, c := range cmds {
		if c.Err() != nil {
			return fmt.Errorf("usage: redis: %w", c.Err())
		}
	}
	return nil
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
			n, _ := strconv.ParseInt(v, 10, 64)
			f[k] = n
		}
		out[starts[i]] = f
	}
	return out, nil
}

func (s *redisStore) logs(ctx context.Context, identity string) ([]logLine, error) {
	msgs, err := s.rdb.XRange(ctx, s.base(identity)+"log", "-", "+").Result()
	if err != nil {
		return nil, fmt.Errorf("usage: redis: %w", err)
	}
	out := make([]logLine, 0, len(msgs))
	for _, m := range msgs {
		if v, ok := m.Values["l"].(string); ok {
			if l, ok := parseLogLine([]byte(v)); ok {
				out = append(out, l)
			}
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
