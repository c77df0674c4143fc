package usage

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/avaedge/avaedge/internal/redistest"
)

// redisMeter is a meter on a real Redis (miniredis without one) with the
// given caps, and the Redis client.
func redisMeter(t *testing.T, clk *clock, o Options) (*Meter, *redis.Client) {
	t.Helper()
	rs := redistest.Start(t)
	rdb := redis.NewClient(&redis.Options{Addr: rs.Addr})
	t.Cleanup(func() { rdb.Close() })
	o.Redis, o.Now, o.FlushInterval = rdb, clk.Now, time.Hour
	m, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m, rdb
}

// logKey is alice's sorted set of log lines.
func logKey(m *Meter) string { return m.store.(*redisStore).base("key:alice") + "lines" }

// recordAt records n of alice's requests from at on, one a millisecond,
// and flushes.
func recordAt(t *testing.T, m *Meter, at time.Time, n int, tag string) {
	t.Helper()
	for i := 0; i < n; i++ {
		rec := traffic[0].record(i)
		rec.Start, rec.RequestID = at.Add(time.Duration(i)*time.Millisecond), fmt.Sprintf("%s-%d", tag, i)
		m.Record(rec)
	}
	if err := m.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// TestRedisLogCaps: a key's lines in Redis stay within LogsPerKey and
// LogBytesPerKey (trimmed oldest first, to a sixteenth below the cap), and
// lines older than LogMaxAge go with the next write.
func TestRedisLogCaps(t *testing.T) {
	clk := &clock{t: t0.Add(time.Minute)}
	m, rdb := redisMeter(t, clk, Options{LogsPerKey: 1600, LogMaxAge: time.Hour})
	ctx := context.Background()
	for round := 0; round < 5; round++ {
		recordAt(t, m, t0.Add(time.Duration(round)*time.Second), 700, "c"+strconv.Itoa(round))
		n := rdb.ZCard(ctx, logKey(m)).Val()
		if n > 1600 || (round >= 3 && n < 1500) {
			t.Fatalf("round %d: %d lines kept; want at most 1,600 and, once past it, at least 1,500", round, n)
		}
	}
	newest, _ := rdb.Do(ctx, "ZREVRANGEBYLEX", logKey(m), "+", "-", "LIMIT", 0, 1).StringSlice()
	if len(newest) != 1 || !strings.Contains(newest[0], " c4-699 ") {
		t.Fatalf("newest line %q; want the last written", newest)
	}

	// Bytes: lines of ~400 bytes under a 100,000-byte cap.
	m2, rdb2 := redisMeter(t, clk, Options{LogsPerKey: 10_000, LogBytesPerKey: 100_000, LogMaxAge: time.Hour})
	recordAt(t, m2, t0, 900, "b")
	var bytes int
	for _, l := range rdb2.ZRange(ctx, logKey(m2), 0, -1).Val() {
		bytes += len(l)
	}
	if bytes > 100_000 || bytes < 90_000 {
		t.Fatalf("%d bytes of lines kept; want at most 100,000 and at least 90,000", bytes)
	}

	// Age: an hour later the next write leaves none of the earlier lines.
	clk.t = t0.Add(61*time.Minute + time.Second)
	recordAt(t, m2, clk.t, 3, "late")
	if all := rdb2.ZRange(ctx, logKey(m2), 0, -1).Val(); len(all) != 3 {
		t.Fatalf("%d lines after LogMaxAge; want only the 3 new ones", len(all))
	}
	if ttl := rdb2.TTL(ctx, logKey(m2)).Val(); ttl <= time.Hour || ttl > time.Hour+4*time.Minute {
		t.Fatalf("the lines' TTL is %v; want LogMaxAge and a sixteenth", ttl)
	}
}

// TestRedisCommandsPerBatch: a flush costs Redis a few commands per key,
// script internals included (INFO commandstats), whatever the number of
// requests it counts: 10,000 requests of one key in one flush, and 3,000 of
// each of three keys.
func TestRedisCommandsPerBatch(t *testing.T) {
	rs := redistest.Start(t)
	rs.RequireReal()
	rdb := rs.Client()
	clk := &clock{t: t0.Add(2 * time.Minute)}
	m, err := New(Options{Redis: rdb, Now: clk.Now, FlushInterval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	ctx := context.Background()
	for _, c := range []struct{ keys, each int }{{1, 10_000}, {3, 3_000}} {
		for k := 0; k < c.keys; k++ {
			for i := 0; i < c.each; i++ {
				r := traffic[0]
				r.key = "key" + strconv.Itoa(k)
				rec := r.record(i)
				rec.RequestID = fmt.Sprintf("%d-%d-%d", c.keys, k, i)
				m.Record(rec)
			}
		}
		rdb.ConfigResetStat(ctx)
		if err := m.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		var calls, trims int64
		var names []string
		for _, line := range strings.Split(rdb.Info(ctx, "commandstats").Val(), "\n") {
			if name, rest, ok := strings.Cut(line, ":calls="); ok {
				name = strings.TrimPrefix(name, "cmdstat_")
				n, _ := strconv.ParseInt(rest[:strings.IndexByte(rest, ',')], 10, 64)
				if name == "zrange" || name == "zremrangebyrank" {
					trims += n
				} else if name != "config|resetstat" {
					calls += n
				}
				names = append(names, name+" "+strconv.FormatInt(n, 10))
			}
		}
		// Per key: the script's calls (one per 1,000 lines), each with the
		// meta hash's HMGET and HSET and a ZADD; in the last, HMGET, HSET
		// and EXPIRE (new) of three counter hashes; the first time, the
		// TTLs of the meta hash and lines (ZCARD, HGETALL, two EXPIRE);
		// then SADD and EXPIRE of the day, the connection's HELLO and the
		// script's load. Trimming
		// reads and removes 256 lines a command pair.
		parts := int64((c.each + logsPerCall - 1) / logsPerCall)
		want := int64(c.keys)*(parts*4+9+4) + 4
		t.Logf("%d keys × %d requests: %d commands (%.4f a request) and %d trimming: %s", c.keys, c.each, calls,
			float64(calls)/float64(c.keys*c.each), trims, strings.Join(names, ", "))
		if calls > want || trims > 2*int64(c.keys)*(int64(c.each)/256+parts) {
			t.Errorf("%d keys × %d requests cost %d commands and %d trimming; want at most %d and %d", c.keys, c.each, calls, trims,
				want, 2*int64(c.keys)*(int64(c.each)/256+parts))
		}
	}
	// The lines and counts are all there.
	if total := minuteTotal(t, m, "key0"); total != 13_000 {
		t.Errorf("key0's usage = %d requests; want 13,000", total)
	}
	if n := rdb.ZCard(ctx, m.store.(*redisStore).base("key:key0")+"lines").Val(); n < 9375 || n > 10_000 {
		t.Errorf("key0 has %d of its 13,000 lines; want 9,375 to 10,000 (trimmed to a sixteenth below the cap)", n)
	}
}

// TestRedisCountersBeforePacking: counters written one field per counter
// (HINCRBY, before they were packed) are read and added to packed ones.
func TestRedisCountersBeforePacking(t *testing.T) {
	clk := &clock{t: t0.Add(2 * time.Minute)}
	m, rdb := redisMeter(t, clk, Options{})
	s := m.store.(*redisStore)
	d := dims{"data", "/v1/chains/{chainId}/blocks", "200", "43114", "", "", "cache"}.encode()
	for _, lv := range []level{minuteLevel, hourLevel, dayLevel} {
		start := t0.Unix() / levels[lv].seconds * levels[lv].seconds
		rdb.HSet(context.Background(), s.bucketKey("key:alice", lv, start), d+sep+"n", 5, d+sep+"ok", 5, d+sep+"cu", 50)
	}
	m.Record(traffic[0].record(0))
	m.Flush(context.Background())
	_, body := ask(t, m, opUsage, "alice", url.Values{"timeInterval": {"minute"}})
	if !strings.Contains(string(body), `"totalRequests":6,`) || !strings.Contains(string(body), `"apiCreditsUsed":60,`) {
		t.Fatalf("alice's minute = %s; want 6 requests and 60 CU (5 and 50 before packing)", body)
	}
}
